/* hsa_submit.c - the hsa device's command buffers and queue execution.
 *
 * A command buffer records copies and fills; they run in order as async copies
 * (hsa_amd_memory_async_copy), each waiting on the one before by signal, and the
 * device's AQL queue then gets one barrier operation that waits on the last copy:
 * its epoch is the execution's completion, which signals the timepoints, and a
 * failed copy or packet fails them (hsa_queue.h). Waits are host timepoints: the
 * execution is launched from the callback of the last one reached.
 *
 * An entry dispatch is its plan's launches (hsa_launch.h) as AQL dispatch packets
 * with their kernargs, ordered among themselves by the schedule and with the
 * commands around them by signals. Entries the driver cannot plan are refused with
 * the planner's reason (docs/gpu.md). */
#ifdef AIR_HAVE_HSA
#include <stdio.h>
#include <string.h>

#include "hal/hsa/hsa_device_impl.h"
#include "hal/semaphore.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

typedef enum cmd_kind_e { CMD_COPY, CMD_FILL, CMD_LAUNCHES } cmd_kind_t;

typedef struct cmd_t {
  uint32_t kind;
  void* dst;
  const void* src; /* device memory (copy) or a staging block holding the pattern (fill) */
  size_t length;
  bool src_on_gpu;
  /* CMD_LAUNCHES: an entry's dispatches plus a trailing barrier (exported), their
   * dependencies and kernarg segments (one block from the kernarg pool). */
  air_hsa_op_t* ops;
  uint32_t n_ops;
  uint32_t* deps;
  void* kernargs;
  void** spills;  /* per dispatch: its generated kernel's L2 spill area, or NULL */
} cmd_t;

typedef struct hsa_cb_t {
  air_command_buffer_t base;
  cmd_t* cmds;
  uint32_t n, cap;
  void** staging; /* fill patterns, freed with the command buffer */
  uint32_t n_staging, cap_staging;
} hsa_cb_t;

static air_hsa_device_t* dev_of(air_command_buffer_t* cb) { return (air_hsa_device_t*)cb->device; }

static void cb_destroy(air_resource_t* r) {
  hsa_cb_t* cb = (hsa_cb_t*)r;
  air_hsa_device_t* d = dev_of(&cb->base);
  for (uint32_t i = 0; i < cb->n_staging; ++i) d->api.hsa_amd_memory_pool_free(cb->staging[i]);
  air_allocator_t a = cb->base.allocator;
  for (uint32_t i = 0; i < cb->n; ++i) {
    if (cb->cmds[i].kind != CMD_LAUNCHES) continue;
    if (cb->cmds[i].kernargs) d->api.hsa_amd_memory_pool_free(cb->cmds[i].kernargs);
    for (uint32_t j = 0; cb->cmds[i].spills && j < cb->cmds[i].n_ops; ++j)
      if (cb->cmds[i].spills[j]) d->api.hsa_amd_memory_pool_free(cb->cmds[i].spills[j]);
    air_mem_free(&a, cb->cmds[i].spills);
    air_mem_free(&a, cb->cmds[i].ops);
    air_mem_free(&a, cb->cmds[i].deps);
  }
  air_mem_free(&a, cb->staging);
  air_mem_free(&a, cb->cmds);
  air_command_buffer_deinit(&cb->base);
  air_mem_free(&a, cb);
}

static air_status_t push(hsa_cb_t* cb, cmd_t c) {
  if (!air_mem_grow(&cb->base.allocator, (void**)&cb->cmds, &cb->cap, (size_t)cb->n + 1,
                    sizeof *cb->cmds))
    return AIR_STATUS_OOM(&cb->base.allocator, "hsa command buffer");
  cb->cmds[cb->n++] = c;
  return NULL;
}

/* An entry's launches as AQL dispatches (hsa_launch.h): kernargs packed now from
 * the bindings, dependencies from the schedule's predecessors (launches without a
 * schedule run in order), then one barrier behind them all. */
static air_status_t cb_dispatch(air_command_buffer_t* base, air_executable_t* exe,
                                uint32_t ordinal, uint32_t n_args, const air_arg_t* args,
                                const air_dispatch_options_t* options, void* transient,
                                uint64_t transient_size) {
  (void)n_args, (void)options, (void)transient, (void)transient_size;
  hsa_cb_t* cb = (hsa_cb_t*)base;
  air_hsa_device_t* d = dev_of(base);
  const air_allocator_t* a = &base->allocator;
  air_hsa_executable_t* x = (air_hsa_executable_t*)exe;
  const air_entry_t* e = &exe->entries[ordinal];
  if (x->refusals[ordinal])
    return AIR_STATUS(a, air_status_code(x->refusals[ordinal]), "%s: entry @%s: %s",
                      base->device->info.name, e->name, air_status_message(x->refusals[ordinal]));
  const air_hsa_plan_t* plan = e->prepared;
  if (!plan || plan->n_launches == 0) return NULL;
  uint32_t n = plan->n_launches;
  size_t total = 0;
  for (uint32_t j = 0; j < n; ++j) total += ((size_t)plan->launches[j].meta->kernarg_segment_size + 63) & ~(size_t)63;
  cmd_t c = {.kind = CMD_LAUNCHES, .n_ops = n + 1};
  c.ops = air_mem_calloc(a, n + 1, sizeof *c.ops);
  c.spills = air_mem_calloc(a, n + 1, sizeof *c.spills);
  const air_schedule_t* sc = e->schedule;
  size_t max_deps = sc ? sc->pred_off[sc->n_cmds] : (size_t)n;
  c.deps = air_mem_calloc(a, max_deps + n + 1, sizeof *c.deps);
  hsa_status_t st = total ? d->api.hsa_amd_memory_pool_allocate(d->sys.kernarg_pool, total, 0, &c.kernargs)
                          : HSA_STATUS_SUCCESS;
  air_status_t s = NULL;
  if (!c.ops || !c.deps || !c.spills) s = AIR_STATUS_OOM(a, "hsa dispatch");
  else if (st != HSA_STATUS_SUCCESS) s = air_hsa_status(a, &d->api, st, "kernarg memory");
  else if (c.kernargs) {
    st = d->api.hsa_amd_agents_allow_access(1, &d->sys.gpu, NULL, c.kernargs);
    if (st != HSA_STATUS_SUCCESS) s = air_hsa_status(a, &d->api, st, "kernarg access");
  }
  size_t at = 0, used = 0;
  for (uint32_t j = 0; j < n && !s; ++j) {
    const air_hsa_launch_t* l = &plan->launches[j];
    air_hsa_op_t* op = &c.ops[j];
    uint8_t* seg = (uint8_t*)c.kernargs + at;
    at += ((size_t)l->meta->kernarg_segment_size + 63) & ~(size_t)63;
    uint64_t spill = air_hsa_launch_spill_bytes(l, args);
    if (spill) {
      st = d->api.hsa_amd_memory_pool_allocate(d->sys.device_pool, (size_t)spill, 0, &c.spills[j]);
      if (st != HSA_STATUS_SUCCESS) {
        c.spills[j] = NULL;
        s = air_hsa_status(a, &d->api, st, "L2 spill memory for a generated kernel");
        break;
      }
    }
    s = air_hsa_launch_pack(a, l, args, c.spills[j], seg, op->grid, op->workgroup);
    op->kind = AIR_HSA_OP_DISPATCH;
    op->dims = op->grid[1] > 1 || op->workgroup[1] > 1 ? 2 : 1;
    op->kernel_object = l->kernel_object;
    op->kernarg = seg;
    op->group_segment_size = l->group_segment_size;
    op->private_segment_size = l->private_segment_size;
    op->deps = c.deps + used;
    size_t start = used;
    if (!sc) {
      if (j) c.deps[used++] = j - 1;
    } else {
      /* The launches among the command's predecessors. */
      for (uint32_t p = sc->pred_off[l->cmd]; p < sc->pred_off[l->cmd + 1]; ++p)
        for (uint32_t k = 0; k < j; ++k)
          if (plan->launches[k].cmd == sc->preds[p]) c.deps[used++] = k;
    }
    op->n_deps = (uint32_t)(used - start);
  }
  if (!s) {
    /* The trailing barrier (barrier bit: after every packet before it) stands for
     * the whole entry to whatever follows. */
    air_hsa_op_t* t = &c.ops[n];
    t->kind = AIR_HSA_OP_BARRIER;
    t->deps = c.deps + used;
    c.deps[used++] = n - 1;
    t->n_deps = 1;
    t->export_signal = 1;
    s = push(cb, c);
  }
  if (s) {
    if (c.kernargs) d->api.hsa_amd_memory_pool_free(c.kernargs);
    for (uint32_t j = 0; c.spills && j < n; ++j)
      if (c.spills[j]) d->api.hsa_amd_memory_pool_free(c.spills[j]);
    air_mem_free(a, c.spills);
    air_mem_free(a, c.ops);
    air_mem_free(a, c.deps);
  }
  return s;
}

static air_status_t cb_copy(air_command_buffer_t* base, air_buffer_t* source, uint64_t soff,
                            air_buffer_t* target, uint64_t toff, uint64_t length) {
  hsa_cb_t* cb = (hsa_cb_t*)base;
  if (!length) return NULL;
  cmd_t c = {.kind = CMD_COPY,
             .dst = (char*)((air_hsa_buffer_t*)target)->device_ptr + toff,
             .src = (const char*)((air_hsa_buffer_t*)source)->device_ptr + soff,
             .length = (size_t)length,
             .src_on_gpu = true};
  return push(cb, c);
}

/* The pattern is laid out once in host-visible staging memory the GPU may read; the
 * fill is then a copy from it. */
static air_status_t cb_fill(air_command_buffer_t* base, air_buffer_t* target, uint64_t offset,
                            uint64_t length, uint32_t pattern, uint32_t pattern_length) {
  (void)pattern_length; /* the pattern is already repeated to 4 bytes */
  hsa_cb_t* cb = (hsa_cb_t*)base;
  air_hsa_device_t* d = dev_of(base);
  if (!length) return NULL;
  if (!air_mem_grow(&base->allocator, (void**)&cb->staging, &cb->cap_staging,
                    (size_t)cb->n_staging + 1, sizeof *cb->staging))
    return AIR_STATUS_OOM(&base->allocator, "hsa command buffer");
  void* block = NULL;
  hsa_status_t st = d->api.hsa_amd_memory_pool_allocate(d->sys.staging_pool, (size_t)length, 0, &block);
  if (st == HSA_STATUS_SUCCESS) st = d->api.hsa_amd_agents_allow_access(1, &d->sys.gpu, NULL, block);
  if (st != HSA_STATUS_SUCCESS) {
    if (block) d->api.hsa_amd_memory_pool_free(block);
    return air_hsa_status(&base->allocator, &d->api, st, "fill: staging memory");
  }
  cb->staging[cb->n_staging++] = block;
  unsigned char bytes[4];
  memcpy(bytes, &pattern, 4);
  for (uint64_t i = 0; i < length; ++i) ((unsigned char*)block)[i] = bytes[i % 4];
  cmd_t c = {.kind = CMD_FILL,
             .dst = (char*)((air_hsa_buffer_t*)target)->device_ptr + offset,
             .src = block,
             .length = (size_t)length};
  return push(cb, c);
}

/* Commands already run one after another. */
static air_status_t cb_barrier(air_command_buffer_t* base) {
  (void)base;
  return NULL;
}
static air_status_t cb_end(air_command_buffer_t* base) {
  (void)base;
  return NULL;
}

static const air_command_buffer_vtable_t k_cb_vtable = {
    .resource = {cb_destroy},
    .dispatch = cb_dispatch,
    .copy = cb_copy,
    .fill = cb_fill,
    .barrier = cb_barrier,
    .end = cb_end,
};

air_status_t air_hsa_command_buffer_create(air_device_t* device, uint32_t flags,
                                           air_command_buffer_t** out) {
  (void)flags;
  hsa_cb_t* cb = air_mem_calloc(&device->allocator, 1, sizeof *cb);
  if (!cb) return AIR_STATUS_OOM(&device->allocator, "hsa command buffer");
  air_command_buffer_init(&cb->base, &k_cb_vtable, device);
  *out = &cb->base;
  return NULL;
}

/*--- execution -----------------------------------------------------------------*/

typedef struct sub_t {
  air_hsa_device_t* d;
  hsa_cb_t* cb; /* retained, or NULL */
  _Atomic uint32_t pending; /* waits not yet reached, + 1 until all are registered */
  _Atomic(air_status_t) failure;
  air_timepoint_t* waits;
  uint32_t n_signal;
  air_semaphore_t** sems;
  uint64_t* values;
  hsa_signal_t* copy_sigs;
  uint32_t n_copy;
  hsa_signal_t* group_sigs; /* the trailing barriers' signals, given back at the end */
  uint32_t n_group;
} sub_t;

static void finish(sub_t* s, air_status_t status) {
  air_hsa_device_t* d = s->d;
  for (uint32_t i = 0; i < s->n_signal; ++i) {
    if (status) air_semaphore_fail(s->sems[i], air_status_clone(status));
    else air_status_free(air_semaphore_signal(s->sems[i], s->values[i]));
    air_semaphore_release(s->sems[i]);
  }
  for (uint32_t i = 0; i < s->n_copy; ++i) air_hsa_signal_give(d, s->copy_sigs[i]);
  for (uint32_t i = 0; i < s->n_group; ++i) air_hsa_queue_give_signal(d->queue, s->group_sigs[i]);
  if (s->cb) air_command_buffer_release(&s->cb->base);
  air_status_free(atomic_load(&s->failure));
  air_mem_free(&d->base.allocator, s);
  pthread_mutex_lock(&d->drain_mu);
  if (atomic_fetch_sub(&d->inflight, 1) == 1) pthread_cond_broadcast(&d->drain_cv);
  pthread_mutex_unlock(&d->drain_mu);
}

static void on_done(void* arg, air_status_t status) { finish(arg, status); }

/* Waits for the copies issued so far, so their signals can be reused. */
static void drain_copies(sub_t* s, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    s->d->api.hsa_signal_wait_scacquire(s->copy_sigs[i], HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                                        HSA_WAIT_STATE_BLOCKED);
}

static void launch(sub_t* s) {
  air_hsa_device_t* d = s->d;
  air_status_t failed = atomic_exchange(&s->failure, NULL);
  if (failed) {
    finish(s, failed);
    air_status_free(failed);
    return;
  }
  air_status_t err = NULL;
  uint32_t issued = 0; /* copies started; s->n_copy counts the signals taken */
  hsa_signal_t prev = {0}; /* what the next command waits on */
  for (uint32_t i = 0; s->cb && i < s->cb->n && !err; ++i) {
    const cmd_t* c = &s->cb->cmds[i];
    if (c->kind == CMD_LAUNCHES) {
      /* Operations that wait on nothing of their own wait on what came before. */
      air_hsa_op_t* ops = air_mem_calloc(&d->base.allocator, c->n_ops, sizeof *ops);
      hsa_signal_t* out = air_mem_calloc(&d->base.allocator, c->n_ops, sizeof *out);
      if (!ops || !out) err = AIR_STATUS_OOM(&d->base.allocator, "hsa execution");
      for (uint32_t k = 0; !err && k < c->n_ops; ++k) {
        ops[k] = c->ops[k];
        if (prev.handle && !ops[k].n_deps) ops[k].waits = &prev, ops[k].n_waits = 1;
      }
      if (!err) err = air_hsa_queue_submit(d->queue, ops, c->n_ops, out, NULL, NULL, NULL);
      if (!err) prev = s->group_sigs[s->n_group++] = out[c->n_ops - 1];
      air_mem_free(&d->base.allocator, ops);
      air_mem_free(&d->base.allocator, out);
      continue;
    }
    if ((err = air_hsa_signal_take(d, &s->copy_sigs[s->n_copy]))) break;
    hsa_signal_t mine = s->copy_sigs[s->n_copy++];
    hsa_status_t st = d->api.hsa_amd_memory_async_copy(
        c->dst, d->sys.gpu, c->src, c->src_on_gpu ? d->sys.gpu : d->sys.cpu, c->length,
        prev.handle ? 1 : 0, prev.handle ? &prev : NULL, mine);
    if (st != HSA_STATUS_SUCCESS) {
      char what[256];
      snprintf(what, sizeof what, "%.190s: %s %u", d->name, c->kind == CMD_FILL ? "fill" : "copy", i);
      err = air_hsa_status(&d->base.allocator, &d->api, st, what);
      break;
    }
    issued = s->n_copy;
    prev = mine;
  }
  if (!err) {
    air_hsa_op_t op = {.kind = AIR_HSA_OP_BARRIER};
    if (prev.handle) {
      op.waits = &prev;
      op.n_waits = 1;
    }
    err = air_hsa_queue_submit(d->queue, &op, 1, NULL, on_done, s, NULL);
    if (!err) return;
  }
  drain_copies(s, issued);
  finish(s, err);
  air_status_free(err);
}

static void on_wait(void* user, air_status_t failure) {
  sub_t* s = user;
  if (failure) {
    air_status_t none = NULL, mine = air_status_clone(failure);
    if (!atomic_compare_exchange_strong(&s->failure, &none, mine)) air_status_free(mine);
  }
  if (atomic_fetch_sub(&s->pending, 1) == 1) launch(s);
}

air_status_t air_hsa_queue_execute(air_device_t* device, uint32_t queue,
                                   const air_timepoint_list_t* wait,
                                   air_command_buffer_t* command_buffer,
                                   const air_timepoint_list_t* signal) {
  (void)queue;
  air_hsa_device_t* d = (air_hsa_device_t*)device;
  uint32_t n_wait = wait ? wait->count : 0, n_signal = signal ? signal->count : 0;
  uint32_t n_cmd = command_buffer ? ((hsa_cb_t*)command_buffer)->n : 0;
  size_t bytes = sizeof(sub_t) + n_wait * sizeof(air_timepoint_t) +
                 n_signal * (sizeof(air_semaphore_t*) + sizeof(uint64_t)) +
                 2 * (size_t)n_cmd * sizeof(hsa_signal_t);
  sub_t* s = air_mem_calloc(&device->allocator, 1, bytes);
  if (!s) return AIR_STATUS_OOM(&device->allocator, "hsa submission");
  char* mem = (char*)(s + 1);
  s->waits = (air_timepoint_t*)mem;
  mem += n_wait * sizeof(air_timepoint_t);
  s->sems = (air_semaphore_t**)mem;
  mem += n_signal * sizeof(air_semaphore_t*);
  s->values = (uint64_t*)mem;
  mem += n_signal * sizeof(uint64_t);
  s->copy_sigs = (hsa_signal_t*)mem;
  mem += n_cmd * sizeof(hsa_signal_t);
  s->group_sigs = (hsa_signal_t*)mem;
  s->d = d;
  if (command_buffer) {
    s->cb = (hsa_cb_t*)command_buffer;
    air_command_buffer_retain(command_buffer);
  }
  s->n_signal = n_signal;
  for (uint32_t i = 0; i < n_signal; ++i) {
    s->sems[i] = signal->semaphores[i];
    s->values[i] = signal->values[i];
    air_semaphore_retain(s->sems[i]);
  }
  atomic_fetch_add(&d->inflight, 1);
  atomic_init(&s->pending, n_wait + 1);
  for (uint32_t i = 0; i < n_wait; ++i) {
    air_timepoint_t* tp = &s->waits[i];
    tp->value = wait->values[i];
    tp->fn = on_wait;
    tp->user = s;
    air_semaphore_notify(wait->semaphores[i], tp);
  }
  on_wait(s, NULL); /* the +1: launches here when every wait was already reached */
  return NULL;
}
#endif /* AIR_HAVE_HSA */

typedef int air_hsa_submit_translation_unit_t;

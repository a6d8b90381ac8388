/* xrt_queue.c - NPU command buffers and the submission worker (see
 * xrt_driver.h).
 *
 * Recording resolves each dispatch's memref arguments to BOs at once (the
 * buffer's BO, or a sub-BO for a sub-range), so a submission only syncs, starts
 * and waits. A submission runs in batches: every dispatch up to the next barrier,
 * copy or fill is started back to back, then each is waited for in order. Before
 * the batch, the BOs the streams read are synced to the device, except those an
 * earlier run of the same batch writes (the device has them); after it, the BOs
 * the streams write are synced back. The NPU runs one hardware context's
 * commands in order, which is what lets a batch go without host round trips. */
#include <errno.h>
#include <string.h>

#include "hal/semaphore.h"
#include "hal/xrt/xrt_driver.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

typedef enum { CMD_DISPATCH, CMD_COPY, CMD_FILL, CMD_BARRIER } cmd_kind_t;

typedef struct cmd_arg_t {
  xrt_handle_t bo;
  uint64_t size;
  uint8_t use;
} cmd_arg_t;

typedef struct cmd_t {
  cmd_kind_t kind;
  air_xrt_executable_t* exe;
  uint32_t ordinal;
  uint32_t n_args;
  cmd_arg_t* args;           /* DISPATCH: one per data argument */
  char* dst;                 /* COPY/FILL: host bytes */
  const char* src;
  uint64_t length;
  uint32_t pattern, pattern_length;
} cmd_t;

typedef struct xrt_cb_t {
  air_command_buffer_t base;
  cmd_t* cmds;
  uint32_t n_cmds, cap_cmds;
} xrt_cb_t;

struct air_xrt_submission_t {
  air_xrt_submission_t* next;
  xrt_cb_t* cb; /* retained */
  air_timepoint_list_t wait, signal;
  air_semaphore_t** sems; /* wait then signal semaphores (signal ones retained) */
  uint64_t* values;
};

static void cb_destroy(air_resource_t* r) {
  xrt_cb_t* cb = (xrt_cb_t*)r;
  const air_allocator_t* a = &cb->base.allocator;
  for (uint32_t i = 0; i < cb->n_cmds; ++i) air_mem_free(a, cb->cmds[i].args);
  air_mem_free(a, cb->cmds);
  air_command_buffer_deinit(&cb->base);
  air_allocator_t al = *a;
  al.free(al.self, cb);
}

static air_status_t push_cmd(xrt_cb_t* cb, const cmd_t* c) {
  if (!air_mem_grow(&cb->base.allocator, (void**)&cb->cmds, &cb->cap_cmds, (size_t)cb->n_cmds + 1,
                    sizeof *cb->cmds))
    return AIR_STATUS_OOM(&cb->base.allocator, "an NPU command");
  cb->cmds[cb->n_cmds++] = *c;
  return NULL;
}

/* The device buffer holding [p, p + size) among the ones the command buffer
 * retained (every binding is retained before the driver sees it). */
static air_xrt_buffer_t* find_buffer(xrt_cb_t* cb, const char* p, uint64_t size) {
  for (uint32_t i = cb->base.n_retained; i-- > 0;) {
    air_resource_t* r = cb->base.retained[i];
    if (!air_xrt_is_buffer(r)) continue;
    air_xrt_buffer_t* b = (air_xrt_buffer_t*)r;
    const char* base = b->base.host_ptr;
    if (p >= base && (uint64_t)(p - base) <= b->base.size && size <= b->base.size - (uint64_t)(p - base))
      return b;
  }
  return NULL;
}

static uint64_t memref_bytes(const air_memref_t* m) {
  uint64_t n = 1;
  for (uint32_t d = 0; d < m->rank; ++d) n *= (uint64_t)m->sizes[d];
  static const uint32_t k_size[] = {0, 1, 1, 2, 4, 8, 8, 2, 2, 4, 8};
  return n * (m->elem < sizeof k_size / sizeof k_size[0] ? k_size[m->elem] : 1);
}

static air_status_t cb_dispatch(air_command_buffer_t* base, air_executable_t* e, uint32_t ordinal,
                                uint32_t n_args, const air_arg_t* args,
                                const air_dispatch_options_t* options, void* transient,
                                uint64_t transient_size) {
  (void)options;
  (void)transient;
  (void)transient_size;
  xrt_cb_t* cb = (xrt_cb_t*)base;
  air_xrt_executable_t* x = (air_xrt_executable_t*)e;
  air_xrt_device_t* d = (air_xrt_device_t*)base->device;
  air_xrt_entry_t* xe = &x->xe[ordinal];
  const air_allocator_t* a = &base->allocator;
  if (xe->why_not)
    return AIR_STATUS(a, AIR_STATUS_UNIMPLEMENTED, "dispatch on %s: %s", d->name, xe->why_not);
  cmd_t c = {CMD_DISPATCH, x, ordinal, xe->n_data, NULL, NULL, NULL, 0, 0, 0};
  c.args = air_mem_calloc(a, xe->n_data ? xe->n_data : 1, sizeof *c.args);
  if (!c.args) return AIR_STATUS_OOM(a, "dispatch arguments");
  air_status_t s = NULL;
  for (uint32_t i = 0; i < xe->n_data && !s; ++i) {
    uint32_t p = xe->param_of[i];
    if (p >= n_args) break;
    const air_memref_t* m = &args[p].memref;
    const char* ptr = (const char*)m->data; /* offset is 0: data points at it */
    uint64_t size = memref_bytes(m);
    air_xrt_buffer_t* b = find_buffer(cb, ptr, size);
    if (!b) {
      s = AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                     "dispatch @%s: parameter %u is not in a buffer of %s", e->entries[ordinal].name,
                     p, d->name);
      break;
    }
    c.args[i].size = size;
    c.args[i].use = xe->use[i];
    s = air_xrt_buffer_range_bo(d, b, (uint64_t)(ptr - (const char*)b->base.host_ptr), size,
                                &c.args[i].bo);
  }
  if (!s) s = push_cmd(cb, &c);
  if (s) air_mem_free(a, c.args);
  return s;
}

static air_status_t cb_copy(air_command_buffer_t* base, air_buffer_t* src, uint64_t src_off,
                            air_buffer_t* dst, uint64_t dst_off, uint64_t length) {
  cmd_t c = {CMD_COPY, NULL, 0, 0, NULL, (char*)dst->host_ptr + dst_off,
             (const char*)src->host_ptr + src_off, length, 0, 0};
  return push_cmd((xrt_cb_t*)base, &c);
}

static air_status_t cb_fill(air_command_buffer_t* base, air_buffer_t* dst, uint64_t off,
                            uint64_t length, uint32_t pattern, uint32_t pattern_length) {
  cmd_t c = {CMD_FILL, NULL, 0, 0, NULL, (char*)dst->host_ptr + off, NULL, length, pattern,
             pattern_length};
  return push_cmd((xrt_cb_t*)base, &c);
}

static air_status_t cb_barrier(air_command_buffer_t* base) {
  cmd_t c = {CMD_BARRIER, NULL, 0, 0, NULL, NULL, NULL, 0, 0, 0};
  return push_cmd((xrt_cb_t*)base, &c);
}

static air_status_t cb_end(air_command_buffer_t* base) {
  (void)base;
  return NULL;
}

static const air_command_buffer_vtable_t k_cb_vtable = {
    .resource = {cb_destroy}, .dispatch = cb_dispatch, .copy = cb_copy, .fill = cb_fill,
    .barrier = cb_barrier, .end = cb_end};

air_status_t air_xrt_command_buffer_create(air_device_t* device, uint32_t flags,
                                           air_command_buffer_t** out) {
  (void)flags;
  xrt_cb_t* cb = air_mem_calloc(&device->allocator, 1, sizeof *cb);
  if (!cb) return AIR_STATUS_OOM(&device->allocator, "an NPU command buffer");
  air_command_buffer_init(&cb->base, &k_cb_vtable, device);
  *out = &cb->base;
  return NULL;
}

/*--- running ---------------------------------------------------------------------*/

#define XERR(d, call, what) air_xrt_error(&(d)->base.allocator, AIR_STATUS_INTERNAL, call, errno, what)

static bool in_batch(xrt_handle_t bo, const cmd_t* cmds, uint32_t from, uint32_t to, uint8_t use) {
  for (uint32_t k = from; k < to; ++k)
    for (uint32_t j = 0; j < cmds[k].n_args; ++j)
      if (cmds[k].args[j].bo == bo && (cmds[k].args[j].use & use)) return true;
  return false;
}

/* Runs dispatches [from, to) of `c`: syncs in, starts all, waits all, syncs out. */
static air_status_t run_batch(air_xrt_device_t* d, const cmd_t* c, uint32_t from, uint32_t to) {
  const air_xrt_api_t* api = &d->api;
  xrt_handle_t runs[64];
  uint32_t slot_of[64];
  air_status_t s = NULL;
  for (uint32_t k = from; k < to && !s; ++k) {
    /* The k-th dispatch of an entry in this batch takes that entry's run slot. */
    uint32_t slot = 0;
    for (uint32_t j = from; j < k; ++j) slot += c[j].exe == c[k].exe && c[j].ordinal == c[k].ordinal;
    slot_of[k - from] = slot;
    for (uint32_t i = 0; i < c[k].n_args && !s; ++i)
      if ((c[k].args[i].use & AIR_XRT_ARG_READ) &&
          !in_batch(c[k].args[i].bo, c, from, k, AIR_XRT_ARG_WRITTEN) &&
          !in_batch(c[k].args[i].bo, c, from, k, AIR_XRT_ARG_READ) &&
          api->xrtBOSync(c[k].args[i].bo, AIR_XCL_BO_SYNC_TO_DEVICE, (size_t)c[k].args[i].size, 0))
        s = XERR(d, "xrtBOSync", "(to the device) of a dispatch argument");
  }
  uint32_t started = 0;
  for (uint32_t k = from; k < to && !s; ++k) {
    s = air_xrt_entry_run(d, c[k].exe, c[k].ordinal, slot_of[k - from], &runs[k - from]);
    for (uint32_t i = 0; i < c[k].n_args && !s; ++i)
      if (api->xrtRunSetArg(runs[k - from], AIR_XRT_ARG_DATA + (int)i, c[k].args[i].bo))
        s = XERR(d, "xrtRunSetArg", "(a data buffer)");
    if (!s && api->xrtRunStart(runs[k - from])) s = XERR(d, "xrtRunStart", NULL);
    if (!s) ++started;
  }
  /* Every started run is waited for, also after a failure: its BOs stay in use
   * until it ends. */
  for (uint32_t k = 0; k < started; ++k) {
    int state = api->xrtRunWait(runs[k]);
    if (state != AIR_ERT_COMPLETED && !s) {
      const cmd_t* ck = &c[from + k];
      s = AIR_STATUS(&d->base.allocator, AIR_STATUS_INTERNAL,
                     "XRT xrtRunWait: the run of @%s on %s ended in state %s (%d)",
                     ck->exe->base.entries[ck->ordinal].name, d->name, air_xrt_state_name(state),
                     state);
    }
  }
  for (uint32_t k = from; k < to && !s; ++k)
    for (uint32_t i = 0; i < c[k].n_args && !s; ++i)
      if ((c[k].args[i].use & AIR_XRT_ARG_WRITTEN) &&
          !in_batch(c[k].args[i].bo, c, k + 1, to, AIR_XRT_ARG_WRITTEN) &&
          api->xrtBOSync(c[k].args[i].bo, AIR_XCL_BO_SYNC_FROM_DEVICE, (size_t)c[k].args[i].size, 0))
        s = XERR(d, "xrtBOSync", "(from the device) of a dispatch argument");
  return s;
}

static void host_fill(char* p, uint64_t n, uint32_t pattern, uint32_t len) {
  for (uint64_t i = 0; i < n; i += len) memcpy(p + i, &pattern, len);
}

static air_status_t run_cb(air_xrt_device_t* d, xrt_cb_t* cb) {
  const cmd_t* c = cb->cmds;
  uint32_t i = 0;
  while (i < cb->n_cmds) {
    if (c[i].kind == CMD_DISPATCH) {
      uint32_t j = i;
      while (j < cb->n_cmds && c[j].kind == CMD_DISPATCH && j - i < 64) ++j;
      AIR_RETURN_IF_ERROR(run_batch(d, c, i, j));
      i = j;
      continue;
    }
    if (c[i].kind == CMD_COPY) memmove(c[i].dst, c[i].src, (size_t)c[i].length);
    if (c[i].kind == CMD_FILL) host_fill(c[i].dst, c[i].length, c[i].pattern, c[i].pattern_length);
    ++i;
  }
  return NULL;
}

static void finish(air_xrt_submission_t* sub, air_status_t s) {
  for (uint32_t i = 0; i < sub->signal.count; ++i) {
    if (s) {
      air_semaphore_fail(sub->signal.semaphores[i], air_status_clone(s));
    } else {
      air_status_t e = air_semaphore_signal(sub->signal.semaphores[i], sub->signal.values[i]);
      if (e) air_semaphore_fail(sub->signal.semaphores[i], e);
    }
    air_semaphore_release(sub->signal.semaphores[i]);
  }
  air_status_free(s);
}

void* air_xrt_worker_main(void* arg) {
  air_xrt_device_t* d = arg;
  for (;;) {
    pthread_mutex_lock(&d->mu);
    while (!d->head && !d->stop) pthread_cond_wait(&d->cv, &d->mu);
    air_xrt_submission_t* sub = d->head;
    if (sub) {
      d->head = sub->next;
      if (!d->head) d->tail = NULL;
    }
    pthread_mutex_unlock(&d->mu);
    if (!sub) return NULL; /* stopping with nothing queued */
    air_status_t s = air_timepoint_list_wait(&sub->wait, -1);
    if (!s && sub->cb) s = run_cb(d, sub->cb);
    finish(sub, s);
    if (sub->cb) air_command_buffer_release(&sub->cb->base);
    air_mem_free(&d->base.allocator, sub);
  }
}

air_status_t air_xrt_queue_execute(air_device_t* device, uint32_t queue,
                                   const air_timepoint_list_t* wait, air_command_buffer_t* cb,
                                   const air_timepoint_list_t* signal) {
  (void)queue;
  air_xrt_device_t* d = (air_xrt_device_t*)device;
  uint32_t nw = wait ? wait->count : 0, ns = signal ? signal->count : 0;
  size_t bytes = sizeof(air_xrt_submission_t) + (nw + ns) * (sizeof(air_semaphore_t*) + 8);
  air_xrt_submission_t* sub = air_mem_calloc(&device->allocator, 1, bytes);
  if (!sub) return AIR_STATUS_OOM(&device->allocator, "an NPU submission");
  sub->values = (uint64_t*)(sub + 1);
  sub->sems = (air_semaphore_t**)(sub->values + nw + ns);
  for (uint32_t i = 0; i < nw; ++i) {
    sub->sems[i] = wait->semaphores[i];
    sub->values[i] = wait->values[i];
  }
  for (uint32_t i = 0; i < ns; ++i) {
    sub->sems[nw + i] = signal->semaphores[i];
    sub->values[nw + i] = signal->values[i];
    air_semaphore_retain(signal->semaphores[i]);
  }
  sub->wait = (air_timepoint_list_t){nw, sub->sems, sub->values};
  sub->signal = (air_timepoint_list_t){ns, sub->sems + nw, sub->values + nw};
  if (cb) {
    air_command_buffer_retain(cb);
    sub->cb = (xrt_cb_t*)cb;
  }
  pthread_mutex_lock(&d->mu);
  if (d->tail) d->tail->next = sub;
  else d->head = sub;
  d->tail = sub;
  pthread_cond_signal(&d->cv);
  pthread_mutex_unlock(&d->mu);
  return NULL;
}

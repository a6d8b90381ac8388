/* cpu_command_buffer.c - recording for the cpu device: a flat list of commands
 * holding raw host pointers (buffers are host memory and stay retained by the
 * command buffer), plus one array with every dispatch's arguments. Recording
 * never fails past the checks of command_buffer.c except for memory. */
#include <string.h>

#include "hal/cpu/cpu_code.h"
#include "hal/cpu/cpu_device.h"
#include "hal/cpu/interp/interp.h"
#include "runtime/base/status_util.h"

static air_cpu_command_buffer_t* cpu_cb(air_command_buffer_t* cb) {
  return (air_cpu_command_buffer_t*)cb;
}

static void cb_destroy(air_resource_t* r) {
  air_cpu_command_buffer_t* c = (air_cpu_command_buffer_t*)r;
  air_allocator_t a = c->base.allocator;
  air_command_buffer_deinit(&c->base);
  a.free(a.self, c->cmds);
  a.free(a.self, c->args);
  a.free(a.self, c);
}

static air_status_t grow(air_cpu_command_buffer_t* c, void** items, uint32_t* cap,
                         uint32_t need, size_t item_size) {
  if (need <= *cap) return NULL;
  uint32_t n = *cap ? *cap : 16;
  while (n < need) {
    if (n > UINT32_MAX / 2) goto oom;
    n *= 2;
  }
  void* p = c->base.allocator.realloc(c->base.allocator.self, *items, (size_t)n * item_size);
  if (!p) goto oom;
  *items = p;
  *cap = n;
  return NULL;
oom:
  return AIR_STATUS(&c->base.allocator, AIR_STATUS_RESOURCE_EXHAUSTED,
                    "out of memory recording command %u", c->n_cmds);
}

static air_status_t push(air_cpu_command_buffer_t* c, const air_cpu_cmd_t* cmd) {
  if (c->n_cmds == UINT32_MAX)
    return AIR_STATUS(&c->base.allocator, AIR_STATUS_RESOURCE_EXHAUSTED, "too many commands");
  AIR_RETURN_IF_ERROR(grow(c, (void**)&c->cmds, &c->cap_cmds, c->n_cmds + 1, sizeof(*cmd)));
  c->cmds[c->n_cmds++] = *cmd;
  return NULL;
}

/* Dispatch descriptions point into `args`; when growing moves it they follow. */
static void repoint_args(air_cpu_command_buffer_t* c) {
  for (uint32_t i = 0; i < c->n_cmds; ++i) {
    air_cpu_cmd_t* cmd = &c->cmds[i];
    if (cmd->kind == AIR_CPU_CMD_DISPATCH && cmd->u.dispatch.run.desc.n_args)
      cmd->u.dispatch.run.desc.args = c->args + cmd->u.dispatch.first_arg;
  }
}

static air_status_t cb_dispatch(air_command_buffer_t* cb, air_executable_t* e, uint32_t ordinal,
                                uint32_t n_args, const air_arg_t* args,
                                const air_dispatch_options_t* options, void* transient,
                                uint64_t transient_size) {
  air_cpu_command_buffer_t* c = cpu_cb(cb);
  if (n_args > UINT32_MAX - c->n_args)
    return AIR_STATUS(&cb->allocator, AIR_STATUS_RESOURCE_EXHAUSTED, "too many dispatch arguments");
  air_arg_t* old_args = c->args;
  AIR_RETURN_IF_ERROR(
      grow(c, (void**)&c->args, &c->cap_args, c->n_args + n_args, sizeof(air_arg_t)));
  if (c->args != old_args) repoint_args(c);
  air_cpu_device_t* dev = (air_cpu_device_t*)cb->device;
  air_cpu_cmd_t cmd = {.kind = AIR_CPU_CMD_DISPATCH};
  air_interp_desc_t* d = &cmd.u.dispatch.run.desc;
  d->program = e->program;
  d->entry = e->entries[ordinal].func;
  d->n_args = n_args;
  d->args = n_args ? c->args + c->n_args : NULL;
  /* In place before the inline check, which looks at the views (flat runs). */
  if (n_args) memcpy(c->args + c->n_args, args, n_args * sizeof(*args));
  d->pool = dev->pool;
  d->context = dev->base.context;
  d->watchdog_ns = options->watchdog_ns;
  d->watchdog = dev->watchdog;
  d->trace = options->trace;
  d->rank_copies = options->rank_copies;
  d->transport = options->transport;
  d->allocator = dev->base.allocator;
  /* The entry's prepared schedule, unless the dispatch asks for the dynamic path. */
  if (!(options->flags & AIR_DISPATCH_DYNAMIC)) d->plan = e->entries[ordinal].prepared;
  d->transient = transient;
  d->transient_size = transient_size;
  d->prep = ((const air_cpu_executable_t*)e)->prep;
  /* Compiled units, unless the dispatch asks for the interpreter (and the
   * reference loops of the linalg ops). */
  d->code = air_cpu_code_lookup(((const air_cpu_executable_t*)e)->code);
  d->interpret = (options->flags & AIR_DISPATCH_INTERPRET) != 0;
  cmd.u.dispatch.first_arg = c->n_args;
  /* Submissions run on the pool's workers, which the inline path needs. A run
   * that fails air_interp_start's checks goes that way, to report them. */
  d->run_inline = true;
  air_interp_inline_t kind = air_interp_inline_kind(d);
  if (!kind || !air_interp_inline_prepare(d, &cmd.u.dispatch.run)) {
    kind = AIR_INTERP_INLINE_NO;
    d->run_inline = false;
  }
  cmd.u.dispatch.inline_kind = (int)kind;
  AIR_RETURN_IF_ERROR(push(c, &cmd));
  c->n_args += n_args;
  return NULL;
}

static air_status_t cb_copy(air_command_buffer_t* cb, air_buffer_t* source, uint64_t source_offset,
                            air_buffer_t* target, uint64_t target_offset, uint64_t length) {
  air_cpu_cmd_t cmd = {.kind = AIR_CPU_CMD_COPY};
  cmd.u.copy.source = (const char*)source->host_ptr + source_offset;
  cmd.u.copy.target = (char*)target->host_ptr + target_offset;
  cmd.u.copy.length = length;
  return push(cpu_cb(cb), &cmd);
}

static air_status_t cb_fill(air_command_buffer_t* cb, air_buffer_t* target, uint64_t offset,
                            uint64_t length, uint32_t pattern, uint32_t pattern_length) {
  (void)pattern_length; /* `pattern` already repeats it to 4 bytes */
  air_cpu_cmd_t cmd = {.kind = AIR_CPU_CMD_FILL};
  cmd.u.fill.target = (char*)target->host_ptr + offset;
  cmd.u.fill.length = length;
  cmd.u.fill.pattern = pattern;
  return push(cpu_cb(cb), &cmd);
}

/* A leading barrier or two in a row order nothing: drop them. */
static air_status_t cb_barrier(air_command_buffer_t* cb) {
  air_cpu_command_buffer_t* c = cpu_cb(cb);
  if (c->n_cmds == 0 || c->cmds[c->n_cmds - 1].kind == AIR_CPU_CMD_BARRIER) return NULL;
  air_cpu_cmd_t cmd = {.kind = AIR_CPU_CMD_BARRIER};
  return push(c, &cmd);
}

/* A submission needs one task node per transfer of its widest wave; nodes are
 * reused wave after wave. */
static air_status_t cb_end(air_command_buffer_t* cb) {
  air_cpu_command_buffer_t* c = cpu_cb(cb);
  if (c->n_cmds && c->cmds[c->n_cmds - 1].kind == AIR_CPU_CMD_BARRIER) --c->n_cmds;
  uint32_t wave = 0;
  bool all_inline = true, any_flat = false;
  c->caller_ok = true;
  atomic_init(&c->here_ns, 0);
  atomic_init(&c->pool_ns, 0);
  for (uint32_t i = 0; i < c->n_cmds; ++i) {
    air_cpu_cmd_kind_t k = c->cmds[i].kind;
    if (k == AIR_CPU_CMD_DISPATCH) {
      /* A watchdog may give up on a kernel and end the run while the kernel still
       * runs: the caller's thread could not return then. Traces name workers;
       * ranks and transports wait on other processes. Those stay on the pool. */
      const air_interp_desc_t* d = &c->cmds[i].u.dispatch.run.desc;
      if (d->watchdog_ns > 0 || d->trace || d->rank_copies || d->transport) c->caller_ok = false;
      all_inline = all_inline && c->cmds[i].u.dispatch.inline_kind != AIR_INTERP_INLINE_NO;
      any_flat = any_flat || (c->cmds[i].u.dispatch.inline_kind != AIR_INTERP_INLINE_NO &&
                              c->cmds[i].u.dispatch.run.flat);
    }
    if (k == AIR_CPU_CMD_BARRIER) wave = 0;
    if (k == AIR_CPU_CMD_COPY || k == AIR_CPU_CMD_FILL ||
        (k == AIR_CPU_CMD_DISPATCH && c->cmds[i].u.dispatch.inline_kind == AIR_INTERP_INLINE_YES))
      ++wave;
    if (wave > c->max_wave_transfers) c->max_wave_transfers = wave;
  }
  c->with_workers = c->caller_ok && all_inline && any_flat;
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

air_status_t air_cpu_command_buffer_create(air_device_t* device, uint32_t flags,
                                           air_command_buffer_t** out) {
  (void)flags;
  const air_allocator_t* a = &device->allocator;
  air_cpu_command_buffer_t* c = a->alloc(a->self, sizeof(*c));
  if (!c)
    return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory creating a command buffer");
  memset(c, 0, sizeof(*c));
  air_command_buffer_init(&c->base, &k_cb_vtable, device);
  *out = &c->base;
  return NULL;
}

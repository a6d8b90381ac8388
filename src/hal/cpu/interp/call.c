/* call.c - the call op family: func.call runs the callee's body if it has one,
 * else a kernel registered with the context (air/kernel.h), looked up as the
 * callee's name, then as the declaration's link_with, then as the enclosing
 * herd's link_with. air.custom is a call of the function or kernel its symbol
 * names, with its operands and no results (its token is its completion). A
 * kernel runs under the watchdog, which may abandon it. */
#include "hal/cpu/interp/call.h"

#include <string.h>

#include "hal/cpu/interp/codec.h"
#include "hal/cpu/interp/tables.h"
#include "hal/cpu/interp/trace.h"
#include "hal/cpu/interp/watchdog.h"
#include "hal/futex.h"
#include "hal/trace_impl.h"
#include "runtime/base/mem.h"
#include "runtime/base/strbuf.h"

static air_status_t find_kernel(ix_strand_t* s, const air_op_t* op, const air_op_t* decl,
                                air_kernel_fn_t* fn, void** ud) {
  ix_run_t* r = s->run;
  const char* names[3] = {op->sym, decl ? ix_attr_str(r, decl, "link_with") : NULL,
                          s->pe ? s->pe->link_with : NULL};
  for (int i = 0; i < 3 && r->ctx; ++i) {
    if (!names[i]) continue;
    air_status_t st = air_context_find_kernel(r->ctx, names[i], fn, ud);
    if (!st) return NULL;
    air_status_free(st);
  }
  air_sb_t sb;
  air_sb_init(&sb, &r->alloc);
  air_sb_printf(&sb, "%s @%s: no kernel registered as \"%s\"", ix_opname(op), op->sym, op->sym);
  if (names[1]) air_sb_printf(&sb, ", nor as its declaration's link_with \"%s\"", names[1]);
  if (names[2]) air_sb_printf(&sb, ", nor as the herd's link_with \"%s\"", names[2]);
  char* m = air_sb_take(&sb, NULL);
  air_status_t st = ix_err(r, op, AIR_STATUS_NOT_FOUND, "%s", m ? m : "no kernel");
  air_mem_free(&r->alloc, m);
  return st;
}

/* Calls the kernel with op's operands and its first `nr` results. */
static int call_kernel(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, const air_op_t* decl,
                       uint32_t nr) {
  ix_run_t* r = s->run;
  air_kernel_fn_t fn;
  void* ud;
  air_status_t st = find_kernel(s, op, decl, &fn, &ud);
  if (st) return ix_failed(s, st);
  uint32_t na = op->n_operands;
  air_arg_t small[8];
  air_arg_t* args = na + nr <= 8 ? small : air_mem_calloc(&r->alloc, na + nr, sizeof(air_arg_t));
  if (!args) return ix_oom(s);
  memset(args, 0, (na + nr) * sizeof(air_arg_t));
  for (uint32_t i = 0; i < na + nr && !st; ++i) {
    air_vid_t v = i < na ? op->operands[i] : op->results[i - na];
    const ix_vinfo_t* vi = &r->tab.vinfo[v];
    air_arg_t* a = &args[i];
    a->elem = vi->elem;
    if (vi->kind == IX_K_MEMREF) {
      air_memref_t* m;
      if (!(st = ix_get_view(r, f->env, op, v, &m))) {
        a->kind = AIR_ARG_MEMREF;
        a->memref = *m;
      }
    } else if (vi->kind == IX_K_TOKEN) {
      st = ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s @%s: a kernel takes no tokens",
                  ix_opname(op), op->sym);
    } else {
      bool fl = air_elem_is_float(vi->elem);
      a->kind = fl ? AIR_ARG_FLOAT : AIR_ARG_INT;
      if (i < na) {
        ix_val_t* x = ix_slot(r, f->env, v);
        if (!x)
          st = ix_err(r, op, AIR_STATUS_INTERNAL, "%s @%s: argument missing", ix_opname(op),
                      op->sym);
        else if (fl)
          a->f = x->f;
        else
          a->i = x->i;
      }
    }
  }
  if (st) {
    if (args != small) air_mem_free(&r->alloc, args);
    return ix_failed(s, st);
  }
  air_kernel_call_t call = {.name = op->sym, .n_args = na, .args = args, .n_results = nr,
                            .results = args + na};
  if (s->pe) {
    call.tile_rank = s->pe->rank;
    memcpy(call.tile, s->pe->tile, sizeof call.tile);
    memcpy(call.tile_sizes, s->pe->sizes, sizeof call.tile_sizes);
  }
  int64_t t0 = air_time_now_ns();
  ix_watchdog_enter(s, op, true);
  st = fn(ud, &call);
  if (ix_watchdog_exit(s)) {
    /* The run has been reported; touch nothing of the program from here on. */
    air_status_free(st);
    if (args != small) air_mem_free(&r->alloc, args);
    return IX_ABANDONED;
  }
  ix_trace(s, s->pe ? AIR_TRACK_PE : AIR_TRACK_HOST, s->pe ? s->pe->track : "host", op, t0);
  if (st) {
    air_status_t wrapped = ix_err(r, op, air_status_code(st), "%s @%s failed: %s",
                                  ix_opname(op), op->sym, air_status_message(st));
    air_status_free(st);
    if (args != small) air_mem_free(&r->alloc, args);
    return ix_failed(s, wrapped);
  }
  for (uint32_t i = 0; i < nr; ++i) {
    const air_arg_t* a = &args[na + i];
    uint32_t elem = r->tab.vinfo[op->results[i]].elem;
    ix_val_t x = {0};
    if (air_elem_is_float(elem))
      x.f = ix_round_f(elem, a->kind == AIR_ARG_FLOAT ? a->f : (double)a->i);
    else
      x.i = ix_norm_i(elem, a->kind == AIR_ARG_INT ? a->i : (int64_t)a->f);
    ix_set(r, f->env, op->results[i], x);
  }
  if (args != small) air_mem_free(&r->alloc, args);
  ix_next(s);
  return IX_CONT;
}

int ix_op_call(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  if (op->kind == AIR_OP_CUSTOM && !op->sym)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                               "air.custom without a symbol names nothing to run"));
  const air_op_t* fn = op->sym ? ix_find_func(&r->tab, op->sym) : NULL;
  uint32_t nr = op->kind == AIR_OP_CUSTOM ? 0 : op->n_results;
  if (!fn || !fn->n_regions || !fn->regions[0]) return call_kernel(s, f, op, fn, nr);
  const air_block_t* body = fn->regions[0];
  if (s->n > 4096)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_RESOURCE_EXHAUSTED,
                               "%s @%s: calls nested too deeply", ix_opname(op), op->sym));
  if (body->n_args != op->n_operands)
    return ix_failed(s, ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                               "%s @%s: %u arguments for %u parameters", ix_opname(op),
                               op->sym, op->n_operands, body->n_args));
  ix_env_t* be = ix_env_new(r, body, NULL, false);
  if (!be) return ix_oom(s);
  int rc = ix_transfer(s, op, f->env, op->operands, be, body->args, op->n_operands);
  ix_frame_t bf = {.kind = IX_F_BODY, .owner = op, .pc = body->first, .env = be};
  if (rc != IX_CONT || !ix_push(s, &bf)) {
    ix_env_unref(r, be);
    return rc != IX_CONT ? rc : ix_oom(s);
  }
  return IX_CONT;
}

/* interp.c - the CPU executor's run: start and completion, the per-run program
 * tables (value slots, block layouts, functions), the watchdog and tracing.
 *
 * Completion and teardown: a run ends when its last strand leaves (live == 0).
 * Then everything is freed and `done` is called last, so the caller may destroy
 * the pool, program and allocator's owner as soon as it returns. When the
 * watchdog gives up on a kernel (which cannot be killed) the strand stays
 * "abandoned": `done` is called as soon as every other strand has left, and the
 * abandoned strand, when its kernel finally returns, unwinds using only run-owned
 * tables (never the program, trace or context) and frees the run. The allocator
 * must therefore outlive a kernel the watchdog abandoned. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hal/cpu/interp_internal.h"
#include "hal/futex.h"
#include "hal/trace_impl.h"
#include "runtime/base/status_util.h"

/*---------------------------------------------------------------------------*/
/* Memory and maps                                                           */
/*---------------------------------------------------------------------------*/

void* ix_alloc(ix_run_t* r, size_t size) { return r->alloc.alloc(r->alloc.self, size ? size : 1); }

void* ix_calloc(ix_run_t* r, size_t n, size_t size) {
  if (n && size > SIZE_MAX / n) return NULL;
  size_t bytes = n * size;
  void* p = ix_alloc(r, bytes);
  if (p) memset(p, 0, bytes ? bytes : 1);
  return p;
}

void ix_free(ix_run_t* r, void* p) {
  if (p) r->alloc.free(r->alloc.self, p);
}

/* A call to libc's memset: for a few hundred bytes it beats the inlined `rep
 * stos` a constant size gets, whose start-up cost showed in the inline path. */
__attribute__((noinline)) static void zero(void* p, size_t n) {
  static void* (*volatile set)(void*, int, size_t) = memset;
  set(p, 0, n);
}

#define IX_DEAD ((const void*)(uintptr_t)1)

static uint32_t ptr_hash(const void* k) {
  uint64_t x = (uint64_t)(uintptr_t)k;
  x ^= x >> 33;
  x *= UINT64_C(0xff51afd7ed558ccd);
  x ^= x >> 33;
  return (uint32_t)x;
}

static bool map_grow(ix_run_t* r, ix_map_t* m) {
  uint32_t cap = m->cap ? m->cap * 2 : 64;
  while (m->n * 2 >= cap) cap *= 2;
  const void** keys = ix_calloc(r, cap, sizeof(*keys));
  void** vals = ix_calloc(r, cap, sizeof(*vals));
  if (!keys || !vals) {
    ix_free(r, keys);
    ix_free(r, vals);
    return false;
  }
  for (uint32_t i = 0; i < m->cap; ++i) {
    const void* k = m->keys[i];
    if (!k || k == IX_DEAD) continue;
    uint32_t j = ptr_hash(k) & (cap - 1);
    while (keys[j]) j = (j + 1) & (cap - 1);
    keys[j] = k;
    vals[j] = m->vals[i];
  }
  ix_free(r, m->keys);
  ix_free(r, m->vals);
  m->keys = keys;
  m->vals = vals;
  m->cap = cap;
  m->dead = 0;
  return true;
}

bool ix_map_put(ix_run_t* r, ix_map_t* m, const void* key, void* val) {
  if ((m->n + m->dead + 1) * 2 > m->cap && !map_grow(r, m)) return false;
  uint32_t j = ptr_hash(key) & (m->cap - 1);
  while (m->keys[j] && m->keys[j] != IX_DEAD && m->keys[j] != key) j = (j + 1) & (m->cap - 1);
  if (m->keys[j] == IX_DEAD) m->dead--;
  if (m->keys[j] != key) m->n++;
  m->keys[j] = key;
  m->vals[j] = val;
  return true;
}

static uint32_t map_find(const ix_map_t* m, const void* key) {
  if (!m->cap) return UINT32_MAX;
  uint32_t j = ptr_hash(key) & (m->cap - 1);
  while (m->keys[j]) {
    if (m->keys[j] == key) return j;
    j = (j + 1) & (m->cap - 1);
  }
  return UINT32_MAX;
}

void* ix_map_get(const ix_map_t* m, const void* key) {
  uint32_t j = map_find(m, key);
  return j == UINT32_MAX ? NULL : m->vals[j];
}

bool ix_map_del(ix_map_t* m, const void* key) {
  uint32_t j = map_find(m, key);
  if (j == UINT32_MAX) return false;
  m->keys[j] = IX_DEAD;
  m->n--;
  m->dead++;
  return true;
}

static void map_free(ix_run_t* r, ix_map_t* m) {
  ix_free(r, m->keys);
  ix_free(r, m->vals);
  memset(m, 0, sizeof *m);
}

/*---------------------------------------------------------------------------*/
/* Names and errors                                                          */
/*---------------------------------------------------------------------------*/

const char* ix_opname(const air_op_t* op) { return air_opkind_name(op->kind); }

const char* ix_vname(const ix_run_t* r, air_vid_t v, char* buf, size_t n) {
  const char* name = v < r->p->n_values ? r->p->values[v].name : NULL;
  if (name)
    snprintf(buf, n, "%%%s", name);
  else
    snprintf(buf, n, "%%<%u>", v);
  return buf;
}

air_status_t ix_err(ix_run_t* r, const air_op_t* op, air_status_code_t code, const char* fmt,
                    ...) {
  air_sb_t sb;
  air_sb_init(&sb, &r->alloc);
  va_list ap;
  va_start(ap, fmt);
  air_sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  char* msg = air_sb_take(&sb, NULL);
  air_status_t st = air_ir_error_at(r->p, code, op ? op->line : 0, op ? op->col : 0, __FILE__,
                                    __LINE__, "%s", msg ? msg : "out of memory");
  ix_free(r, msg);
  return st;
}

const air_op_t* ix_find_func(const ix_run_t* r, const char* name) {
  uint32_t lo = 0, hi = r->n_funcs;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    int c = strcmp(r->funcs[mid]->sym, name);
    if (!c) return r->funcs[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Watchdog and trace                                                        */
/*---------------------------------------------------------------------------*/

void ix_watch_enter(ix_strand_t* s, const air_op_t* op, bool abandonable) {
  ix_run_t* r = s->run;
  if (!r->wslots || s->worker >= r->n_wslots) return;
  ix_wslot_t* w = &r->wslots[s->worker];
  atomic_store_explicit(&w->t0, air_time_now_ns(), memory_order_relaxed);
  atomic_store_explicit(&w->op, op, memory_order_relaxed);
  w->seq++;
  uint64_t st = (w->seq << 2) | IX_WD_BUSY | (abandonable ? IX_WD_ABANDONABLE : 0);
  atomic_store_explicit(&w->state, st & ~IX_WD_FIRED, memory_order_release);
}

bool ix_watch_exit(ix_strand_t* s) {
  ix_run_t* r = s->run;
  if (!r->wslots || s->worker >= r->n_wslots) return false;
  ix_wslot_t* w = &r->wslots[s->worker];
  uint64_t mine = atomic_load_explicit(&w->state, memory_order_relaxed) & ~IX_WD_FIRED;
  uint64_t expect = mine;
  if (atomic_compare_exchange_strong(&w->state, &expect, 0)) return false;
  /* The watchdog fired on this op. It did so under the run lock; taking the lock
   * once orders us after it, so its bookkeeping (abandoned count, failure) is in
   * place before this strand goes on to leave the run. */
  atomic_store(&w->state, 0);
  ix_lock(r);
  ix_unlock(r);
  return (mine & IX_WD_ABANDONABLE) != 0;
}

void ix_trace(ix_strand_t* s, int kind, const char* track, const air_op_t* op, int64_t t0) {
  ix_run_t* r = s->run;
  if (!r->trace || s->abandoned) return;
  char name[128];
  if (op->kind == AIR_OP_CALL)
    snprintf(name, sizeof name, "func.call @%s", op->sym ? op->sym : "?");
  else if (op->sym && op->kind != AIR_OP_CHANNEL)
    snprintf(name, sizeof name, "%s @%s", ix_opname(op), op->sym);
  else
    snprintf(name, sizeof name, "%s", ix_opname(op));
  air_trace_record(r->trace, (air_track_kind_t)kind, track, name, t0, air_time_now_ns());
}

static void* watchdog_main(void* arg) {
  ix_run_t* r = arg;
  int64_t tick = r->watchdog_ns / 4;
  if (tick < 1000000) tick = 1000000;
  if (tick > 50000000) tick = 50000000;
  ix_lock(r);
  while (!r->wd_stop) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t at = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + tick;
    ts.tv_sec = at / 1000000000;
    ts.tv_nsec = at % 1000000000;
    pthread_cond_timedwait(&r->wd_cond, &r->lock, &ts);
    if (r->wd_stop || ix_failing(r)) continue;
    int64_t now = air_time_now_ns();
    for (uint32_t i = 0; i < r->n_wslots; ++i) {
      ix_wslot_t* w = &r->wslots[i];
      uint64_t st = atomic_load_explicit(&w->state, memory_order_acquire);
      if (!(st & IX_WD_BUSY) || (st & IX_WD_FIRED)) continue;
      int64_t t0 = atomic_load_explicit(&w->t0, memory_order_relaxed);
      const air_op_t* op = atomic_load_explicit(&w->op, memory_order_relaxed);
      if (now - t0 <= r->watchdog_ns) continue;
      /* Unchanged state means the op read above is still the one running. */
      if (!atomic_compare_exchange_strong(&w->state, &st, st | IX_WD_FIRED)) continue;
      ix_wake_t wk = {0};
      air_status_t fail = ix_err(
          r, op, AIR_STATUS_DEADLINE_EXCEEDED,
          "%s%s%s ran longer than the watchdog allows (%.3f ms)%s", ix_opname(op),
          op->sym ? " @" : "", op->sym ? op->sym : "", (double)r->watchdog_ns / 1e6,
          (st & IX_WD_ABANDONABLE) ? "; the kernel is abandoned and its late completion ignored"
                                   : "");
      if (st & IX_WD_ABANDONABLE) r->abandoned++;
      ix_fail_locked(r, fail, &wk);
      air_status_t early = NULL;
      bool call_done = ix_take_early_done(r, &early);
      air_interp_done_fn_t done = r->done;
      void* user = r->user;
      ix_wake_flush(r, &wk);
      ix_unlock(r);
      if (call_done) done(user, early);
      ix_lock(r);
      break;
    }
  }
  ix_unlock(r);
  ix_run_unref(r);
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Per-run program tables                                                    */
/*---------------------------------------------------------------------------*/

static uint8_t kind_of(const air_program_t* p, air_tid_t t) {
  const air_type_info_t* ti = air_ir_type(p, t);
  return ti->kind == AIR_TYPE_TOKEN ? IX_K_TOKEN
         : ti->kind == AIR_TYPE_MEMREF ? IX_K_MEMREF
                                       : IX_K_SCALAR;
}

static uint32_t count_blocks(const air_op_t* op) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < op->n_regions; ++i) {
    const air_block_t* b = op->regions[i];
    if (!b) continue;
    ++n;
    for (const air_op_t* o = b->first; o; o = o->next) n += count_blocks(o);
  }
  return n;
}

static void assign(ix_run_t* r, ix_binfo_t* bi, air_vid_t v, uint32_t depth) {
  if (!v || v >= r->n_values) return;
  ix_vinfo_t* vi = &r->vinfo[v];
  vi->slot = (int32_t)bi->n_slots;
  vi->depth = depth;
  bi->kinds[bi->n_slots++] = vi->kind;
  if (vi->kind == IX_K_MEMREF) vi->view = (int32_t)bi->n_views++;
}

static air_status_t compile_op(ix_run_t* r, const air_op_t* op, uint32_t depth, uint32_t* next);

static air_status_t compile_block(ix_run_t* r, const air_block_t* b, uint32_t depth,
                                  uint32_t* next) {
  ix_binfo_t* bi = &r->binfos[(*next)++];
  bi->block = b;
  bi->depth = depth;
  uint32_t n = b->n_args;
  for (const air_op_t* o = b->first; o; o = o->next) n += o->n_results;
  bi->kinds = ix_calloc(r, n ? n : 1, 1);
  if (!bi->kinds || !ix_map_put(r, &r->blocks, b, bi))
    return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  for (uint32_t i = 0; i < b->n_args; ++i) assign(r, bi, b->args[i], depth);
  for (const air_op_t* o = b->first; o; o = o->next)
    for (uint32_t i = 0; i < o->n_results; ++i) assign(r, bi, o->results[i], depth);
  for (const air_op_t* o = b->first; o; o = o->next)
    AIR_RETURN_IF_ERROR(compile_op(r, o, depth + 1, next));
  return NULL;
}

static air_status_t compile_op(ix_run_t* r, const air_op_t* op, uint32_t depth, uint32_t* next) {
  if (op->kind == AIR_OP_EXECUTE && op->n_results)
    for (uint32_t i = 1; i < op->n_results; ++i)
      if (op->results[i] < r->n_values) r->vinfo[op->results[i]].guard = op->results[0];
  for (uint32_t i = 0; i < op->n_regions; ++i)
    if (op->regions[i]) AIR_RETURN_IF_ERROR(compile_block(r, op->regions[i], depth, next));
  return NULL;
}

/* A block that can never park: no AIR ops, tokens, calls of bodies or results of
 * air.execute. scf.parallel runs such bodies inline. */
static bool pure_block(ix_run_t* r, const air_block_t* b) {
  for (const air_op_t* o = b->first; o; o = o->next) {
    switch (air_opkind_class(o->kind)) {
      case AIR_OPC_CONSTANT: case AIR_OPC_BINARY: case AIR_OPC_UNARY: case AIR_OPC_CMP:
      case AIR_OPC_SELECT: case AIR_OPC_CAST: case AIR_OPC_ALLOC: case AIR_OPC_DEALLOC:
      case AIR_OPC_LOAD: case AIR_OPC_STORE: case AIR_OPC_COPY: case AIR_OPC_SUBVIEW:
      case AIR_OPC_RESHAPE:
      case AIR_OPC_FOR: case AIR_OPC_PARALLEL: case AIR_OPC_REDUCE: case AIR_OPC_IF:
      case AIR_OPC_AFFINE_APPLY: case AIR_OPC_AFFINE_IF: case AIR_OPC_AFFINE_FOR:
      case AIR_OPC_LINALG: case AIR_OPC_TERMINATOR:
        break;
      case AIR_OPC_CALL: {
        const air_op_t* f = o->sym ? ix_find_func(r, o->sym) : NULL;
        if (f && f->n_regions) return false;
        break;
      }
      default: return false;
    }
    for (uint32_t i = 0; i < o->n_operands; ++i) {
      air_vid_t v = o->operands[i];
      if (v < r->n_values && (r->vinfo[v].guard || r->vinfo[v].kind == IX_K_TOKEN)) return false;
    }
    for (uint32_t i = 0; i < o->n_results; ++i)
      if (o->results[i] < r->n_values && r->vinfo[o->results[i]].kind == IX_K_TOKEN) return false;
    for (uint32_t i = 0; i < o->n_regions; ++i)
      if (o->regions[i] && !pure_block(r, o->regions[i])) return false;
  }
  return true;
}

/* Straight-line ops only, none that runs user code or loops over memory: a run
 * costs about as much as starting one, so queues need not spread such runs. */
static bool flat_block(const air_block_t* b) {
  for (const air_op_t* o = b->first; o; o = o->next) {
    if (o->n_regions) return false;
    switch (air_opkind_class(o->kind)) {
      case AIR_OPC_CALL: case AIR_OPC_LINALG: case AIR_OPC_COPY: return false;
      default: break;
    }
  }
  return true;
}

static int func_cmp(const void* a, const void* b) {
  return strcmp((*(const air_op_t* const*)a)->sym, (*(const air_op_t* const*)b)->sym);
}

static air_status_t compile_tables(ix_run_t* r) {
  const air_program_t* p = r->p;
  r->n_values = p->n_values;
  r->vinfo = ix_calloc(r, p->n_values ? p->n_values : 1, sizeof(ix_vinfo_t));
  if (!r->vinfo) return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  for (uint32_t v = 0; v < p->n_values; ++v) {
    ix_vinfo_t* vi = &r->vinfo[v];
    vi->slot = vi->view = -1;
    const air_type_info_t* ti = air_ir_type(p, p->values[v].type);
    vi->kind = kind_of(p, p->values[v].type);
    vi->elem = (uint8_t)ti->elem;
  }
  const air_block_t* body = p->module->n_regions ? p->module->regions[0] : NULL;
  if (!body) return AIR_STATUS(&r->alloc, AIR_STATUS_INVALID_ARGUMENT, "program has no body");
  uint32_t nb = 0, nf = 0;
  for (const air_op_t* o = body->first; o; o = o->next) {
    nb += count_blocks(o);
    if (o->kind == AIR_OP_FUNC && o->sym) ++nf;
  }
  r->binfos = ix_calloc(r, nb ? nb : 1, sizeof(ix_binfo_t));
  r->funcs = ix_calloc(r, nf ? nf : 1, sizeof(*r->funcs));
  if (!r->binfos || !r->funcs)
    return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  for (const air_op_t* o = body->first; o; o = o->next)
    if (o->kind == AIR_OP_FUNC && o->sym) r->funcs[r->n_funcs++] = o;
  qsort(r->funcs, r->n_funcs, sizeof *r->funcs, func_cmp);
  uint32_t next = 0;
  for (const air_op_t* o = body->first; o; o = o->next)
    AIR_RETURN_IF_ERROR(compile_op(r, o, 1, &next));
  r->n_binfos = next;
  for (uint32_t i = 0; i < r->n_binfos; ++i) {
    /* scf.parallel bodies run inline when pure; so do whole entry bodies. */
    const air_op_t* owner = r->binfos[i].block->parent;
    if (owner && (owner->kind == AIR_OP_PARALLEL || owner->kind == AIR_OP_FUNC))
      r->binfos[i].pure = pure_block(r, r->binfos[i].block);
    if (owner && owner->kind == AIR_OP_FUNC) r->binfos[i].flat = flat_block(r->binfos[i].block);
  }
  return ix_chan_build(r);
}

/* The run's own tables (not the channel table: ix_chan_free owns that). */
static void tables_free(ix_run_t* r) {
  for (uint32_t i = 0; i < r->n_binfos; ++i) ix_free(r, r->binfos[i].kinds);
  ix_free(r, r->binfos);
  ix_free(r, r->vinfo);
  ix_free(r, r->funcs);
  map_free(r, &r->blocks);
}

/* Borrows the prep's tables, or derives the run's own. */
static air_status_t compile(ix_run_t* r) {
  const air_interp_prep_t* pr = r->prep;
  if (!pr) return compile_tables(r);
  r->vinfo = pr->vinfo;
  r->n_values = pr->n_values;
  r->binfos = pr->binfos;
  r->n_binfos = pr->n_binfos;
  r->blocks = pr->blocks;
  r->funcs = pr->funcs;
  r->n_funcs = pr->n_funcs;
  r->chans = pr->chans;
  r->n_chans = pr->n_chans;
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Prepared programs                                                         */
/*---------------------------------------------------------------------------*/

enum { KEEP_RUNS = 8 }; /* finished runs a prep keeps for reuse */

static void run_destroy(ix_run_t* r, air_allocator_t a) {
  pthread_mutex_destroy(&r->lock);
  pthread_mutex_destroy(&r->mem_lock);
  pthread_cond_destroy(&r->wd_cond);
  a.free(a.self, r);
}

/* Tables of a scratch run made on the prep's allocator, so the table code above
 * serves both. */
static void scratch_init(ix_run_t* r, const air_allocator_t* a, const air_program_t* p) {
  memset(r, 0, sizeof *r);
  r->alloc = *a;
  r->p = p;
}

air_status_t air_interp_prepare(const air_allocator_t* a, const air_program_t* p,
                                air_interp_prep_t** out) {
  *out = NULL;
  if (!a || !p || !p->module)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "air_interp_prepare: NULL argument");
  ix_run_t* r = a->alloc(a->self, sizeof *r);
  air_interp_prep_t* pr = a->alloc(a->self, sizeof *pr);
  if (!r || !pr) {
    if (r) a->free(a->self, r);
    if (pr) a->free(a->self, pr);
    return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory preparing a program");
  }
  scratch_init(r, a, p);
  air_status_t st = compile_tables(r);
  if (st) {
    tables_free(r);
    ix_free(r, r->chans);
    a->free(a->self, r);
    a->free(a->self, pr);
    return st;
  }
  memset(pr, 0, sizeof *pr);
  atomic_init(&pr->refs, 1);
  pr->alloc = *a;
  pr->p = p;
  r->prep = pr;
  pr->vinfo = r->vinfo;
  pr->n_values = r->n_values;
  pr->binfos = r->binfos;
  pr->n_binfos = r->n_binfos;
  pr->blocks = r->blocks;
  pr->funcs = r->funcs;
  pr->n_funcs = r->n_funcs;
  pr->chans = r->chans;
  pr->n_chans = r->n_chans;
  pthread_mutex_init(&pr->free_mu, NULL);
  a->free(a->self, r);
  *out = pr;
  return NULL;
}

void air_interp_prep_release(air_interp_prep_t* pr) {
  if (!pr || atomic_fetch_sub_explicit(&pr->refs, 1, memory_order_acq_rel) != 1) return;
  air_allocator_t a = pr->alloc;
  while (pr->free_runs) {
    ix_run_t* r = pr->free_runs;
    pr->free_runs = r->next_free;
    run_destroy(r, a);
  }
  ix_run_t* r = a.alloc(a.self, sizeof *r);
  if (r) { /* tables_free works on a run; without one (no memory) they leak */
    scratch_init(r, &a, pr->p);
    r->vinfo = pr->vinfo;
    r->binfos = pr->binfos;
    r->n_binfos = pr->n_binfos;
    r->blocks = pr->blocks;
    r->funcs = pr->funcs;
    tables_free(r);
    a.free(a.self, r);
  }
  a.free(a.self, pr->chans);
  pthread_mutex_destroy(&pr->free_mu);
  a.free(a.self, pr);
}

/* A run object with its mutexes initialised: a kept one, else a new one. */
static ix_run_t* run_get(const air_interp_desc_t* d) {
  air_interp_prep_t* pr = (air_interp_prep_t*)d->prep;
  ix_run_t* r = NULL;
  const air_allocator_t* a = &d->allocator;
  if (pr && (a->self != pr->alloc.self || a->alloc != pr->alloc.alloc || a->free != pr->alloc.free))
    pr = NULL; /* never mix allocators: the run would be freed with the wrong one */
  if (pr) {
    pthread_mutex_lock(&pr->free_mu);
    r = pr->free_runs;
    if (r) {
      pr->free_runs = r->next_free;
      pr->n_free--;
    }
    pthread_mutex_unlock(&pr->free_mu);
  }
  if (!r) {
    r = d->allocator.alloc(d->allocator.self, sizeof *r);
    if (!r) return NULL;
    pthread_mutex_init(&r->lock, NULL);
    pthread_mutex_init(&r->mem_lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->wd_cond, &ca);
    pthread_condattr_destroy(&ca);
  }
  r->next_free = NULL;
  size_t keep = offsetof(ix_run_t, alloc);
  zero((char*)r + keep, sizeof *r - keep);
  if (pr) {
    atomic_fetch_add_explicit(&pr->refs, 1, memory_order_relaxed);
    r->prep = pr;
  }
  return r;
}

/*---------------------------------------------------------------------------*/
/* Start, completion                                                         */
/*---------------------------------------------------------------------------*/

/* Frees what the run made; a run of a prep goes back to it for reuse (run_get
 * gives a run a prep only when both use the same allocator). */
static void run_free(ix_run_t* r) {
  ix_sched_free(r);
  ix_chan_free(r);
  ix_allocs_free(r);
  ix_free(r, r->wslots);
  map_free(r, &r->allocs);
  air_interp_prep_t* pr = r->prep;
  air_allocator_t a = r->alloc;
  if (!pr) {
    tables_free(r);
    run_destroy(r, a);
    return;
  }
  bool keep = false;
  {
    pthread_mutex_lock(&pr->free_mu);
    if (pr->n_free < KEEP_RUNS) {
      r->next_free = pr->free_runs;
      pr->free_runs = r;
      pr->n_free++;
      keep = true;
    }
    pthread_mutex_unlock(&pr->free_mu);
  }
  if (!keep) run_destroy(r, a);
  air_interp_prep_release(pr);
}

void ix_run_unref(ix_run_t* r) {
  if (atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) != 1) return;
  air_interp_done_fn_t done = r->done;
  void* user = r->user;
  bool called = r->done_called;
  air_status_t st = r->status;
  r->status = NULL;
  run_free(r);
  if (!called)
    done(user, st);
  else
    air_status_free(st);
}

static air_status_t bind_args(ix_run_t* r, const air_interp_desc_t* d, ix_env_t* env) {
  const air_op_t* fn = d->entry;
  const air_block_t* body = fn->regions[0];
  uint32_t n = fn->iaux[0];
  for (uint32_t i = 0; i < n && i < body->n_args; ++i) {
    const air_arg_t* a = &d->args[i];
    air_vid_t v = body->args[i];
    const air_type_info_t* t = air_ir_type(r->p, air_ir_value_type(r->p, v));
    ix_val_t x = {0};
    if (t->kind == AIR_TYPE_MEMREF) {
      air_memref_t m = a->memref;
      bool ok = a->kind == AIR_ARG_MEMREF && (!m.elem || m.elem == (uint32_t)t->elem) &&
                m.rank == t->rank && t->rank <= AIR_MAX_RANK;
      int64_t count = 1;
      for (uint32_t k = 0; ok && k < t->rank; ++k) {
        ok = m.sizes[k] >= 0 && (t->shape[k] == AIR_DIM_DYNAMIC || t->shape[k] == m.sizes[k]);
        count *= m.sizes[k];
      }
      if (!ok || (!m.data && count))
        return ix_err(r, fn, AIR_STATUS_INVALID_ARGUMENT,
                      "argument #%u of @%s must be a %u-d memref of %s matching the parameter "
                      "type",
                      i, fn->sym ? fn->sym : "?", t->rank, air_elem_name(t->elem));
      m.elem = (uint32_t)t->elem;
      x.p = &m;
      ix_set(r, env, v, x);
    } else if (t->kind == AIR_TYPE_SCALAR) {
      bool fl = air_elem_is_float(t->elem);
      if (a->kind != (fl ? AIR_ARG_FLOAT : AIR_ARG_INT))
        return ix_err(r, fn, AIR_STATUS_INVALID_ARGUMENT,
                      "argument #%u of @%s must be %s scalar (%s)", i, fn->sym ? fn->sym : "?",
                      fl ? "a float" : "an integer", air_elem_name(t->elem));
      if (fl)
        x.f = ix_round_f(t->elem, a->f);
      else
        x.i = ix_norm_i(t->elem, a->i);
      ix_set(r, env, v, x);
    } else {
      return ix_err(r, fn, AIR_STATUS_UNIMPLEMENTED,
                    "argument #%u of @%s is a token; entry functions take memrefs and scalars",
                    i, fn->sym ? fn->sym : "?");
    }
  }
  return NULL;
}

static air_status_t start(ix_run_t* r, const air_interp_desc_t* d) {
  AIR_RETURN_IF_ERROR(compile(r));
  AIR_RETURN_IF_ERROR(ix_sched_init(r, d));
  if (d->watchdog_ns > 0) {
    r->n_wslots = air_pool_threads(d->pool);
    r->wslots = ix_calloc(r, r->n_wslots ? r->n_wslots : 1, sizeof(ix_wslot_t));
    if (!r->wslots) return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  const air_block_t* body = d->entry->regions[0];
  ix_env_t* env = ix_env_new(r, body, NULL, false);
  ix_tok_t* root = env ? ix_tok_new(r, d->entry, NULL) : NULL;
  r->root_space = ix_space_new(r);
  ix_strand_t* s = root && r->root_space ? ix_strand_new(r, root, root, NULL, r->root_space) : NULL;
  /* The host strand walks the body, or on the schedule path opens its waves. */
  ix_frame_t f = {.kind = r->sched.plan ? IX_F_SCHED : IX_F_BODY, .owner = d->entry,
                  .pc = r->sched.plan ? NULL : body->first, .env = env};
  air_status_t st = NULL;
  if (!s || !ix_push(s, &f))
    st = AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  else
    st = bind_args(r, d, env);
  if (root) ix_tok_unref(r, root);
  if (st) {
    if (s && s->n) env = NULL; /* the frame owns it */
    if (s) ix_strand_free(s);
    if (env) ix_env_unref(r, env);
    return st;
  }
  atomic_init(&r->refs, 1);
  if (r->wslots) {
    atomic_store(&r->refs, 2);
    if (pthread_create(&r->wd_thread, NULL, watchdog_main, r)) {
      ix_strand_free(s);
      return AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "cannot start the watchdog");
    }
    r->wd_running = true;
  }
  ix_spawn(r, s);
  return NULL;
}

/* The inline path: an entry body that cannot park (binfo pure), run to its end
 * on the caller's worker by one strand on the stack, with no root token, channel
 * space, watchdog or trace (those cases take the pool path). A schedule changes
 * nothing for such a body unless it places transients. */
static const ix_binfo_t* inline_body(const air_interp_desc_t* d) {
  const air_interp_plan_t* pl = d->plan;
  const air_op_t* e = d->entry;
  if (!d->prep || d->prep->p != d->program || d->watchdog_ns > 0 || d->trace || d->schedule ||
      !e || e->kind != AIR_OP_FUNC || e->n_regions < 1 || !e->regions[0])
    return NULL;
  if (pl && (pl->entry != e || pl->program != d->program || pl->n_l3)) return NULL;
  const ix_binfo_t* bi = ix_map_get(&d->prep->blocks, e->regions[0]);
  return bi && bi->pure ? bi : NULL;
}

air_interp_inline_t air_interp_inline_kind(const air_interp_desc_t* d) {
  const ix_binfo_t* bi = inline_body(d);
  if (!bi) return AIR_INTERP_INLINE_NO;
  return bi->flat ? AIR_INTERP_INLINE_SHORT : AIR_INTERP_INLINE_YES;
}

/* The checks air_interp_start makes before anything runs. */
static air_status_t check_desc(const air_interp_desc_t* desc, bool have_done) {
  if (!desc || !desc->allocator.alloc || !desc->allocator.free || !desc->allocator.realloc)
    return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "air_interp_start: no allocator");
  const air_allocator_t* a = &desc->allocator;
  const air_op_t* e = desc->entry;
  if (!desc->program || !desc->pool || !have_done || !e || e->kind != AIR_OP_FUNC ||
      e->n_regions < 1 || !e->regions[0] || !e->regions[0]->first)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "air_interp_start: needs a program, a pool, a done callback and an entry "
                      "func.func with a body");
  if (desc->n_args != e->iaux[0] || (desc->n_args && !desc->args))
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "air_interp_start: @%s takes %u arguments, %u given", e->sym ? e->sym : "?",
                      e->iaux[0], desc->n_args);
  if (desc->prep && desc->prep->p != desc->program)
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "air_interp_start: the prepared tables are for another program");
  return NULL;
}

enum { INLINE_ENV_BYTES = 1024, INLINE_FRAMES = 8 };

/* Only the run and strand fields the ops of a body that cannot park reach are
 * set, one by one: the schedule state, watchdog slots, park lists and park
 * record are never read on this path, and clearing the ~850 bytes of both whole
 * costs about what a dispatch may (bench: submit-sweep). A field such ops come
 * to read must be set here too. The mutexes are statically initialised (no
 * init/destroy calls); nothing outside this call ever sees them. The body's env
 * lives on the stack when it is small. */
static air_status_t run_inline(const air_interp_desc_t* d, const ix_binfo_t* bi,
                               air_status_t* run_status) {
  ix_run_t r;
  r.lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
  r.mem_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
  r.next_free = NULL;
  r.alloc = d->allocator;
  r.p = d->program;
  r.ctx = d->context;
  r.pool = d->pool;
  r.trace = NULL;
  r.watchdog_ns = 0;
  r.done = NULL;
  r.user = NULL;
  r.prep = (air_interp_prep_t*)d->prep; /* borrowed: this call outlives the run */
  r.live = r.active = r.abandoned = 0;
  r.parked = NULL;
  atomic_init(&r.failing, 0);
  r.status = NULL;
  r.done_called = false;
  atomic_init(&r.refs, 0);
  r.spaces = r.root_space = NULL;
  r.allocs = (ix_map_t){0};
  r.wslots = NULL;
  r.n_wslots = 0;
  r.wd_stop = r.wd_running = false;
  compile(&r);
  const air_block_t* body = d->entry->regions[0];
  ix_frame_t frames[INLINE_FRAMES]; /* enough for most pure bodies; ix_push moves them */
  ix_strand_t s;
  s.task.next = NULL;
  s.task.fn = NULL;
  s.run = &r;
  s.frames = frames;
  s.n = 0;
  s.cap = INLINE_FRAMES;
  s.join = s.scope = NULL;
  s.pe = NULL;
  s.space = NULL;
  s.extra = NULL;
  s.n_extra = 0;
  s.worker = UINT32_MAX;
  s.abandoned = false;
  s.fixed_frames = true;
  s.wprev = s.wnext = s.pprev = s.pnext = NULL;
  s.wlist = NULL;
  s.park.why = 0;
  _Alignas(16) char env_mem[INLINE_ENV_BYTES];
  bool on_stack = ix_env_size(bi, false) <= sizeof env_mem;
  ix_env_t* env = on_stack ? ix_env_at(env_mem, bi) : ix_env_new(&r, body, NULL, false);
  air_status_t st = NULL;
  if (!env) {
    st = AIR_STATUS(&r.alloc, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  } else {
    ix_frame_t* f = &frames[0]; /* field by field: an initialiser clears it with `rep stos` */
    f->kind = IX_F_BODY;
    f->flags = f->after = 0;
    f->owner = d->entry;
    f->pc = body->first;
    f->env = env;
    f->iv = f->ub = f->step = 0;
    f->inst = f->k = 0;
    f->tk_op = NULL;
    f->ticket = 0;
    f->state = NULL;
    f->n_wait = 0;
    s.n = 1;
    if (!d->n_args || !(st = bind_args(&r, d, env))) ix_strand_run_inline(&s);
  }
  while (s.n) ix_pop(&s);
  if (!s.fixed_frames) ix_free(&r, s.frames);
  if (env && on_stack && !ix_env_release_at(&r, env) && !st && !r.status)
    r.status = AIR_STATUS(&r.alloc, AIR_STATUS_INTERNAL,
                          "@%s: an inline run left its environment referenced",
                          d->entry->sym ? d->entry->sym : "?");
  if (r.allocs.cap) {
    ix_allocs_free(&r);
    map_free(&r, &r.allocs);
  }
  if (st) return st; /* as on the pool path: nothing started, no outcome */
  *run_status = r.status;
  return NULL;
}

bool air_interp_inline_prepare(const air_interp_desc_t* desc, air_interp_inline_run_t* out) {
  air_status_t st = check_desc(desc, true);
  if (st) {
    air_status_free(st);
    return false;
  }
  const ix_binfo_t* bi = desc->run_inline ? inline_body(desc) : NULL;
  if (!bi) return false;
  out->desc = *desc;
  out->body = bi;
  return true;
}

air_status_t air_interp_inline_exec(const air_interp_inline_run_t* run, air_status_t* run_status) {
  return run_inline(&run->desc, run->body, run_status);
}

air_status_t air_interp_start(const air_interp_desc_t* desc, air_interp_done_fn_t done,
                              void* user) {
  AIR_RETURN_IF_ERROR(check_desc(desc, done != NULL));
  const air_allocator_t* a = &desc->allocator;
  const ix_binfo_t* bi = desc->run_inline ? inline_body(desc) : NULL;
  if (bi) {
    air_status_t outcome;
    AIR_RETURN_IF_ERROR(run_inline(desc, bi, &outcome));
    done(user, outcome);
    return NULL;
  }
  ix_run_t* r = run_get(desc);
  if (!r) return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  r->alloc = *a;
  r->p = desc->program;
  r->ctx = desc->context;
  r->pool = desc->pool;
  r->trace = desc->trace;
  r->watchdog_ns = desc->watchdog_ns;
  r->done = done;
  r->user = user;
  air_status_t st = start(r, desc);
  if (st) run_free(r);
  return st;
}

/* air_interp_run's rendezvous with `done`. */
typedef struct waiter_t {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool done;
  air_status_t status;
} waiter_t;

static void waiter_done(void* user, air_status_t status) {
  waiter_t* w = user;
  pthread_mutex_lock(&w->mu);
  w->status = status;
  w->done = true;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

air_status_t air_interp_run(const air_interp_desc_t* desc) {
  waiter_t w;
  memset(&w, 0, sizeof w);
  pthread_mutex_init(&w.mu, NULL);
  pthread_cond_init(&w.cv, NULL);
  air_status_t st = air_interp_start(desc, waiter_done, &w);
  if (!st) {
    pthread_mutex_lock(&w.mu);
    while (!w.done) pthread_cond_wait(&w.cv, &w.mu);
    pthread_mutex_unlock(&w.mu);
    st = w.status;
  }
  pthread_mutex_destroy(&w.mu);
  pthread_cond_destroy(&w.cv);
  return st;
}

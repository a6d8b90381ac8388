/* start.c - the executor's top floor: starting a run on the pool or inline,
 * binding the entry's arguments, the hooks the lower floors call upward through,
 * and the end of a run; the public API of interp.h (besides preps and plans).
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
#include <string.h>

#include "hal/cpu/interp/channel.h"
#include "hal/cpu/interp/codec.h"
#include "hal/cpu/interp/flat.h"
#include "hal/cpu/interp/loop.h"
#include "hal/cpu/interp/rank.h"
#include "hal/cpu/interp/memref.h"
#include "hal/cpu/interp/views.h"
#include "hal/cpu/interp/plan.h"
#include "hal/cpu/interp/stall.h"
#include "hal/cpu/interp/tables.h"
#include "hal/cpu/interp/watchdog.h"
#include "hal/cpu/interp/chan_remote.h"
#include "hal/cpu/interp/rank_wire.h"
#include "hal/cpu/interp/waves.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

/* A call to libc's memset: for a few hundred bytes it beats the inlined `rep
 * stos` a constant size gets, whose start-up cost showed in the inline path. */
__attribute__((noinline)) static void zero(void* p, size_t n) {
  static void* (*volatile set)(void*, int, size_t) = memset;
  set(p, 0, n);
}

/* Borrows the prep's tables, or derives the run's own. */
static air_status_t tables_of(ix_run_t* r) {
  if (r->prep) {
    r->tab = r->prep->tab;
    return NULL;
  }
  return ix_tables_build(&r->tab, &r->alloc, r->p);
}

/* Whether runs of `d` may use its prep's memory: never mix allocators, or a
 * block would be freed with the wrong one. */
static bool same_alloc(const air_interp_desc_t* d) {
  const air_interp_prep_t* pr = d->prep;
  const air_allocator_t* a = &d->allocator;
  return pr && a->self == pr->alloc.self && a->alloc == pr->alloc.alloc &&
         a->free == pr->alloc.free && a->realloc == pr->alloc.realloc;
}

/* A run object with its mutexes initialised: a kept one, else a new one. */
static ix_run_t* run_get(const air_interp_desc_t* d) {
  air_interp_prep_t* pr = same_alloc(d) ? (air_interp_prep_t*)d->prep : NULL;
  const air_allocator_t* a = &d->allocator;
  ix_run_t* r = pr ? ix_prep_take_run(pr) : NULL;
  if (!r && !(r = ix_run_new(a))) return NULL;
  r->next_free = NULL;
  size_t keep = offsetof(ix_run_t, alloc);
  zero((char*)r + keep, sizeof *r - keep);
  if (pr) {
    atomic_fetch_add_explicit(&pr->refs, 1, memory_order_relaxed);
    r->prep = pr;
  }
  return r;
}

/* Frees what the run made; a run of a prep goes back to it for reuse (run_get
 * gives a run a prep only when both use the same allocator). */
static void run_free(ix_run_t* r) {
  ix_tok_forever_free(r, r->fired);
  r->fired = NULL;
  ix_waves_free(r);
  ix_ranks_free(r);
  ix_chan_remote_free(r);
  ix_spaces_free(r);
  ix_allocs_free(r);
  ix_globals_free(r);
  ix_watchdog_free(r);
  air_interp_prep_t* pr = r->prep;
  air_allocator_t a = r->alloc;
  if (!pr) {
    ix_tables_free(&r->tab, &a);
    ix_run_destroy(r, a);
    return;
  }
  if (!ix_prep_keep_run(pr, r)) ix_run_destroy(r, a);
  air_interp_prep_release(pr);
}

/* The `ended` hook: the last strand has left. The run leaves its watchdog
 * first (a watchdog of its own is joined), so the watchdog's last touch of the
 * run (and of the allocator) happens before this strand's worker finishes and
 * draining the pool orders every free of an abandoned run; `done` comes last
 * (unless it was called early). */
static void run_end(ix_run_t* r) {
  /* The peers' messages stop first (the listener and courier are joined; a run
   * that failed here has told its peers). */
  ix_wire_stop(r);
  ix_watchdog_stop(r);
  air_interp_done_fn_t done = r->done;
  void* user = r->user;
  bool called = r->done_called;
  air_status_t st = r->status;
  r->status = NULL;
  /* A run that did all its work can still have broken the spec's balance of puts
   * and gets; only now, with every strand gone, is that known. */
  if (!st && !called) st = ix_chan_unread(r);
  run_free(r);
  if (!called)
    done(user, st);
  else
    air_status_free(st);
}

static const ix_hooks_t k_hooks = {
    .strand_task = ix_strand_task,
    .stalled = ix_stalled,
    .ended = run_end,
    .run_inline = ix_strand_run_inline,
};

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
  AIR_RETURN_IF_ERROR(tables_of(r));
  AIR_RETURN_IF_ERROR(ix_waves_init(r, d));
  if (!(r->fired = ix_tok_forever(r))) return AIR_STATUS_OOM(&r->alloc, "starting a run");
  const air_block_t* body = d->entry->regions[0];
  ix_env_t* env = ix_env_new(r, body, NULL, false);
  ix_tok_t* root = env ? ix_tok_new(r, d->entry, NULL) : NULL;
  r->root_space = ix_space_new(r);
  ix_strand_t* s = root && r->root_space ? ix_strand_new(r, root, root, NULL, r->root_space) : NULL;
  /* The host strand walks the body, or on the schedule path opens its waves. */
  ix_frame_t f = {.kind = r->waves ? IX_F_OPEN : IX_F_BODY, .owner = d->entry,
                  .pc = r->waves ? NULL : body->first, .env = env};
  air_status_t st = NULL;
  if (!s || !ix_push(s, &f))
    st = AIR_STATUS_OOM(&r->alloc, "starting a run");
  else
    st = bind_args(r, d, env);
  if (root) ix_tok_unref(r, root);
  if (!st) st = ix_watchdog_start(r, d->watchdog);
  if (st) {
    if (s && s->n) env = NULL; /* the frame owns it */
    if (s) ix_strand_free(s);
    if (env) ix_env_unref(r, env);
    return st;
  }
  ix_spawn(r, s);
  return NULL;
}

/* The inline path: an entry body that cannot park (binfo pure, or flat with
 * its launches able to run flat: flat.h), run to its end on the caller's worker
 * by one strand on the stack, with no root token, channel space, watchdog or
 * trace (those cases take the pool path). A schedule changes nothing for such a
 * body unless it places transients: any order it picks for a flat nest's
 * instances is one the flat path may take too. */
static const ix_binfo_t* inline_body(const air_interp_desc_t* d) {
  const air_interp_plan_t* pl = d->plan;
  const air_op_t* e = d->entry;
  if (!d->prep || d->prep->p != d->program || d->watchdog_ns > 0 || d->trace || d->schedule ||
      !e || e->kind != AIR_OP_FUNC || e->n_regions < 1 || !e->regions[0])
    return NULL;
  if (pl && (pl->entry != e || pl->program != d->program || pl->n_l3)) return NULL;
  const ix_binfo_t* bi = air_ptrmap_get(&d->prep->tab.blocks, e->regions[0]);
  return bi && (bi->pure || (bi->flat && ix_flat_ready(d))) ? bi : NULL;
}

air_interp_inline_t air_interp_inline_kind(const air_interp_desc_t* d) {
  const ix_binfo_t* bi = inline_body(d);
  if (!bi) return AIR_INTERP_INLINE_NO;
  return bi->straight ? AIR_INTERP_INLINE_SHORT : AIR_INTERP_INLINE_YES;
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
  /* The prep's blocks (environments, frames, memref.alloc buffers): a run in
   * steady state calls no allocator. */
  r.cache = same_alloc(d) ? d->prep->cache : NULL;
  r.alloc = d->allocator;
  r.p = d->program;
  r.ctx = d->context;
  r.pool = d->pool;
  r.trace = NULL;
  r.watchdog_ns = 0;
  r.done = NULL;
  r.user = NULL;
  r.hooks = &k_hooks;
  r.prep = (air_interp_prep_t*)d->prep; /* borrowed: this call outlives the run */
  r.live = r.active = r.abandoned = 0;
  r.parked = NULL;
  /* No async op runs here but a flat launch, segment or herd, done when its
   * token is made: the always-fired token, on the stack. */
  ix_tok_t fired;
  memset(&fired, 0, sizeof fired);
  atomic_init(&fired.refs, 1);
  atomic_init(&fired.fired, 1);
  fired.forever = true;
  r.fired = &fired;
  atomic_init(&r.failing, 0);
  r.status = NULL;
  r.done_called = false;
  r.spaces = r.root_space = NULL;
  atomic_flag_clear(&r.held_lock);
  r.n_held = 0;
  r.allocs = (air_ptrmap_t){0};
  r.globals = (air_ptrmap_t){0};
  r.watched = NULL;
  r.n_watched = 0;
  r.wd = NULL;
  r.wd_own = false;
  r.wd_prev = r.wd_next = NULL;
  r.waves = NULL;
  r.code = d->interpret ? NULL : d->code;
  r.reference = d->interpret;
  r.flat = !bi->pure; /* then bi->flat (inline_body) */
  tables_of(&r);
  const air_block_t* body = d->entry->regions[0];
  ix_frame_t frames[INLINE_FRAMES]; /* enough for most pure bodies; ix_push moves them */
  ix_strand_t s;
  s.w.task.next = NULL;
  s.w.task.fn = NULL;
  s.run = &r;
  s.frames = frames;
  s.n = 0;
  s.cap = INLINE_FRAMES;
  s.join = s.scope = NULL;
  s.pe = NULL;
  s.space = NULL;
  s.extra = NULL;
  s.n_extra = s.cap_extra = 0;
  s.worker = UINT32_MAX;
  s.abandoned = false;
  s.fixed_frames = true;
  s.release = false;
  s.w.wprev = s.w.wnext = s.w.pprev = s.w.pnext = NULL;
  s.w.wlist = NULL;
  s.w.park.why = 0;
  _Alignas(16) char env_mem[INLINE_ENV_BYTES];
  bool on_stack = ix_env_size(bi, false) <= sizeof env_mem;
  ix_env_t* env = on_stack ? ix_env_at(env_mem, bi, false) : ix_env_new(&r, body, NULL, false);
  air_status_t st = NULL;
  if (!env) {
    st = AIR_STATUS_OOM(&r.alloc, "environment");
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
    f->done = NULL;
    f->t0 = 0;
    s.n = 1;
    if (!d->n_args || !(st = bind_args(&r, d, env))) ix_strand_run_inline(&s);
  }
  while (s.n) ix_pop(&s);
  if (!s.fixed_frames) ix_cache_put(r.cache, &r.alloc, s.frames, s.cap * sizeof(ix_frame_t));
  if (env && on_stack && !ix_env_release_at(&r, env) && !st && !r.status)
    r.status = AIR_STATUS(&r.alloc, AIR_STATUS_INTERNAL,
                          "@%s: an inline run left its environment referenced",
                          d->entry->sym ? d->entry->sym : "?");
  if (r.n_held || r.allocs.cap) ix_allocs_free(&r);
  if (r.globals.cap) ix_globals_free(&r);
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
  out->flat = !bi->pure;
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
  ix_cache_bind(r->cache, &r->alloc, r->pool); /* per-worker fronts (cache.h), first run only */
  r->trace = desc->trace;
  r->watchdog_ns = desc->watchdog_ns;
  r->done = done;
  r->user = user;
  r->hooks = &k_hooks;
  r->code = desc->interpret ? NULL : desc->code;
  r->reference = desc->interpret;
  /* Ranks (rank.c) keep every rank's argument copies in the dispatch's holder,
   * which names them by binding: the bindings' data pointers say which is which. */
  r->rank_copies = desc->rank_copies;
  r->transport = desc->transport;
  if (desc->rank_copies && desc->n_args) {
    r->binding_data = air_mem_calloc(a, desc->n_args, sizeof(void*));
    if (!r->binding_data) {
      run_free(r);
      return AIR_STATUS_OOM(a, "run bindings");
    }
    r->n_bindings = desc->n_args;
    for (uint32_t i = 0; i < desc->n_args; ++i)
      if (desc->args[i].kind == AIR_ARG_MEMREF) r->binding_data[i] = desc->args[i].memref.data;
  }
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

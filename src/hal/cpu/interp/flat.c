/* flat.c - hierarchy ops run flat (flat.h): the instances of a launch nest run
 * one after the other in the strand that meets the launch. */
#include "hal/cpu/interp/flat.h"

#include <string.h>

#include "hal/cpu/interp/cache.h"
#include "hal/cpu/interp/tables.h"
#include "hal/cpu/interp/hier.h"
#include "hal/cpu/interp/run.h"
#include "hal/cpu/interp/unit.h"
#include "hal/cpu/pool.h"
#include "hal/futex.h"
#include "runtime/base/mem.h"

/*---------------------------------------------------------------------------*/
/* Whether a run can go flat                                                  */
/*---------------------------------------------------------------------------*/

/* The unit generator's own test (cg_emit.c bind_memref): a view a unit takes
 * for type `t` without declining. */
static bool view_fits(const air_type_info_t* t, const air_memref_t* m) {
  if ((m->elem && m->elem != (uint32_t)t->elem) || m->rank != t->rank) return false;
  bool static_shape = true;
  for (uint32_t k = 0; k < t->rank; ++k) static_shape = static_shape && t->shape[k] >= 0;
  int64_t stride = 1;
  for (uint32_t k = t->rank; k-- > 0;) {
    if (t->shape[k] >= 0 && m->sizes[k] != t->shape[k]) return false;
    if (static_shape && !t->layout) {
      if (t->shape[k] != 1 && m->strides[k] != stride) return false;
      stride *= t->shape[k] ? t->shape[k] : 1;
    }
  }
  return true;
}

/* Memref `v` (a herd body argument) is an entry argument or a memref.alloc
 * result handed down through launch and segment arguments unchanged and with
 * one type: its view is then one the unit takes (the entry's are checked
 * against their parameter types, an allocation's is its type's). */
static bool plain_memref(const air_program_t* p, air_vid_t v) {
  air_tid_t ty = air_ir_value(p, v)->type;
  for (int hops = 0; hops < 8; ++hops) {
    const air_value_info_t* vi = air_ir_value(p, v);
    if (vi->type != ty) return false;
    if (vi->def) return vi->def->kind == AIR_OP_ALLOC;
    const air_op_t* o = vi->block ? vi->block->parent : NULL;
    if (!o || !o->n_regions || o->regions[0] != vi->block) return false;
    if (o->kind == AIR_OP_FUNC) return true;
    if (o->kind != AIR_OP_LAUNCH && o->kind != AIR_OP_SEGMENT && o->kind != AIR_OP_HERD)
      return false;
    uint32_t n = o->iaux[0];
    if (vi->index < 2 * n || n + (vi->index - 2 * n) >= o->n_operands) return false;
    v = o->operands[n + (vi->index - 2 * n)];
  }
  return false;
}

/* Every herd under block `b` (tables.c flat_block's shape) has a unit whose
 * memref inputs are plain. */
static bool nest_ready(const air_interp_desc_t* d, const air_block_t* b) {
  const air_program_t* p = d->program;
  for (const air_op_t* o = b->first; o; o = o->next) {
    if (o->kind == AIR_OP_LAUNCH || o->kind == AIR_OP_SEGMENT) {
      if (!o->n_regions || !o->regions[0] || !nest_ready(d, o->regions[0])) return false;
    } else if (o->kind == AIR_OP_HERD) {
      const air_cg_unit_t* u = d->code->find(d->code->self, o);
      if (!u) return false;
      for (uint32_t i = 0; i < u->n_in; ++i)
        if (air_ir_type(p, air_ir_value(p, u->in[i])->type)->kind == AIR_TYPE_MEMREF &&
            !plain_memref(p, u->in[i]))
          return false;
    }
  }
  return true;
}

bool ix_flat_ready(const air_interp_desc_t* d) {
  if (d->interpret || !d->code) return false;
  const air_block_t* body = d->entry->regions[0];
  if (!nest_ready(d, body)) return false;
  for (uint32_t i = 0; i < d->n_args && i < body->n_args; ++i) {
    const air_type_info_t* t = air_ir_type(d->program, air_ir_value(d->program, body->args[i])->type);
    if (t->kind == AIR_TYPE_MEMREF &&
        (d->args[i].kind != AIR_ARG_MEMREF || t->rank > AIR_MAX_RANK ||
         !view_fits(t, &d->args[i].memref)))
      return false;
  }
  return true;
}

/*---------------------------------------------------------------------------*/
/* Running flat                                                               */
/*---------------------------------------------------------------------------*/

enum { BODY_FRAMES = 4 };

/* A strand on the caller's stack for run `r`: never spawned, never parked. */
static void stack_strand(ix_strand_t* c, ix_run_t* r, struct ix_space_t* space, uint32_t worker,
                         ix_frame_t* frames, uint32_t cap, ix_pe_t* pe) {
  memset(c, 0, sizeof *c);
  c->run = r;
  c->frames = frames;
  c->cap = cap;
  c->pe = pe;
  c->space = space;
  c->worker = worker;
  c->fixed_frames = true;
}

/* A launch or segment instance's body, run to its end (it cannot park: flat);
 * takes the caller's reference to `ie`. */
static int run_body(ix_strand_t* s, const air_op_t* op, ix_env_t* ie) {
  ix_run_t* r = s->run;
  ix_frame_t frames[BODY_FRAMES];
  ix_strand_t c;
  stack_strand(&c, r, s->space, s->worker, frames, BODY_FRAMES, NULL);
  memset(&frames[0], 0, sizeof frames[0]);
  frames[0].kind = IX_F_BODY;
  frames[0].owner = op;
  frames[0].pc = op->regions[0]->first;
  frames[0].env = ie; /* the frame's ref */
  c.n = 1;
  r->hooks->run_inline(&c);
  while (c.n) ix_pop(&c);
  if (!c.fixed_frames) ix_cache_put(r->cache, &r->alloc, c.frames, c.cap * sizeof(ix_frame_t));
  return ix_failing(r) ? IX_FAILED : IX_CONT;
}

/* A herd's PEs, taken in order from `next` by the strand that met the herd
 * and by helpers on the pool's workers. `refs`: the meeting strand's, plus one
 * per helper task; a helper reads nothing but the job until it has taken a PE,
 * and one that comes after the last was taken only lets go of the job. */
typedef struct flat_job_t flat_job_t;
typedef struct flat_help_t {
  air_task_t task;
  flat_job_t* job;
} flat_help_t;
struct flat_job_t {
  _Atomic uint32_t refs;
  _Atomic uint32_t next;     /* the next PE to take */
  _Atomic uint32_t finished; /* PEs run (or skipped: the run failed) */
  _Atomic uint32_t sleeping; /* the meeting strand waits on `finished`'s futex */
  _Atomic int64_t t_help;    /* when the first helper started (0: none yet) */
  _Atomic int64_t busy_ns;   /* the PEs' times, whoever ran them */
  uint32_t total;
  ix_run_t* r;
  struct ix_space_t* space;
  ix_env_t* e;
  const air_op_t* op;
  const air_cg_unit_t* u;
  int64_t sizes[AIR_MAX_RANK];
  air_allocator_t alloc;
  uint32_t n_help;
  flat_help_t help[];
};

/* PE `i`: its env, its body unit called once, the env let go. */
static int run_pe(ix_strand_t* s, const air_op_t* op, const air_cg_unit_t* u, ix_env_t* e,
                  const int64_t* sizes, uint64_t i) {
  ix_run_t* r = s->run;
  ix_env_t* ie;
  ix_inst_mem_t mem;
  int rc = ix_hier_instance(s, e, op, sizes, i, IX_INST_UNIT | IX_INST_BORROW, &mem, &ie);
  if (rc != IX_CONT) return rc;
  ix_strand_t c;
  stack_strand(&c, r, s->space, s->worker, NULL, 0, ie->pe);
  rc = ix_unit_pe(&c, ie, op, u);
  ix_env_unref(r, ie);
  if (ix_hier_end(s, op, ie, &mem) != IX_CONT) return IX_FAILED;
  if (rc == IX_UNIT_FALLBACK) /* ix_flat_ready rules this out */
    return ix_failed(s, ix_err(r, op, AIR_STATUS_INTERNAL,
                               "%s: its compiled body declined its views on the flat path",
                               ix_opname(op)));
  return rc == IX_CONT ? IX_CONT : IX_FAILED;
}

/* Takes PEs of `j` until none is left; the count of those this thread ran. */
static uint32_t take_pes(flat_job_t* j, uint32_t worker) {
  ix_strand_t c;
  stack_strand(&c, j->r, j->space, worker, NULL, 0, NULL);
  uint32_t ran = 0;
  int64_t t = air_time_now_ns();
  for (;;) {
    uint32_t i = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
    if (i >= j->total) return ran;
    if (!ix_failing(j->r)) run_pe(&c, j->op, j->u, j->e, j->sizes, i);
    ++ran;
    /* Counted before `finished`: the meeting strand reads it once all are. */
    int64_t t2 = air_time_now_ns();
    atomic_fetch_add_explicit(&j->busy_ns, t2 - t, memory_order_relaxed);
    t = t2;
    /* Seq_cst with the waiter's store of `sleeping` then load of `finished`:
     * one of the two sees the other. */
    if (atomic_fetch_add(&j->finished, 1) + 1 == j->total && atomic_load(&j->sleeping))
      air_futex_wake_all(&j->finished);
  }
}

static void job_unref(flat_job_t* j) {
  if (atomic_fetch_sub_explicit(&j->refs, 1, memory_order_acq_rel) != 1) return;
  air_allocator_t a = j->alloc;
  air_mem_free(&a, j);
}

static void help_task(air_task_t* t, uint32_t worker) {
  flat_job_t* j = ((flat_help_t*)t)->job;
  int64_t none = 0;
  atomic_compare_exchange_strong(&j->t_help, &none, air_time_now_ns());
  take_pes(j, worker);
  job_unref(j);
}

/* Whether the rule wants helpers for `total` PEs of a body whose PE took
 * `pe_ns` (0: not known yet) when a helper's start took `wake_ns` (0: not
 * known). A helper that starts after w takes only PEs nobody has begun by then;
 * with two threads sharing what is left, the meeting strand gains (rest - w) / 2
 * and pays the wake-up call. Asking w <= rest / 2, rest being the work past the
 * first PE, keeps a gain of at least a quarter of it, so an estimate off by 2x
 * cannot turn helping into a loss. An unknown side is measured by helping. */
static bool help_pays(uint32_t total, int64_t pe_ns, int64_t wake_ns) {
  if (!pe_ns || !wake_ns) return true;
  return 2 * wake_ns <= (int64_t)(total - 1) * pe_ns;
}

/* Runs between two helped runs of a herd the rule says no to: the wake-up is
 * only measured by helping, so one slow start (a first run, a busy moment)
 * must not keep a large herd alone for good. The interval doubles while the
 * rule keeps saying no, up to the maximum, and starts again at the minimum
 * once it says yes. A probe costs the wake-up call and a helper that may find
 * nothing left; it never makes the meeting strand wait for a wake-up. */
enum { PROBE_MIN = 8, PROBE_MAX = 1024 };

static bool want_help(ix_binfo_t* bi, uint32_t total, int64_t pe_ns, int64_t wake_ns) {
  if (total < 2) return false;
  if (help_pays(total, pe_ns, wake_ns)) {
    atomic_store_explicit(&bi->probe_every, PROBE_MIN, memory_order_relaxed);
    return true;
  }
  uint32_t every = atomic_load_explicit(&bi->probe_every, memory_order_relaxed);
  if (!every) every = PROBE_MIN;
  if (atomic_fetch_add_explicit(&bi->skips, 1, memory_order_relaxed) + 1 < every) return false;
  atomic_store_explicit(&bi->skips, 0, memory_order_relaxed);
  atomic_store_explicit(&bi->probe_every, every < PROBE_MAX ? 2 * every : every,
                        memory_order_relaxed);
  return true;
}

/* A running average over ~4 in which one sample counts at most twice the
 * average, as cpu_queue.c's: a helper that lost its core once does not
 * decide the next runs alone. */
static void average(_Atomic int64_t* avg, int64_t now) {
  int64_t old = atomic_load_explicit(avg, memory_order_relaxed);
  if (old && now > 2 * old) now = 2 * old;
  atomic_store_explicit(avg, old ? old + (now - old) / 4 : (now ? now : 1), memory_order_relaxed);
}

/* Runs every PE of `op`: here in order, with helpers from the pool when the
 * work is worth their wake-up (want_help). */
static int run_herd(ix_strand_t* s, const air_op_t* op, const air_cg_unit_t* u, ix_env_t* e,
                    const int64_t* sizes, uint64_t total) {
  ix_run_t* r = s->run;
  air_interp_prep_t* pr = r->prep;
  ix_binfo_t* bi = (ix_binfo_t*)air_ptrmap_get(&r->tab.blocks, op->regions[0]);
  uint32_t threads = r->pool ? air_pool_threads(r->pool) : 1;
  uint32_t n_help = threads - 1 < total - 1 ? threads - 1 : (uint32_t)(total - 1);
  bool cold = n_help && air_pool_asleep(r->pool);
  flat_job_t* j = NULL;
  /* The wake-up asked of the rule is never below the asleep one: a submit that
   * finds one worker spinning (still, after the last help) and another asleep
   * wakes the sleeper too (pool.c wakes every sleeper), and on 2 vCPUs that third
   * thread competes with the two sharing the herd. Judged by the spinning one's
   * wake-up, the sample's 4 short PEs were helped run after run, which kept a
   * worker spinning: median 4.6 -> 13.8 us, p90 41-54 us (1 thread: 4.3). */
  int64_t wake = pr ? atomic_load_explicit(&pr->wake_ns[1], memory_order_relaxed) : 0;
  int64_t warm = pr ? atomic_load_explicit(&pr->wake_ns[cold], memory_order_relaxed) : 0;
  if (!wake || (warm && warm > wake)) wake = warm;
  if (n_help && pr && bi &&
      want_help(bi, (uint32_t)total, atomic_load_explicit(&bi->pe_ns, memory_order_relaxed),
                wake))
    j = air_mem_alloc(&r->alloc, sizeof *j + n_help * sizeof(flat_help_t));
  int64_t t0 = air_time_now_ns();
  if (!j) { /* alone, in order */
    for (uint64_t i = 0; i < total; ++i) {
      int rc = run_pe(s, op, u, e, sizes, i);
      if (rc != IX_CONT) return rc;
    }
    if (bi) average(&bi->pe_ns, (air_time_now_ns() - t0) / (int64_t)total);
    return IX_CONT;
  }
  atomic_init(&j->refs, 1 + n_help);
  atomic_init(&j->next, 0);
  atomic_init(&j->finished, 0);
  atomic_init(&j->sleeping, 0);
  atomic_init(&j->t_help, 0);
  atomic_init(&j->busy_ns, 0);
  j->total = (uint32_t)total;
  j->r = r;
  j->space = s->space;
  j->e = e;
  j->op = op;
  j->u = u;
  memcpy(j->sizes, sizes, sizeof j->sizes);
  j->alloc = r->alloc;
  j->n_help = n_help;
  for (uint32_t k = 0; k < n_help; ++k) {
    j->help[k].job = j;
    j->help[k].task.fn = help_task;
    j->help[k].task.next = k + 1 < n_help ? &j->help[k + 1].task : NULL;
  }
  air_pool_submit_chain(r->pool, &j->help[0].task, &j->help[n_help - 1].task, n_help);
  take_pes(j, s->worker);
  /* Helpers still running a PE finish it; none can wait for this strand. */
  for (uint32_t spin = 0;; ++spin) {
    uint32_t f = atomic_load(&j->finished);
    if (f == j->total) break;
    if (spin < 4096) {
      air_cpu_relax();
    } else if (!atomic_load(&j->sleeping)) {
      atomic_store(&j->sleeping, 1); /* then `finished` is read again */
    } else {
      air_futex_wait(&j->finished, f, 1000000);
    }
  }
  /* Every PE's time, the helpers' too: a fast helper may take them all. */
  average(&bi->pe_ns, atomic_load_explicit(&j->busy_ns, memory_order_relaxed) / (int64_t)j->total);
  /* A helper that has not started yet took at least this long. */
  int64_t th = atomic_load_explicit(&j->t_help, memory_order_acquire);
  average(&pr->wake_ns[cold], (th ? th : air_time_now_ns()) - t0);
  job_unref(j);
  return ix_failing(r) ? IX_FAILED : IX_CONT;
}

int ix_flat_hier(ix_strand_t* s, ix_frame_t* f, const air_op_t* op) {
  ix_run_t* r = s->run;
  ix_env_t* e = f->env;
  int64_t sizes[AIR_MAX_RANK];
  uint64_t total;
  int rc = ix_hier_space(s, e, op, sizes, &total);
  if (rc != IX_CONT) return rc;
  if (op->kind == AIR_OP_HERD) {
    const air_cg_unit_t* u = ix_unit_of(r, op);
    if (!u)
      return ix_failed(s, ix_err(r, op, AIR_STATUS_INTERNAL,
                                 "%s: no compiled body on the flat path", ix_opname(op)));
    rc = run_herd(s, op, u, e, sizes, total);
  } else {
    for (uint64_t i = 0; i < total && rc == IX_CONT; ++i) {
      ix_env_t* ie;
      ix_inst_mem_t mem;
      rc = ix_hier_instance(s, e, op, sizes, i, IX_INST_BORROW, &mem, &ie);
      if (rc == IX_CONT) {
        rc = run_body(s, op, ie);
        int end = ix_hier_end(s, op, ie, &mem);
        if (rc == IX_CONT) rc = end;
      }
    }
  }
  if (rc != IX_CONT) return rc;
  /* Done: its token (tables.c lets only flat ops and sync waits read it) is
   * the run's always-fired one. */
  if (op->n_results) ix_set(r, e, op->results[0], (ix_val_t){.p = r->fired});
  ix_next(s);
  return IX_CONT;
}

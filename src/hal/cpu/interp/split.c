/* split.c - large copies split across the pool's workers (split.h).
 *
 * The job lives on the heap with a reference per helper task: the caller may
 * finish every chunk and return before a helper even starts, and that helper
 * then finds nothing to do, drops its reference and frees the job. The caller
 * waits only for chunks a helper has already taken. */
#include "hal/cpu/interp/split.h"

#include <stdatomic.h>
#include <string.h>

#include "hal/futex.h"
#include "runtime/base/mem.h"

enum { MAX_HELPERS = 7, CHUNKS_PER_WORKER = 4 };

typedef struct job_t job_t;
typedef struct helper_t {
  air_task_t task; /* first */
  job_t* job;
} helper_t;

struct job_t {
  air_allocator_t alloc;
  ix_pat_t dst, src;   /* canonical; sliced along dimension 0 */
  bool dst_flat, src_flat; /* one contiguous run: cut by element offset instead */
  int64_t rows, row_elems, n_chunks;
  _Atomic int64_t next;  /* next chunk to take */
  _Atomic int64_t done;  /* chunks finished */
  _Atomic uint32_t refs;
  helper_t helpers[MAX_HELPERS];
};

/* Chunk c of the job: rows [lo, hi) of the sliced side(s). */
static void one_chunk(const job_t* j, int64_t c) {
  int64_t lo = j->rows * c / j->n_chunks, hi = j->rows * (c + 1) / j->n_chunks;
  if (lo >= hi) return;
  ix_pat_t d = j->dst, s = j->src;
  if (j->dst_flat) {
    d.start += lo * j->row_elems;
    d.size[0] = (hi - lo) * j->row_elems;
  } else {
    d.start += lo * d.stride[0];
    d.size[0] = hi - lo;
  }
  if (j->src_flat) {
    s.start += lo * j->row_elems;
    s.size[0] = (hi - lo) * j->row_elems;
  } else {
    s.start += lo * s.stride[0];
    s.size[0] = hi - lo;
  }
  ix_pat_copy(&d, &s);
}

static void work(job_t* j) {
  for (;;) {
    int64_t c = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
    if (c >= j->n_chunks) return;
    one_chunk(j, c);
    atomic_fetch_add_explicit(&j->done, 1, memory_order_release);
  }
}

static void job_unref(job_t* j) {
  if (atomic_fetch_sub_explicit(&j->refs, 1, memory_order_acq_rel) == 1) {
    air_allocator_t a = j->alloc;
    air_mem_free(&a, j);
  }
}

static void helper_task(air_task_t* t, uint32_t worker) {
  (void)worker;
  job_t* j = ((helper_t*)t)->job;
  work(j);
  job_unref(j);
}

/* Elements of one outer slice of a canonical pattern. */
static int64_t inner_elems(const ix_pat_t* p) {
  int64_t n = 1;
  for (uint32_t k = 1; k < p->n; ++k) n *= p->size[k];
  return n;
}

void ix_split_copy(ix_run_t* r, const ix_pat_t* dst, const ix_pat_t* src) {
  int64_t count = ix_pat_count(src);
  uint32_t workers = r->pool ? air_pool_threads(r->pool) : 1;
  if (workers < 2 || count <= 0 || count != ix_pat_count(dst) ||
      count * (int64_t)src->esize < IX_SPLIT_MIN) {
    ix_pat_copy(dst, src);
    return;
  }
  ix_pat_t d = *dst, s = *src;
  ix_pat_canon(&d);
  ix_pat_canon(&s);
  bool df = d.n == 1 && d.stride[0] == 1, sf = s.n == 1 && s.stride[0] == 1;
  int64_t rows, row_elems;
  if (df && sf) {
    rows = count; /* both one run: cut anywhere (row = one element) */
    row_elems = 1;
  } else if (!df && !sf && d.n && s.n && d.size[0] == s.size[0] && d.size[0] >= 2) {
    rows = d.size[0];
    row_elems = inner_elems(&d);
  } else if (df != sf && (df ? s.n : d.n) && (df ? s.size[0] : d.size[0]) >= 2) {
    const ix_pat_t* cut = df ? &s : &d;
    rows = cut->size[0];
    row_elems = inner_elems(cut);
  } else {
    ix_pat_copy(dst, src);
    return;
  }
  uint32_t helpers = workers - 1 < MAX_HELPERS ? workers - 1 : MAX_HELPERS;
  job_t* j = air_mem_alloc(&r->alloc, sizeof *j);
  if (!j) {
    ix_pat_copy(dst, src);
    return;
  }
  j->alloc = r->alloc;
  j->dst = d, j->src = s;
  j->dst_flat = df;
  j->src_flat = sf;
  j->rows = rows;
  j->row_elems = row_elems;
  int64_t n_chunks = (int64_t)(helpers + 1) * CHUNKS_PER_WORKER;
  if (n_chunks > rows) n_chunks = rows;
  j->n_chunks = n_chunks;
  atomic_init(&j->next, 0);
  atomic_init(&j->done, 0);
  atomic_init(&j->refs, helpers + 1);
  for (uint32_t h = 0; h < helpers; ++h) {
    j->helpers[h].task.fn = helper_task;
    j->helpers[h].task.next = h + 1 < helpers ? &j->helpers[h + 1].task : NULL;
    j->helpers[h].job = j;
  }
  air_pool_submit_chain(r->pool, &j->helpers[0].task, &j->helpers[helpers - 1].task, helpers);
  work(j);
  /* Chunks helpers took are still being copied: wait for them. */
  while (atomic_load_explicit(&j->done, memory_order_acquire) < n_chunks) air_cpu_relax();
  job_unref(j);
}

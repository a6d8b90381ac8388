/* rank_mpi.c - the MPI transport for ranks (rank_mpi.h): its own library,
 * airrt_mpi, so libairrt never links MPI.
 *
 * Two duplicates of MPI_COMM_WORLD keep the traffic apart: collectives (window
 * creation and freeing) run on `coll`, called by the executor's collective thread
 * only, so every process issues them in the same order; messages run on `msg`,
 * sent by any thread and received by the transport's listener thread. One-sided
 * transfers go through each window, locked once for passive target (lock_all with
 * MPI_MODE_NOCHECK) and completed per transfer with MPI_Win_flush: the origin
 * alone decides when data moves, as the spec's cross-rank DMA does.
 *
 * The listener polls with MPI_Iprobe: it spins while messages keep coming and
 * backs off to short sleeps when idle, so an idle process does not hold a core
 * (the machine is shared; Open MPI's blocking probe would spin forever). Its
 * polling also drives MPI's progress for RMA where the window is not shared
 * memory. */
#include "rank_mpi/rank_mpi.h"

#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

enum { TAG_MSG = 7 };

typedef struct mpi_transport_t {
  air_rank_transport_t base; /* first */
  air_allocator_t alloc;
  MPI_Comm coll, msg;
  bool finalize; /* MPI_Init_thread was ours */
  pthread_mutex_t lock; /* listen state */
  pthread_t thread;
  bool listening;
  _Atomic int stop;
  air_rank_recv_fn_t recv;
  void* user;
} mpi_transport_t;

struct air_rank_window_t {
  MPI_Win win;
};

static air_status_t mpi_err(const air_allocator_t* a, int rc, const char* what) {
  char s[MPI_MAX_ERROR_STRING];
  int n = 0;
  if (MPI_Error_string(rc, s, &n) != MPI_SUCCESS) snprintf(s, sizeof s, "MPI error %d", rc);
  return AIR_STATUS(a, AIR_STATUS_INTERNAL, "%s failed: %s", what, s);
}
#define MPI_TRY(a, call, what)                   \
  do {                                           \
    int rc_ = (call);                            \
    if (rc_ != MPI_SUCCESS) return mpi_err((a), rc_, (what)); \
  } while (0)

bool air_rank_mpi_launched(void) {
  static const char* const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                                     "MPI_LOCALNRANKS"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i)
    if (getenv(vars[i])) return true;
  return false;
}

void air_rank_mpi_abort(int code) {
  int up = 0;
  MPI_Initialized(&up);
  if (up) MPI_Abort(MPI_COMM_WORLD, code);
}

/*---------------------------------------------------------------------------*/
/* Windows                                                                   */
/*---------------------------------------------------------------------------*/

static air_status_t window_create(air_rank_transport_t* t, uint64_t bytes, void** out_base,
                                  air_rank_window_t** out_window) {
  mpi_transport_t* m = (mpi_transport_t*)t;
  *out_base = NULL;
  *out_window = NULL;
  if (bytes > (uint64_t)LLONG_MAX)
    return AIR_STATUS(&m->alloc, AIR_STATUS_OUT_OF_RANGE, "window of %llu bytes is too large",
                      (unsigned long long)bytes);
  air_rank_window_t* w = air_mem_calloc(&m->alloc, 1, sizeof *w);
  if (!w) return AIR_STATUS_OOM(&m->alloc, "MPI window record");
  void* base = NULL;
  /* Every process takes part even with 0 bytes (a process without ranks). */
  int rc = MPI_Win_allocate((MPI_Aint)(bytes ? bytes : 1), 1, MPI_INFO_NULL, m->coll, &base,
                            &w->win);
  if (rc != MPI_SUCCESS) {
    air_mem_free(&m->alloc, w);
    return mpi_err(&m->alloc, rc, "MPI_Win_allocate");
  }
  MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
  memset(base, 0, bytes ? bytes : 1); /* memref.alloc zeroes; so do symmetric ones */
  rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win);
  if (rc != MPI_SUCCESS) {
    MPI_Win_free(&w->win);
    air_mem_free(&m->alloc, w);
    return mpi_err(&m->alloc, rc, "MPI_Win_lock_all");
  }
  /* No peer may write before every process has zeroed its part. */
  rc = MPI_Barrier(m->coll);
  if (rc != MPI_SUCCESS) {
    MPI_Win_unlock_all(w->win);
    MPI_Win_free(&w->win);
    air_mem_free(&m->alloc, w);
    return mpi_err(&m->alloc, rc, "MPI_Barrier");
  }
  *out_base = base;
  *out_window = w;
  return NULL;
}

static air_status_t window_free(air_rank_transport_t* t, air_rank_window_t* w) {
  mpi_transport_t* m = (mpi_transport_t*)t;
  if (!w) return NULL;
  int rc = MPI_Win_unlock_all(w->win);
  /* MPI_Win_free is collective: no process frees while a peer may still reach it. */
  int rc2 = MPI_Win_free(&w->win);
  air_mem_free(&m->alloc, w);
  if (rc != MPI_SUCCESS) return mpi_err(&m->alloc, rc, "MPI_Win_unlock_all");
  if (rc2 != MPI_SUCCESS) return mpi_err(&m->alloc, rc2, "MPI_Win_free");
  return NULL;
}

/* MPI counts are int: a chunk past INT_MAX bytes goes in pieces. */
static air_status_t rma(mpi_transport_t* m, air_rank_window_t* w, uint32_t proc, uint32_t n,
                        const air_rank_chunk_t* c, bool put) {
  if (proc >= m->base.processes)
    return AIR_STATUS(&m->alloc, AIR_STATUS_OUT_OF_RANGE, "process %u of %u", proc,
                      m->base.processes);
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t done = 0;
    while (done < c[i].bytes) {
      uint64_t k = c[i].bytes - done;
      if (k > (uint64_t)INT_MAX) k = (uint64_t)INT_MAX & ~(uint64_t)63;
      char* local = (char*)c[i].local + done;
      MPI_Aint disp = (MPI_Aint)(c[i].offset + done);
      int rc = put ? MPI_Put(local, (int)k, MPI_BYTE, (int)proc, disp, (int)k, MPI_BYTE, w->win)
                   : MPI_Get(local, (int)k, MPI_BYTE, (int)proc, disp, (int)k, MPI_BYTE, w->win);
      if (rc != MPI_SUCCESS) return mpi_err(&m->alloc, rc, put ? "MPI_Put" : "MPI_Get");
      done += k;
    }
  }
  MPI_TRY(&m->alloc, MPI_Win_flush((int)proc, w->win), "MPI_Win_flush");
  return NULL;
}

static air_status_t rma_put(air_rank_transport_t* t, air_rank_window_t* w, uint32_t proc, uint32_t n,
                        const air_rank_chunk_t* c) {
  return rma((mpi_transport_t*)t, w, proc, n, c, true);
}
static air_status_t rma_get(air_rank_transport_t* t, air_rank_window_t* w, uint32_t proc, uint32_t n,
                        const air_rank_chunk_t* c) {
  return rma((mpi_transport_t*)t, w, proc, n, c, false);
}

/*---------------------------------------------------------------------------*/
/* Messages                                                                  */
/*---------------------------------------------------------------------------*/

static air_status_t msg_send(air_rank_transport_t* t, uint32_t proc, const void* msg, size_t len) {
  mpi_transport_t* m = (mpi_transport_t*)t;
  if (len > (size_t)INT_MAX)
    return AIR_STATUS(&m->alloc, AIR_STATUS_OUT_OF_RANGE, "message of %zu bytes is too large",
                      len);
  if (proc >= t->processes)
    return AIR_STATUS(&m->alloc, AIR_STATUS_OUT_OF_RANGE, "process %u of %u", proc,
                      t->processes);
  MPI_TRY(&m->alloc, MPI_Send(msg, (int)len, MPI_BYTE, (int)proc, TAG_MSG, m->msg), "MPI_Send");
  return NULL;
}

static void nap(long ns) {
  struct timespec ts = {0, ns};
  nanosleep(&ts, NULL);
}

static void* listener(void* arg) {
  mpi_transport_t* m = arg;
  size_t cap = 4096;
  char* buf = air_mem_alloc(&m->alloc, cap);
  long idle_ns = 0;
  uint32_t spins = 0;
  while (buf && !atomic_load(&m->stop)) {
    int flag = 0;
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_MSG, m->msg, &flag, &st) != MPI_SUCCESS) break;
    if (!flag) {
      /* Spin a little after traffic, then sleep longer and longer (max 200 us). */
      if (++spins < 2000) continue;
      idle_ns = idle_ns ? (idle_ns * 2 > 200000 ? 200000 : idle_ns * 2) : 2000;
      nap(idle_ns);
      continue;
    }
    spins = 0;
    idle_ns = 0;
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    if ((size_t)n > cap) {
      void* b = buf;
      if (!air_mem_grow_z(&m->alloc, &b, &cap, (size_t)n, 1)) break;
      buf = b;
    }
    if (MPI_Recv(buf, n, MPI_BYTE, st.MPI_SOURCE, TAG_MSG, m->msg, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS)
      break;
    m->recv(m->user, (uint32_t)st.MPI_SOURCE, buf, (size_t)n);
  }
  air_mem_free(&m->alloc, buf);
  return NULL;
}

static air_status_t msg_listen(air_rank_transport_t* t, air_rank_recv_fn_t recv, void* user) {
  mpi_transport_t* m = (mpi_transport_t*)t;
  pthread_mutex_lock(&m->lock);
  if (m->listening) {
    atomic_store(&m->stop, 1);
    pthread_join(m->thread, NULL);
    m->listening = false;
  }
  air_status_t st = NULL;
  if (recv) {
    m->recv = recv;
    m->user = user;
    atomic_store(&m->stop, 0);
    if (pthread_create(&m->thread, NULL, listener, m) != 0)
      st = AIR_STATUS(&m->alloc, AIR_STATUS_RESOURCE_EXHAUSTED,
                      "cannot start the MPI transport's listener thread");
    else
      m->listening = true;
  }
  pthread_mutex_unlock(&m->lock);
  return st;
}

/*---------------------------------------------------------------------------*/
/* Agreement                                                                 */
/*---------------------------------------------------------------------------*/

/* A nonblocking allreduce (min of key and of ~key gives both ends), polled with
 * the listener's back-off so a process waiting for slower peers neither holds a
 * core nor misses its run's failure. */
static air_status_t agree(air_rank_transport_t* t, uint64_t key, uint64_t* out_min,
                          uint64_t* out_max, int (*cancelled)(void*), void* user) {
  mpi_transport_t* m = (mpi_transport_t*)t;
  uint64_t in[2] = {key, ~key}, out[2] = {0, 0};
  MPI_Request req;
  MPI_TRY(&m->alloc, MPI_Iallreduce(in, out, 2, MPI_UINT64_T, MPI_MIN, m->coll, &req),
          "MPI_Iallreduce");
  long idle_ns = 0;
  for (uint32_t spins = 0;; ++spins) {
    int flag = 0;
    MPI_TRY(&m->alloc, MPI_Test(&req, &flag, MPI_STATUS_IGNORE), "MPI_Test");
    if (flag) break;
    if (cancelled && cancelled(user))
      return AIR_STATUS(&m->alloc, AIR_STATUS_CANCELLED,
                        "process %u stopped waiting for its peers at a collective", t->process);
    if (spins < 2000) continue;
    idle_ns = idle_ns ? (idle_ns * 2 > 200000 ? 200000 : idle_ns * 2) : 2000;
    nap(idle_ns);
  }
  if (out_min) *out_min = out[0];
  if (out_max) *out_max = ~out[1];
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* Life                                                                      */
/*---------------------------------------------------------------------------*/

static void destroy(air_rank_transport_t* t) {
  mpi_transport_t* m = (mpi_transport_t*)t;
  if (!m) return;
  msg_listen(t, NULL, NULL);
  MPI_Comm_free(&m->coll);
  MPI_Comm_free(&m->msg);
  pthread_mutex_destroy(&m->lock);
  bool fin = m->finalize;
  air_allocator_t a = m->alloc;
  air_mem_free(&a, m);
  int done = 0;
  MPI_Finalized(&done);
  if (fin && !done) MPI_Finalize();
}

static const air_rank_transport_vtable_t k_vtable = {
    .destroy = destroy,
    .window_create = window_create,
    .window_free = window_free,
    .put = rma_put,
    .get = rma_get,
    .send = msg_send,
    .listen = msg_listen,
    .agree = agree,
};

air_status_t air_rank_transport_mpi_create(const air_allocator_t* allocator,
                                           air_rank_transport_t** out) {
  air_allocator_t a = air_mem_or_system_copy(allocator);
  if (!out) return AIR_STATUS(&a, AIR_STATUS_INVALID_ARGUMENT, "NULL out_transport");
  *out = NULL;
  int up = 0, provided = 0;
  bool ours = false;
  MPI_Initialized(&up);
  if (!up) {
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
      return AIR_STATUS(&a, AIR_STATUS_UNAVAILABLE, "MPI_Init_thread failed");
    ours = true;
  } else {
    MPI_Query_thread(&provided);
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    if (ours) MPI_Finalize();
    return AIR_STATUS(&a, AIR_STATUS_FAILED_PRECONDITION,
                      "MPI gives thread level %d; ranks need MPI_THREAD_MULTIPLE", provided);
  }
  mpi_transport_t* m = air_mem_calloc(&a, 1, sizeof *m);
  if (!m) {
    if (ours) MPI_Finalize();
    return AIR_STATUS_OOM(&a, "MPI transport");
  }
  m->alloc = a;
  m->finalize = ours;
  m->base.vtable = &k_vtable;
  pthread_mutex_init(&m->lock, NULL);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  m->base.process = (uint32_t)rank;
  m->base.processes = (uint32_t)size;
  if (MPI_Comm_dup(MPI_COMM_WORLD, &m->coll) != MPI_SUCCESS ||
      MPI_Comm_dup(MPI_COMM_WORLD, &m->msg) != MPI_SUCCESS) {
    pthread_mutex_destroy(&m->lock);
    air_mem_free(&a, m);
    if (ours) MPI_Finalize();
    return AIR_STATUS(&a, AIR_STATUS_INTERNAL, "MPI_Comm_dup failed");
  }
  MPI_Comm_set_errhandler(m->coll, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(m->msg, MPI_ERRORS_RETURN);
  *out = &m->base;
  return NULL;
}

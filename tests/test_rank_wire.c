/* Channels between ranks in different processes and the deadlock detection
 * across processes, without MPI: a fake transport (the air/rank.h interface)
 * joins P "processes" that are threads of this test, each running its own
 * dispatch of the same program with its own CPU device, as mpirun's processes
 * would. Windows are buffers every endpoint can reach, messages go through
 * per-endpoint mailboxes delivered by a listener thread each, agreements are a
 * generation barrier that gives up when the caller's run fails. So the whole
 * protocol (lane homes, proxies, RESERVE/PUT/GET/ACK/DATA, the courier, waves,
 * DEADLOCK and ABORT) runs in one process, under ASan and TSan (label
 * concurrency). Checks: ring, message passing and a broadcast give every rank
 * its values with blocks of ranks per process; a deadlock across processes fails every
 * process naming the channel and the ranks; an error in one process fails the
 * others naming it; more puts than gets across processes are reported by the
 * lane's home. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "support/status.h"

#include "air/air.h"

enum { MAXP = 4, MAXW = 16 };

/*---------------------------------------------------------------------------*/
/* The fake transport                                                        */
/*---------------------------------------------------------------------------*/

typedef struct fmsg_t {
  struct fmsg_t* next;
  uint32_t from;
  size_t n;
  char data[];
} fmsg_t;

typedef struct box_t {
  pthread_cond_t cv;
  fmsg_t *head, *tail;
} box_t;

typedef struct hub_t {
  uint32_t P;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint64_t gen, kmin, kmax, rmin, rmax;
  uint32_t arrived;
  void* win[MAXW][MAXP];
  box_t box[MAXP];
} hub_t;

typedef struct fake_t {
  air_rank_transport_t base; /* first */
  hub_t* hub;
  uint32_t n_win;
  pthread_t th;
  bool listening;
  _Atomic int stop;
  air_rank_recv_fn_t recv;
  void* user;
} fake_t;

struct air_rank_window_t {
  uint32_t k;
};

static air_status_t fail_status(const char* what) {
  air_allocator_t a;
  air_allocator_init_system(&a);
  return air_status_make(&a, AIR_STATUS_CANCELLED, __FILE__, __LINE__, what);
}

/* Every endpoint passes; the smallest and largest key come back. Gives up when
 * `cancelled` says so (the barrier is then unusable, as MPI's would be). */
static air_status_t barrier(fake_t* f, uint64_t key, uint64_t* lo, uint64_t* hi,
                            int (*cancelled)(void*), void* user) {
  hub_t* h = f->hub;
  pthread_mutex_lock(&h->mu);
  uint64_t g = h->gen;
  h->kmin = h->arrived ? (key < h->kmin ? key : h->kmin) : key;
  h->kmax = h->arrived ? (key > h->kmax ? key : h->kmax) : key;
  if (++h->arrived == h->P) {
    h->rmin = h->kmin;
    h->rmax = h->kmax;
    h->arrived = 0;
    h->gen++;
    pthread_cond_broadcast(&h->cv);
  }
  while (h->gen == g) {
    if (cancelled && cancelled(user)) {
      pthread_mutex_unlock(&h->mu);
      return fail_status("stopped waiting at a fake agreement");
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 1000000;
    if (ts.tv_nsec >= 1000000000) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&h->cv, &h->mu, &ts);
  }
  if (lo) *lo = h->rmin;
  if (hi) *hi = h->rmax;
  pthread_mutex_unlock(&h->mu);
  return NULL;
}

static air_status_t f_agree(air_rank_transport_t* t, uint64_t key, uint64_t* lo, uint64_t* hi,
                            int (*cancelled)(void*), void* user) {
  return barrier((fake_t*)t, key, lo, hi, cancelled, user);
}

static air_status_t f_window_create(air_rank_transport_t* t, uint64_t bytes, void** base,
                                    air_rank_window_t** out) {
  fake_t* f = (fake_t*)t;
  assert_true(f->n_win < MAXW);
  air_rank_window_t* w = calloc(1, sizeof *w);
  void* b = calloc(1, bytes ? bytes : 1);
  assert_non_null(w);
  assert_non_null(b);
  w->k = f->n_win++;
  pthread_mutex_lock(&f->hub->mu);
  f->hub->win[w->k][t->process] = b;
  pthread_mutex_unlock(&f->hub->mu);
  air_status_t st = barrier(f, 0, NULL, NULL, NULL, NULL);
  *base = b;
  *out = w;
  return st;
}

static air_status_t f_window_free(air_rank_transport_t* t, air_rank_window_t* w) {
  fake_t* f = (fake_t*)t;
  air_status_t st = barrier(f, 0, NULL, NULL, NULL, NULL);
  pthread_mutex_lock(&f->hub->mu);
  free(f->hub->win[w->k][t->process]);
  f->hub->win[w->k][t->process] = NULL;
  pthread_mutex_unlock(&f->hub->mu);
  free(w);
  return st;
}

static air_status_t rma(air_rank_transport_t* t, air_rank_window_t* w, uint32_t proc, uint32_t n,
                        const air_rank_chunk_t* c, bool put) {
  fake_t* f = (fake_t*)t;
  pthread_mutex_lock(&f->hub->mu); /* orders the bytes as a flush would */
  char* b = f->hub->win[w->k][proc];
  for (uint32_t i = 0; i < n; ++i) {
    if (put)
      memcpy(b + c[i].offset, c[i].local, c[i].bytes);
    else
      memcpy(c[i].local, b + c[i].offset, c[i].bytes);
  }
  pthread_mutex_unlock(&f->hub->mu);
  return NULL;
}
static air_status_t f_put(air_rank_transport_t* t, air_rank_window_t* w, uint32_t p, uint32_t n,
                          const air_rank_chunk_t* c) {
  return rma(t, w, p, n, c, true);
}
static air_status_t f_get(air_rank_transport_t* t, air_rank_window_t* w, uint32_t p, uint32_t n,
                          const air_rank_chunk_t* c) {
  return rma(t, w, p, n, c, false);
}

static air_status_t f_send(air_rank_transport_t* t, uint32_t proc, const void* msg, size_t n) {
  fake_t* f = (fake_t*)t;
  fmsg_t* m = malloc(sizeof *m + n);
  assert_non_null(m);
  m->next = NULL;
  m->from = t->process;
  m->n = n;
  memcpy(m->data, msg, n);
  hub_t* h = f->hub;
  pthread_mutex_lock(&h->mu);
  box_t* b = &h->box[proc];
  if (b->tail)
    b->tail->next = m;
  else
    b->head = m;
  b->tail = m;
  pthread_cond_signal(&b->cv);
  pthread_mutex_unlock(&h->mu);
  return NULL;
}

static void* listener(void* arg) {
  fake_t* f = arg;
  hub_t* h = f->hub;
  box_t* b = &h->box[f->base.process];
  pthread_mutex_lock(&h->mu);
  while (!atomic_load(&f->stop)) {
    fmsg_t* m = b->head;
    if (!m) {
      pthread_cond_wait(&b->cv, &h->mu);
      continue;
    }
    b->head = m->next;
    if (!b->head) b->tail = NULL;
    pthread_mutex_unlock(&h->mu);
    f->recv(f->user, m->from, m->data, m->n);
    free(m);
    pthread_mutex_lock(&h->mu);
  }
  pthread_mutex_unlock(&h->mu);
  return NULL;
}

static air_status_t f_listen(air_rank_transport_t* t, air_rank_recv_fn_t recv, void* user) {
  fake_t* f = (fake_t*)t;
  if (f->listening) {
    pthread_mutex_lock(&f->hub->mu);
    atomic_store(&f->stop, 1);
    pthread_cond_broadcast(&f->hub->box[t->process].cv);
    pthread_mutex_unlock(&f->hub->mu);
    pthread_join(f->th, NULL);
    f->listening = false;
  }
  if (recv) {
    f->recv = recv;
    f->user = user;
    atomic_store(&f->stop, 0);
    assert_int_equal(pthread_create(&f->th, NULL, listener, f), 0);
    f->listening = true;
  }
  return NULL;
}

static void f_destroy(air_rank_transport_t* t) {
  f_listen(t, NULL, NULL);
}

static const air_rank_transport_vtable_t k_fake = {
    .destroy = f_destroy,
    .window_create = f_window_create,
    .window_free = f_window_free,
    .put = f_put,
    .get = f_get,
    .send = f_send,
    .listen = f_listen,
    .agree = f_agree,
};

static void hub_init(hub_t* h, fake_t* f, uint32_t P) {
  memset(h, 0, sizeof *h);
  h->P = P;
  pthread_mutex_init(&h->mu, NULL);
  pthread_cond_init(&h->cv, NULL);
  for (uint32_t p = 0; p < P; ++p) {
    pthread_cond_init(&h->box[p].cv, NULL);
    memset(&f[p], 0, sizeof f[p]);
    f[p].base.vtable = &k_fake;
    f[p].base.process = p;
    f[p].base.processes = P;
    f[p].hub = h;
  }
}

static void hub_fini(hub_t* h, fake_t* f) {
  for (uint32_t p = 0; p < h->P; ++p) {
    f_destroy(&f[p].base);
    while (h->box[p].head) {
      fmsg_t* m = h->box[p].head;
      h->box[p].head = m->next;
      free(m);
    }
    pthread_cond_destroy(&h->box[p].cv);
    for (uint32_t k = 0; k < MAXW; ++k) free(h->win[k][p]);
  }
  pthread_mutex_destroy(&h->mu);
  pthread_cond_destroy(&h->cv);
}

/*---------------------------------------------------------------------------*/
/* Processes                                                                 */
/*---------------------------------------------------------------------------*/

enum { MAXB = 4, BUFB = 1024 };

typedef struct proc_t {
  fake_t* t;
  const char* path;
  int64_t nr;
  uint32_t n_bufs;
  air_status_t st;
  uint32_t first, end;
  char copy[MAXB][8][BUFB]; /* [binding][rank] the rank's copy, for held ranks */
} proc_t;

/* One "process": runs the program's only entry with (nr, bufs...) over its end
 * of the fake transport, as air-run would under mpirun. */
static void* process_main(void* arg) {
  proc_t* pr = arg;
  /* Set-up one process at a time: the JIT (LLVM, not instrumented) compiling in
   * two threads at once is reported by TSan inside LLVM; the processes only
   * need to run at the same time. */
  static pthread_mutex_t setup = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&setup);
  air_context_t* ctx;
  test_check(air_context_create(NULL, NULL, &ctx));
  air_program_t* p;
  test_check(air_program_parse_file(ctx, pr->path, NULL, &p));
  air_device_t* dev;
  air_executable_t* exe;
  test_check(air_device_open(ctx, "cpu", &dev));
  test_check(air_executable_create(dev, p, 0, &exe));
  pthread_mutex_unlock(&setup);
  air_rank_copies_t* copies;
  test_check(air_rank_copies_create(ctx, &copies));
  static _Thread_local char host[MAXB][BUFB];
  memset(host, 0, sizeof host);
  air_buffer_t* buf[MAXB] = {0};
  air_binding_t b[1 + MAXB];
  memset(b, 0, sizeof b);
  b[0].i = pr->nr;
  for (uint32_t i = 0; i < pr->n_bufs; ++i) {
    test_check(air_buffer_import(dev, host[i], BUFB, 0, &buf[i]));
    b[1 + i].buffer = buf[i];
  }
  air_dispatch_options_t o;
  memset(&o, 0, sizeof o);
  o.rank_copies = copies;
  o.transport = &pr->t->base;
  air_command_buffer_t* cb;
  air_semaphore_t* sem;
  test_check(air_command_buffer_create(dev, 0, &cb));
  test_check(air_command_buffer_dispatch(cb, exe, 0, 1 + pr->n_bufs, b, &o));
  test_check(air_command_buffer_end(cb));
  test_check(air_semaphore_create(ctx, 0, &sem));
  air_semaphore_t* sems[1] = {sem};
  uint64_t one = 1;
  air_timepoint_list_t sig = {1, sems, &one};
  test_check(air_device_queue_execute(dev, 0, NULL, cb, &sig));
  pr->st = air_semaphore_wait(sem, 1, 120 * 1000000000LL);
  air_rank_copies_local(copies, &pr->first, &pr->end);
  for (uint32_t i = 0; !pr->st && i < pr->n_bufs; ++i)
    for (uint32_t k = pr->first; k < pr->end && k < 8; ++k) {
      uint64_t n = air_rank_copies_size(copies, 1 + i, k);
      if (n > BUFB) n = BUFB;
      if (n) test_check(air_rank_copies_read(copies, 1 + i, k, 0, pr->copy[i][k], n));
    }
  air_semaphore_release(sem);
  air_command_buffer_release(cb);
  for (uint32_t i = 0; i < pr->n_bufs; ++i) air_buffer_release(buf[i]);
  pthread_mutex_lock(&setup);
  air_executable_release(exe);
  air_device_release(dev);
  pthread_mutex_unlock(&setup);
  air_rank_copies_destroy(copies);
  air_program_destroy(p);
  air_context_destroy(ctx);
  return NULL;
}

/* Runs data/`file` with nr ranks over P fake processes. */
static proc_t* run_all(const char* file, uint32_t P, int64_t nr, uint32_t n_bufs) {
  static hub_t hub;
  static fake_t ends[MAXP];
  proc_t* pr = calloc(P, sizeof *pr);
  assert_non_null(pr);
  char* path = malloc(512);
  assert_non_null(path);
  snprintf(path, 512, "%s/%s", AIR_TEST_DATA_DIR, file);
  hub_init(&hub, ends, P);
  pthread_t th[MAXP];
  for (uint32_t p = 0; p < P; ++p) {
    pr[p] = (proc_t){.t = &ends[p], .path = path, .nr = nr, .n_bufs = n_bufs};
    assert_int_equal(pthread_create(&th[p], NULL, process_main, &pr[p]), 0);
  }
  for (uint32_t p = 0; p < P; ++p) pthread_join(th[p], NULL);
  hub_fini(&hub, ends);
  free(path);
  return pr;
}

static void free_all(proc_t* pr, uint32_t P) {
  for (uint32_t p = 0; p < P; ++p) air_status_free(pr[p].st);
  free(pr);
}

/*---------------------------------------------------------------------------*/
/* Tests                                                                     */
/*---------------------------------------------------------------------------*/

/* data/rank/ring.mlir: rank k receives k-1's id (y[0]) through a channel whose
 * lane lives in k's process, and reads k+1's symmetric copy (z[0]). */
static void ring_over(uint32_t P, int64_t nr) {
  proc_t* pr = run_all("rank/ring.mlir", P, nr, 3);
  uint32_t seen = 0;
  for (uint32_t p = 0; p < P; ++p) {
    test_check(pr[p].st);
    pr[p].st = NULL;
    for (uint32_t k = pr[p].first; k < pr[p].end; ++k, ++seen) {
      int32_t y, z;
      memcpy(&y, pr[p].copy[1][k], 4);
      memcpy(&z, pr[p].copy[2][k], 4);
      assert_int_equal(y, (int32_t)((k + (uint32_t)nr - 1) % (uint32_t)nr));
      assert_int_equal(z, (int32_t)((k + 1) % (uint32_t)nr));
    }
  }
  assert_int_equal(seen, nr);
  free_all(pr, P);
}

static void test_ring(void** state) {
  (void)state;
  ring_over(2, 2);
  ring_over(2, 8); /* blocks of 4 ranks per process */
  ring_over(4, 4);
}

/* data/rank/message.mlir: rank 0 sends 1..16 to every other rank (many puts
 * from one process to lanes homed in the others, in program order). */
static void test_message(void** state) {
  (void)state;
  for (uint32_t P = 2; P <= 4; P += 2) {
    proc_t* pr = run_all("rank/message.mlir", P, 8, 2);
    for (uint32_t p = 0; p < P; ++p) {
      test_check(pr[p].st);
      pr[p].st = NULL;
      for (uint32_t k = pr[p].first; k < pr[p].end; ++k) {
        float v[16];
        memcpy(v, pr[p].copy[1][k], sizeof v);
        for (int i = 0; i < 16; ++i) assert_true(v[i] == (k ? (float)(i + 1) : 0.0f));
      }
    }
    free_all(pr, P);
  }
}

/* data/rank/broadcast.mlir: one put index reaching all 4 ranks, homed in
 * process 0; every rank reads both transfers in order. */
static void test_broadcast(void** state) {
  (void)state;
  for (uint32_t P = 2; P <= 4; P += 2) {
    proc_t* pr = run_all("rank/broadcast.mlir", P, 4, 3);
    for (uint32_t p = 0; p < P; ++p) {
      test_check(pr[p].st);
      pr[p].st = NULL;
      for (uint32_t k = pr[p].first; k < pr[p].end; ++k) {
        int32_t y, z;
        memcpy(&y, pr[p].copy[1][k], 4);
        memcpy(&z, pr[p].copy[2][k], 4);
        assert_int_equal(y, 7);
        assert_int_equal(z, 107);
      }
    }
    free_all(pr, P);
  }
}

/* data/rank/deadlock.mlir: every rank sends to rank 0; the others' gets wait
 * forever. Found by the waves (no timeout is set), every process fails with
 * its own report naming @mail. */
static void test_deadlock(void** state) {
  (void)state;
  proc_t* pr = run_all("rank/deadlock.mlir", 2, 4, 2);
  for (uint32_t p = 0; p < 2; ++p) {
    assert_non_null(pr[p].st);
    const char* m = air_status_message(pr[p].st);
    assert_non_null(strstr(m, "deadlock across processes"));
    assert_non_null(strstr(m, "@mail"));
  }
  /* Rank 1 (process 0) waits for a put that never comes; rank 3's put waits at
   * process 0, which holds @mail[0], and process 0 reports serving it. */
  assert_non_null(strstr(air_status_message(pr[0].st), "@mail[1] blocked: no put (rank 1)"));
  assert_non_null(strstr(air_status_message(pr[1].st), "@mail[3] blocked: no put (rank 3)"));
  free_all(pr, 2);
}

/* data/rank_mpi/fail.mlir: rank 3 (process 1) fails at its put; process 0 is
 * told and fails naming it. */
static void test_error_in_one(void** state) {
  (void)state;
  proc_t* pr = run_all("rank_mpi/fail.mlir", 2, 4, 1);
  assert_non_null(pr[1].st);
  assert_non_null(strstr(air_status_message(pr[1].st), "index #0 is 102, outside [0, 64)"));
  assert_non_null(pr[0].st);
  assert_non_null(strstr(air_status_message(pr[0].st),
                         "process 1 of the air.rank failed, so this one (process 0) stops"));
  free_all(pr, 2);
}

/* data/rank_mpi/unread.mlir: two puts, one get per lane, across processes: the
 * home of each lane reports the transfer nobody read. */
static void test_unread(void** state) {
  (void)state;
  proc_t* pr = run_all("rank_mpi/unread.mlir", 2, 4, 1);
  for (uint32_t p = 0; p < 2; ++p) {
    assert_non_null(pr[p].st);
    const char* m = air_status_message(pr[p].st);
    assert_non_null(strstr(m, "2 puts but 1 get"));
  }
  free_all(pr, 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ring),
      cmocka_unit_test(test_message),
      cmocka_unit_test(test_broadcast),
      cmocka_unit_test(test_deadlock),
      cmocka_unit_test(test_error_in_one),
      cmocka_unit_test(test_unread),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

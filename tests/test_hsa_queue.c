/* test_hsa_queue.c - AQL packets and the publication protocol (src/amdgpu/aql.h),
 * and the hsa driver's queue (src/hal/hsa/hsa_queue.c) run against the software
 * HSA runtime (tests/soft_hsa): dependency chains, cross-queue waits, epochs,
 * signal reuse, a full ring, and errors reaching every waiter. */
#include <pthread.h>
#include <sched.h>
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

#include "amdgpu/aql.h"
#include "hal/hsa/hsa_queue.h"
#include "hal/hsa/hsa_system.h"
#include "soft_hsa.h"

/*--- packets -------------------------------------------------------------------*/

static void headers(void** state) {
  (void)state;
  /* BACKENDS.md 2.4's worked values. */
  assert_int_equal(air_aql_header(AIR_AQL_TYPE_KERNEL_DISPATCH, true, AIR_AQL_SCOPE_SYSTEM,
                                  AIR_AQL_SCOPE_SYSTEM), 0x1502);
  assert_int_equal(air_aql_header(AIR_AQL_TYPE_BARRIER_AND, true, AIR_AQL_SCOPE_SYSTEM,
                                  AIR_AQL_SCOPE_SYSTEM), 0x1503);
  assert_int_equal(air_aql_header(AIR_AQL_TYPE_KERNEL_DISPATCH, false, AIR_AQL_SCOPE_AGENT,
                                  AIR_AQL_SCOPE_AGENT), 0x0A02);
  assert_int_equal(offsetof(air_aql_dispatch_t, kernel_object), 32);
  assert_int_equal(offsetof(air_aql_barrier_t, dep_signal), 8);
  assert_int_equal(offsetof(air_aql_barrier_t, completion_signal), 56);
}

static void barrier_chains(void** state) {
  (void)state;
  assert_int_equal(air_aql_barrier_count(0), 0);
  assert_int_equal(air_aql_barrier_count(5), 1);
  assert_int_equal(air_aql_barrier_count(6), 2);
  assert_int_equal(air_aql_barrier_count(12), 3);
  uint64_t deps[12];
  for (int i = 0; i < 12; ++i) deps[i] = 100 + (uint64_t)i;
  air_aql_packet_t p[3];
  memset(p, 0xee, sizeof p);
  for (uint32_t k = 0; k < 3; ++k) air_aql_fill_barrier_and(&p[k], deps, 12, k, 777);
  for (int i = 0; i < 5; ++i) {
    assert_int_equal(p[0].barrier.dep_signal[i], 100 + i);
    assert_int_equal(p[1].barrier.dep_signal[i], 105 + i);
  }
  assert_int_equal(p[2].barrier.dep_signal[0], 110);
  assert_int_equal(p[2].barrier.dep_signal[1], 111);
  assert_int_equal(p[2].barrier.dep_signal[2], 0);
  assert_int_equal(p[2].barrier.dep_signal[4], 0);
  assert_int_equal(p[0].barrier.completion_signal, 0);
  assert_int_equal(p[1].barrier.completion_signal, 0);
  assert_int_equal(p[2].barrier.completion_signal, 777);
  /* The header word is left for air_aql_publish. */
  assert_int_equal(p[0].words[0], 0xeeeeeeeeu);
  assert_int_equal(p[0].barrier.reserved2, 0);
}

/*--- the protocol against a mock queue -------------------------------------------*/

typedef struct mock_t {
  _Atomic uint64_t write, read, bell;
  air_aql_packet_t* ring;
  uint32_t size;
  uint64_t count;
  _Atomic int bad;
} mock_t;

static uint64_t m_add(void* q, uint64_t n) { return atomic_fetch_add(&((mock_t*)q)->write, n); }
static uint64_t m_read(void* q) { return atomic_load_explicit(&((mock_t*)q)->read, memory_order_acquire); }
static void m_bell(void* q, uint64_t id) { atomic_store(&((mock_t*)q)->bell, id); }
static const air_aql_queue_ops_t k_mock_ops = {m_add, m_read, m_bell};

static void protocol_steps(void** state) {
  (void)state;
  air_aql_packet_t ring[8] __attribute__((aligned(64)));
  air_aql_ring_clear(ring, 8);
  mock_t m = {.ring = ring, .size = 8};
  _Atomic(int) failed = 0;
  air_aql_ring_t r = {ring, 8, &m, &k_mock_ops, &failed, 0};
  uint64_t id;
  assert_null(air_aql_ring_reserve(&r, 3, &id));
  assert_int_equal(id, 0);
  air_aql_packet_t* p = air_aql_ring_slot(&r, 2);
  /* Reserved, filled but not published: the processor still sees INVALID. */
  p->dispatch.kernel_object = 42;
  assert_int_equal(air_aql_header_type((uint16_t)air_aql_load_header(p)), AIR_AQL_TYPE_INVALID);
  air_aql_publish(p, air_aql_header(AIR_AQL_TYPE_KERNEL_DISPATCH, false, 0, 0), 3);
  assert_int_equal(air_aql_load_header(p), 0x00030002u);
  air_aql_ring_doorbell(&r, 2);
  assert_int_equal(atomic_load(&m.bell), 2);
  /* Wrap: ids 8.. reuse slots 0..; with the read index at 0 there is no room for
   * ids 3..8 (6 more would make 9 > 8), and a failed queue ends the wait. */
  assert_null(air_aql_ring_reserve(&r, 5, &id));
  assert_int_equal(id, 3);
  assert_ptr_equal(air_aql_ring_slot(&r, 8), &ring[0]);
  atomic_store(&failed, 1);
  air_status_t s = air_aql_ring_reserve(&r, 1, &id);
  assert_int_equal(air_status_code(s), AIR_STATUS_UNAVAILABLE);
  air_status_free(s);
  assert_int_equal(r.full_waits, 1);
  s = air_aql_ring_reserve(&r, 9, &id);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(s);
}

/* A consumer that checks every body word the moment it sees a valid header: the
 * release/acquire pair must make them visible (TSan checks the pairing too). */
static void* mock_consumer(void* arg) {
  mock_t* m = arg;
  for (uint64_t r = 0; r < m->count; ++r) {
    air_aql_packet_t* p = &m->ring[r & (m->size - 1)];
    uint32_t w;
    while (air_aql_header_type((uint16_t)(w = air_aql_load_header(p))) == AIR_AQL_TYPE_INVALID) {
    }
    if (p->dispatch.kernel_object != r || p->dispatch.kernarg_address != ~r ||
        p->dispatch.completion_signal != r * 3 || (w >> 16) != (r % 3) + 1)
      atomic_store(&m->bad, 1);
    __atomic_store_n(&p->words[0], (uint32_t)AIR_AQL_TYPE_INVALID, __ATOMIC_RELEASE);
    atomic_store_explicit(&m->read, r + 1, memory_order_release);
  }
  return NULL;
}

static void protocol_concurrent(void** state) {
  (void)state;
  enum { SIZE = 16, COUNT = 200000 };
  air_aql_packet_t* ring = aligned_alloc(64, SIZE * 64);
  air_aql_ring_clear(ring, SIZE);
  mock_t m = {.ring = ring, .size = SIZE, .count = COUNT};
  air_aql_ring_t r = {ring, SIZE, &m, &k_mock_ops, NULL, 0};
  pthread_t t;
  pthread_create(&t, NULL, mock_consumer, &m);
  for (uint64_t i = 0; i < COUNT;) {
    uint32_t n = 1 + (uint32_t)(i % 4);
    if (i + n > COUNT) n = (uint32_t)(COUNT - i);
    uint64_t first;
    assert_null(air_aql_ring_reserve(&r, n, &first));
    assert_int_equal(first, i);
    for (uint64_t id = first; id < first + n; ++id) {
      air_aql_packet_t* p = air_aql_ring_slot(&r, id);
      p->dispatch.kernel_object = id;
      p->dispatch.kernarg_address = ~id;
      p->dispatch.completion_signal = id * 3;
      air_aql_publish(p, AIR_AQL_TYPE_KERNEL_DISPATCH, (uint16_t)(id % 3 + 1));
    }
    air_aql_ring_doorbell(&r, first + n - 1);
    i += n;
  }
  pthread_join(t, NULL);
  assert_int_equal(atomic_load(&m.bad), 0);
  assert_int_equal(atomic_load(&m.bell), COUNT - 1);
  print_message("%d packets through a %d-slot ring, %llu reservations waited for room\n", COUNT,
                SIZE, (unsigned long long)r.full_waits);
  free(ring);
}

/*--- the driver's queue on the soft runtime ---------------------------------------*/

typedef struct rec_t {
  pthread_mutex_t lock;
  uint32_t log[4096];
  uint32_t n;
  _Atomic int slow_started, slow_done;
  uint32_t fail_value; /* a dispatch whose kernarg holds this value fails */
} rec_t;

static int record(void* user, const char* name, const hsa_kernel_dispatch_packet_t* p) {
  rec_t* r = user;
  uint32_t v = *(const uint32_t*)p->kernarg_address;
  if (name && !strcmp(name, "slow")) {
    atomic_store(&r->slow_started, 1);
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    atomic_store(&r->slow_done, 1);
  }
  if (name && !strcmp(name, "after_slow") && !atomic_load(&r->slow_done)) return 1;
  if (r->fail_value && v == r->fail_value) return 1;
  pthread_mutex_lock(&r->lock);
  if (r->n < 4096) r->log[r->n++] = v;
  pthread_mutex_unlock(&r->lock);
  return 0;
}

typedef struct fixture_t {
  soft_hsa_t* soft;
  air_hsa_api_t api;
  air_hsa_system_t sys;
  air_allocator_t alloc;
  rec_t rec;
  uint64_t k_plain, k_slow, k_after;
} fixture_t;

static int setup(void** state) {
  fixture_t* f = calloc(1, sizeof *f);
  pthread_mutex_init(&f->rec.lock, NULL);
  soft_hsa_options_t o = {.gpu_name = "gfx90a", .dispatch = record, .dispatch_user = &f->rec};
  f->soft = soft_hsa_create(&o, &f->api);
  if (!f->soft) return -1;
  air_allocator_init_system(&f->alloc);
  air_status_t s = air_hsa_system_open(&f->alloc, &f->api, 0, "hsa:0", &f->sys);
  if (s) return -1;
  f->k_plain = soft_hsa_define_kernel(f->soft, "plain", 16);
  f->k_slow = soft_hsa_define_kernel(f->soft, "slow", 16);
  f->k_after = soft_hsa_define_kernel(f->soft, "after_slow", 16);
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fixture_t* f = *state;
  air_hsa_system_close(&f->sys);
  soft_hsa_destroy(f->soft);
  pthread_mutex_destroy(&f->rec.lock);
  free(f);
  return 0;
}

static air_hsa_op_t dispatch_op(uint64_t kernel, uint32_t* arg) {
  air_hsa_op_t op = {.kind = AIR_HSA_OP_DISPATCH, .dims = 1, .kernel_object = kernel};
  op.workgroup[0] = 64;
  op.grid[0] = 64;
  op.kernarg = arg;
  return op;
}

typedef struct done_t {
  _Atomic uint32_t calls, errors;
  _Atomic uint64_t last_order;
  char message[256];
} done_t;

static void on_done(void* arg, air_status_t s) {
  done_t* d = arg;
  if (s) {
    if (atomic_fetch_add(&d->errors, 1) == 0)
      snprintf(d->message, sizeof d->message, "%s", air_status_message(s));
  }
  atomic_fetch_add(&d->calls, 1);
}

static void system_found(void** state) {
  fixture_t* f = *state;
  assert_string_equal(f->sys.gpu_name, "gfx90a");
  assert_int_equal(f->sys.compute_units, 104);
  assert_true(f->sys.have_device_pool && f->sys.have_staging_pool && f->sys.have_kernarg_pool);
  assert_int_equal(f->sys.gpu_count, 1);
}

/* Shapes of dependencies and the packets they cost. */
static void dependency_shapes(void** state) {
  fixture_t* f = *state;
  air_hsa_queue_t* q;
  assert_null(air_hsa_queue_create(&f->alloc, &f->api, f->sys.gpu, 256, "q", &q));
  uint32_t args[12];
  air_hsa_op_t ops[12];
  for (uint32_t i = 0; i < 12; ++i) {
    args[i] = i + 1;
    ops[i] = dispatch_op(f->k_plain, &args[i]);
  }
  /* 0: none; 1: on 0 (barrier bit, no packet); 2: on 0 (not adjacent: one
   * barrier packet); 3..9: none; 10: on 0..9 (ten: two barrier packets);
   * 11: on 1 and 10 (one). */
  uint32_t on0[] = {0}, on_all[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, on_1_10[] = {1, 10};
  ops[1].deps = on0, ops[1].n_deps = 1;
  ops[2].deps = on0, ops[2].n_deps = 1;
  ops[10].deps = on_all, ops[10].n_deps = 10;
  ops[11].deps = on_1_10, ops[11].n_deps = 2;
  done_t d = {0};
  uint64_t epoch;
  f->rec.n = 0;
  assert_null(air_hsa_queue_submit(q, ops, 12, NULL, on_done, &d, &epoch));
  assert_int_equal(epoch, 1);
  assert_null(air_hsa_queue_wait(q, epoch));
  air_hsa_queue_stats_t st;
  air_hsa_queue_stats(q, &st);
  /* 12 dispatches + 1 + 2 + 1 chain packets + 1 epoch marker. */
  assert_int_equal(st.packets, 12 + 4 + 1);
  assert_int_equal(st.barrier_packets, 4 + 1);
  /* Signals for the ops something waits on by signal: 0..9 and 10 (not 11): eleven,
   * which the warm pool covers. */
  assert_int_equal(st.signals_created, AIR_HSA_WARM_SIGNALS);
  assert_int_equal(f->rec.n, 12);
  for (uint32_t i = 0; i < 12; ++i) assert_int_equal(f->rec.log[i], i + 1);
  /* The same again reuses the pooled signals. */
  for (int rep = 0; rep < 50; ++rep) assert_null(air_hsa_queue_submit(q, ops, 12, NULL, on_done, &d, &epoch));
  assert_null(air_hsa_queue_wait(q, epoch));
  air_hsa_queue_destroy(q); /* drains: every callback has run */
  assert_int_equal(atomic_load(&d.calls), 51);
  assert_int_equal(atomic_load(&d.errors), 0);
  assert_int_equal(epoch, 51);
  (void)st;
}

static void signal_reuse(void** state) {
  fixture_t* f = *state;
  air_hsa_queue_t* q;
  assert_null(air_hsa_queue_create(&f->alloc, &f->api, f->sys.gpu, 256, "q", &q));
  uint32_t arg = 5, dep[] = {0};
  air_hsa_op_t ops[3] = {dispatch_op(f->k_plain, &arg), dispatch_op(f->k_plain, &arg),
                         dispatch_op(f->k_plain, &arg)};
  ops[2].deps = dep, ops[2].n_deps = 1; /* not adjacent: by signal */
  uint64_t e = 0;
  done_t d = {0};
  for (int i = 0; i < 200; ++i) {
    assert_null(air_hsa_queue_submit(q, ops, 3, NULL, on_done, &d, &e));
    if (i % 10 == 9) {
      assert_null(air_hsa_queue_wait(q, e));
      /* Callbacks run after their signals went back to the pool. */
      while (atomic_load(&d.calls) < e) sched_yield();
    }
  }
  air_hsa_queue_stats_t st;
  air_hsa_queue_stats(q, &st);
  print_message("200 submissions needing a signal each created %llu signals\n",
                (unsigned long long)st.signals_created);
  /* At most ten submissions are in flight between waits: the warm pool suffices
   * (without reuse there would be 200). */
  assert_int_equal(st.signals_created, AIR_HSA_WARM_SIGNALS);
  air_hsa_queue_destroy(q);
}

/* A barrier-AND on another queue's signal holds a dispatch back until the other
 * queue's slow dispatch is done (the hook of after_slow fails otherwise). */
static void cross_queue(void** state) {
  fixture_t* f = *state;
  air_hsa_queue_t *a, *b;
  assert_null(air_hsa_queue_create(&f->alloc, &f->api, f->sys.gpu, 64, "a", &a));
  assert_null(air_hsa_queue_create(&f->alloc, &f->api, f->sys.gpu, 64, "b", &b));
  atomic_store(&f->rec.slow_done, 0);
  uint32_t x = 1, y = 2;
  air_hsa_op_t slow = dispatch_op(f->k_slow, &x);
  slow.export_signal = 1;
  hsa_signal_t sig;
  uint64_t ea, eb;
  assert_null(air_hsa_queue_submit(a, &slow, 1, &sig, NULL, NULL, &ea));
  assert_true(sig.handle != 0);
  air_hsa_op_t after = dispatch_op(f->k_after, &y);
  after.waits = &sig;
  after.n_waits = 1;
  assert_null(air_hsa_queue_submit(b, &after, 1, NULL, NULL, NULL, &eb));
  assert_null(air_hsa_queue_wait(b, eb));
  assert_true(atomic_load(&f->rec.slow_done));
  assert_null(air_hsa_queue_wait(a, ea));
  air_hsa_queue_give_signal(a, sig);
  air_hsa_queue_destroy(b);
  air_hsa_queue_destroy(a);
}

/* 64-packet ring, 3000 submissions of 3 operations without waiting: producers
 * back off while the consumer catches up, and everything completes. */
static void ring_full(void** state) {
  fixture_t* f = *state;
  air_hsa_queue_t* q;
  assert_null(air_hsa_queue_create(&f->alloc, &f->api, f->sys.gpu, 64, "q", &q));
  uint32_t arg = 9, d0[] = {0}, d1[] = {1};
  air_hsa_op_t ops[3] = {dispatch_op(f->k_plain, &arg), dispatch_op(f->k_plain, &arg),
                         dispatch_op(f->k_plain, &arg)};
  ops[1].deps = d0, ops[1].n_deps = 1;
  ops[2].deps = d1, ops[2].n_deps = 1;
  done_t d = {0};
  uint64_t e = 0;
  for (int i = 0; i < 3000; ++i) assert_null(air_hsa_queue_submit(q, ops, 3, NULL, on_done, &d, &e));
  assert_null(air_hsa_queue_wait(q, e));
  air_hsa_queue_stats_t st;
  air_hsa_queue_stats(q, &st);
  air_hsa_queue_destroy(q);
  assert_int_equal(atomic_load(&d.calls), 3000);
  assert_int_equal(st.packets, 3000 * 4);
  print_message("12000 packets through a 64-packet ring; %llu reservations waited for room\n",
                (unsigned long long)st.full_waits);
}

/* A failing dispatch fails its queue: the pending submission's callback and every
 * waiter get the error, later submissions are refused, and a queue waiting on a
 * signal of the failed work fails too instead of hanging. */
static void errors_reach_waiters(void** state) {
  fixture_t* f = *state;
  air_hsa_queue_t *a, *b;
  assert_null(air_hsa_queue_create(&f->alloc, &f->api, f->sys.gpu, 64, "a", &a));
  assert_null(air_hsa_queue_create(&f->alloc, &f->api, f->sys.gpu, 64, "b", &b));
  f->rec.fail_value = 666;
  uint32_t ok = 1, bad = 666;
  air_hsa_op_t ops[2] = {dispatch_op(f->k_plain, &ok), dispatch_op(f->k_plain, &bad)};
  ops[1].export_signal = 1;
  hsa_signal_t sigs[2];
  done_t da = {0}, db = {0};
  uint64_t ea, eb;
  assert_null(air_hsa_queue_submit(a, ops, 2, sigs, on_done, &da, &ea));
  air_hsa_op_t waiter = dispatch_op(f->k_plain, &ok);
  waiter.waits = &sigs[1];
  waiter.n_waits = 1;
  assert_null(air_hsa_queue_submit(b, &waiter, 1, NULL, on_done, &db, &eb));
  air_status_t s = air_hsa_queue_wait(a, ea);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "AMD GPU queue 'a' failed"));
  air_status_free(s);
  s = air_hsa_queue_wait(b, eb);
  assert_non_null(s);
  air_status_free(s);
  s = air_hsa_queue_submit(a, ops, 1, NULL, NULL, NULL, NULL);
  assert_int_equal(air_status_code(s), AIR_STATUS_UNAVAILABLE);
  air_status_free(s);
  air_hsa_queue_give_signal(a, sigs[1]);
  air_hsa_queue_destroy(b);
  air_hsa_queue_destroy(a);
  assert_int_equal(atomic_load(&da.errors), 1);
  assert_int_equal(atomic_load(&db.errors), 1);
  assert_non_null(strstr(da.message, "failed"));
  f->rec.fail_value = 0;
}

static void bad_submissions(void** state) {
  fixture_t* f = *state;
  air_hsa_queue_t* q;
  assert_null(air_hsa_queue_create(&f->alloc, &f->api, f->sys.gpu, 64, "q", &q));
  uint32_t arg = 1, self[] = {0};
  air_hsa_op_t op = dispatch_op(f->k_plain, &arg);
  op.deps = self, op.n_deps = 1; /* on itself */
  air_status_t s = air_hsa_queue_submit(q, &op, 1, NULL, NULL, NULL, NULL);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(s);
  air_hsa_queue_destroy(q);
  /* A ring that is not a power of two is refused by the runtime. */
  s = air_hsa_queue_create(&f->alloc, &f->api, f->sys.gpu, 100, "q", &q);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "hsa_queue_create (100 packets)"));
  air_status_free(s);
}

/* Without a GPU: hsa_init's failure, or no GPU agent, name HSA and the GPU. */
static void no_gpu(void** state) {
  (void)state;
  air_allocator_t a;
  air_allocator_init_system(&a);
  for (int mode = 0; mode < 2; ++mode) {
    air_hsa_api_t api;
    soft_hsa_options_t o = {.fail_init = mode == 0, .no_gpu = mode == 1};
    soft_hsa_t* soft = soft_hsa_create(&o, &api);
    assert_non_null(soft);
    air_hsa_system_t sys;
    air_status_t s = air_hsa_system_open(&a, &api, 0, "hsa:0", &sys);
    assert_int_equal(air_status_code(s), AIR_STATUS_UNAVAILABLE);
    const char* m = air_status_message(s);
    assert_non_null(strstr(m, "hsa:0"));
    if (mode == 0) assert_non_null(strstr(m, "no AMD GPU available through HSA"));
    else assert_non_null(strstr(m, "lists 0 GPU agents"));
    air_status_free(s);
    soft_hsa_destroy(soft);
  }
}

int main(void) {
  const struct CMUnitTest plain[] = {
      cmocka_unit_test(headers),
      cmocka_unit_test(barrier_chains),
      cmocka_unit_test(protocol_steps),
      cmocka_unit_test(protocol_concurrent),
      cmocka_unit_test(no_gpu),
  };
  const struct CMUnitTest soft[] = {
      cmocka_unit_test(system_found),   cmocka_unit_test(dependency_shapes),
      cmocka_unit_test(signal_reuse),   cmocka_unit_test(cross_queue),
      cmocka_unit_test(ring_full),      cmocka_unit_test(bad_submissions),
      cmocka_unit_test(errors_reach_waiters),
  };
  int r = cmocka_run_group_tests_name("aql", plain, NULL, NULL);
  return r | cmocka_run_group_tests_name("hsa_queue", soft, setup, teardown);
}

/* Ranks in process, end to end through the public API (issue 13): the programs of
 * tests/data/rank run with 2 and 4 ranks on the CPU device, on the schedule path
 * and the dynamic one, and every rank's copy of the arguments is read back with
 * air_rank_copies_read and checked: message passing, a ring (channel plus a
 * cross-rank dma from the next rank's symmetric buffer), a symmetric-heap
 * exchange (puts into every peer's copy, a read of rank 0's from inside a herd),
 * and a deadlock the verifier cannot see, which must fail naming the channel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "support/status.h"
#include "test_util.h"

#include "air/air.h"

typedef struct run_t {
  air_context_t* ctx;
  air_device_t* dev;
  air_program_t* prog;
  air_executable_t* exe;
  air_rank_copies_t* copies;
} run_t;

static void open_run(run_t* r, const char* name) {
  memset(r, 0, sizeof *r);
  char path[512];
  snprintf(path, sizeof path, "%s/rank/%s", AIR_TEST_DATA_DIR, name);
  test_check(air_context_create(NULL, NULL, &r->ctx));
  test_check(air_device_open(r->ctx, "cpu", &r->dev));
  test_check(air_program_parse_file(r->ctx, path, NULL, &r->prog));
  test_check(air_executable_create(r->dev, r->prog, 0, &r->exe));
  test_check(air_rank_copies_create(r->ctx, &r->copies));
}

static void close_run(run_t* r) {
  air_rank_copies_destroy(r->copies);
  air_executable_release(r->exe);
  air_program_destroy(r->prog);
  air_device_release(r->dev);
  air_context_destroy(r->ctx);
}

/* Dispatches the only entry with `nr` ranks (binding 0) and the host arrays
 * `mem[i]` (bytes[i]) for the memref bindings 1..n; returns the run's status. */
static air_status_t dispatch(run_t* r, int64_t nr, uint32_t n, void** mem, const size_t* bytes,
                             bool dynamic) {
  air_binding_t b[8];
  air_buffer_t* buf[8] = {0};
  memset(b, 0, sizeof b);
  b[0].i = nr;
  for (uint32_t i = 0; i < n; ++i) {
    test_check(air_buffer_import(r->dev, mem[i], bytes[i], 0, &buf[i]));
    b[i + 1].buffer = buf[i];
  }
  uint32_t ord;
  test_check(air_executable_lookup(r->exe, NULL, &ord));
  air_command_buffer_t* cb = NULL;
  air_semaphore_t* sem = NULL;
  air_dispatch_options_t o;
  memset(&o, 0, sizeof o);
  o.flags = dynamic ? AIR_DISPATCH_DYNAMIC : 0;
  o.rank_copies = r->copies;
  test_check(air_command_buffer_create(r->dev, 0, &cb));
  test_check(air_command_buffer_dispatch(cb, r->exe, ord, n + 1, b, &o));
  test_check(air_command_buffer_end(cb));
  test_check(air_semaphore_create(r->ctx, 0, &sem));
  air_semaphore_t* sems[1] = {sem};
  uint64_t one = 1;
  air_timepoint_list_t sig = {1, sems, &one};
  test_check(air_device_queue_execute(r->dev, 0, NULL, cb, &sig));
  air_status_t st = air_semaphore_wait(sem, 1, 60 * 1000000000LL);
  air_semaphore_release(sem);
  air_command_buffer_release(cb);
  for (uint32_t i = 0; i < n; ++i) air_buffer_release(buf[i]);
  return st;
}

static void read_copy(run_t* r, uint32_t binding, uint32_t rank, void* out, size_t n) {
  test_check(air_rank_copies_read(r->copies, binding, rank, 0, out, n));
}

static void message(int64_t nr, bool dynamic) {
  run_t r;
  open_run(&r, "message.mlir");
  float a[16] = {0}, b[16] = {0};
  void* mem[2] = {a, b};
  size_t by[2] = {sizeof a, sizeof b};
  test_check(dispatch(&r, nr, 2, mem, by, dynamic));
  assert_int_equal(air_rank_copies_count(r.copies), nr);
  uint32_t first, end;
  air_rank_copies_local(r.copies, &first, &end);
  assert_int_equal(first, 0);
  assert_int_equal(end, nr);
  /* Rank 0 filled its %a (the binding itself) and sent it; the others got it in
   * their %b, and their %a stayed zero: copies are private. */
  for (int i = 0; i < 16; ++i) assert_true(a[i] == (float)(i + 1));
  for (uint32_t k = 1; k < (uint32_t)nr; ++k) {
    float x[16], y[16];
    read_copy(&r, 2, k, y, sizeof y);
    read_copy(&r, 1, k, x, sizeof x);
    for (int i = 0; i < 16; ++i) {
      assert_true(y[i] == (float)(i + 1));
      assert_true(x[i] == 0.0f);
    }
  }
  float z[16];
  read_copy(&r, 2, 0, z, sizeof z); /* rank 0 received nothing */
  for (int i = 0; i < 16; ++i) assert_true(z[i] == 0.0f);
  assert_int_equal(air_rank_copies_size(r.copies, 1, 1), sizeof a);
  test_expect_status(air_rank_copies_read(r.copies, 1, (uint32_t)nr, 0, z, 4), AIR_STATUS_NOT_FOUND, "no copy");
  test_expect_status(air_rank_copies_read(r.copies, 1, 1, 60, z, 8), AIR_STATUS_OUT_OF_RANGE, "bytes [60, 68)");
  close_run(&r);
}

static void ring(int64_t nr, bool dynamic) {
  run_t r;
  open_run(&r, "ring.mlir");
  int32_t a[4] = {7, 8, 9, 10}, b[4] = {0}, c[4] = {0};
  void* mem[3] = {a, b, c};
  size_t by[3] = {sizeof a, sizeof b, sizeof c};
  test_check(dispatch(&r, nr, 3, mem, by, dynamic));
  for (uint32_t k = 0; k < (uint32_t)nr; ++k) {
    int32_t x[4], y[4], z[4];
    read_copy(&r, 1, k, x, sizeof x);
    read_copy(&r, 2, k, y, sizeof y);
    read_copy(&r, 3, k, z, sizeof z);
    uint32_t prev = (k + (uint32_t)nr - 1) % (uint32_t)nr, next = (k + 1) % (uint32_t)nr;
    assert_int_equal(x[0], k);
    assert_int_equal(y[0], prev); /* the channel: the predecessor's %x */
    assert_int_equal(z[0], next); /* the dma: the next rank's symmetric copy */
    for (int i = 1; i < 4; ++i) {  /* every rank started from the same input */
      assert_int_equal(x[i], 7 + i);
      assert_int_equal(y[i], 7 + i);
      assert_int_equal(z[i], 7 + i);
    }
  }
  close_run(&r);
}

static void exchange(int64_t nr, bool dynamic) {
  run_t r;
  open_run(&r, "symmetric.mlir");
  float out[4][8], first[8];
  memset(out, 0, sizeof out);
  memset(first, 0, sizeof first);
  void* mem[2] = {out, first};
  size_t by[2] = {sizeof out, sizeof first};
  test_check(dispatch(&r, nr, 2, mem, by, dynamic));
  for (uint32_t k = 0; k < (uint32_t)nr; ++k) {
    float o[4][8], f[8];
    read_copy(&r, 1, k, o, sizeof o);
    read_copy(&r, 2, k, f, sizeof f);
    /* Row p of every rank's buffer is what rank p put there. */
    for (uint32_t p = 0; p < 4; ++p)
      for (int i = 0; i < 8; ++i)
        assert_true(o[p][i] == (p < (uint32_t)nr ? (float)(100 * p + (uint32_t)i) : 0.0f));
    for (int i = 0; i < 8; ++i) assert_true(f[i] == (float)i); /* rank 0's row 0 */
  }
  close_run(&r);
}

/* Strided sides both ways (columns): rank r's rows are [10r+i, 10n+i, 0, 10n+i]
 * with n the next rank (data/rank/halo.mlir). */
static void halo(int64_t nr, bool dynamic) {
  run_t r;
  open_run(&r, "halo.mlir");
  float out[4][4];
  memset(out, 0, sizeof out);
  void* mem[1] = {out};
  size_t by[1] = {sizeof out};
  test_check(dispatch(&r, nr, 1, mem, by, dynamic));
  for (uint32_t k = 0; k < (uint32_t)nr; ++k) {
    float o[4][4];
    read_copy(&r, 1, k, o, sizeof o);
    uint32_t next = (k + 1) % (uint32_t)nr;
    for (int i = 0; i < 4; ++i) {
      assert_true(o[i][0] == (float)(10 * k + (uint32_t)i));
      assert_true(o[i][1] == (float)(10 * next + (uint32_t)i));
      assert_true(o[i][2] == 0.0f);
      assert_true(o[i][3] == (float)(10 * next + (uint32_t)i));
    }
  }
  close_run(&r);
}

static void deadlock(int64_t nr) {
  run_t r;
  open_run(&r, "deadlock.mlir");
  int32_t peer[64] = {0};
  float a[4] = {0};
  void* mem[2] = {peer, a};
  size_t by[2] = {sizeof peer, sizeof a};
  air_status_t st = dispatch(&r, nr, 2, mem, by, false);
  assert_non_null(st);
  const char* m = air_status_message(st);
  /* Every rank but 0 waits at its get of @mail; the report says which. */
  assert_non_null(strstr(m, "deadlock"));
  assert_non_null(strstr(m, "air.channel.get @mail[1] blocked: no put (rank 1)"));
  if (nr == 4) assert_non_null(strstr(m, "air.channel.get @mail[3] blocked: no put (rank 3)"));
  air_status_free(st);
  close_run(&r);
}

static void test_message(void** state) {
  (void)state;
  message(2, false);
  message(4, false);
  message(4, true);
}
static void test_ring(void** state) {
  (void)state;
  ring(2, false);
  ring(4, false);
  ring(4, true);
}
static void test_exchange(void** state) {
  (void)state;
  exchange(2, false);
  exchange(4, false);
  exchange(2, true);
}
static void test_halo(void** state) {
  (void)state;
  halo(2, false);
  halo(4, false);
  halo(3, true);
}
static void test_deadlock(void** state) {
  (void)state;
  deadlock(2);
  deadlock(4);
}

/* A universe that does not match the rank space fails at the op. */
static void test_universe_mismatch(void** state) {
  (void)state;
  air_context_t* ctx;
  test_check(air_context_create(NULL, NULL, &ctx));
  const char* text =
      "func.func @f(%nr: index, %nu: index) {\n"
      "  %u = air.universe.alloc(%nu) : !air.universe\n"
      "  air.rank universe(%u) (%r) in (%n=%nr) {\n  }\n  return\n}\n";
  air_program_t* p;
  test_check(air_program_parse(ctx, text, strlen(text), NULL, &p));
  air_device_t* dev;
  air_executable_t* exe;
  test_check(air_device_open(ctx, "cpu", &dev));
  test_check(air_executable_create(dev, p, 0, &exe));
  air_binding_t b[2];
  memset(b, 0, sizeof b);
  b[0].i = 2;
  b[1].i = 3;
  air_command_buffer_t* cb;
  air_semaphore_t* sem;
  test_check(air_command_buffer_create(dev, 0, &cb));
  test_check(air_command_buffer_dispatch(cb, exe, 0, 2, b, NULL));
  test_check(air_command_buffer_end(cb));
  test_check(air_semaphore_create(ctx, 0, &sem));
  air_semaphore_t* sems[1] = {sem};
  uint64_t one = 1;
  air_timepoint_list_t sig = {1, sems, &one};
  test_check(air_device_queue_execute(dev, 0, NULL, cb, &sig));
  air_status_t st = air_semaphore_wait(sem, 1, -1);
  assert_non_null(strstr(air_status_message(st), "<input>:3:3: error: air.rank has 2 ranks but its "
                                                 "universe holds 3"));
  air_status_free(st);
  air_semaphore_release(sem);
  air_command_buffer_release(cb);
  air_executable_release(exe);
  air_device_release(dev);
  air_program_destroy(p);
  air_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_message),  cmocka_unit_test(test_ring),
      cmocka_unit_test(test_exchange), cmocka_unit_test(test_halo),
      cmocka_unit_test(test_deadlock),
      cmocka_unit_test(test_universe_mismatch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Running from a compiled schedule: host-level L3 allocs live in the transient
 * arena the memory plan lays out, which the caller may supply (size and
 * alignment checked); one plan serves concurrent runs, each with its own arena
 * (run under TSan); a plan or schedule for another entry is refused; traces show
 * the ops and one span per wave. Shares tests/sched_exec_test.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sched_exec_test.h"

/*---------------------------------------------------------------------------*/
/* The transient arena                                                       */
/*---------------------------------------------------------------------------*/

/* Host-level L3 allocs live where the memory plan puts them: in the caller's
 * arena when one is given (its bytes change; %a and %c share theirs), checked
 * for size and alignment. */
static void test_transient_arena(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/transients.mlir");
  const air_op_t* fn = test_find_func(p, "transients");
  air_schedule_t* sc = compile(f, p, "transients");
  air_interp_plan_t* plan = make_plan(p, sc);
  uint64_t size = 0;
  uint32_t align = 0;
  air_interp_plan_transient(plan, &size, &align);
  assert_int_equal(align, 64);
  assert_true(size >= 2 * 1024 && size < 3 * 1024); /* three 1 KiB buffers, two live at once */

  unsigned char* raw = malloc((size_t)size + 128);
  unsigned char* arena = (unsigned char*)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
  memset(arena, 0xab, (size_t)size + 64);
  args_t a;
  args_make(p, fn, NULL, &a);
  runopt_t o = {.plan = plan, .transient = arena, .transient_size = size};
  test_check(run(f, p, fn, &a, &o));
  const int32_t *in = a.buf[0], *out = a.buf[1];
  for (int i = 0; i < 256; ++i) assert_int_equal(out[i], 2 * in[i] + 1);
  uint64_t touched = 0;
  for (uint64_t i = 0; i < size; ++i) touched += arena[i] != 0xab;
  assert_true(touched >= size / 2);
  for (uint64_t i = size; i < size + 64; ++i) assert_int_equal(arena[i], 0xab);

  /* Too small, then misaligned: INVALID_ARGUMENT with the numbers. */
  o.transient_size = size - 64;
  air_status_t st = run(f, p, fn, &a, &o);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  test_expect_in(air_status_message(st), "the transient arena is %llu bytes",
            (unsigned long long)(size - 64));
  test_expect_in(air_status_message(st), "needs %llu bytes aligned to 64", (unsigned long long)size);
  air_status_free(st);
  o.transient = arena + 8;
  o.transient_size = size;
  st = run(f, p, fn, &a, &o);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  test_expect_in(air_status_message(st), "at an address aligned to 8");
  air_status_free(st);
  free(raw);
  args_free(&a);
  air_interp_plan_free(plan);
  air_schedule_free(sc);
  air_program_destroy(p);
}

/* One plan serves concurrent runs, each with its own arena (run under TSan). */
typedef struct conc_t {
  fx_t* f;
  const air_program_t* p;
  const air_op_t* fn;
  const air_interp_plan_t* plan;
  int ok;
} conc_t;

static void* conc_main(void* arg) {
  conc_t* c = arg;
  c->ok = 1;
  for (int round = 0; round < 20 && c->ok; ++round) {
    args_t a;
    args_make(c->p, c->fn, NULL, &a);
    runopt_t o = {.plan = c->plan};
    air_status_t st = run(c->f, c->p, c->fn, &a, &o);
    if (st) {
      fprintf(stderr, "concurrent run: %s\n", air_status_message(st));
      air_status_free(st);
      c->ok = 0;
    }
    const int32_t *in = a.buf[0], *out = a.buf[1];
    for (int i = 0; i < 256 && c->ok; ++i) c->ok = out[i] == 2 * in[i] + 1;
    args_free(&a);
  }
  return NULL;
}

static void test_plan_shared_by_runs(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/transients.mlir");
  air_schedule_t* sc = compile(f, p, "transients");
  air_interp_plan_t* plan = make_plan(p, sc);
  enum { N = 3 };
  conc_t c[N];
  for (int i = 0; i < N; ++i)
    c[i] = (conc_t){.f = f, .p = p, .fn = test_find_func(p, "transients"), .plan = plan};
  test_threads_run(N, conc_main, c, sizeof c[0]);
  for (int i = 0; i < N; ++i) assert_true(c[i].ok);
  air_interp_plan_free(plan);
  air_schedule_free(sc);
  air_program_destroy(p);
}

/* A plan made for another entry is refused; a schedule that does not fit the
 * program cannot be bound. */
static void test_plan_mismatch(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/edges.mlir");
  air_program_t* q = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/transients.mlir");
  air_schedule_t* sc = compile(f, p, "ordered");
  args_t a;
  args_make(p, test_find_func(p, "affinity"), NULL, &a);
  runopt_t o = {.schedule = sc};
  air_status_t st = run(f, p, test_find_func(p, "affinity"), &a, &o);
  assert_int_equal(air_status_code(st), AIR_STATUS_INVALID_ARGUMENT);
  test_expect_in(air_status_message(st), "the schedule is for @ordered");
  air_status_free(st);
  args_free(&a);
  air_interp_plan_t* plan = NULL;
  air_allocator_t heap;
  air_allocator_init_system(&heap);
  st = air_interp_plan_build(&heap, q, sc, &plan);
  assert_null(plan);
  assert_int_equal(air_status_code(st), AIR_STATUS_NOT_FOUND);
  air_status_free(st);
  air_schedule_free(sc);
  air_program_destroy(p);
  air_program_destroy(q);
}

/* Traces from the schedule path show the ops and one span per wave. */
static void test_trace_from_schedule(void** state) {
  fx_t* f = *state;
  air_program_t* p = test_load_file(f->x.ctx, AIR_TEST_DATA_DIR "/sched_exec/transients.mlir");
  const air_op_t* fn = test_find_func(p, "transients");
  air_schedule_t* sc = compile(f, p, "transients");
  air_trace_t* trace = NULL;
  test_check(air_trace_create(f->x.ctx, &trace));
  args_t a;
  args_make(p, fn, NULL, &a);
  runopt_t o = {.schedule = sc, .trace = trace};
  test_check(run(f, p, fn, &a, &o));
  char path[] = "/tmp/air_sched_trace_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  test_check(air_trace_write_json(trace, path));
  FILE* in = fopen(path, "rb");
  assert_non_null(in);
  static char text[1 << 20];
  size_t n = fread(text, 1, sizeof text - 1, in);
  text[n] = 0;
  fclose(in);
  remove(path);
  test_expect_in(text, "schedule: queue 0 (host)");
  test_expect_in(text, "schedule: queue 1 (dma)");
  test_expect_in(text, "air.dma_memcpy_nd");
  args_free(&a);
  air_trace_destroy(trace);
  air_schedule_free(sc);
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_transient_arena, setup, teardown),
      cmocka_unit_test_setup_teardown(test_plan_shared_by_runs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_plan_mismatch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_trace_from_schedule, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

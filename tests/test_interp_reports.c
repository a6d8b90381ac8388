/* test_interp_reports.c - what a CPU executor run reports besides its data
 * (issue 15): transfers left unread in a channel break the spec's balance of puts
 * and gets, so the run fails naming the receiving channel index and both counts;
 * and a traced run gives every processing element a track, with its whole life
 * as one span and its air.execute work inside, with or without linalg. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "air/program.h"
#include "air/trace.h"
#include "hal/cpu/interp/interp.h"
#include "runtime/ir/ir.h"
#include "support/exec.h"
#include "support/programs.h"
#include "support/status.h"
#include "test_util.h"

static air_status_t run_n(test_exec_t* x, const air_program_t* p, int64_t n) {
  air_arg_t arg;
  memset(&arg, 0, sizeof arg);
  arg.kind = AIR_ARG_INT;
  arg.elem = AIR_ELEM_INDEX;
  arg.i = n;
  const air_op_t* e = test_find_func(p, "uneven");
  assert_non_null(e);
  air_interp_desc_t d = test_exec_desc(x, p, e, &arg, 1);
  return air_interp_run(&d);
}

static void test_unread_broadcast(void** state) {
  test_exec_t* x = *state;
  air_program_t* p = test_load_file(x->ctx, AIR_TEST_DATA_DIR "/interp/unread_broadcast.mlir");
  const air_op_t* decl = test_find_op(p->module, AIR_OP_CHANNEL, NULL);
  /* Two puts, depth 2: tile 1 reads both, tile 0 one. */
  air_status_t st = run_n(x, p, 2);
  assert_int_equal(air_status_code(st), AIR_STATUS_FAILED_PRECONDITION);
  test_expect_in(air_status_message(st),
                 "%s:%u:%u: error: air.channel @b[0, 0]: 2 puts but 1 get: the run ended with 1 "
                 "transfer never read",
                 p->filename, decl->line, decl->col);
  assert_null(strstr(air_status_message(st), "@b[1, 0]"));
  air_status_free(st);
  /* One put: both read it, then tile 1 waits for a second that never comes. */
  st = run_n(x, p, 1);
  assert_int_equal(air_status_code(st), AIR_STATUS_ABORTED);
  air_status_free(st);
  /* Three puts: the first is read by both and frees a slot, so all three fit;
   * both receivers are then short, one line each. */
  st = run_n(x, p, 3);
  assert_int_equal(air_status_code(st), AIR_STATUS_FAILED_PRECONDITION);
  test_expect_in(air_status_message(st), "@b[0, 0]: 3 puts but 1 get: the run ended with 2 "
                                         "transfers never read");
  test_expect_in(air_status_message(st), "\n%s:%u:%u: error: air.channel @b[1, 0]: 3 puts but 2 "
                                         "gets", p->filename, decl->line, decl->col);
  air_status_free(st);
  air_program_destroy(p);
}

/* vector_add's 4 PEs compute with loads, stores and arith in air.execute, no
 * linalg: each still has a track, its life span and its work spans. */
static void test_trace_pe_tracks(void** state) {
  test_exec_t* x = *state;
  air_program_t* p = test_load_file(x->ctx, AIR_SOURCE_DIR "/samples/vector_add.mlir");
  enum { N = 4096 };
  float* a = calloc(3 * N, sizeof(float));
  assert_non_null(a);
  air_arg_t args[3] = {test_mref(a, AIR_ELEM_F32, 1, (int64_t)N),
                       test_mref(a + N, AIR_ELEM_F32, 1, (int64_t)N),
                       test_mref(a + 2 * N, AIR_ELEM_F32, 1, (int64_t)N)};
  air_trace_t* trace = NULL;
  assert_null(air_trace_create(x->ctx, &trace));
  const air_op_t* e = test_find_func(p, "vector_add");
  air_interp_desc_t d = test_exec_desc(x, p, e, args, 3);
  d.trace = trace;
  test_check(air_interp_run(&d));
  char path[] = "/tmp/air_pe_tracks_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  test_check(air_trace_write_json(trace, path));
  size_t n = 0;
  char* json = test_read_file(path, &n);
  unlink(path);
  assert_non_null(json);
  for (int pe = 0; pe < 4; ++pe) {
    char name[64];
    snprintf(name, sizeof name, "\"herd @vadd_herd [%d, 0]\"", pe);
    if (!strstr(json, name)) fail_msg("no track %s", name);
  }
  /* One life span per PE, and the air.execute spans (3 allocs, 4 adds, 1 free
   * per PE). */
  size_t lives = 0, work = 0;
  for (const char* q = json; (q = strstr(q, "\"name\":\"air.herd @vadd_herd\"")); ++q) ++lives;
  for (const char* q = json; (q = strstr(q, "\"name\":\"air.execute\"")); ++q) ++work;
  assert_int_equal(lives, 4);
  assert_int_equal(work, 4 * 8);
  free(json);
  air_trace_destroy(trace);
  free(a);
  air_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_unread_broadcast, test_exec_setup, test_exec_teardown),
      cmocka_unit_test_setup_teardown(test_trace_pe_tracks, test_exec_setup, test_exec_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

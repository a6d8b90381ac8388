/* test_interp_unread.c - the CPU executor's end-of-run check (issue 15):
 * transfers left unread in a channel break the spec's balance of puts and gets,
 * so the run fails naming the receiving channel index and both counts, whether
 * the counts differ per broadcast receiver or per launch instance. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "air/program.h"
#include "hal/cpu/interp/interp.h"
#include "runtime/ir/ir.h"
#include "support/exec.h"
#include "support/programs.h"
#include "support/status.h"

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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_unread_broadcast, test_exec_setup, test_exec_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

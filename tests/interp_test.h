/* interp_test.h - what the CPU executor's tests (test_interp.c,
 * test_interp_programs.c) share: the fixture (support/exec.h's pool and
 * context), running an entry with run options, a small random stream.
 * Header-only (static inline); include after <cmocka.h>. */
#ifndef AIR_TESTS_INTERP_TEST_H_
#define AIR_TESTS_INTERP_TEST_H_

#include <stdint.h>

#include "hal/cpu/interp/interp.h"
#include "hal/cpu/pool.h"
#include "support/exec.h"

typedef test_exec_t fx_t;

typedef struct runopt_t {
  air_pool_t* pool;       /* default: the fixture's */
  int64_t watchdog_ns;
} runopt_t;

static inline air_status_t run(fx_t* f, const air_program_t* p, const char* fn, air_arg_t* args,
                               uint32_t n, const runopt_t* o) {
  const air_op_t* e = test_find_func(p, fn);
  assert_non_null(e);
  air_interp_desc_t d = test_exec_desc(f, p, e, args, n);
  d.pool = o && o->pool ? o->pool : f->pool;
  d.watchdog_ns = o ? o->watchdog_ns : 0;
  return air_interp_run(&d);
}

static inline float frand(uint32_t* seed) {
  *seed = *seed * 1664525u + 1013904223u;
  return (float)((*seed >> 8) & 0xffff) / 65536.0f - 0.5f;
}

#endif /* AIR_TESTS_INTERP_TEST_H_ */

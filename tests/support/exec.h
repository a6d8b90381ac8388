/* exec.h - what the CPU executor's tests (test_interp.c, test_sched_exec.c)
 * share: a context and a worker pool, run descriptions, memref arguments, a
 * rendezvous with a run's `done`, and the C kernels the test programs'
 * func.calls are registered with. */
#ifndef AIR_TESTS_SUPPORT_EXEC_H_
#define AIR_TESTS_SUPPORT_EXEC_H_

#include <pthread.h>
#include <stdint.h>

#include "air/context.h"
#include "air/kernel.h"
#include "hal/cpu/interp/interp.h"
#include "hal/cpu/pool.h"

/* Which path the runs a test describes take (AIR_TEST_PATH in the environment,
 * read at open): "interpreted" (every body interpreted, linalg ops through their
 * reference loops: AIR_DISPATCH_INTERPRET), "compiled" (the program's units from
 * the code generator's JIT, library kernels), or unset (no units, library
 * kernels). ctest runs the executor's tests both ways (tests/interp.cmake). */
typedef enum test_path_e { TEST_PATH_DEFAULT = 0, TEST_PATH_INTERPRETED, TEST_PATH_COMPILED } test_path_t;

struct test_codes_t; /* exec.c: compiled code made for runs, freed at close */

typedef struct test_exec_t {
  air_context_t* ctx;
  air_pool_t* pool; /* two workers */
  test_path_t path;
  struct test_codes_t* codes;
} test_exec_t;

/* Opens / closes one (0: opened). */
int test_exec_open(test_exec_t* x);
void test_exec_close(test_exec_t* x);
/* cmocka fixtures whose state is a test_exec_t. */
int test_exec_setup(void** state);
int test_exec_teardown(void** state);

/* A description of a run of `entry` with `n` arguments on x's pool and context,
 * with the system allocator, on x's path; the caller sets anything else. */
air_interp_desc_t test_exec_desc(const test_exec_t* x, const air_program_t* p,
                                 const air_op_t* entry, air_arg_t* args, uint32_t n);

/* Runs function `fn` of `p` on `pool` (a description as test_exec_desc's, on
 * another pool); fails the test when there is no such function. */
air_status_t test_exec_run_on(const test_exec_t* x, air_pool_t* pool, const air_program_t* p,
                              const char* fn, air_arg_t* args, uint32_t n);
/* Pool k of a test that runs each program on two pools: 0 is the fixture's pool
 * (two workers), 1 a pool of one worker made on first use in *one (the caller
 * destroys it). */
air_pool_t* test_exec_pool_of(const test_exec_t* x, int k, air_pool_t** one);

/* The program's compiled units (JIT), kept until test_exec_close; fails the test
 * when the code generator cannot be loaded. */
const air_cg_code_t* test_exec_code(const test_exec_t* x, const air_program_t* p);

/* The three ways a test runs one program: the reference interpreter (plain
 * loops), the interpreter with library kernels, and compiled units (JIT). */
enum { TEST_WAY_REFERENCE, TEST_WAY_LIBRARY, TEST_WAY_COMPILED, TEST_N_WAYS };

/* Runs function `fn` of `p` on x's pool the TEST_WAY_* `way`; fails the test
 * when there is no such function. */
air_status_t test_exec_run_way(const test_exec_t* x, const air_program_t* p, const char* fn,
                               air_arg_t* args, uint32_t n, int way);

/* A row-major memref argument of `rank` sizes (int64_t varargs). */
air_arg_t test_mref(void* data, uint32_t elem, uint32_t rank, ...);
/* An index argument. */
air_arg_t test_index(int64_t v);

/* A run's `done`, waited for by the test thread. */
typedef struct test_done_t {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int calls;
  air_status_t st;
} test_done_t;
void test_done_init(test_done_t* d);
void test_done_fn(void* user, air_status_t st); /* an air_interp_done_fn_t */
void test_done_wait(test_done_t* d);

/* "scale.o": a 1-d i16 memref times the i16 scalar. */
air_status_t test_k_scale_i16(void* ud, const air_kernel_call_t* c);
/* "kernel.o": adds one to a 1-d f32 memref. */
air_status_t test_k_add_one_f32(void* ud, const air_kernel_call_t* c);
/* Does nothing. */
air_status_t test_k_nothing(void* ud, const air_kernel_call_t* c);

#endif /* AIR_TESTS_SUPPORT_EXEC_H_ */

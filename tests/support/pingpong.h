/* pingpong.h - the two-herd channel ping-pong the channel tests share
 * (test_interp_lane.c, test_interp_direct.c). Round i of C: herd @a puts
 * in[R*i .. R*i + R) (contiguous) on @ping and gets @pong into column i of %oa,
 * an R x C row-major matrix (R elements C apart: a strided destination); herd
 * @b gets @ping into column i of %ob and puts that column back (a strided
 * source). Before each round a side works (i * 37 mod 11) * %w (a) or
 * (i * 53 mod 13) * %w (b) loop iterations, so either may come first: a get is
 * found waiting (straight copy), or the put comes first (through the ring), or
 * a wait outlasts the spin and parks. Both outputs must then hold in[R*i + r]
 * at row r, column i: a copy that ignored the stride, went to the wrong get or
 * came out of order shows, and a lost wake-up shows as a deadlock report. */
#ifndef AIR_TESTS_SUPPORT_PINGPONG_H_
#define AIR_TESTS_SUPPORT_PINGPONG_H_

#include <stdint.h>

#include "support/exec.h"

typedef struct test_pingpong_t {
  int depth;          /* the channels' depth; 0: no depth attribute (the default) */
  int64_t rows, cols; /* R elements per transfer, C rounds */
} test_pingpong_t;

/* The program (func.func @pp(%in, %oa, %ob: memref<(R*C)xi32>, %w: index)),
 * malloc'd. With R = 1 every access is contiguous. */
char* test_pingpong_text(const test_pingpong_t* pp);

/* Runs @pp on the pool of two workers and on a pool of one, with %w = 0 (both
 * sides run at once), 3, 40 and 400 (one side lags: the other waits in the spin
 * or parks), `reps` times each, and checks both outputs exactly. */
void test_pingpong_check(test_exec_t* x, const test_pingpong_t* pp, int reps);

#endif /* AIR_TESTS_SUPPORT_PINGPONG_H_ */

/* plan.h - a compiled schedule bound to its program for the CPU executor
 * (air_interp_plan_t, made by air_interp_plan_build in plan.c), which
 * the schedule path (waves.c) only reads.
 *
 * Wave w's commands are cmds[wave_cmd[w] .. wave_cmd[w + 1]), ascending; command
 * c's in-wave predecessors are positions in its wave's list,
 * pred[pred_off[c] .. pred_off[c+1]).
 * A pred entry with bit 31 set is instead the index of a command of another wave
 * that must complete first (see plan.c). Completing wave w opens one gate
 * of each wave in succ[succ_off[w] .. succ_off[w + 1]); wave w starts with
 * gates[w] closed. */
#ifndef AIR_HAL_CPU_INTERP_PLAN_H_
#define AIR_HAL_CPU_INTERP_PLAN_H_

#include <stdint.h>

#include "hal/cpu/interp/interp.h"

#define PLAN_NONE UINT32_MAX
#define PLAN_WATCH (1u << 31)

typedef struct ix_l3_t {
  const air_op_t* op;      /* a host-level memref.alloc the memory plan places */
  uint64_t offset, bytes;
} ix_l3_t;

struct air_interp_plan_t {
  air_allocator_t alloc;
  const air_schedule_t* schedule;
  const air_program_t* program;
  const air_partition_t* part;
  const air_op_t* entry;
  const air_op_t** ops;    /* body op i = command i */
  uint32_t n_cmds, n_waves, max_width;
  uint32_t *wave_cmd, *cmds, *gates, *succ_off, *succ, *pred_off, *pred;
  uint32_t* pos;           /* per command: its position in its wave's list */
  /* Per command: index of the token a run makes for it up front, because a
   * command of another wave waits for it (a "watch" entry in pred), or NONE. */
  uint32_t* early;
  uint32_t n_early;
  ix_l3_t* l3;             /* sorted by op address */
  uint32_t n_l3;
  uint64_t transient_size;
  uint32_t alignment;
};

#endif /* AIR_HAL_CPU_INTERP_PLAN_H_ */

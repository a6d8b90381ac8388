/* artifact_internal.h - the reader's stages, split across files:
 *   artifact_read.c   ELF container, section table, record decoding;
 *   artifact_check.c  structural rules and the derived partition fields;
 *   artifact_bind.c   rules that need the program (kinds, queues, edges, memplan ops).
 * Every failure is DATA_LOSS `NAME: SECTION[INDEX]: what is wrong`. */
#ifndef AIR_SCHEDULER_ARTIFACT_INTERNAL_H_
#define AIR_SCHEDULER_ARTIFACT_INTERNAL_H_

#include "air/allocator.h"
#include "air/program.h"
#include "air/status.h"
#include "scheduler/schedule.h"
#include "runtime/target/target.h"

/* DATA_LOSS "NAME: <formatted>". */
air_status_t air_art_corrupt(const air_allocator_t* a, const char* name, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* n zeroed elements of `size` bytes from the arena (at least one byte, so an empty
 * array is not NULL); NULL on overflow or when out of memory. */
void* air_art_array(air_arena_t* arena, size_t n, size_t size);

/* Checks every index, range and count of a decoded schedule (partition arrays
 * n_nodes/n_queues/waves/cmds/waits filled in, derived fields not yet) and fills the
 * derived fields: node_wave, node_queue, levels, level_cmds, clocks. Arrays come
 * from schedule->arena. */
air_status_t air_art_check_structure(const char* name, air_schedule_t* schedule);

/* Checks the schedule against the program it was loaded with: the entry binds, the
 * commands' kinds and queues are the program's, every edge of the host-level token
 * graph is honoured, and the memory plan names allocs inside their segment / herd. */
air_status_t air_art_check_program(const char* name, const air_schedule_t* schedule,
                                   const air_program_t* program, const air_target_t* target);

#endif /* AIR_SCHEDULER_ARTIFACT_INTERNAL_H_ */

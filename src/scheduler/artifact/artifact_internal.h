/* artifact_internal.h - the reader's stages, split across files:
 *   artifact_read.c   ELF container, section table, record decoding;
 *   artifact_check.c  structural rules of the schedule and the derived partition
 *                     fields: the one place a stored partition is checked;
 *   artifact_bind.c   the few rules that need the program (the entry binds, the
 *                     commands' kinds are its ops', memory-plan ops) - walks only,
 *                     nothing the compiler stored is computed again.
 * They share artifact_format.h (layouts, errors). Every failure is DATA_LOSS
 * `NAME: SECTION[INDEX]: what is wrong`. */
#ifndef AIR_SCHEDULER_ARTIFACT_ARTIFACT_INTERNAL_H_
#define AIR_SCHEDULER_ARTIFACT_ARTIFACT_INTERNAL_H_

#include "air/allocator.h"
#include "air/program.h"
#include "air/status.h"
#include "scheduler/artifact/artifact_format.h"
#include "scheduler/schedule.h"

/* Checks every index, range and count of a decoded schedule (partition arrays
 * n_nodes/n_queues/waves/cmds/waits, the edges and the memory plan filled in,
 * derived fields not yet) and fills the derived fields: node_wave, node_queue,
 * levels, level_cmds, clocks. Arrays come from schedule->arena. After it, nothing
 * a driver reads can index out of range, and every stored edge is honoured by the
 * waves and waits, so the executor cannot crash or wait forever on the schedule. */
air_status_t air_art_check_structure(const char* name, air_schedule_t* schedule);

/* Checks the schedule against the program it was loaded with: the entry binds,
 * command i is body op i with that op's kind, and the memory plan names allocs
 * inside their segment / herd. */
air_status_t air_art_check_program(const char* name, const air_schedule_t* schedule,
                                   const air_program_t* program);

#endif /* AIR_SCHEDULER_ARTIFACT_ARTIFACT_INTERNAL_H_ */

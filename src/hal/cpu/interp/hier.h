/* hier.h - the hierarchy op family: air.launch / air.segment / air.herd, their
 * instances as strands, processing elements, affinity groups.
 *
 * Extension point: ranks (air.rank, MPI) would be one more level here: an
 * instance per rank, with a channel space that reaches the other ranks. */
#ifndef AIR_HAL_CPU_INTERP_HIER_H_
#define AIR_HAL_CPU_INTERP_HIER_H_

#include "hal/cpu/interp/strand.h"

/* Runs a hierarchy op in its own strand: spawns every instance (a step handler). */
int ix_op_hier(ix_strand_t* s, ix_frame_t* f, const air_op_t* op);

/* The iteration space of hierarchy op `op` (its sizes, read in `e`, and their
 * product): IX_CONT, or IX_FAILED with the run failed. */
int ix_hier_space(ix_strand_t* s, ix_env_t* e, const air_op_t* op, int64_t* sizes,
                  uint64_t* total);
/* How ix_hier_instance makes an instance. IX_INST_UNIT: the body is a compiled
 * unit, whose PE name is formatted only when needed. IX_INST_BORROW: the
 * instance is over before anything in `e` changes (flat.c: run to its end while
 * its caller waits, by ops that cannot park or spawn), so its memref arguments
 * point at e's views instead of copies in its own env (ix_pass). */
enum { IX_INST_UNIT = 1u, IX_INST_BORROW = 2u };
/* Caller memory for the env of an IX_INST_BORROW instance, which is over before
 * its caller returns (flat.c): the env goes there when it fits (ix_env_at), not
 * through the run's cache (a get and a put per instance per run); a herd
 * body's env with its PE state is ~1.3 KiB for the vector_add sample. */
typedef struct ix_inst_mem_t {
  _Alignas(16) char bytes[3072];
} ix_inst_mem_t;
/* Instance `i` (row-major) of `op`'s space: its body env (*out, a ref) with the
 * ids, sizes and arguments bound, and for a herd its PE filled in (`how`:
 * IX_INST_* flags; `mem`: NULL, or where the env goes if it fits). IX_CONT or
 * IX_FAILED (no env then). */
int ix_hier_instance(ix_strand_t* s, ix_env_t* e, const air_op_t* op, const int64_t* sizes,
                     uint64_t i, uint32_t how, ix_inst_mem_t* mem, ix_env_t** out);
/* Ends an instance's env once its reference has been let go: one in caller
 * memory must then be held by nothing else (else an internal error, the run
 * failed: IX_FAILED); one from the cache was freed with its last reference. */
int ix_hier_end(ix_strand_t* s, const air_op_t* op, ix_env_t* ie, const ix_inst_mem_t* mem);

#endif /* AIR_HAL_CPU_INTERP_HIER_H_ */

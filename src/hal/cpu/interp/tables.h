/* tables.h - the per-program tables every run reads (types.h: ix_tables_t):
 * each value's slot, each block's layout and whether it can park, the module's
 * functions and its channel declarations. Built once per program into a prep
 * (air_interp_prepare), which concurrent runs share read-only and which keeps a
 * few finished runs for reuse, or per run when there is no prep. */
#ifndef AIR_HAL_CPU_INTERP_TABLES_H_
#define AIR_HAL_CPU_INTERP_TABLES_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "hal/cpu/interp/run.h"

/* A declared air.channel. Put index p (row-major over dims, broadcast dimensions
 * at 0) reaches n_recv receivers (row-major over the broadcast dimensions). */
struct ix_chan_t {
  const air_op_t* decl;
  const char* name;
  uint32_t rank;
  int64_t dims[AIR_MAX_RANK], bdims[AIR_MAX_RANK];
  int64_t depth;
  uint64_t n_put;          /* product of dims */
  uint32_t n_recv;         /* receivers per put index */
  bool symheap;            /* channel_type "gpu_symmetric_heap": reaches every rank */
};

struct air_interp_prep_t {
  _Atomic uint32_t refs;   /* the owner's, plus one per run */
  air_allocator_t alloc;
  const air_program_t* p;
  ix_tables_t tab;
  /* The block cache of inline runs (start.c; NULL: out of memory, they use the
   * allocator), shared by however many run at once. */
  ix_cache_t* cache;
  /* How long a flat herd's helper took to start after it was submitted (flat.c),
   * running averages in ns for workers that were awake [0] and all asleep [1]
   * (0: not yet measured). */
  _Atomic int64_t wake_ns[2];
  /* Finished runs kept for the next ones (their mutexes stay initialised). */
  pthread_mutex_t free_mu;
  ix_run_t* free_runs;
  uint32_t n_free;
};

/* Builds the tables of `p` into *t (zeroed first); on error *t holds what was
 * built, for ix_tables_free. */
air_status_t ix_tables_build(ix_tables_t* t, const air_allocator_t* a, const air_program_t* p);
void ix_tables_free(ix_tables_t* t, const air_allocator_t* a);

/* The module func named `name`, or NULL. */
const air_op_t* ix_find_func(const ix_tables_t* t, const char* name);
/* The channel put/get `op` names (resolved when the tables were built), or NULL. */
ix_chan_t* ix_chan_of(const ix_tables_t* t, const air_op_t* op);

/* The record of `op` (oprec.c), or NULL for an op outside the program. */
static inline const ix_oprec_t* ix_oprec(const ix_tables_t* t, const air_op_t* op) {
  return (const ix_oprec_t*)air_ptrmap_get(&t->recs, op);
}

/* A kept run of the prep, or NULL; ix_prep_keep offers a finished one back
 * (false: the prep has enough, destroy it). */
ix_run_t* ix_prep_take_run(air_interp_prep_t* pr);
bool ix_prep_keep_run(air_interp_prep_t* pr, ix_run_t* r);

#endif /* AIR_HAL_CPU_INTERP_TABLES_H_ */

/* oprec.h - op records (types.h ix_oprec_t): per op, what running it needs
 * from the program alone (guarded operands, its channel, constant-folded index
 * lists), built with the tables (tables.c) and looked up by op. */
#ifndef AIR_HAL_CPU_INTERP_OPREC_H_
#define AIR_HAL_CPU_INTERP_OPREC_H_

#include "hal/cpu/interp/tables.h"

/* Builds a record for every op of `p` into t (t's values and channels are
 * built already); on error t holds what was built, for ix_oprecs_free. */
air_status_t ix_oprecs_build(ix_tables_t* t, const air_allocator_t* a, const air_program_t* p);
void ix_oprecs_free(ix_tables_t* t, const air_allocator_t* a);
/* The channel named `name` among t's (sorted by name), or NULL. Here rather
 * than in tables.c because the records resolve their channels with it while
 * tables.c builds them: tables.c calls down into oprec.c, never the reverse. */
ix_chan_t* ix_find_chan(const ix_tables_t* t, const char* name);

#endif /* AIR_HAL_CPU_INTERP_OPREC_H_ */

/* interp.c - placeholder until the CPU executor lands. */
#include "hal/cpu/interp.h"

#include "runtime/status_util.h"

air_status_t air_interp_start(const air_interp_desc_t* desc, air_interp_done_fn_t done,
                              void* user) {
  (void)done;
  (void)user;
  return AIR_STATUS(&desc->allocator, AIR_STATUS_UNIMPLEMENTED, "cpu executor not built yet");
}

air_status_t air_interp_run(const air_interp_desc_t* desc) {
  return air_interp_start(desc, NULL, NULL);
}

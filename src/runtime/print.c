/* print.c - placeholder until the printer lands. */
#include "runtime/print.h"
#include "runtime/status_util.h"
air_status_t air_print(const air_program_t* p, uint32_t flags, air_sb_t* out) {
  (void)flags; (void)out;
  return AIR_STATUS(&p->allocator, AIR_STATUS_UNIMPLEMENTED, "printer not built yet");
}

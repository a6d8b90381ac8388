/* verify.c - placeholder until the verifier lands. */
#include "runtime/verify.h"
#include "runtime/status_util.h"
air_status_t air_verify(const air_program_t* p, const char* target, uint32_t flags) {
  (void)target; (void)flags;
  return AIR_STATUS(&p->allocator, AIR_STATUS_UNIMPLEMENTED, "verifier not built yet");
}

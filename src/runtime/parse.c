/* parse.c - placeholder until the parser lands. */
#include "runtime/parse.h"
air_status_t air_parse(air_program_t* p, const char* text, size_t len, uint32_t first_line) {
  (void)text; (void)len;
  return AIR_IR_ERROR(p, AIR_STATUS_UNIMPLEMENTED, first_line, 1, "parser not built yet");
}

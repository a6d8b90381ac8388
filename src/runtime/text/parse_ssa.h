/* parse_ssa.h - SSA names and scopes while parsing (parse_ssa.c). */
#ifndef AIR_RUNTIME_TEXT_PARSE_SSA_H_
#define AIR_RUNTIME_TEXT_PARSE_SSA_H_

#include "runtime/text/parse_core.h"

air_status_t air_parse_scope_push(air_parser_t* P, bool isolated);
air_status_t air_parse_scope_pop(air_parser_t* P);
/* Resolves a use; `type` 0 means "whatever it is" (the value must exist). */
air_status_t air_parse_use(air_parser_t* P, const air_pref_t* r, air_tid_t type,
                           air_vid_t* out);
/* Defines `n` values in slots[] (results of `def` or arguments of `blk` from
 * `first`), named by `name` (NULL: unnamed). */
air_status_t air_parse_bind(air_parser_t* P, const air_pref_t* name, air_vid_t* slots,
                            uint32_t n, const air_tid_t* types, air_op_t* def,
                            air_block_t* blk, uint32_t first);
/* Frees the name tables. */
void air_parse_ssa_free(air_parser_t* P);

#endif /* AIR_RUNTIME_TEXT_PARSE_SSA_H_ */

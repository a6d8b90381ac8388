/* parse_affine.h - affine maps, sets and subscripts in AIR text (parse_affine.c). */
#ifndef AIR_RUNTIME_TEXT_PARSE_AFFINE_H_
#define AIR_RUNTIME_TEXT_PARSE_AFFINE_H_

#include "runtime/text/parse_core.h"

/* `affine_map<...>` or `affine_set<...>`; the current token is the keyword. */
air_status_t air_parse_affine(air_parser_t* P, air_attr_t* out);
/* A map written without `affine_map<>` (`(d0, d1) -> (d1, d0)`, as
 * memref.transpose prints its permutation); the current token is its '('. */
air_status_t air_parse_affine_map_bare(air_parser_t* P, air_attr_t* out);
/* `[expr, ...]` subscripts of affine.load/store: SSA values are dimensions and
 * `symbol(%v)` symbols. Sets out to the map and pushes one ref per dimension then
 * per symbol. */
air_status_t air_parse_affine_subscripts(air_parser_t* P, air_attr_t* out, uint32_t* n_dims,
                                         uint32_t* n_syms);

#endif /* AIR_RUNTIME_TEXT_PARSE_AFFINE_H_ */

/* parse_attr.h - attributes and alias definitions in AIR text (parse_attr.c). */
#ifndef AIR_RUNTIME_TEXT_PARSE_ATTR_H_
#define AIR_RUNTIME_TEXT_PARSE_ATTR_H_

#include "runtime/text/parse_core.h"

air_status_t air_parse_attr(air_parser_t* P, air_attr_t* out);
/* `{ name [= attr], ... }` entries pushed on nattrs. */
air_status_t air_parse_dict_entries(air_parser_t* P);
/* `#alias` (resolved) or an inline map/set; `want` is AIR_ATTR_MAP or _SET. */
air_status_t air_parse_map_ref(air_parser_t* P, air_attr_kind_t want, air_attr_t* out,
                               const air_attr_t** resolved);
/* Parses a top-level `#name = attr` or `!name = type` definition. */
air_status_t air_parse_alias_def(air_parser_t* P);

#endif /* AIR_RUNTIME_TEXT_PARSE_ATTR_H_ */

/* parse_type.h - types in AIR text (parse_type.c). */
#ifndef AIR_RUNTIME_TEXT_PARSE_TYPE_H_
#define AIR_RUNTIME_TEXT_PARSE_TYPE_H_

#include "runtime/text/parse_core.h"

/* "f32", "index", ... without scanning a name table; AIR_ELEM_NONE if unknown. */
air_elem_kind_t air_parse_elem(const char* s, uint32_t len);
air_status_t air_parse_type(air_parser_t* P, air_tid_t* out);
/* `T, T, ...` (count unknown) pushed on tys. */
air_status_t air_parse_type_list(air_parser_t* P, uint32_t* n);
/* `(T, ...)` or a single T when `paren_optional`. */
air_status_t air_parse_paren_types(air_parser_t* P, bool paren_optional, uint32_t* n);
/* `-> T` or `-> (T, ...)`, when present. */
air_status_t air_parse_opt_arrow_types(air_parser_t* P, uint32_t* n);
/* Formats a type for messages into buf. */
const char* air_parse_type_str(const air_parser_t* P, air_tid_t t, char* buf, size_t size);
/* Equal types; the two token spellings are one type. */
bool air_parse_types_match(const air_parser_t* P, air_tid_t a, air_tid_t b);

#endif /* AIR_RUNTIME_TEXT_PARSE_TYPE_H_ */

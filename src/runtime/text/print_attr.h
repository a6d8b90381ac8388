/* print_attr.h - the printer's leaves: types, attributes, affine maps, literals.
 * Internal to the printer (print.c, print_core.c). These never fail loudly: out
 * of memory sets `out->oom`, which air_print turns into a status, and broken IR
 * prints as `<<null>>`. */
#ifndef AIR_RUNTIME_TEXT_PRINT_ATTR_H_
#define AIR_RUNTIME_TEXT_PRINT_ATTR_H_

#include "runtime/ir/ir.h"
#include "runtime/base/strbuf.h"

void air_print_i64(air_sb_t* out, int64_t v);
/* `"..."` with MLIR's escapes (\" \\ and \XX for anything not printable). */
void air_print_string(air_sb_t* out, const char* s, size_t n);
/* `@name`, or `@"..."` when the name is not a bare identifier. */
void air_print_symbol(air_sb_t* out, const char* s);
void air_print_type(air_sb_t* out, const air_program_t* p, air_tid_t t);
void air_print_attr(air_sb_t* out, const air_program_t* p, const air_attr_t* a);
/* An attribute in a typed position (arith.constant): `0 : index`, `true`,
 * `1.000000e+00 : f32`; `type` is used when the attribute carries none. */
void air_print_attr_typed(air_sb_t* out, const air_program_t* p, const air_attr_t* a,
                          air_tid_t type);
/* `{a = 1 : i64, b}`. */
void air_print_attr_dict(air_sb_t* out, const air_program_t* p,
                         const air_named_attr_t* attrs, uint32_t n);

/* A map without `affine_map<>`: `(d0, d1) -> (d1, d0)`. */
void air_print_map_bare(air_sb_t* out, const air_affine_map_t* m);

/* An affine expression as MLIR prints it. `leaf`, when given, prints dimension or
 * symbol `pos` instead of `d0` / `s0` (affine.load/store write SSA values there). */
typedef void (*air_print_aff_leaf_fn)(void* user, bool is_sym, int64_t pos);
void air_print_aff(air_sb_t* out, const air_aff_t* e, air_print_aff_leaf_fn leaf, void* user);

#endif /* AIR_RUNTIME_TEXT_PRINT_ATTR_H_ */

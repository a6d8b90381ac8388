/* air/types.h - the types and values of a program, as plain integer handles.
 *
 * A type is interned in its program: building the same type twice gives the same
 * handle, so handles compare with ==. Types and values are small integers (0 means
 * "none") that stay valid for the program's life and can be held by any language.
 * Nothing here is thread-safe against a concurrent builder on the same program.
 */
#ifndef AIR_TYPES_H_
#define AIR_TYPES_H_

#include "air/config.h"

#include <stdbool.h>
#include <stdint.h>

#include "air/program.h"
#include "air/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A type of one program; 0 = none. */
typedef uint32_t air_type_t;
/* An SSA value (op result or block argument) of one program; 0 = none. */
typedef uint32_t air_value_t;

/* Scalar element types, as spelled in AIR text. */
typedef enum air_elem_type_e {
  AIR_ELEMENT_NONE = 0,
  AIR_ELEMENT_I1,
  AIR_ELEMENT_I8,
  AIR_ELEMENT_I16,
  AIR_ELEMENT_I32,
  AIR_ELEMENT_I64,
  AIR_ELEMENT_INDEX,
  AIR_ELEMENT_F16,
  AIR_ELEMENT_BF16,
  AIR_ELEMENT_F32,
  AIR_ELEMENT_F64,
  /* Signed and unsigned integers (`si8`, `ui8`, ...): memory and argument types;
   * arith works on the signless ones above. */
  AIR_ELEMENT_SI8,
  AIR_ELEMENT_SI16,
  AIR_ELEMENT_SI32,
  AIR_ELEMENT_SI64,
  AIR_ELEMENT_UI8,
  AIR_ELEMENT_UI16,
  AIR_ELEMENT_UI32,
  AIR_ELEMENT_UI64,
  AIR_ELEMENT_COUNT
} air_elem_t;

/* Memory spaces of the AIR model (the memref's memory space number). */
enum {
  AIR_MEMORY_L3 = 0, /* system: DDR, host RAM */
  AIR_MEMORY_L2 = 1, /* segment-shared */
  AIR_MEMORY_L1 = 2  /* per processing element */
};

/* A `?` (dynamic) extent in a memref shape. */
#define AIR_SHAPE_DYNAMIC INT64_MIN

/* What a type is. */
typedef enum air_typeclass_e {
  AIR_TYPECLASS_NONE = 0,
  AIR_TYPECLASS_TOKEN,  /* !air.token */
  AIR_TYPECLASS_SCALAR, /* index, iN, f16, bf16, f32, f64 */
  AIR_TYPECLASS_MEMREF,
  AIR_TYPECLASS_TENSOR,  /* tensor<...>: parsed and printed, not executed */
  AIR_TYPECLASS_UNIVERSE /* !air.universe: a set of ranks (air.universe.alloc) */
} air_typeclass_t;

/* Flags of air_type_token. */
enum {
  /* Spell the token `!air.async.token` (the old name) instead of `!air.token`. */
  AIR_TOKEN_OLD_SPELLING = 1u << 0
};
/* air_type_details_t.flags of a memref or tensor: `memref<*xT>` has no rank. */
enum { AIR_TYPE_UNRANKED = 1u << 1 };

/* The token type `!air.token`. */
AIR_API air_status_t air_type_token(air_program_t* program, uint32_t flags,
                                    air_type_t* out_type);

/* The universe type `!air.universe` (the result of air.universe.alloc). */
AIR_API air_status_t air_type_universe(air_program_t* program, air_type_t* out_type);

/* A scalar type: an integer, `index`, or a float. */
AIR_API air_status_t air_type_scalar(air_program_t* program, air_elem_t elem,
                                     air_type_t* out_type);

/* A memref type `memref<shape x elem, layout, memory_space>`. `shape` holds `rank`
 * extents (>= 0, or AIR_SHAPE_DYNAMIC); it may be NULL when rank is 0.
 * `memory_space` is AIR_MEMORY_L3/L2/L1 (L3 prints without a space). `layout` is
 * NULL for the identity layout, else its text, e.g. "strided<[64, 1], offset: ?>"
 * or an alias "#map". */
AIR_API air_status_t air_type_memref(air_program_t* program, air_elem_t elem,
                                     uint32_t rank, const int64_t* shape,
                                     uint32_t memory_space, const char* layout,
                                     air_type_t* out_type);

/* An unranked memref type `memref<*xelem, memory_space>`: what `memref.cast`
 * makes to pass buffers of any rank through one signature. */
AIR_API air_status_t air_type_memref_unranked(air_program_t* program, air_elem_t elem,
                                              uint32_t memory_space, air_type_t* out_type);

/* A description of a type, filled by air_type_describe. Pointers stay valid as
 * long as the program does. */
typedef struct air_type_details_t {
  air_typeclass_t typeclass;
  air_elem_t elem;       /* SCALAR: the type; MEMREF: the element type */
  uint32_t rank;         /* MEMREF */
  const int64_t* shape;  /* MEMREF: rank extents, AIR_SHAPE_DYNAMIC for `?` */
  uint32_t memory_space; /* MEMREF */
  const char* layout;    /* MEMREF: NULL for the identity layout */
  uint32_t flags;        /* TOKEN: AIR_TOKEN_OLD_SPELLING when so spelled;
                            MEMREF/TENSOR: AIR_TYPE_UNRANKED */
} air_type_details_t;

/* Describes `type`; INVALID_ARGUMENT when it is not a type of `program`. */
AIR_API air_status_t air_type_describe(const air_program_t* program, air_type_t type,
                                       air_type_details_t* out_info);

/* The type of `value`, or 0 when it is not a value of `program`. */
AIR_API air_type_t air_value_type(const air_program_t* program, air_value_t value);

#ifdef __cplusplus
}
#endif
#endif /* AIR_TYPES_H_ */

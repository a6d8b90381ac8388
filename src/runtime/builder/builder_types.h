/* builder_types.h - what builder_types.c gives the other builder files beyond the
 * public type handles: public affine descriptions turned into IR attributes. */
#ifndef AIR_RUNTIME_BUILDER_BUILDER_TYPES_H_
#define AIR_RUNTIME_BUILDER_BUILDER_TYPES_H_

#include "runtime/builder/builder_core.h"

/* Converts a public affine description into a MAP or SET attribute in the
 * program's arena. want: 0 map, 1 set, -1 either (a set when the codes start with
 * a constraint marker). */
air_status_t air_b_affine(air_builder_t* b, const char* fn, const air_affine_desc_t* d,
                          int want, air_attr_t* out);

#endif /* AIR_RUNTIME_BUILDER_BUILDER_TYPES_H_ */

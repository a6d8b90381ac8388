/* verify_passes.h - the verifier's passes, in the order air_verify (verify.c)
 * runs them; each lives in its own file and reads only verify_util.h. */
#ifndef AIR_RUNTIME_VERIFY_VERIFY_PASSES_H_
#define AIR_RUNTIME_VERIFY_VERIFY_PASSES_H_

#include "runtime/verify/verify_util.h"

/* verify_index.c: the op index, value owners and the symbol table (v->vals and
 * v->uses allocated, n_values entries); false when memory ran out. */
bool air_v_index(air_vctx_t* v);
void air_v_check_ops(air_vctx_t* v);      /* verify_ops.c: per-op rules */
void air_v_check_scopes(air_vctx_t* v);   /* verify_scope.c: dominance, isolation, tokens */
void air_v_check_balance(air_vctx_t* v);  /* verify_balance.c */
void air_v_check_deadlock(air_vctx_t* v); /* verify_deadlock.c */

#endif /* AIR_RUNTIME_VERIFY_VERIFY_PASSES_H_ */

/* lists.c - an op's offset/size/stride lists evaluated in an environment and
 * turned into access patterns (the rule is in pattern.h). */
#include "hal/cpu/interp/lists.h"

air_status_t ix_lists_eval(ix_run_t* r, ix_env_t* e, const air_op_t* op,
                           const air_ixlist_t* lists, int64_t vals[3][IX_MAX_PAT],
                           ix_lists_t* out) {
  for (int l = 0; l < 3; ++l) {
    if (lists[l].n > IX_MAX_PAT)
      return ix_err(r, op, AIR_STATUS_UNIMPLEMENTED,
                    "%s: more than %d offsets/sizes/strides are not supported", ix_opname(op),
                    IX_MAX_PAT);
    for (uint32_t i = 0; i < lists[l].n; ++i) {
      air_status_t st = ix_get_ix(r, e, op, &lists[l].items[i], &vals[l][i]);
      if (st) return st;
    }
  }
  if (lists[1].n != lists[2].n)
    return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                  "%s: %u sizes but %u strides", ix_opname(op), lists[1].n, lists[2].n);
  *out = (ix_lists_t){lists[0].n, lists[1].n, vals[0], vals[1], vals[2]};
  return NULL;
}

air_status_t ix_pat_from(ix_run_t* r, const air_op_t* op, const air_memref_t* v,
                         const ix_lists_t* l, ix_pat_t* out) {
  uint32_t es = air_elem_size((air_elem_kind_t)v->elem);
  const char* why = ix_pat_make(v, es, l->n_off, l->off, l->n, l->size, l->stride, out);
  if (why) return ix_err(r, op, AIR_STATUS_OUT_OF_RANGE, "%s: %s", ix_opname(op), why);
  return NULL;
}

air_status_t ix_pat_of(ix_run_t* r, ix_env_t* e, const air_op_t* op, const air_memref_t* v,
                       const air_ixlist_t* lists, ix_pat_t* out) {
  int64_t vals[3][IX_MAX_PAT];
  ix_lists_t l;
  air_status_t st = ix_lists_eval(r, e, op, lists, vals, &l);
  return st ? st : ix_pat_from(r, op, v, &l, out);
}


air_status_t ix_pads(ix_run_t* r, const air_op_t* op, ix_pat_t* p, int64_t pb[IX_MAX_PAT],
                     int64_t pa[IX_MAX_PAT], bool* any) {
  static const char* const names[2] = {"pad_before", "pad_after"};
  int64_t v[2][IX_MAX_PAT];
  uint32_t m[2] = {0, 0};
  *any = false;
  for (int i = 0; i < 2; ++i) {
    const air_attr_t* a = air_ir_attr_get(op, names[i]);
    if (!a) continue;
    *any = true;
    if (!air_ir_attr_ints(r->p, a, IX_MAX_PAT, v[i], &m[i]))
      return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT,
                    "%s: %s is not a list of at most %d integers", ix_opname(op), names[i],
                    IX_MAX_PAT);
    for (uint32_t j = 0; j < m[i]; ++j)
      if (v[i][j] < 0)
        return ix_err(r, op, AIR_STATUS_INVALID_ARGUMENT, "%s: %s entry %u is %lld",
                      ix_opname(op), names[i], j, (long long)v[i][j]);
  }
  uint32_t want = m[0] > m[1] ? m[0] : m[1];
  if (want > p->n) { /* unit dimensions in front */
    uint32_t k = want - p->n;
    memmove(p->size + k, p->size, p->n * sizeof(int64_t));
    memmove(p->stride + k, p->stride, p->n * sizeof(int64_t));
    for (uint32_t j = 0; j < k; ++j) {
      p->size[j] = 1;
      p->stride[j] = 0;
    }
    p->n = want;
  }
  int64_t* outs[2] = {pb, pa};
  for (int i = 0; i < 2; ++i) {
    memset(outs[i], 0, IX_MAX_PAT * sizeof(int64_t));
    for (uint32_t j = 0; j < m[i]; ++j) outs[i][p->n - m[i] + j] = v[i][j];
  }
  return NULL;
}

/* overwrite.c - see overwrite.h. */
#include "hal/cpu/interp/overwrite.h"

#include <string.h>

/* Whether `op` names value `v` anywhere: operands, index lists, tokens, or any
 * op nested in its regions. */
static bool names(const air_op_t* op, air_vid_t v) {
  for (uint32_t i = 0; i < op->n_operands; ++i)
    if (op->operands[i] == v) return true;
  for (uint32_t l = 0; l < op->n_lists; ++l)
    for (uint32_t i = 0; i < op->lists[l].n; ++i)
      if (op->lists[l].items[i].value == v) return true;
  for (uint32_t k = 0; k < 3; ++k)
    for (uint32_t i = 0; i < op->toks[k].n; ++i)
      if (op->toks[k].items[i] == v) return true;
  for (uint32_t r = 0; r < op->n_regions; ++r) {
    const air_block_t* b = op->regions[r];
    if (!b) continue;
    for (const air_op_t* o = b->first; o; o = o->next)
      if (names(o, v)) return true;
  }
  return false;
}

static bool padded(const air_op_t* op) {
  for (uint32_t i = 0; i < op->n_attrs; ++i)
    if (op->attrs[i].name &&
        (!strcmp(op->attrs[i].name, "pad_before") || !strcmp(op->attrs[i].name, "pad_after")))
      return true;
  return false;
}

/* A synchronous DMA that writes all of `v` and reads nothing of it. */
static bool writes_whole(const air_op_t* op, air_vid_t v) {
  if (op->kind != AIR_OP_DMA || (op->flags & (AIR_OPF_ASYNC | AIR_OPF_SRC_RANK | AIR_OPF_DST_RANK)))
    return false;
  if (op->n_operands != 2 || op->operands[0] != v || op->operands[1] == v || op->n_lists < 6)
    return false;
  if (op->lists[0].n || op->lists[1].n || op->lists[2].n || op->n_results) return false;
  for (uint32_t l = 3; l < 6; ++l)
    for (uint32_t i = 0; i < op->lists[l].n; ++i)
      if (op->lists[l].items[i].value == v) return false;
  for (uint32_t k = 0; k < 3; ++k)
    if (op->toks[k].n) return false;
  return !padded(op);
}

enum { NOTHING, WRITTEN, READ };

/* The first op from `o` on that names `v`, by the rule in overwrite.h. */
static int scan(const air_op_t* o, air_vid_t v) {
  for (; o; o = o->next) {
    if (!names(o, v)) continue;
    if (writes_whole(o, v)) return WRITTEN;
    if (o->kind == AIR_OP_DEALLOC && o->n_operands == 1 && o->operands[0] == v) return WRITTEN;
    bool loop = o->kind == AIR_OP_FOR || o->kind == AIR_OP_AFFINE_FOR;
    if (!loop || o->n_regions != 1 || !o->regions[0]) return READ;
    for (uint32_t i = 0; i < o->n_operands; ++i)
      if (o->operands[i] == v) return READ; /* a bound or an iter_arg */
    for (uint32_t l = 0; l < o->n_lists; ++l)
      for (uint32_t i = 0; i < o->lists[l].n; ++i)
        if (o->lists[l].items[i].value == v) return READ;
    if (scan(o->regions[0]->first, v) == READ) return READ;
    /* The body may run no iteration: what follows the loop decides. */
  }
  return NOTHING;
}

bool ix_alloc_overwritten(const air_op_t* alloc) {
  if (alloc->kind != AIR_OP_ALLOC || alloc->n_results != 1 || !alloc->parent) return false;
  return scan(alloc->next, alloc->results[0]) == WRITTEN;
}

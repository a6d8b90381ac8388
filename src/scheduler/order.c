/* order.c - block order and loop facts (see order.h). */
#include "scheduler/order.h"

static bool shares_token(const air_vlist_t* a, const air_vlist_t* b) {
  for (uint32_t i = 0; i < a->n; ++i)
    for (uint32_t k = 0; k < b->n; ++k)
      if (a->items[i] == b->items[k]) return true;
  return false;
}

bool air_order_is_blocking(const air_program_t* p, const air_op_t* op) {
  for (uint32_t i = 0; i < op->n_results; ++i)
    if (air_ir_type_is_token(p, air_ir_value_type(p, op->results[i]))) return false;
  return true;
}

static void reach_add(air_order_t* o, uint32_t i, uint32_t j) {
  uint64_t* ri = &o->reach[(size_t)i * o->words];
  const uint64_t* rj = &o->reach[(size_t)j * o->words];
  for (uint32_t w = 0; w < o->words; ++w) ri[w] |= rj[w];
  ri[j / 64] |= 1ull << (j % 64);
}

static void depend(air_order_t* o, const air_program_t* p, uint32_t i, air_vid_t v) {
  const air_op_t* d = air_ir_value(p, v)->def;
  for (uint32_t j = 0; d && j < i; ++j)
    if (o->ops[j] == d) {
      reach_add(o, i, j);
      return;
    }
}

void air_order_fill(air_order_t* o, const air_program_t* p) {
  uint32_t last_block = UINT32_MAX; /* latest blocking op: all later ops follow it */
  for (uint32_t i = 0; i < o->n; ++i) {
    const air_op_t* op = o->ops[i];
    if (last_block != UINT32_MAX) reach_add(o, i, last_block);
    for (uint32_t k = 0; k < op->toks[AIR_TOK_DEP].n; ++k)
      depend(o, p, i, op->toks[AIR_TOK_DEP].items[k]);
    for (uint32_t k = 0; k < op->n_operands; ++k)
      if (air_ir_type_is_token(p, air_ir_value_type(p, op->operands[k])))
        depend(o, p, i, op->operands[k]);
    if (op->toks[AIR_TOK_AFF].n && (op->kind == AIR_OP_HERD || op->kind == AIR_OP_SEGMENT))
      for (uint32_t j = 0; j < i; ++j)
        if (shares_token(&o->ops[j]->toks[AIR_TOK_AFF], &op->toks[AIR_TOK_AFF]))
          reach_add(o, i, j);
    if (air_order_is_blocking(p, op)) last_block = i;
  }
}

uint64_t air_order_loop_depth(const air_program_t* p, const air_op_t* loop) {
  const air_block_t* body = loop->n_regions ? loop->regions[0] : NULL;
  uint64_t depth = 0;
  for (uint32_t i = 1; body && i < body->n_args; ++i)
    depth += air_ir_type_is_token(p, air_ir_value_type(p, body->args[i]));
  return depth ? depth : 1;
}

bool air_order_const_int(const air_program_t* p, air_vid_t v, int64_t* out) {
  const air_op_t* d = air_ir_value(p, v)->def;
  if (!d || d->kind != AIR_OP_CONSTANT || d->value.kind != AIR_ATTR_INT) return false;
  *out = d->value.i;
  return true;
}

bool air_order_parallel_trips(const air_program_t* p, const air_op_t* par, uint64_t* out) {
  uint32_t n = par->iaux[0];
  uint64_t trips = 1;
  for (uint32_t i = 0; i < n && 3 * n <= par->n_operands; ++i) {
    int64_t lb, ub, st;
    if (!air_order_const_int(p, par->operands[i], &lb) ||
        !air_order_const_int(p, par->operands[n + i], &ub) ||
        !air_order_const_int(p, par->operands[2 * n + i], &st) || st <= 0)
      return false;
    uint64_t t = ub > lb ? (uint64_t)((ub - lb + st - 1) / st) : 0;
    trips = t && trips > UINT64_MAX / t ? UINT64_MAX : trips * t;
  }
  *out = trips;
  return true;
}

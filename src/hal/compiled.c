/* compiled.c - what the core needs to run compiled units without a code
 * generator: op numbering and input lists (compiled.h). */
#include "hal/compiled.h"

static const air_op_t* op_at(const air_op_t* op, uint32_t* left) {
  if (!*left) return op;
  --*left;
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (const air_op_t* o = op->regions[r] ? op->regions[r]->first : NULL; o; o = o->next) {
      const air_op_t* hit = op_at(o, left);
      if (hit) return hit;
    }
  return NULL;
}

const air_op_t* air_cg_op_at(const air_op_t* unit, uint32_t index) {
  return unit ? op_at(unit, &index) : NULL;
}

/* True when `v` is defined by an op under `unit` or is an argument of a block
 * under it. */
static bool defined_under(const air_program_t* p, const air_op_t* unit, air_vid_t v) {
  const air_value_info_t* vi = air_ir_value(p, v);
  const air_op_t* o = vi->def;
  if (!o && vi->block) o = vi->block->parent;
  /* An argument of one of unit's blocks; a herd body's are the unit's inputs. */
  if (o == unit && !vi->def) return unit->kind != AIR_OP_HERD;
  if (o == unit) return false;            /* unit's own results are outputs */
  for (; o; o = air_ir_parent_op(o))
    if (o == unit) return true;
  return false;
}

typedef struct io_t {
  const air_program_t* p;
  const air_op_t* unit;
  air_vid_t* out;
  uint32_t cap, n;
} io_t;

static void use(io_t* io, air_vid_t v) {
  if (!v || defined_under(io->p, io->unit, v)) return;
  if (io->n == UINT32_MAX) return;
  for (uint32_t i = 0; i < io->n; ++i)
    if (io->out[i] == v) return;
  if (io->n == io->cap) {
    io->n = UINT32_MAX;
    return;
  }
  io->out[io->n++] = v;
}

static void walk(io_t* io, const air_op_t* op) {
  if (op == io->unit && op->kind == AIR_OP_HERD) { /* its body only */
    for (const air_op_t* o = op->n_regions && op->regions[0] ? op->regions[0]->first : NULL; o;
         o = o->next)
      walk(io, o);
    return;
  }
  for (uint32_t i = 0; i < op->n_operands; ++i) use(io, op->operands[i]);
  for (uint32_t l = 0; l < op->n_lists; ++l)
    for (uint32_t i = 0; i < op->lists[l].n; ++i) use(io, op->lists[l].items[i].value);
  for (uint32_t t = 0; t < 3; ++t)
    for (uint32_t i = 0; i < op->toks[t].n; ++i) use(io, op->toks[t].items[i]);
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (const air_op_t* o = op->regions[r] ? op->regions[r]->first : NULL; o; o = o->next)
      walk(io, o);
}

uint32_t air_cg_unit_inputs(const air_program_t* p, const air_op_t* op, air_vid_t* out,
                            uint32_t cap) {
  io_t io = {p, op, out, cap, 0};
  walk(&io, op);
  return io.n;
}

bool air_cg_unit_air_ops(const air_op_t* op) {
  switch (op->kind) {
    case AIR_OP_DMA: case AIR_OP_ALLOC: case AIR_OP_DEALLOC: case AIR_OP_EXECUTE:
      return true;
    default: break;
  }
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (const air_op_t* o = op->regions[r] ? op->regions[r]->first : NULL; o; o = o->next)
      if (air_cg_unit_air_ops(o)) return true;
  return false;
}

static void list_ops(const air_op_t* op, const air_op_t** out, uint32_t* n) {
  if (out) out[*n] = op;
  ++*n;
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (const air_op_t* o = op->regions[r] ? op->regions[r]->first : NULL; o; o = o->next)
      list_ops(o, out, n);
}

uint32_t air_cg_unit_ops(const air_op_t* op, const air_op_t** out) {
  uint32_t n = 0;
  list_ops(op, out, &n);
  return n;
}

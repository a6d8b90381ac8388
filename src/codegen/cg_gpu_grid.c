/* cg_gpu_grid.c - how a launch's segment instances become workgroups
 * (cg_gpu_kernel.h; docs/gpu.md, "The mapping").
 *
 * The segments of a launch form one chain, outermost first (launch > segment >
 * segment > ... > herds), each with a static iteration space. The innermost
 * segment's instance is one workgroup: its L2 is the workgroup's LDS and its
 * herd the workgroup's work-items. An outer segment's instance is the set of
 * workgroups of the segments inside it, so it can hold nothing that would have
 * to run once for all of them (work, L2, herds, channels): those are refused at
 * the op. The grid is launch instances x segment instances.
 *
 * backend-granularity = XCD (the spec's MI3xx mapping) pins each instance of that
 * segment to one XCD. MI300X's command processor hands workgroups to its XCDs
 * round-robin in workgroup-id order (in SPX mode workgroup w runs on XCD w mod 8),
 * so the XCD instance is the workgroup id modulo the target's XCD count and every
 * other index comes from the quotient; an XCD segment with fewer instances than
 * XCDs pads the grid to that period, and the padding workgroups end at once.
 *
 * Limits, from the spec's co-residency rule (every segment instance of a launch
 * instance is live at once; an innermost instance holds a CU): an XCD segment has
 * at most the target's XCDs instances, one XCD holds at most its CUs' worth of
 * workgroups at once, and without an XCD segment all segment instances fit the
 * device's CUs. Going past them is an error at the segment, not oversubscription
 * (docs/design.md, "GPU segment instances"). */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_gpu_kernel.h"
#include "runtime/base/status_util.h"

#define ERR(pl, code, op, ...) AIR_IR_ERROR((pl)->p, (code), (op)->line, (op)->col, __VA_ARGS__)

bool cg_gpu_const_of(const air_program_t* p, air_vid_t v, int64_t* out) {
  const air_value_info_t* info = air_ir_value(p, v);
  if (info->def && info->def->kind == AIR_OP_CONSTANT) {
    *out = info->def->value.i;
    return true;
  }
  if (!info->def && info->block && info->block->parent &&
      air_opkind_class(info->block->parent->kind) == AIR_OPC_HIER) {
    const air_op_t* h = info->block->parent;
    uint32_t n = h->iaux[0], k = info->index;
    if (k >= n && k < 2 * n) return cg_gpu_const_of(p, h->operands[k - n], out);
    if (k >= 2 * n) return cg_gpu_const_of(p, h->operands[n + (k - 2 * n)], out);
  }
  return false;
}

static const char* sym_of(const air_op_t* op) { return op->sym ? op->sym : "(unnamed)"; }

air_status_t cg_gpu_grid_add(cg_gpu_plan_t* pl, const air_op_t* seg, uint32_t depth) {
  if (depth < pl->n_segs)
    return ERR(pl, AIR_STATUS_UNIMPLEMENTED, seg,
               "a second segment in the %s of line %u: a GPU kernel holds one chain of nested "
               "segments (sibling segments would need workgroups of their own; not supported yet)",
               depth ? "segment" : "launch", depth ? pl->segs[depth - 1].op->line : pl->launch->line);
  if (pl->n_segs >= CG_GPU_MAX_SEGS)
    return ERR(pl, AIR_STATUS_UNIMPLEMENTED, seg, "segments nested more than %u deep in a GPU kernel",
               CG_GPU_MAX_SEGS);
  if (seg->iaux[0] > 4)
    return ERR(pl, AIR_STATUS_UNIMPLEMENTED, seg,
               "a segment iteration space of more than 4 dimensions in a GPU kernel");
  cg_gpu_seg_t* s = &pl->segs[pl->n_segs];
  memset(s, 0, sizeof *s);
  s->op = seg;
  s->n_dims = seg->iaux[0];
  s->instances = 1;
  for (uint32_t d = 0; d < s->n_dims; ++d) {
    int64_t n;
    if (!cg_gpu_const_of(pl->p, seg->operands[d], &n) || n < 1 || n > 65536)
      return ERR(pl, AIR_STATUS_UNIMPLEMENTED, seg,
                 "a GPU segment's iteration space must be constants in 1..65536 (its instances "
                 "are laid out as workgroups when the kernel is built)");
    s->size[d] = (uint32_t)n;
    if ((uint64_t)s->instances * (uint64_t)n > 65536)
      return ERR(pl, AIR_STATUS_RESOURCE_EXHAUSTED, seg,
                 "segment @%s has more than 65536 instances", sym_of(seg));
    s->instances *= (uint32_t)n;
  }
  const air_attr_t* g = air_ir_attr_get(seg, "backend-granularity");
  if (g) g = air_ir_attr_resolve(pl->p, g);
  if (g) {
    if (g->kind != AIR_ATTR_STRING || g->n != 3 || memcmp(g->s, "XCD", 3))
      return ERR(pl, AIR_STATUS_INVALID_ARGUMENT, seg,
                 "backend-granularity = %.*s: the GPU backend knows XCD only (spec: one segment "
                 "instance per XCD of an MI3xx GPU)",
                 g->kind == AIR_ATTR_STRING ? (int)g->n : 1, g->kind == AIR_ATTR_STRING ? g->s : "?");
    if (pl->xcd_seg >= 0)
      return ERR(pl, AIR_STATUS_INVALID_ARGUMENT, seg,
                 "an XCD segment inside the XCD segment @%s (line %u): one XCD cannot hold XCDs",
                 sym_of(pl->segs[pl->xcd_seg].op), pl->segs[pl->xcd_seg].op->line);
    s->xcd = true;
    pl->xcd_seg = (int32_t)pl->n_segs;
  }
  pl->n_segs++;
  pl->segment = seg;
  return NULL;
}

static void level_name(const cg_gpu_plan_t* pl, uint32_t d, char* out, size_t cap) {
  if (!d) snprintf(out, cap, "the launch");
  else snprintf(out, cap, "segment @%s", sym_of(pl->segs[d - 1].op));
}

/* Segment instances against the target's XCDs and CUs (see the header). */
static air_status_t check_limits(cg_gpu_plan_t* pl) {
  const air_target_t* t = pl->t;
  uint32_t xcds = t->cols ? t->cols : 1, cus = t->rows ? t->rows : 1;
  pl->xcds = xcds;
  if (pl->xcd_seg >= 0) {
    const cg_gpu_seg_t* x = &pl->segs[pl->xcd_seg];
    if (x->instances > xcds)
      return ERR(pl, AIR_STATUS_RESOURCE_EXHAUSTED, x->op,
                 "segment @%s (backend-granularity = XCD) has %u instances, but %s has %u XCD%s "
                 "(one instance per XCD)",
                 sym_of(x->op), x->instances, t->name, xcds, xcds == 1 ? "" : "s");
    uint64_t per = 1; /* workgroups one XCD holds at once */
    for (uint32_t i = 0; i < pl->n_segs; ++i) {
      if ((int32_t)i == pl->xcd_seg) continue;
      per *= pl->segs[i].instances;
      if (per > cus)
        return ERR(pl, AIR_STATUS_RESOURCE_EXHAUSTED, pl->segs[i].op,
                   "segment @%s: %llu segment instances would share each XCD at once (one "
                   "workgroup per CU), but an XCD of %s has %u CUs",
                   sym_of(pl->segs[i].op), (unsigned long long)per, t->name, cus);
    }
    pl->wg_per_launch = (uint32_t)per * xcds;
    return NULL;
  }
  uint64_t all = 1;
  for (uint32_t i = 0; i < pl->n_segs; ++i) {
    all *= pl->segs[i].instances;
    if (all > (uint64_t)xcds * cus)
      return ERR(pl, AIR_STATUS_RESOURCE_EXHAUSTED, pl->segs[i].op,
                 "segment @%s: %llu segment instances must run at once (one workgroup per CU), "
                 "but %s has %u CUs",
                 sym_of(pl->segs[i].op), (unsigned long long)all, t->name, xcds * cus);
  }
  pl->wg_per_launch = (uint32_t)all;
  return NULL;
}

air_status_t cg_gpu_grid_finish(cg_gpu_plan_t* pl, const cg_gpu_depth_use_t* use,
                                const air_op_t* chan) {
  uint32_t n = pl->n_segs;
  AIR_RETURN_IF_ERROR(check_limits(pl));
  /* span[d]: the workgroups one instance of depth d covers (bounded above). */
  uint64_t span[CG_GPU_MAX_SEGS + 1];
  span[n] = 1;
  for (uint32_t d = n; d-- > 0;) span[d] = span[d + 1] * pl->segs[d].instances;
  pl->seg_instances = (uint32_t)span[0];
  const char* inner = sym_of(pl->segs[n - 1].op);
  char lv[96];
  for (uint32_t d = 0; d < n; ++d) {
    level_name(pl, d, lv, sizeof lv);
    if (use[d].herd)
      return ERR(pl, AIR_STATUS_UNIMPLEMENTED, use[d].herd,
                 "a herd in %s, which holds segment @%s (line %u): on the GPU a herd runs in the "
                 "workgroup of the innermost segment; move it there",
                 lv, sym_of(pl->segs[d].op), pl->segs[d].op->line);
    if (span[d] == 1) continue;
    if (use[d].l2)
      return ERR(pl, AIR_STATUS_UNIMPLEMENTED, use[d].l2,
                 "an L2 buffer of %s, whose instance spans %llu workgroups (the instances of the "
                 "segments inside it): on the GPU L2 is one workgroup's LDS; allocate it in the "
                 "innermost segment (@%s)",
                 lv, (unsigned long long)span[d], inner);
    if (use[d].effect)
      return ERR(pl, AIR_STATUS_UNIMPLEMENTED, use[d].effect,
                 "%s in %s would run once per instance, but on the GPU that instance spans %llu "
                 "workgroups (the instances of the segments inside it); move it into the "
                 "innermost segment (@%s) or a herd",
                 air_opkind_name(use[d].effect->kind), lv, (unsigned long long)span[d], inner);
  }
  if (chan && span[0] > 1)
    return ERR(pl, AIR_STATUS_UNIMPLEMENTED, chan,
               "channel @%s in a launch whose segments have %llu instances: each instance runs "
               "in a workgroup of its own and on the GPU a channel lives in one workgroup's LDS, "
               "so it cannot join segment instances (not supported yet)",
               chan->sym ? chan->sym : "?", (unsigned long long)span[0]);
  return NULL;
}

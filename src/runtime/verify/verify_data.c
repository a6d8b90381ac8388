/* verify_data.c - data movement and memory: channel declarations
 * ([broadcast-shape], [channel-type]), put/get/dma operands and lists
 * ([dma-lists], [undeclared-channel]) and memory spaces
 * ([memory-space]). Rule ids are documented in verify.c. */
#include <stdio.h>
#include <string.h>

#include "runtime/verify/verify_data.h"
#include "runtime/verify/verify_util.h"

#define ERR(id, rule, ...) air_v_error(v, v->ops[id].op, rule, __VA_ARGS__)

/*---------------------------------------------------------------------------*/
/* Channel declarations                                                      */
/*---------------------------------------------------------------------------*/

static const char* const k_chtypes[] = {"npu_dma_stream", "npu_dma_packet", "npu_cascade",
                                        "npu_mmio", "gpu_symmetric_heap"};

/* Reads an integer array attribute (ARRAY of INT, or DENSE); false otherwise. */
static bool attr_ints(const air_vctx_t* v, const air_attr_t* a, uint32_t max, int64_t* out,
                      uint32_t* n) {
  return air_ir_attr_ints(v->p, a, max, out, n);
}

static void check_channel_decl(air_vctx_t* v, uint32_t id, air_vchan_t* c) {
  const air_op_t* op = v->ops[id].op;
  const char* name = op->sym;
  c->op = id;
  c->depth = 1;
  if (op->n_lists < 1 || !op->lists) {
    ERR(id, "structure", "air.channel @%s has no dimension list", name);
    c->bad = true;
    return;
  }
  const air_ixlist_t* d = &op->lists[0];
  c->rank = d->n;
  c->dims = air_v_calloc(v, d->n, sizeof(int64_t));
  c->bdims = air_v_calloc(v, d->n, sizeof(int64_t));
  if (!c->dims || !c->bdims || (d->n && !d->items)) {
    c->bad = true;
    return;
  }
  for (uint32_t k = 0; k < d->n; ++k) {
    if (d->items[k].value) {
      ERR(id, "structure", "dimension #%u of air.channel @%s must be an integer literal", k, name);
      c->bad = true;
    } else if (d->items[k].cst <= 0) {
      ERR(id, "broadcast-shape",
          "dimension #%u of air.channel @%s is %lld; channel dimensions must be >= 1", k, name,
          (long long)d->items[k].cst);
      c->bad = true;
    }
    c->dims[k] = c->bdims[k] = d->items[k].cst;
  }
  const air_attr_t* bs = air_ir_attr_get(op, "broadcast_shape");
  if (bs) {
    int64_t shape[64];
    uint32_t n = 0;
    if (!attr_ints(v, bs, 64, shape, &n)) {
      ERR(id, "broadcast-shape", "broadcast_shape of air.channel @%s must be a list of integers",
          name);
      c->bad = true;
    } else if (n != c->rank) {
      ERR(id, "broadcast-shape",
          "broadcast_shape of air.channel @%s has %u dimensions but the channel has %u; give "
          "one size per channel dimension",
          name, n, c->rank);
      c->bad = true;
    } else {
      for (uint32_t k = 0; k < n; ++k) {
        if (shape[k] <= 0) {
          ERR(id, "broadcast-shape",
              "broadcast_shape dimension #%u of air.channel @%s is %lld; it must be >= 1", k, name,
              (long long)shape[k]);
          c->bad = true;
        } else if (c->dims[k] > 0 && c->dims[k] != shape[k] && c->dims[k] != 1) {
          ERR(id, "broadcast-shape",
              "air.channel @%s cannot broadcast dimension #%u from %lld to %lld: under NumPy "
              "broadcasting a dimension must equal the broadcast size or be 1",
              name, k, (long long)c->dims[k], (long long)shape[k]);
          c->bad = true;
        } else {
          c->bdims[k] = shape[k];
          if (shape[k] != c->dims[k]) c->broadcast = true;
        }
      }
    }
  }
  const air_attr_t* dp = air_ir_attr_get(op, "depth");
  if (dp) {
    dp = air_ir_attr_resolve(v->p, dp);
    if (!dp || dp->kind != AIR_ATTR_INT) {
      ERR(id, "channel-type", "depth of air.channel @%s must be an integer", name);
    } else if (dp->i < 1) {
      ERR(id, "channel-type", "depth of air.channel @%s is %lld; it must be >= 1 (1 = rendezvous)",
          name, (long long)dp->i);
    } else {
      c->depth = dp->i;
    }
  }
  c->type = AIR_VCH_STREAM;
  const air_attr_t* ty = air_ir_attr_get(op, "channel_type");
  if (ty) {
    ty = air_ir_attr_resolve(v->p, ty);
    c->type = AIR_VCH_UNKNOWN;
    if (ty && ty->kind == AIR_ATTR_STRING && ty->s) {
      for (int i = 0; i < 5; ++i)
        if (strlen(k_chtypes[i]) == ty->n && memcmp(k_chtypes[i], ty->s, ty->n) == 0)
          c->type = (air_vchtype_t)i;
    }
    if (c->type == AIR_VCH_UNKNOWN)
      ERR(id, "channel-type",
          "channel_type of air.channel @%s must be one of \"npu_dma_stream\", "
          "\"npu_dma_packet\", \"npu_cascade\", \"npu_mmio\", \"gpu_symmetric_heap\"",
          name);
  }
  /* mlir-air's refeed count (how often the channel's data is sent again), in
   * either spelling (each name written out, so docs/text-format.md's generator
   * sees the verifier read it). */
  const char* const k_refeed[2] = {"air.refeed_count", "refeed_count"};
  const air_attr_t* const k_rc[2] = {air_ir_attr_get(op, "air.refeed_count"),
                                     air_ir_attr_get(op, "refeed_count")};
  for (int i = 0; i < 2; ++i) {
    const air_attr_t* rc = k_rc[i];
    if (!rc) continue;
    rc = air_ir_attr_resolve(v->p, rc);
    if (!rc || rc->kind != AIR_ATTR_INT || rc->i < 1 || rc->i > INT32_MAX)
      ERR(id, "channel-type", "%s of air.channel @%s must be an integer in [1, 2147483647]%s",
          k_refeed[i], name, rc && rc->kind == AIR_ATTR_INT ? "" : ", not a list or other value");
  }
  /* Packet ids route packet-switched channels: one 5-bit id per stream. */
  const air_attr_t* pk = air_ir_attr_get(op, "packet_ids");
  if (pk) {
    int64_t ids[64];
    uint32_t n = 0;
    const air_attr_t* one = air_ir_attr_resolve(v->p, pk);
    bool ints = one && one->kind == AIR_ATTR_INT ? (ids[0] = one->i, n = 1, true)
                                                 : attr_ints(v, pk, 64, ids, &n);
    if (c->type != AIR_VCH_PACKET)
      ERR(id, "channel-type",
          "packet_ids on air.channel @%s, whose channel_type is \"%s\"; packet ids are only "
          "valid on an \"npu_dma_packet\" channel",
          name, c->type < AIR_VCH_UNKNOWN ? k_chtypes[c->type] : "unknown");
    if (!ints) {
      ERR(id, "channel-type", "packet_ids of air.channel @%s must be integers", name);
    } else {
      for (uint32_t i = 0; i < n; ++i) {
        if (ids[i] < 0 || ids[i] > 31)
          ERR(id, "channel-type", "packet id #%u of air.channel @%s is %lld; packet ids are in "
              "[0, 31]", i, name, (long long)ids[i]);
        for (uint32_t j = 0; j < i; ++j)
          if (ids[j] == ids[i]) {
            ERR(id, "channel-type", "packet id %lld appears twice in air.channel @%s; each "
                "packet stream needs its own id", (long long)ids[i], name);
            break;
          }
      }
    }
  }
  bool npu = v->target == AIR_VT_AIE;
  /* Only a written type is held against the target: the default is the spec's
   * NPU default, not a request for NPU hardware. */
  if (ty && v->target == AIR_VT_GPU && c->type <= AIR_VCH_MMIO)
    ERR(id, "channel-type",
        "air.channel @%s has NPU channel type \"%s\", which target %s does not provide; "
        "use data movement through L2/L3 memrefs instead",
        name, k_chtypes[c->type], air_v_target_name(v));
  if (npu && c->type == AIR_VCH_SYMHEAP)
    ERR(id, "channel-type",
        "air.channel @%s has GPU channel type \"gpu_symmetric_heap\", which target %s does not "
        "provide; use an npu_* channel type",
        name, air_v_target_name(v));
  uint64_t np = 1;
  for (uint32_t k = 0; k < c->rank && np; ++k)
    np = (c->bdims[k] > 0 && np <= (1u << 20) / (uint64_t)c->bdims[k]) ? np * (uint64_t)c->bdims[k]
                                                                       : 0;
  c->npoints = c->bad ? 0 : np;
}

/* A channel declared directly in a module (the top one or a nested one). */
static bool module_channel(const air_vctx_t* v, uint32_t j) {
  uint32_t par = v->ops[j].parent;
  return v->ops[j].op->kind == AIR_OP_CHANNEL && !v->ops[j].bad && v->ops[j].op->sym &&
         par != AIR_V_NONE && v->ops[par].op->kind == AIR_OP_MODULE;
}

void air_v_collect_channels(air_vctx_t* v) {
  uint32_t n = 0;
  for (uint32_t j = 0; j < v->n_ops; ++j) n += module_channel(v, j);
  v->chans = air_v_calloc(v, n, sizeof(air_vchan_t));
  if (!v->chans) return;
  for (uint32_t j = 0; j < v->n_ops; ++j) {
    if (!module_channel(v, j)) continue;
    /* A duplicate name was reported by build_symbols; uses resolve to the first. */
    v->ops[j].chan = v->n_chans;
    check_channel_decl(v, j, &v->chans[v->n_chans++]);
  }
}

/*---------------------------------------------------------------------------*/
/* Data-movement lists                                                       */
/*---------------------------------------------------------------------------*/

/* Checks one side's [offsets][sizes][strides]; returns the static element count
 * of the transfer, or -1 when it is not static. */
static int64_t check_lists(air_vctx_t* v, uint32_t id, const air_ixlist_t* l, air_vid_t mem,
                           const char* side) {
  const air_op_t* op = v->ops[id].op;
  const char* on = air_v_opname(op);
  static const char* const what[3] = {"offset", "size", "stride"};
  bool ok = true;
  for (int k = 0; k < 3; ++k) {
    if (l[k].n && !l[k].items) return -1;
    for (uint32_t i = 0; i < l[k].n; ++i) {
      const air_ix_t* ix = &l[k].items[i];
      if (ix->value) air_v_want_index(v, id, ix->value, "%s %s #%u", side, what[k], i);
      int64_t c;
      if (!air_v_ix_const(v, ix, &c)) continue;
      if ((k == 1 && c <= 0) || (k != 1 && c < 0)) {
        ERR(id, "dma-lists", "%s %s #%u of %s is %lld; %s", side, what[k], i, on, (long long)c,
            k == 1 ? "sizes must be >= 1" : "offsets and strides must be >= 0");
        ok = false;
      }
    }
  }
  if (l[1].n != l[2].n) {
    ERR(id, "dma-lists",
        "%s of %s has %u sizes but %u strides; give one stride per size (or leave all "
        "three lists empty for the whole memref)",
        side, on, l[1].n, l[2].n);
    ok = false;
  }
  if (l[0].n > l[1].n) {
    ERR(id, "dma-lists",
        "%s of %s has %u offsets but %u sizes; offsets may not be longer than sizes (missing "
        "leading offsets are 0)",
        side, on, l[0].n, l[1].n);
    ok = false;
  }
  if (!ok) return -1;
  int64_t count = 1;
  if (l[1].n == 0) {
    const air_type_info_t* t = air_v_type(v, mem);
    if (t->kind != AIR_TYPE_MEMREF || (t->rank && !t->shape)) return -1;
    for (uint32_t i = 0; i < t->rank; ++i)
      if (t->shape[i] == AIR_DIM_DYNAMIC || t->shape[i] < 0 ||
          __builtin_mul_overflow(count, t->shape[i], &count))
        return -1;
    return count;
  }
  for (uint32_t i = 0; i < l[1].n; ++i) {
    int64_t c;
    if (!air_v_ix_const(v, &l[1].items[i], &c) || __builtin_mul_overflow(count, c, &count))
      return -1;
  }
  return count;
}

/*---------------------------------------------------------------------------*/
/* Channel and DMA ops                                                       */
/*---------------------------------------------------------------------------*/

void air_v_check_chan_io(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  const char* on = air_v_opname(op);
  uint32_t n = op->iaux[0];
  bool dest = op->flags & AIR_OPF_HAS_DEST;
  if (dest && op->kind == AIR_OP_GET)
    ERR(id, "structure", "air.channel.get takes no dest(...) operand");
  if (n >= op->n_operands || op->n_operands != n + 1 + (dest ? 1 : 0) || op->n_lists < 3 ||
      !op->lists || !op->sym) {
    ERR(id, "structure",
        "%s must have %u index operands, one memref%s and offset/size/stride lists", on, n,
        dest ? " and one dest" : "");
    v->ops[id].bad = 1;
    return;
  }
  for (uint32_t k = 0; k < n; ++k) air_v_want_index(v, id, op->operands[k], "channel index #%u", k);
  air_vid_t mem = op->operands[n];
  air_v_want_memref(v, id, mem, "the data operand");
  check_lists(v, id, op->lists, mem, op->kind == AIR_OP_PUT ? "the source" : "the destination");
  air_v_check_async(v, id);

  uint32_t c = air_v_symbol(v, id, op->sym);
  if (c == AIR_V_NONE || v->ops[c].op->kind != AIR_OP_CHANNEL || v->ops[c].chan == AIR_V_NONE) {
    ERR(id, "undeclared-channel",
        "%s names @%s, which is not a declared channel; declare it at module level "
        "(air.channel @%s [...])",
        on, op->sym, op->sym);
    return;
  }
  uint32_t ci = v->ops[c].chan;
  v->ops[id].chan = ci;
  const air_vchan_t* ch = &v->chans[ci];
  if (!ch->dims) return;
  bool put = op->kind == AIR_OP_PUT;
  if (n != ch->rank && !(n == 0 && air_v_chan_may_omit(ch, put))) {
    ERR(id, "undeclared-channel",
        "air.channel @%s has %u dimensions but %s gives %u indices; give one index per "
        "dimension",
        op->sym, ch->rank, on, n);
  } else {
    const int64_t* lim = op->kind == AIR_OP_PUT ? ch->dims : ch->bdims;
    for (uint32_t k = 0; k < n; ++k) {
      int64_t x;
      if (air_v_chan_index_ignored(ch, put, k)) continue;
      if (air_v_const(v, op->operands[k], &x) && (x < 0 || x >= lim[k]))
        ERR(id, "undeclared-channel",
            "index #%u of %s is %lld, outside [0, %lld) of air.channel @%s%s", k, on, (long long)x,
            (long long)lim[k], op->sym,
            ch->broadcast && op->kind == AIR_OP_GET ? " (gets index the broadcast_shape)" : "");
    }
  }
  if (ch->type == AIR_VCH_MMIO && op->kind == AIR_OP_GET) {
    const air_type_info_t* t = air_v_type(v, mem);
    if (t->kind == AIR_TYPE_MEMREF && t->memspace != AIR_MEM_L1)
      ERR(id, "channel-type",
          "npu_mmio channel @%s delivers into a tile-local L1 buffer, but this get writes %s "
          "(space %d)",
          op->sym, air_v_space_name(t->memspace), (int)t->memspace);
  }
}

/* Per-dimension sizes of one side: its size list, or the memref's shape when the
 * lists are empty. False when not static or deeper than MAX_PAD_DIMS. */
enum { MAX_PAD_DIMS = 16 };
static bool side_sizes(const air_vctx_t* v, const air_ixlist_t* l, air_vid_t mem, int64_t* out,
                       uint32_t* n) {
  if (l[1].n) {
    if (l[1].n > MAX_PAD_DIMS) return false;
    for (uint32_t i = 0; i < l[1].n; ++i)
      if (!air_v_ix_const(v, &l[1].items[i], &out[i])) return false;
    *n = l[1].n;
    return true;
  }
  const air_type_info_t* t = air_v_type(v, mem);
  if (t->kind != AIR_TYPE_MEMREF || t->unranked || t->rank > MAX_PAD_DIMS) return false;
  for (uint32_t i = 0; i < t->rank; ++i) {
    if (t->shape[i] == AIR_DIM_DYNAMIC) return false;
    out[i] = t->shape[i];
  }
  *n = t->rank;
  return true;
}

/* One pad list (`array<i32: ...>` or `[...]`) as integers; false when it is
 * there but not integers. */
static bool pad_list(const air_vctx_t* v, const air_op_t* op, const char* name, int64_t* out,
                     uint32_t* n) {
  const air_attr_t* a = air_ir_attr_get(op, name);
  *n = 0;
  return !a || attr_ints(v, a, MAX_PAD_DIMS, out, n);
}

/* pad_before / pad_after add elements around the data of each dimension, so a
 * padded transfer lands more elements than it reads: the counts match when one
 * side's sizes, each widened by its padding (pads listed outermost first and
 * aligned with the innermost dimensions), multiply to the other side's count. The
 * spec gives no rule on counts, so padding that cannot be interpreted passes. */
static bool padding_matches(const air_vctx_t* v, const air_op_t* op, int64_t nd, int64_t ns) {
  int64_t pb[MAX_PAD_DIMS], pa[MAX_PAD_DIMS];
  uint32_t nb, na;
  if (!air_ir_attr_get(op, "pad_before") && !air_ir_attr_get(op, "pad_after")) return false;
  if (!pad_list(v, op, "pad_before", pb, &nb) || !pad_list(v, op, "pad_after", pa, &na))
    return true;
  for (int side = 0; side < 2; ++side) {
    int64_t sz[MAX_PAD_DIMS], count = 1;
    uint32_t n;
    if (!side_sizes(v, op->lists + 3 * side, op->operands[side], sz, &n)) return true;
    if (nb > n || na > n) return true;
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; ++i) {
      int64_t d = sz[i];
      if (i + nb >= n) d += pb[i + nb - n];
      if (i + na >= n) d += pa[i + na - n];
      ok = d >= 0 && !__builtin_mul_overflow(count, d, &count);
    }
    if (ok && count == (side == 0 ? ns : nd)) return true;
  }
  return false;
}

void air_v_check_dma(air_vctx_t* v, uint32_t id) {
  air_op_t* op = v->ops[id].op;
  uint32_t n_ranks = ((op->flags & AIR_OPF_SRC_RANK) ? 1u : 0u) +
                     ((op->flags & AIR_OPF_DST_RANK) ? 1u : 0u);
  if (op->n_operands != 2 + n_ranks || op->n_lists < 6 || !op->lists) {
    ERR(id, "structure",
        "air.dma_memcpy_nd must have a destination and a source memref, each "
        "with offset/size/stride lists");
    v->ops[id].bad = 1;
    return;
  }
  air_vid_t dst = op->operands[0], src = op->operands[1];
  air_v_want_memref(v, id, dst, "the destination");
  air_v_want_memref(v, id, src, "the source");
  int64_t nd = check_lists(v, id, op->lists, dst, "the destination");
  int64_t ns = check_lists(v, id, op->lists + 3, src, "the source");
  const air_type_info_t* td = air_v_type(v, dst);
  const air_type_info_t* ts = air_v_type(v, src);
  if (td->kind == AIR_TYPE_MEMREF && ts->kind == AIR_TYPE_MEMREF && td->elem != ts->elem)
    ERR(id, "dma-lists",
        "air.dma_memcpy_nd copies %s elements into %s elements; source and destination must "
        "have the same element type",
        air_elem_name(ts->elem), air_elem_name(td->elem));
  else if (nd >= 0 && ns >= 0 && nd != ns && !padding_matches(v, op, nd, ns))
    ERR(id, "dma-lists",
        "air.dma_memcpy_nd moves %lld elements out of the source but %lld into the "
        "destination; make both sides' sizes describe the same number of elements%s",
        (long long)ns, (long long)nd,
        air_ir_attr_get(op, "pad_before") || air_ir_attr_get(op, "pad_after")
            ? " (pad_before/pad_after counted on either side)"
            : "");
  air_v_check_async(v, id);
}

/*---------------------------------------------------------------------------*/
/* Memory spaces                                                             */
/*---------------------------------------------------------------------------*/

/* Memory spaces of every memref the op defines, reported once per type. */
static void check_space_of(air_vctx_t* v, uint32_t id, air_tid_t t, uint8_t* seen) {
  const air_type_info_t* ti = air_ir_type(v->p, t);
  if (ti->kind != AIR_TYPE_MEMREF || t >= v->p->n_types || seen[t]) return;
  if (ti->memspace == AIR_MEM_L1 || ti->memspace == AIR_MEM_L2 || ti->memspace == AIR_MEM_L3)
    return;
  char tb[96];
  seen[t] = 1;
  ERR(id, "memory-space", "%s has memory space %d; AIR has L3 (0), L2 (1) and L1 (2) only",
      air_v_tname(v, t, tb, sizeof tb), (int)ti->memspace);
}

void air_v_check_spaces(air_vctx_t* v, uint32_t id, uint8_t* seen) {
  const air_op_t* op = v->ops[id].op;
  for (uint32_t i = 0; i < op->n_results && op->results; ++i)
    check_space_of(v, id, air_v_vtype(v, op->results[i]), seen);
  for (uint32_t i = 0; i < op->n_types && op->types; ++i) check_space_of(v, id, op->types[i], seen);
  for (uint32_t r = 0; r < op->n_regions && op->regions; ++r) {
    const air_block_t* b = op->regions[r];
    for (uint32_t i = 0; b && b->args && i < b->n_args; ++i)
      check_space_of(v, id, air_v_vtype(v, b->args[i]), seen);
  }
}

void air_v_check_alloc_space(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  if (op->n_results != 1) return;
  const air_type_info_t* t = air_v_type(v, op->results[0]);
  if (t->kind != AIR_TYPE_MEMREF) return;
  uint32_t herd = air_v_enclosing(v, id, AIR_OP_HERD);
  uint32_t seg = air_v_enclosing(v, id, AIR_OP_SEGMENT);
  if (t->memspace == AIR_MEM_L1 && herd == AIR_V_NONE)
    ERR(id, "memory-space",
        "memref.alloc in L1 (space 2) must be inside an air.herd: L1 is per-PE tile memory; "
        "allocate it in the herd body");
  else if (t->memspace == AIR_MEM_L2 && (seg == AIR_V_NONE || herd != AIR_V_NONE))
    ERR(id, "memory-space",
        "memref.alloc in L2 (space 1) must be in an air.segment body outside its herds: L2 is "
        "the segment's shared memory");
}

/* An element load or store in a herd reads or writes the PE's own L1: data in
 * L2 or L3 reaches a PE only through data movement (spec 1: "Direct reads or
 * writes across levels are not supported; all cross-level data movement is
 * explicit"; 2.3). On every target: whole-buffer ops (linalg, DMA, channels) are
 * the data movement, and only their placement is target-specific. */
void air_v_check_herd_access(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  air_opcls_t cls = air_opkind_class(op->kind);
  if (cls != AIR_OPC_LOAD && cls != AIR_OPC_STORE) return;
  uint32_t herd = air_v_enclosing(v, id, AIR_OP_HERD);
  uint32_t m = cls == AIR_OPC_STORE ? 1 : 0;
  if (herd == AIR_V_NONE || m >= op->n_operands) return;
  const air_type_info_t* t = air_v_type(v, op->operands[m]);
  if (t->kind != AIR_TYPE_MEMREF || t->memspace == AIR_MEM_L1) return;
  char nb[64];
  ERR(id, "memory-space",
      "%s in the air.herd at %u:%u %s %s in %s (space %d); a PE reads and writes elements of "
      "its own L1 (space 2) only: copy the data in with air.dma_memcpy_nd or a channel first",
      air_v_opname(op), v->ops[herd].op->line, v->ops[herd].op->col,
      cls == AIR_OPC_LOAD ? "reads" : "writes", air_v_vname(v, op->operands[m], nb, sizeof nb),
      air_v_space_name(t->memspace), (int)t->memspace);
}

/* With target npu1/npu2 compute inside a herd touches L1 only (spec 2.3); element
 * loads and stores are checked on every target (air_v_check_herd_access). */
void air_v_check_npu_compute(air_vctx_t* v, uint32_t id) {
  const air_op_t* op = v->ops[id].op;
  air_opcls_t cls = air_opkind_class(op->kind);
  if (cls != AIR_OPC_LINALG && cls != AIR_OPC_COPY && cls != AIR_OPC_CALL) return;
  uint32_t herd = air_v_enclosing(v, id, AIR_OP_HERD);
  if (herd == AIR_V_NONE) return;
  for (uint32_t i = 0; i < op->n_operands; ++i) {
    const air_type_info_t* t = air_v_type(v, op->operands[i]);
    if (t->kind != AIR_TYPE_MEMREF || t->memspace == AIR_MEM_L1) continue;
    char nb[64];
    ERR(id, "memory-space",
        "%s in the air.herd at %u:%u uses %s in %s (space %d); on %s a PE computes on L1 (space "
        "2) only: bring the data in with air.dma_memcpy_nd or a channel first",
        air_v_opname(op), v->ops[herd].op->line, v->ops[herd].op->col,
        air_v_vname(v, op->operands[i], nb, sizeof nb), air_v_space_name(t->memspace),
        (int)t->memspace, air_v_target_name(v));
  }
}

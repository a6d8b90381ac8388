/* types.h - the executor's ground floor: what a value is, what the per-program
 * tables say about each value and block, and a herd's processing element. Every
 * other floor builds on these; nothing here does anything.
 *
 * The floors of the executor, bottom to top (docs/design.md, "CPU executor",
 * has the glossary and the extension points); a file includes only files below
 * it, and a lower floor reaches a higher one only through a hook (run.h):
 *   types.h        values, value and block info, PEs, the program tables
 *   codec          element loads/stores, rounding to f16/bf16/f32, int widths
 *   pattern        access patterns and the copy between two of them
 *   run            the run object, its hooks, errors and names
 *   sync           the run lock, wait lists, park/wake, failing, tokens
 *   env            environments: the value slots of one block execution
 *   strand         strands and their frames, spawn/exit, park on a token
 *   tables         per-program tables (slots, blocks, funcs, channels), preps
 *   plan           a compiled schedule bound to its program
 *   watchdog/trace the watchdog thread, trace events
 *   lists          an op's offset/size/stride lists evaluated to patterns
 *   scalar memref linalg channel dma parallel control call rank hier: one op family each
 *   waves          the schedule path: waves opened as their gates open
 *   stall          the deadlock report
 *   loop           the strand loop: dispatch, readiness, the op switch
 *   start          starting a run (pool or inline), its end, the public API */
#ifndef AIR_HAL_CPU_INTERP_TYPES_H_
#define AIR_HAL_CPU_INTERP_TYPES_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "air/kernel.h"
#include "runtime/base/ptrmap.h"
#include "runtime/ir/ir.h"

/* Value kinds. */
enum { IX_K_SCALAR = 0, IX_K_TOKEN = 1, IX_K_MEMREF = 2 };

typedef union ix_val_t {
  int64_t i;  /* integers, index, i1 (0/1) */
  double f;   /* floats, already rounded to their type */
  void* p;    /* ix_tok_t* or air_memref_t* (the env's own view storage) */
} ix_val_t;

/* Per program value. */
typedef struct ix_vinfo_t {
  int32_t slot;     /* in its block's environment; -1 when not in an executed block */
  int32_t view;     /* view storage index for memrefs, else -1 */
  uint32_t depth;   /* lexical depth of the defining block */
  uint8_t kind;     /* IX_K_* */
  uint8_t elem;     /* scalar / element type */
  bool is_int;      /* a scalar of an integer (or index) type: what ix_get_i reads */
  air_vid_t guard;  /* air.execute token that makes this result available, or 0 */
  bool overwritten; /* a memref.alloc result written whole before any read: not zeroed (overwrite.h) */
  uint32_t shape;   /* a memref.alloc result of static shape: 1 + its index in tables.shapes, else 0 */
} ix_vinfo_t;

/* What a memref.alloc of static shape gives, computed once per program
 * (tables.c): its view (data NULL) and its byte count. */
typedef struct ix_shape_t {
  air_memref_t view;
  size_t bytes;
} ix_shape_t;

/* Per block. Run-owned (or prep-owned), so teardown never needs the program. */
typedef struct ix_binfo_t {
  const air_block_t* block;
  uint32_t n_slots, n_views, depth;
  uint8_t pure;     /* cannot park: scf.parallel may run it in sequence, a run inline */
  uint8_t straight; /* (func bodies) no regions, calls, linalg or copies */
  /* (func bodies, not pure) cannot park once its launches run flat (flat.h). */
  uint8_t flat;
  /* (air.execute regions) parks only on its operands' air.execute results
   * (guards), which loop.c can wait for before the region starts (chain.h). */
  uint8_t calm;
  /* (scf.parallel bodies) parks only in chain ops, which a stall releases:
   * its instances may run in sequence in the reaching strand (tables.c
   * serial_block); `serial_init`: only once the init tokens have fired. */
  uint8_t serial, serial_init;
  /* (scf.reduce regions) only joins its two tokens (tables.c join_block). */
  uint8_t join;
  /* The token slots, which an env's end or reset drops (env.c): a list, not a
   * kind per slot, so a herd body's ~20 slots are not walked per instance. */
  uint32_t* toks;
  uint32_t n_toks;
  /* (herd bodies) what one PE took when the body last ran flat (flat.c), a
   * running average in ns (0: not yet): the one field runs write, a statistic. */
  _Atomic int64_t pe_ns;
  /* (herd bodies) flat.c want_help's probes: runs since the last helped one,
   * and how many it lets pass before the next probe (0: the minimum). */
  _Atomic uint32_t skips, probe_every;
} ix_binfo_t;

/* A processing element of a herd: what kernels and traces are told. */
typedef struct ix_pe_t {
  const air_op_t* herd;
  const char* link_with;
  uint32_t rank;
  int64_t tile[4], sizes[4];
  char track[96];
  /* Traced runs (t0 != 0): when the PE started, and the strands working for it;
   * while there are any they hold `env` (the herd body env this PE lives in),
   * and the last to leave records the PE's span. */
  int64_t t0;
  _Atomic uint32_t strands;
  struct ix_env_t* env;
} ix_pe_t;

/* A declared channel (tables.c builds them; channel.c moves data). */
typedef struct ix_chan_t ix_chan_t;

/* Per op (oprec.c): what the hot path needs of an op, worked out once per
 * program so running it is not a walk over its operand and index lists. */
typedef struct ix_oprec_t {
  /* The operands and index-list values that are air.execute results, in the
   * order loop.c checks them (operands, then lists; for a linalg.generic also
   * its region ops' operands): the only ones a guard can hold back. */
  const air_vid_t* guarded;
  uint32_t n_guarded;
  /* (air.execute) the same over every op of its region, nested regions in
   * program order: what a chained execute waits for before it starts. */
  const air_vid_t* rguarded;
  uint32_t n_rguarded;
  /* (channel put/get) the channel it names, NULL when none is declared. */
  ix_chan_t* chan;
  /* (channel put/get, lists present) op->lists[0..2] with every entry that is
   * an integer arith.constant folded to its literal: constant offsets, sizes
   * and strides are not looked up through the environments each time. */
  const air_ixlist_t* lists;
  /* (channel put/get) pad_before or pad_after written. */
  bool pads;
  /* (channel put/get) false when its constant sizes and strides show the side
   * is never one contiguous run, whatever the view (chan_pat skips the test). */
  bool may_flat;
} ix_oprec_t;

/* What every run of one program derives from it (tables.c), read-only while
 * runs use it: a run made with a prep borrows the prep's. */
typedef struct ix_tables_t {
  ix_vinfo_t* vinfo;
  uint32_t n_values;
  ix_binfo_t* binfos;
  uint32_t n_binfos;
  air_ptrmap_t blocks;     /* air_block_t* -> ix_binfo_t* */
  const air_op_t** funcs;  /* module funcs sorted by name */
  uint32_t n_funcs;
  ix_chan_t* chans;        /* sorted by name */
  uint32_t n_chans;
  /* Some op lists an affinity token: a token's identity then names a group, so
   * every async op's result must be a token of its own (no op of the program
   * runs in its issuer's strand with the shared fired token, chain.h). */
  bool affinity;
  air_ptrmap_t recs;       /* op -> its ix_oprec_t (oprec.c) */
  ix_oprec_t* oprecs;      /* every op's record */
  uint32_t n_oprecs;
  void* oprec_mem;         /* the records' vid and list storage, one block */
  ix_shape_t* shapes;      /* the static memref.alloc shapes (vinfo.shape) */
  uint32_t n_shapes;
} ix_tables_t;

#endif /* AIR_HAL_CPU_INTERP_TYPES_H_ */

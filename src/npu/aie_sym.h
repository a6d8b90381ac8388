/* aie_sym.h - what a runtime sequence's ops refer to in their mlir-aie device
 * module, and the state shared by the sequence lowering (aie_lower.c) and the
 * DMA-task lowering (aie_task.c): tiles (with controller ids), shim DMA
 * allocations (written, or inferred from objectfifos the way mlir-aie's
 * objectfifo lowering picks shim channels), buffers, locks, and the sequence's
 * SSA values (arguments, constants, globals, tasks).
 *
 * Helpers read the operands and attributes the lowering ops share; every error
 * is `FILE:LINE:COL: error: ...` at the offending token. */
#ifndef AIR_NPU_AIE_SYM_H_
#define AIR_NPU_AIE_SYM_H_

#include <stdbool.h>
#include <stdint.h>

#include "npu/aie_read.h"
#include "npu/npu.h"
#include "npu/txn.h"

typedef struct aie_tile_t {
  aie_span_t name;
  uint32_t col, row;
  int32_t ctrl_pkt_id; /* -1: no controller_id */
} aie_tile_t;

typedef struct aie_alloc_t {
  aie_span_t sym;
  uint32_t col, row, channel;
  air_npu_dir_t dir;
  int32_t pkt_type, pkt_id; /* -1: no packet attribute */
} aie_alloc_t;

typedef struct aie_buffer_t {
  aie_span_t name, sym; /* SSA result and sym_name (either may be empty) */
  uint32_t tile;        /* index into tiles */
  int64_t address;      /* bytes in the tile's memory; -1 when not assigned */
} aie_buffer_t;

typedef struct aie_lock_t {
  aie_span_t name, sym;
  uint32_t tile;
  int64_t id; /* -1 when not assigned */
} aie_lock_t;

typedef enum aie_val_kind_e {
  AIE_VAL_MEMREF_ARG, AIE_VAL_SCALAR_ARG, AIE_VAL_CONST, AIE_VAL_GLOBAL, AIE_VAL_TASK,
} aie_val_kind_t;

typedef struct aie_value_t {
  aie_span_t name;
  aie_val_kind_t kind;
  int64_t v;           /* CONST */
  uint32_t memref_idx; /* MEMREF_ARG: index among the memref arguments */
  uint32_t elem_bits;  /* MEMREF_ARG */
  uint64_t byte_off;   /* MEMREF_ARG: a view's static offset into the argument */
  uint32_t ref;        /* GLOBAL: the memref.global op; TASK: index into tasks */
} aie_value_t;

/* A configured DMA task (aie_task.c): where it runs and the BDs it holds. */
typedef struct aie_task_t {
  uint32_t col, row, channel;
  air_npu_dir_t dir;
  bool token, freed;
  uint32_t repeat;
  uint32_t first_bd;
  uint32_t bd_lo, bd_n; /* its BD ids: task_bds[bd_lo .. bd_lo + bd_n) */
} aie_task_t;

typedef struct aie_lower_t {
  const aie_module_t* m;
  const air_allocator_t* a;
  const air_npu_device_t* dev; /* &dev_model once the device op is read */
  air_npu_device_t dev_model;
  uint32_t device_op;
  air_txn_t txn;
  bool fold;
  aie_tile_t* tiles;
  uint32_t n_tiles, cap_tiles;
  aie_alloc_t* allocs;
  uint32_t n_allocs, cap_allocs;
  aie_buffer_t* buffers;
  uint32_t n_buffers, cap_buffers;
  aie_lock_t* locks;
  uint32_t n_locks, cap_locks;
  aie_value_t* vals;
  uint32_t n_vals, cap_vals;
  uint32_t n_memref_args;
  aie_task_t* tasks;
  uint32_t n_tasks, cap_tasks;
  uint32_t* task_bds;
  uint32_t n_task_bds, cap_task_bds;
  /* BD ids taken by live DMA tasks, per tile (col * 6 + row): bit = BD id. */
  uint64_t bd_used[8 * 6];
} aie_lower_t;

#define AIE_ERR(L, line, col, ...) aie_error((L)->m, (line), (col), __VA_ARGS__)

static inline const aie_op_t* aie_op(const aie_lower_t* L, uint32_t i) { return &L->m->ops[i]; }

static inline aie_span_t aie_tok_name(const air_token_t* t) {
  aie_span_t s = {t->name, t->name_len};
  return s;
}

/* Appends `item` (of `elem` bytes) to a growable array. */
air_status_t aie_push(aie_lower_t* L, void** data, uint32_t* n, uint32_t* cap, size_t elem,
                      const void* item);
#define AIE_PUSH(L, arr, item) \
  aie_push((L), (void**)&(L)->arr, &(L)->n_##arr, &(L)->cap_##arr, sizeof *(L)->arr, (item))

/* Reads the device's tiles, shim DMA allocations, buffers and locks, then infers
 * the allocations of objectfifos with a shim end (see aie_sym.c). */
air_status_t aie_sym_collect(aie_lower_t* L);
void aie_sym_free(aie_lower_t* L);

const aie_value_t* aie_find_val(const aie_lower_t* L, aie_span_t name);
/* The tile at (col, row), or NULL. */
const aie_tile_t* aie_tile_at(const aie_lower_t* L, uint32_t col, uint32_t row);
/* The aie.tile whose result is `name`, or NULL. */
const aie_tile_t* aie_find_tile(const aie_lower_t* L, aie_span_t name);
/* The buffer or lock whose result (`%x`, by_sym false) or sym_name is `name`. */
const aie_buffer_t* aie_find_buffer(const aie_lower_t* L, aie_span_t name, bool by_sym);
const aie_lock_t* aie_find_lock(const aie_lower_t* L, aie_span_t name);
/* The allocation named by attribute `at` (a symbol), or a located error. */
air_status_t aie_lookup_alloc(aie_lower_t* L, const aie_attr_t* at, const aie_alloc_t** out);
/* The device op named `name` whose head starts with @sym, or AIE_NONE. */
uint32_t aie_find_symbol_op(const aie_lower_t* L, const char* name, aie_span_t sym);

/* `MM2S` or `S2MM` at the cursor. */
air_status_t aie_parse_dir(aie_lower_t* L, aie_cur_t* c, air_npu_dir_t* out);
/* A u32 attribute; `word` also takes [-2^31, 0) as its two's complement. */
air_status_t aie_attr_u32(aie_lower_t* L, const aie_attrs_t* at, const char* key, bool required,
                          bool word, uint32_t* out);
/* The address attribute `key` of a write32-like op, absolute when it has
 * column/row, else flat. */
air_status_t aie_op_address(aie_lower_t* L, const aie_attrs_t* at, const char* key,
                            uint32_t* out);
/* Skips to the op's trailing `{...}` (of its head) and parses it; empty when absent. */
air_status_t aie_op_attrs(aie_lower_t* L, aie_cur_t* c, const aie_op_t* op, aie_attrs_t* at);
/* A non-negative integer or an `arith.constant` value at the cursor. */
air_status_t aie_static_value(aie_lower_t* L, aie_cur_t* c, uint64_t* out);

#endif /* AIR_NPU_AIE_SYM_H_ */

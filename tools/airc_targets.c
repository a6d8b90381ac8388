/* airc_targets.c - `airc targets [--json]`: the devices that can be targets, read
 * from the library's table (src/runtime/target), one per line. Text for people,
 * or one JSON object per target per line for scripts. */
#include <stdio.h>
#include <string.h>

#include "runtime/target/target.h"
#include "tool_util.h"

static const char* kind_name(air_target_kind_t k) {
  return k == AIR_TARGET_NPU ? "aie" : k == AIR_TARGET_GPU ? "gpu" : "cpu";
}

/* "2,3,6,7" (or "all 4", or "-") into buf. */
static const char* shim_columns(const air_target_t* t, char* buf, size_t size) {
  uint32_t n = air_target_shim_dma_count(t);
  if (t->kind != AIR_TARGET_NPU || !n) return "-";
  if (n == t->cols) {
    snprintf(buf, size, "all %u", n);
    return buf;
  }
  size_t len = 0;
  buf[0] = '\0';
  for (uint32_t c = 0; c < t->cols && len + 4 < size; ++c)
    if (air_target_shim_has_dma(t, c))
      len += (size_t)snprintf(buf + len, size - len, "%s%u", len ? "," : "", c);
  return buf;
}

static void print_text(const air_target_t* rows, uint32_t n) {
  printf("%-10s %-4s %-5s %-9s %-4s %-3s %-13s %-15s %-9s %-9s %-9s %-17s %-13s %s\n", "target",
         "kind", "arch", "grid", "row", "mt", "L1 (stack)", "L2", "core DMA", "mem DMA",
         "shim DMA", "BDs core/mem/shim", "locks (max)", "shim DMA columns (alias)");
  for (uint32_t i = 0; i < n; ++i) {
    const air_target_t* t = &rows[i];
    char grid[32], l1[64], l2[64], core[32], mem[32], shim[32], bds[48], locks[64], cols[256];
    bool aie = t->kind == AIR_TARGET_NPU;
    if (t->cols)
      snprintf(grid, sizeof grid, "%ux%u", t->cols, t->rows);
    else
      snprintf(grid, sizeof grid, "-");
    if (!t->l1_bytes)
      snprintf(l1, sizeof l1, "unlimited");
    else if (t->l1_stack)
      snprintf(l1, sizeof l1, "%llu (%u)", (unsigned long long)t->l1_bytes, t->l1_stack);
    else
      snprintf(l1, sizeof l1, "%llu", (unsigned long long)t->l1_bytes);
    if (!air_target_l2_on_array(t))
      snprintf(l2, sizeof l2, "off the array");
    else if (!t->l2_bytes)
      snprintf(l2, sizeof l2, "unlimited");
    else
      snprintf(l2, sizeof l2, "%ux%llu", t->l2_units, (unsigned long long)t->l2_bytes);
    char row[16] = "-", mt[16] = "-";
    strcpy(core, "-");
    strcpy(mem, "-");
    strcpy(shim, "-");
    strcpy(bds, "-");
    strcpy(locks, "-");
    if (aie) {
      snprintf(core, sizeof core, "%u/%u", t->dma_in, t->dma_out);
      if (t->memtile_rows) snprintf(mem, sizeof mem, "%u/%u", t->l2_dma_in, t->l2_dma_out);
      snprintf(shim, sizeof shim, "%u/%u", t->shim_dma_in, t->shim_dma_out);
      char mbd[16] = "-", mlk[16] = "-";
      if (t->memtile_rows) {
        snprintf(mbd, sizeof mbd, "%u", t->l2_bds);
        snprintf(mlk, sizeof mlk, "%u", t->l2_locks);
      }
      snprintf(bds, sizeof bds, "%u/%s/%u", t->core_bds, mbd, t->shim_bds);
      snprintf(locks, sizeof locks, "%u/%s/%u (%u)", t->core_locks, mlk, t->shim_locks,
               t->lock_max);
      snprintf(row, sizeof row, "%u", t->first_row);
      snprintf(mt, sizeof mt, "%u", t->memtile_rows);
    }
    printf("%-10s %-4s %-5s %-9s %-4s %-3s %-13s %-15s %-9s %-9s %-9s %-17s %-13s %s", t->name,
           kind_name(t->kind), air_target_arch_name(t->arch), grid, row, mt, l1, l2, core, mem,
           shim, bds, locks, shim_columns(t, cols, sizeof cols));
    if (t->alias) printf(" (%s)", t->alias);
    if (t->gfx) printf(" %s, wave%u, %u waves/CU", t->gfx, t->wave_size, t->wave_slots);
    printf("\n");
  }
  printf("\ngrid: columns x core rows (GPU: XCDs x CUs); row: device row of the first core "
         "row; mt: mem-tile rows;\nDMA: S2MM/MM2S channels per tile; L1 less the stack is what "
         "a herd tile may allocate.\nGPU rows: L1 is the LDS a workgroup has; the AMDGPU "
         "processor kernels are built for, its wave size and waves per CU (docs/gpu.md).\n");
}

static void print_json(const air_target_t* rows, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    const air_target_t* t = &rows[i];
    printf("{\"name\":\"%s\",\"alias\":", t->name);
    if (t->alias)
      printf("\"%s\"", t->alias);
    else
      printf("null");
    printf(",\"kind\":\"%s\",\"arch\":\"%s\",\"cols\":%u,\"rows\":%u,\"first_row\":%u,"
           "\"memtile_rows\":%u,\"l1_bytes\":%llu,\"l1_stack\":%u,\"l2_units\":%u,"
           "\"l2_bytes\":%llu,\"l2_on_array\":%s,\"dma_in\":%u,\"dma_out\":%u,"
           "\"memtile_dma_in\":%u,\"memtile_dma_out\":%u,\"shim_dma_in\":%u,\"shim_dma_out\":%u,"
           "\"core_bds\":%u,\"memtile_bds\":%u,\"shim_bds\":%u,\"core_locks\":%u,"
           "\"memtile_locks\":%u,\"shim_locks\":%u,\"lock_max\":%u,\"bd_dims\":%u,"
           "\"max_herd_pes\":%u,\"gfx\":%s%s%s,\"wave_size\":%u,\"wave_slots\":%u,"
           "\"shim_dma_columns\":[",
           kind_name(t->kind), air_target_arch_name(t->arch), t->cols, t->rows, t->first_row,
           t->memtile_rows, (unsigned long long)t->l1_bytes, t->l1_stack, t->l2_units,
           (unsigned long long)t->l2_bytes, air_target_l2_on_array(t) ? "true" : "false",
           t->dma_in, t->dma_out, t->l2_dma_in, t->l2_dma_out, t->shim_dma_in, t->shim_dma_out,
           t->core_bds, t->l2_bds, t->shim_bds, t->core_locks, t->l2_locks, t->shim_locks,
           t->lock_max, t->bd_dims, t->max_herd_pes, t->gfx ? "\"" : "", t->gfx ? t->gfx : "null",
           t->gfx ? "\"" : "", t->wave_size, t->wave_slots);
    bool first = true;
    for (uint32_t c = 0; t->kind == AIR_TARGET_NPU && c < t->cols; ++c)
      if (air_target_shim_has_dma(t, c)) {
        printf("%s%u", first ? "" : ",", c);
        first = false;
      }
    printf("]}\n");
  }
}

int airc_cmd_targets(int argc, char** argv) {
  int json = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--json")) {
      json = 1;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: airc targets [--json]\n"
             "List the devices that can be targets: every mlir-aie/mlir-air AIE device,\n"
             "the GPUs and the CPU, with geometry, memory, DMA channels, BDs and locks.\n"
             "  --json  one JSON object per target per line\n");
      return TOOL_EXIT_OK;
    } else {
      fprintf(stderr, "airc targets: error: unknown argument: %s\n"
                      "usage: airc targets [--json]\n", argv[i]);
      return TOOL_EXIT_USAGE;
    }
  }
  uint32_t n = 0;
  const air_target_t* rows = air_target_table(&n);
  if (json)
    print_json(rows, n);
  else
    print_text(rows, n);
  return TOOL_EXIT_OK;
}

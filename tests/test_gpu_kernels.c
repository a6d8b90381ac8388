/* test_gpu_kernels.c - GPU kernels generated from launches (codegen/cg_gpu.h,
 * docs/gpu.md), without a GPU:
 *   - every listed processor: the kernels of three programs (vector add, a tiled
 *     matmul with LDS tiles and barriers, samples/matmul_4x4.mlir with channels at
 *     every level) assemble and link with the discovered toolchain, and the
 *     runtime's code-object reader reads them back with the kernel names, kernarg
 *     sizes, wave sizes and group segment (= the planned LDS bytes) expected;
 *   - gfx942 on LLVM 16 without ROCm is a clear error naming what is needed;
 *   - linalg.generic (elementwise and reductions, in herds and segments, and a
 *     bf16 GEMM written as generics) built for every processor; a map the shared
 *     emitter does not take refused at the op;
 *   - what a GPU kernel cannot do is refused at the op;
 *   - the host workgroup simulator runs the same kernels: results, a failed check,
 *     a deadlock that ends instead of hanging;
 *   - the artifact carries the kernels and code objects and refuses a corrupt table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "air/air.h"
#include "amdgpu/code_object.h"
#include "codegen/cg_gpu.h"
#include "gpu_sim.h"
#include "gpu_test.h"
#include "runtime/ir/ir.h"
#include "scheduler/artifact/artifact.h"
#include "scheduler/compile.h"

static void test_every_target(void** state) {
  (void)state;
  static const char* const gfx[] = {"gfx908", "gfx90a", "gfx940", "gfx1030", "gfx1100"};
  static const char* const progs[] = {AIR_GPU_DATA_DIR "/vadd.mlir",
                                      AIR_GPU_DATA_DIR "/tiled_matmul.mlir",
                                      AIR_SAMPLES_DIR "/matmul_4x4.mlir"};
  air_context_t* ctx = NULL;
  assert_null(air_context_create(NULL, NULL, &ctx));
  for (size_t g = 0; g < sizeof gfx / sizeof *gfx; ++g) {
    const air_target_t* t = NULL;
    assert_null(air_target_lookup(NULL, gfx[g], &t));
    for (size_t i = 0; i < sizeof progs / sizeof *progs; ++i) {
      air_program_t* p = gpu_test_parse_file(ctx, progs[i]);
      air_schedule_t* sc = NULL;
      air_status_t s = gpu_test_build(ctx, p, gfx[g], &sc);
      if (s) fail_msg("%s for %s: %s", progs[i], gfx[g], air_status_message(s));
      assert_non_null(sc->gpu);
      assert_string_equal(sc->gpu->processor, gfx[g]);
      assert_int_equal(sc->gpu->n_kernels, 1);
      const air_gpu_kernel_t* k = &sc->gpu->kernels[0];
      air_amdgpu_code_object_t* co = NULL;
      const air_gpu_object_t* o = &sc->gpu->objects[k->object];
      s = air_amdgpu_code_object_read(NULL, o->bytes, (size_t)o->size, k->name, &co);
      if (s) fail_msg("%s: %s", k->name, air_status_message(s));
      assert_string_equal(co->gfx->name, gfx[g]);
      const air_amdgpu_kernel_t* mk = air_amdgpu_code_object_kernel(co, k->name);
      assert_non_null(mk);
      assert_string_equal(mk->name, k->name);
      assert_int_equal(mk->kernarg_segment_size, 8 * k->n_args);
      /* The plan's LDS is a floor: LLVM may promote private (L1) arrays into
       * LDS (vadd's 1-element L1 buffers, per work-item) within one CU. */
      assert_true(mk->group_segment_fixed_size >= k->lds_bytes);
      assert_true(mk->group_segment_fixed_size <= t->l1_bytes);
      assert_int_equal(mk->wavefront_size, t->wave_size);
      assert_int_equal(k->wave_size, t->wave_size);
      assert_int_equal(mk->kd.group_segment_fixed_size, mk->group_segment_fixed_size);
      if (i < 2) {
        assert_int_equal(k->mapping, AIR_GPU_MAP_THREADS);
        assert_int_equal(k->workgroup_size, 256);
        /* vadd has no L2; the tiled matmul's A, B and C tiles are 2 + 2 + 16 KiB */
        assert_int_equal(k->lds_bytes, i == 0 ? 0 : 2048 + 2048 + 16384);
        assert_int_equal(k->spill_bytes, 0);
      } else {
        /* matmul_4x4: 16 PEs blocking on channels, a segment and a launch body:
         * wave32 gives every role a wave (18 x 32); wave64 packs 2 PEs per wave
         * (2 + 8 waves x 64). Channel state first in LDS, then as much L2 as fits;
         * the rest (of 128 KiB) spills to global memory. */
        assert_int_equal(k->mapping, AIR_GPU_MAP_WAVES);
        assert_int_equal(k->pes, 16);
        assert_int_equal(k->fixed_roles, 2);
        assert_int_equal(k->pes_per_wave, t->wave_size == 64 ? 2 : 1);
        assert_int_equal(k->workgroup_size, t->wave_size == 64 ? 640 : 576);
        assert_true(k->lds_bytes <= 65536);
        assert_true(k->spill_bytes > 0 && k->spill_bytes < 131072);
        assert_int_equal(k->n_args, 4); /* A, B, C, the spill area */
        assert_int_equal(k->args[3].kind, AIR_GPU_ARG_SPILL);
        assert_true(mk->private_segment_fixed_size >= 5 * 4096); /* the PEs' L1 */
      }
      print_message("  %-8s %-18s %s: %u work-items, LDS %u, spill %llu, private %u, %u VGPRs\n",
                    gfx[g], strrchr(progs[i], '/') + 1, k->name, k->workgroup_size, k->lds_bytes,
                    (unsigned long long)k->spill_bytes, mk->private_segment_fixed_size,
                    mk->vgpr_count);
      air_amdgpu_code_object_free(co);
      air_schedule_free(sc);
      air_program_destroy(p);
    }
  }
  air_context_destroy(ctx);
}

static void test_gfx942(void** state) {
  (void)state;
  const char* r = getenv("AIR_ROCM_PATH");
  FILE* rocm = fopen("/opt/rocm/llvm/bin/clang", "rb");
  if (rocm) fclose(rocm);
  if ((r && *r) || rocm || getenv("ROCM_PATH")) skip();
  air_cg_gpu_toolchain_t tc;
  air_status_t s = air_cg_gpu_toolchain_find(NULL, "gfx942", &tc);
  assert_non_null(s);
  assert_int_equal(air_status_code(s), AIR_STATUS_UNAVAILABLE);
  const char* m = air_status_message(s);
  assert_non_null(strstr(m, "gfx942 needs LLVM 17"));
  assert_non_null(strstr(m, "ROCm"));
  air_status_free(s);
  s = air_cg_gpu_toolchain_find(NULL, "gfx9999", &tc);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(s);
}

/* Programs a GPU kernel cannot be: refused at the op (line), UNIMPLEMENTED. */
static const struct {
  const char* name;
  const char* text;
  uint32_t line;
  const char* says;
} k_refusals[] = {
    {"func.call",
     "func.func private @host(memref<16xf32, 2>)\n"
     "func.func @f(%a: memref<16xf32>) {\n"
     "  %c1 = arith.constant 1 : index\n"
     "  air.launch (%x) in (%n=%c1) args(%A=%a) : memref<16xf32> {\n"
     "    air.segment @s {\n"
     "      %c1s = arith.constant 1 : index\n"
     "      air.herd @h tile (%tx, %ty) in (%sx=%c1s, %sy=%c1s) {\n"
     "        %l = memref.alloc() : memref<16xf32, 2>\n"
     "        func.call @host(%l) : (memref<16xf32, 2>) -> ()\n"
     "      }\n"
     "    }\n"
     "  }\n"
     "  return\n"
     "}\n",
     9, "host function cannot run on the GPU"},
    {"L3 alloc",
     "func.func @f(%a: memref<16xf32>) {\n"
     "  %c1 = arith.constant 1 : index\n"
     "  air.launch (%x) in (%n=%c1) args(%A=%a) : memref<16xf32> {\n"
     "    air.segment @s {\n"
     "      %b = memref.alloc() : memref<16xf32>\n"
     "      %c1s = arith.constant 1 : index\n"
     "      air.herd @h tile (%tx, %ty) in (%sx=%c1s, %sy=%c1s) {\n"
     "      }\n"
     "    }\n"
     "  }\n"
     "  return\n"
     "}\n",
     5, "L3 allocation inside a GPU kernel"},
    {"herd larger than a CU's wave slots",
     "air.channel @ch [8, 8]\n"
     "func.func @f(%a: memref<64xf32>) {\n"
     "  %c1 = arith.constant 1 : index\n"
     "  air.launch (%x) in (%n=%c1) args(%A=%a) : memref<64xf32> {\n"
     "    air.segment @s args(%SA=%A) : memref<64xf32> {\n"
     "      %c8 = arith.constant 8 : index\n"
     "      %c0 = arith.constant 0 : index\n"
     "      %c1s = arith.constant 1 : index\n"
     "      scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1s, %c1s) {\n"
     "        %o = arith.addi %i, %j : index\n"
     "        air.channel.put @ch[%i, %j] (%SA[%o] [%c1s] [%c1s]) : (memref<64xf32>)\n"
     "        scf.reduce\n"
     "      }\n"
     "      air.herd @h tile (%tx, %ty) in (%sx=%c8, %sy=%c8) {\n"
     "        %l = memref.alloc() : memref<1xf32, 2>\n"
     "        air.channel.get @ch[%tx, %ty] (%l[] [] []) : (memref<1xf32, 2>)\n"
     "      }\n"
     "    }\n"
     "  }\n"
     "  return\n"
     "}\n",
     14, "a herd of 64 PEs that use channels needs a wave each, but a gfx90a CU holds 32"},
    {"channel across workgroups",
     "air.channel @ch [1]\n"
     "func.func @f(%a: memref<16xf32>) {\n"
     "  %c1 = arith.constant 1 : index\n"
     "  air.launch (%x) in (%n=%c1) args(%A=%a) : memref<16xf32> {\n"
     "    air.segment @s args(%SA=%A) : memref<16xf32> {\n"
     "      %c1s = arith.constant 1 : index\n"
     "      air.herd @h tile (%tx, %ty) in (%sx=%c1s, %sy=%c1s) args(%HA=%SA) : memref<16xf32> {\n"
     "        air.channel.put @ch[] (%HA[] [] []) : (memref<16xf32>)\n"
     "      }\n"
     "    }\n"
     "  }\n"
     "  air.launch (%y) in (%m=%c1) args(%B=%a) : memref<16xf32> {\n"
     "    air.segment @s2 args(%SB=%B) : memref<16xf32> {\n"
     "      %c1t = arith.constant 1 : index\n"
     "      air.herd @h2 tile (%ux, %uy) in (%tx=%c1t, %ty=%c1t) {\n"
     "        %l = memref.alloc() : memref<16xf32, 2>\n"
     "        air.channel.get @ch[] (%l[] [] []) : (memref<16xf32, 2>)\n"
     "      }\n"
     "    }\n"
     "  }\n"
     "  return\n"
     "}\n",
     17, "cannot cross workgroups"},
};

static void test_refusals(void** state) {
  (void)state;
  air_context_t* ctx = NULL;
  assert_null(air_context_create(NULL, NULL, &ctx));
  for (size_t i = 0; i < sizeof k_refusals / sizeof *k_refusals; ++i) {
    air_program_t* p = gpu_test_parse(ctx, k_refusals[i].text, k_refusals[i].name);
    air_schedule_t* sc = NULL;
    air_status_t s = gpu_test_build(ctx, p, "gfx90a", &sc);
    if (!s) fail_msg("%s: compiled", k_refusals[i].name);
    const char* m = air_status_message(s);
    char at[32];
    snprintf(at, sizeof at, ":%u:", k_refusals[i].line);
    if (air_status_code(s) != AIR_STATUS_UNIMPLEMENTED || !strstr(m, k_refusals[i].says) ||
        !strstr(m, at))
      fail_msg("%s: %s", k_refusals[i].name, m);
    air_status_free(s);
    air_schedule_free(sc);
    air_program_destroy(p);
  }
  air_context_destroy(ctx);
}

/* linalg.generic: elementwise and reductions in herds, elementwise in a segment
 * (tests/data/gpu/generic.mlir), and a bf16 GEMM with bias written as generics
 * (tests/data/programs/linalg_generic_bf16.mlir): built for every processor and
 * read back; a generic the shared emitter does not take (a non-linear map) is
 * refused at its line. Results against the CPU driver: air_run_gpu_generic*. */
static void test_generic(void** state) {
  (void)state;
  static const char* const gfx[] = {"gfx908", "gfx90a", "gfx940", "gfx1030", "gfx1100"};
  static const char* const progs[] = {AIR_GPU_DATA_DIR "/generic.mlir",
                                      AIR_GPU_DATA_DIR "/../programs/linalg_generic_bf16.mlir"};
  air_context_t* ctx = NULL;
  assert_null(air_context_create(NULL, NULL, &ctx));
  for (size_t g = 0; g < sizeof gfx / sizeof *gfx; ++g)
    for (size_t i = 0; i < 2; ++i) {
      air_program_t* p = gpu_test_parse_file(ctx, progs[i]);
      air_schedule_t* sc = NULL;
      air_status_t s = gpu_test_build(ctx, p, gfx[g], &sc);
      if (s) fail_msg("%s for %s: %s", progs[i], gfx[g], air_status_message(s));
      const air_gpu_kernel_t* k = &sc->gpu->kernels[0];
      assert_int_equal(k->mapping, AIR_GPU_MAP_THREADS);
      assert_int_equal(k->workgroup_size, i ? 4 : 8);
      air_amdgpu_code_object_t* co = NULL;
      const air_gpu_object_t* o = &sc->gpu->objects[k->object];
      s = air_amdgpu_code_object_read(NULL, o->bytes, (size_t)o->size, k->name, &co);
      if (s) fail_msg("%s: %s", k->name, air_status_message(s));
      assert_non_null(air_amdgpu_code_object_kernel(co, k->name));
      assert_string_equal(co->gfx->name, gfx[g]);
      air_amdgpu_code_object_free(co);
      air_schedule_free(sc);
      air_program_destroy(p);
    }
  static const char bad[] =
      "#m = affine_map<(d0) -> (d0 mod 4)>\n"
      "func.func @f(%a: memref<16xf32>) {\n"
      "  %c1 = arith.constant 1 : index\n"
      "  air.launch (%x) in (%n=%c1) args(%A=%a) : memref<16xf32> {\n"
      "    air.segment @s {\n"
      "      %c1s = arith.constant 1 : index\n"
      "      air.herd @h tile (%tx, %ty) in (%sx=%c1s, %sy=%c1s) {\n"
      "        %l = memref.alloc() : memref<4xf32, 2>\n"
      "        linalg.generic {indexing_maps = [#m], iterator_types = [\"parallel\"]} outs(%l : memref<4xf32, 2>) {\n"
      "        ^bb0(%v: f32):\n"
      "          linalg.yield %v : f32\n"
      "        }\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "  return\n"
      "}\n";
  air_program_t* p = gpu_test_parse(ctx, bad, "mod_map.mlir");
  air_schedule_t* sc = NULL;
  air_status_t s = gpu_test_build(ctx, p, "gfx90a", &sc);
  if (!s || air_status_code(s) != AIR_STATUS_UNIMPLEMENTED ||
      !strstr(air_status_message(s), "mod_map.mlir:9:") ||
      !strstr(air_status_message(s), "its maps must be linear"))
    fail_msg("%s", s ? air_status_message(s) : "compiled");
  air_status_free(s);
  air_schedule_free(sc);
  air_program_destroy(p);
  air_context_destroy(ctx);
}

/*--- the simulator ----------------------------------------------------------------*/

static air_cg_gpu_sim_t* sim_of(air_context_t* ctx, air_program_t* p, const char* gfx) {
  const air_target_t* t = NULL;
  assert_null(air_target_lookup(NULL, gfx, &t));
  air_cg_gpu_sim_t* sim = NULL;
  air_status_t s = air_cg_gpu_sim_create(NULL, p, NULL, t, &sim);
  if (s) fail_msg("%s", air_status_message(s));
  (void)ctx;
  return sim;
}

static void test_simulator(void** state) {
  (void)state;
  air_context_t* ctx = NULL;
  assert_null(air_context_create(NULL, NULL, &ctx));
  air_program_t* p = gpu_test_parse_file(ctx, AIR_GPU_DATA_DIR "/vadd.mlir");
  air_cg_gpu_sim_t* sim = sim_of(ctx, p, "gfx90a");
  air_gpu_sim_fn fn;
  const air_gpu_kernel_t* k;
  assert_null(air_cg_gpu_sim_lookup(sim, "air_launch_1", &fn, &k));
  float* a = malloc(4096 * 4), *b = malloc(4096 * 4), *c = calloc(4096, 4);
  for (int i = 0; i < 4096; ++i) a[i] = (float)i * 0.5f, b[i] = (float)(4096 - i);
  uint64_t ka[3] = {(uint64_t)(uintptr_t)a, (uint64_t)(uintptr_t)b, (uint64_t)(uintptr_t)c};
  char err[256] = "";
  assert_int_equal(air_gpu_sim_run(fn, k, ka, 16, 0, 10.0, err, sizeof err), 0);
  for (int i = 0; i < 4096; ++i) assert_true(c[i] == a[i] + b[i]);
  /* Too few workgroups: the last ones' elements stay as they were. */
  memset(c, 0, 4096 * 4);
  assert_int_equal(air_gpu_sim_run(fn, k, ka, 15, 0, 10.0, err, sizeof err), 0);
  assert_true(c[15 * 256 - 1] == a[15 * 256 - 1] + b[15 * 256 - 1] && c[15 * 256] == 0.0f);
  /* 17 workgroups reach past the memrefs: the bounds check fails the dispatch. */
  assert_int_not_equal(air_gpu_sim_run(fn, k, ka, 17, 0, 10.0, err, sizeof err), 0);
  assert_non_null(strstr(err, "outside its memref"));
  assert_non_null(strstr(err, "workgroup 16"));
  free(a), free(b), free(c);
  air_cg_gpu_sim_free(sim);
  air_program_destroy(p);
  air_context_destroy(ctx);
}

/* A PE waiting on a channel nobody feeds: the wait gives up, no hang. */
static void test_simulator_deadlock(void** state) {
  (void)state;
  static const char text[] =
      "air.channel @ch [1]\n"
      "func.func @f(%a: memref<16xf32>) {\n"
      "  %c1 = arith.constant 1 : index\n"
      "  air.launch (%x) in (%n=%c1) args(%A=%a) : memref<16xf32> {\n"
      "    air.segment @s args(%SA=%A) : memref<16xf32> {\n"
      "      %c1s = arith.constant 1 : index\n"
      "      air.herd @h tile (%tx, %ty) in (%sx=%c1s, %sy=%c1s) args(%HA=%SA) : memref<16xf32> {\n"
      "        %l = memref.alloc() : memref<16xf32, 2>\n"
      "        air.channel.get @ch[] (%l[] [] []) : (memref<16xf32, 2>)\n"
      "        air.dma_memcpy_nd (%HA[] [] [], %l[] [] []) : (memref<16xf32>, memref<16xf32, 2>)\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "  return\n"
      "}\n";
  air_context_t* ctx = NULL;
  assert_null(air_context_create(NULL, NULL, &ctx));
  air_program_t* p = gpu_test_parse(ctx, text, "deadlock.mlir");
  air_cg_gpu_sim_t* sim = sim_of(ctx, p, "gfx1100");
  air_gpu_sim_fn fn;
  const air_gpu_kernel_t* k;
  assert_null(air_cg_gpu_sim_lookup(sim, "air_launch_1", &fn, &k));
  assert_int_equal(k->mapping, AIR_GPU_MAP_WAVES);
  float buf[16] = {0};
  uint64_t ka[1] = {(uint64_t)(uintptr_t)buf};
  char err[256] = "";
  assert_int_not_equal(air_gpu_sim_run(fn, k, ka, 1, k->lds_bytes, 0.3, err, sizeof err), 0);
  assert_non_null(strstr(err, "deadlock"));
  air_cg_gpu_sim_free(sim);
  air_program_destroy(p);
  air_context_destroy(ctx);
}

/*--- the artifact -------------------------------------------------------------------*/

static void test_artifact(void** state) {
  (void)state;
  air_context_t* ctx = NULL;
  assert_null(air_context_create(NULL, NULL, &ctx));
  air_program_t* p = gpu_test_parse_file(ctx, AIR_SAMPLES_DIR "/matmul_4x4.mlir");
  air_schedule_t* sc = NULL;
  air_status_t s = gpu_test_build(ctx, p, "gfx1030", &sc);
  if (s) fail_msg("%s", air_status_message(s));
  void* img = NULL;
  size_t n = 0;
  const air_allocator_t* alloc = air_context_allocator(ctx);
  assert_null(air_artifact_write(alloc, p, sc, &img, &n));
  air_program_t* p2 = NULL;
  air_schedule_t* sc2 = NULL;
  s = air_artifact_read(ctx, img, n, "mm.airbin", &p2, &sc2);
  if (s) fail_msg("%s", air_status_message(s));
  assert_non_null(sc2->gpu);
  assert_string_equal(sc2->gpu->processor, "gfx1030");
  assert_int_equal(sc2->gpu->n_kernels, sc->gpu->n_kernels);
  assert_int_equal(sc2->gpu->n_objects, sc->gpu->n_objects);
  const air_gpu_kernel_t *k = &sc->gpu->kernels[0], *k2 = &sc2->gpu->kernels[0];
  assert_string_equal(k2->name, k->name);
  assert_int_equal(k2->cmd, k->cmd);
  assert_int_equal(k2->workgroup_size, k->workgroup_size);
  assert_int_equal(k2->lds_bytes, k->lds_bytes);
  assert_int_equal(k2->spill_bytes, k->spill_bytes);
  assert_int_equal(k2->n_args, k->n_args);
  assert_memory_equal(k2->args, k->args, k->n_args * sizeof *k->args);
  assert_int_equal(sc2->gpu->objects[0].size, sc->gpu->objects[0].size);
  assert_memory_equal(sc2->gpu->objects[0].bytes, sc->gpu->objects[0].bytes, sc->gpu->objects[0].size);
  air_schedule_free(sc2);
  air_program_destroy(p2);
  /* A corrupt table fails the whole read, naming the section. */
  uint8_t* b = img;
  uint8_t* magic = NULL;
  for (size_t i = 0; i + 8 <= n && !magic; ++i)
    if (!memcmp(b + i, "AIRGPU\0\0", 8)) magic = b + i;
  assert_non_null(magic);
  struct { size_t at; uint8_t v; } flips[] = {{8, 2},      /* version */
                                              {12, 7},     /* object count */
                                              {40, 200},   /* kernel 0's command */
                                              {48, 3},     /* its mapping */
                                              {144, '!'}}; /* its name */
  for (size_t f = 0; f < sizeof flips / sizeof *flips; ++f) {
    uint8_t old = magic[flips[f].at];
    magic[flips[f].at] = flips[f].v;
    s = air_artifact_read(ctx, img, n, "mm.airbin", &p2, &sc2);
    if (!s || air_status_code(s) != AIR_STATUS_DATA_LOSS || !strstr(air_status_message(s), ".air.gpu"))
      fail_msg("flip %zu: %s", f, s ? air_status_message(s) : "read");
    air_status_free(s);
    magic[flips[f].at] = old;
  }
  alloc->free(alloc->self, img);
  air_schedule_free(sc);
  air_program_destroy(p);
  air_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_target),     cmocka_unit_test(test_gfx942),
      cmocka_unit_test(test_refusals),         cmocka_unit_test(test_generic),
      cmocka_unit_test(test_simulator),
      cmocka_unit_test(test_simulator_deadlock), cmocka_unit_test(test_artifact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

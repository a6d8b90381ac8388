/* air_run_gpu.c - air-run's GPU step: a .mlir program run on an hsa device gets
 * the kernels `airc compile --target gfxNNN` would build (codegen/cg_gpu.h), as an
 * in-memory .airbin the executable is then made from, so `air-run FILE.mlir
 * --device hsa:0` and `airc compile` + `air-run FILE.airbin` run the same code. */
#include <stdlib.h>

#include "air_run.h"
#include "runtime/base/status_util.h"
#include "runtime/target/target.h"
#include "scheduler/artifact/artifact.h"
#include "scheduler/compile.h"
#ifdef AIR_HAVE_CODEGEN
#include "codegen/cg_gpu.h"
#endif

air_status_t air_run_gpu_artifact(air_context_t* ctx, const air_program_t* program,
                                  const char* entry, const char* target, void** data,
                                  size_t* size, int64_t* compile_ns) {
  *data = NULL;
  *size = 0;
#ifdef AIR_HAVE_CODEGEN
  const air_allocator_t* a = air_context_allocator(ctx);
  const air_target_t* t = NULL;
  AIR_RETURN_IF_ERROR(air_target_lookup(a, target, &t));
  if (t->kind != AIR_TARGET_GPU || !t->gfx) return NULL;
  air_cg_gpu_toolchain_t tc;
  AIR_RETURN_IF_ERROR(air_cg_gpu_toolchain_find(a, t->gfx, &tc));
  air_schedule_t* sched = NULL;
  AIR_RETURN_IF_ERROR(air_schedule_compile(a, program, entry, t, &sched));
  air_cg_gpu_stats_t st;
  air_status_t s = air_cg_gpu_compile(a, program, sched, t, &tc, &st);
  if (compile_ns) *compile_ns = st.emit_ns + st.opt_ns + st.codegen_ns + st.link_ns;
  if (!s) s = air_artifact_write(a, program, sched, data, size);
  air_schedule_free(sched);
  return s;
#else
  (void)ctx, (void)program, (void)entry, (void)target, (void)compile_ns;
  return NULL;
#endif
}

/* air_run_gpu.c - air-run's GPU step: a .mlir program run on an hsa device gets
 * the kernels `airc compile --target gfxNNN` would build (codegen/cg_gpu.h), as an
 * in-memory .airbin the executable is then made from, so `air-run FILE.mlir
 * --device hsa:0` and `airc compile` + `air-run FILE.airbin` run the same code. */
#include <stdlib.h>
#include <string.h>

#include "air_run.h"
#include "runtime/base/status_util.h"
#include "runtime/target/target.h"
#include "scheduler/artifact/artifact.h"
#include "scheduler/compile.h"
#include "hal/codegen_load.h"
#include "hal/compiled.h"

air_status_t air_run_gpu_artifact(air_context_t* ctx, const air_program_t* program,
                                  const char* entry, const char* target, void** data,
                                  size_t* size, int64_t* compile_ns) {
  *data = NULL;
  *size = 0;
  const air_allocator_t* a = air_context_allocator(ctx);
  const air_target_t* t = NULL;
  AIR_RETURN_IF_ERROR(air_target_lookup(a, target, &t));
  if (t->kind != AIR_TARGET_GPU || !t->gfx) return NULL;
  /* Without the generator the device's executable is made from the program as
   * before: only link_with herds then run (docs/gpu.md). */
  const air_cg_hooks_t* h = NULL;
  air_status_t s = air_cg_load(a, &h);
  if (s) {
    air_status_free(s);
    return NULL;
  }
  air_schedule_t* sched = NULL;
  AIR_RETURN_IF_ERROR(air_schedule_compile(a, program, entry, t, &sched));
  air_cg_gpu_stats_t st;
  memset(&st, 0, sizeof st);
  s = h->gpu_compile(a, program, sched, t, &st);
  if (compile_ns) *compile_ns = st.emit_ns + st.opt_ns + st.codegen_ns + st.link_ns;
  if (!s) s = air_artifact_write(a, program, sched, data, size);
  air_schedule_free(sched);
  return s;
}

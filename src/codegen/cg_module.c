/* cg_module.c - targets, modules, the optimisation pipeline, object emission and
 * the in-process JIT (ORC's LLJIT) of the code generator (codegen.h). */
#include <llvm-c/Analysis.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg_internal.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

/* LLVM's target registry is process-wide; registering twice is harmless but not
 * safe concurrently, hence the once. */
static pthread_once_t g_llvm_once = PTHREAD_ONCE_INIT;
static void llvm_init(void) {
  LLVMInitializeAllTargetInfos();
  LLVMInitializeAllTargets();
  LLVMInitializeAllTargetMCs();
  LLVMInitializeAllAsmPrinters();
}

static air_status_t llvm_error(const air_allocator_t* a, const char* what, LLVMErrorRef e) {
  char* msg = LLVMGetErrorMessage(e);
  air_status_t st = AIR_STATUS(a, AIR_STATUS_INTERNAL, "%s: %s", what, msg ? msg : "?");
  LLVMDisposeErrorMessage(msg);
  return st;
}

static void copy_str(char* dst, size_t cap, const char* s) {
  snprintf(dst, cap, "%s", s ? s : "");
}

air_status_t air_cg_target_init(air_cg_arch_t arch, const char* cpu, const char* features,
                                air_cg_target_t* out) {
  pthread_once(&g_llvm_once, llvm_init);
  memset(out, 0, sizeof *out);
  out->arch = arch;
  switch (arch) {
    case AIR_CG_ARCH_HOST: {
      char* t = LLVMGetDefaultTargetTriple();
      char* c = LLVMGetHostCPUName();
      char* fe = LLVMGetHostCPUFeatures();
      copy_str(out->triple, sizeof out->triple, t);
      copy_str(out->cpu, sizeof out->cpu, cpu ? cpu : c);
      copy_str(out->features, sizeof out->features, features ? features : fe);
      LLVMDisposeMessage(t);
      LLVMDisposeMessage(c);
      LLVMDisposeMessage(fe);
      break;
    }
    case AIR_CG_ARCH_X86_64:
      /* Objects the core loader links into the process: absolute 64-bit
       * relocations only (code model large, static relocation model). */
      copy_str(out->triple, sizeof out->triple, "x86_64-unknown-linux-gnu");
      copy_str(out->cpu, sizeof out->cpu, cpu ? cpu : "x86-64-v3");
      copy_str(out->features, sizeof out->features, features ? features : "");
      out->object_code = true;
      out->large_code_model = true;
      break;
    case AIR_CG_ARCH_AMDGCN:
      /* Memref data is global memory (address space 1); the hsa driver sets the
       * entry and workitem_id hooks for its kernels. */
      copy_str(out->triple, sizeof out->triple, "amdgcn-amd-amdhsa");
      copy_str(out->cpu, sizeof out->cpu, cpu ? cpu : "gfx942");
      copy_str(out->features, sizeof out->features, features ? features : "");
      out->object_code = true;
      out->data_as = 1;
      break;
    default:
      return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "unknown code generation target %d",
                        (int)arch);
  }
  LLVMTargetRef tgt;
  char* err = NULL;
  if (LLVMGetTargetFromTriple(out->triple, &tgt, &err)) {
    air_status_t st = AIR_STATUS(NULL, AIR_STATUS_UNAVAILABLE,
                                 "this LLVM cannot generate code for %s: %s", out->triple,
                                 err ? err : "?");
    LLVMDisposeMessage(err);
    return st;
  }
  return NULL;
}

air_status_t air_cg_module_create(const air_allocator_t* allocator, const air_cg_target_t* target,
                                  const char* name, air_cg_module_t** out) {
  *out = NULL;
  air_allocator_t a = air_mem_or_system_copy(allocator);
  air_cg_module_t* m = air_mem_calloc(&a, 1, sizeof *m);
  if (!m) return AIR_STATUS_OOM(&a, "code generator module");
  m->alloc = a;
  m->target = *target;
  LLVMTargetRef tgt;
  char* err = NULL;
  if (LLVMGetTargetFromTriple(target->triple, &tgt, &err)) {
    air_status_t st = AIR_STATUS(&a, AIR_STATUS_UNAVAILABLE, "no LLVM target for %s: %s",
                                 target->triple, err ? err : "?");
    LLVMDisposeMessage(err);
    air_mem_free(&a, m);
    return st;
  }
  LLVMCodeModel cm = target->large_code_model ? LLVMCodeModelLarge
                     : target->object_code    ? LLVMCodeModelDefault
                                              : LLVMCodeModelJITDefault;
  LLVMRelocMode rm = target->large_code_model ? LLVMRelocStatic : LLVMRelocDefault;
  m->tm = LLVMCreateTargetMachine(tgt, target->triple, target->cpu, target->features,
                                  LLVMCodeGenLevelDefault, rm, cm);
  if (!m->tm) {
    air_mem_free(&a, m);
    return AIR_STATUS(&a, AIR_STATUS_UNAVAILABLE, "cannot make an LLVM target machine for %s (%s)",
                      target->triple, target->cpu);
  }
  if (target->arch == AIR_CG_ARCH_HOST) {
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    m->tsctx = tsc;
    m->ctx = LLVMOrcThreadSafeContextGetContext(tsc);
  } else {
    m->ctx = LLVMContextCreate();
  }
  m->mod = LLVMModuleCreateWithNameInContext(name ? name : "air", m->ctx);
  LLVMSetTarget(m->mod, target->triple);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(m->tm);
  LLVMSetModuleDataLayout(m->mod, dl);
  LLVMDisposeTargetData(dl);
  LLVMContextRef c = m->ctx;
  m->i1 = LLVMInt1TypeInContext(c);
  m->i8 = LLVMInt8TypeInContext(c);
  m->i16 = LLVMInt16TypeInContext(c);
  m->i32 = LLVMInt32TypeInContext(c);
  m->i64 = LLVMInt64TypeInContext(c);
  m->f16 = LLVMHalfTypeInContext(c);
  m->f32 = LLVMFloatTypeInContext(c);
  m->f64 = LLVMDoubleTypeInContext(c);
  m->ptr = LLVMPointerTypeInContext(c, 0);
  m->gptr = LLVMPointerTypeInContext(c, target->data_as);
  m->voidt = LLVMVoidTypeInContext(c);
  /* air_cg_frame_t: { ptr in, ptr out, i32 fail_op, i32 reserved, ptr rt, ptr ctx } */
  LLVMTypeRef fields[6] = {m->ptr, m->ptr, m->i32, m->i32, m->ptr, m->ptr};
  m->frame_t = LLVMStructTypeInContext(c, fields, 6, 0);
  m->fn_t = LLVMFunctionType(m->i32, &m->ptr, 1, 0);
  *out = m;
  return NULL;
}

void air_cg_module_free(air_cg_module_t* m) {
  if (!m) return;
  if (m->mod) LLVMDisposeModule(m->mod);
  if (m->tsctx)
    LLVMOrcDisposeThreadSafeContext((LLVMOrcThreadSafeContextRef)m->tsctx);
  else if (m->ctx)
    LLVMContextDispose(m->ctx);
  if (m->tm) LLVMDisposeTargetMachine(m->tm);
  air_allocator_t a = m->alloc;
  air_mem_free(&a, m);
}

void air_cg_module_times(const air_cg_module_t* m, int64_t* emit_ns) { *emit_ns = m->emit_ns; }

air_status_t air_cg_module_print(air_cg_module_t* m, char** out) {
  char* s = LLVMPrintModuleToString(m->mod);
  size_t n = strlen(s);
  *out = air_mem_alloc(&m->alloc, n + 1);
  if (*out) memcpy(*out, s, n + 1);
  LLVMDisposeMessage(s);
  return *out ? NULL : AIR_STATUS_OOM(&m->alloc, "LLVM IR text");
}

air_status_t air_cg_module_optimize(air_cg_module_t* m) {
  char* msg = NULL;
  if (LLVMVerifyModule(m->mod, LLVMReturnStatusAction, &msg)) {
    air_status_t st = AIR_STATUS(&m->alloc, AIR_STATUS_INTERNAL,
                                 "code generator made an invalid module: %s", msg ? msg : "?");
    LLVMDisposeMessage(msg);
    return st;
  }
  LLVMDisposeMessage(msg);
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(o, 1);
  LLVMPassBuilderOptionsSetSLPVectorization(o, 1);
  LLVMPassBuilderOptionsSetLoopUnrolling(o, 1);
  LLVMErrorRef e = LLVMRunPasses(m->mod, "default<O2>", m->tm, o);
  LLVMDisposePassBuilderOptions(o);
  return e ? llvm_error(&m->alloc, "LLVM optimisation pipeline", e) : NULL;
}

air_status_t air_cg_module_object(air_cg_module_t* m, void** bytes, size_t* size) {
  *bytes = NULL;
  *size = 0;
  /* amdgcn needs its kernel prologue (the `entry` hook, docs/codegen.md): with the
   * host frame ABI, LLVM 16's AMDGPU instruction selection aborts the process. */
  if (m->target.arch == AIR_CG_ARCH_AMDGCN && !m->target.entry)
    return AIR_STATUS(&m->alloc, AIR_STATUS_UNIMPLEMENTED,
                      "amdgcn objects need the target's kernel entry hook (the hsa driver's)");
  char* err = NULL;
  LLVMMemoryBufferRef buf = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(m->tm, m->mod, LLVMObjectFile, &err, &buf)) {
    air_status_t st = AIR_STATUS(&m->alloc, AIR_STATUS_INTERNAL, "LLVM object emission: %s",
                                 err ? err : "?");
    LLVMDisposeMessage(err);
    return st;
  }
  size_t n = LLVMGetBufferSize(buf);
  void* p = air_mem_alloc(&m->alloc, n);
  if (p) memcpy(p, LLVMGetBufferStart(buf), n);
  LLVMDisposeMemoryBuffer(buf);
  if (!p) return AIR_STATUS_OOM(&m->alloc, "object file");
  *bytes = p;
  *size = n;
  return NULL;
}

/*---------------------------------------------------------------------------*/
/* JIT                                                                       */
/*---------------------------------------------------------------------------*/

struct air_cg_jit_t {
  air_allocator_t alloc;
  LLVMOrcLLJITRef jit;
};

/* Generated code may call these (libm for maxnumf/minnumf; loop idioms LLVM turns
 * into memset/memcpy); nothing else of the process is visible to it. */
static int allow_symbol(void* ctx, LLVMOrcSymbolStringPoolEntryRef sym) {
  (void)ctx;
#define AIR_CG_NAME(n) #n,
  static const char* const k_allowed[] = {AIR_CG_EXTERNALS(AIR_CG_NAME)};
#undef AIR_CG_NAME
  const char* s = LLVMOrcSymbolStringPoolEntryStr(sym);
  for (size_t i = 0; i < sizeof k_allowed / sizeof k_allowed[0]; ++i)
    if (!strcmp(s, k_allowed[i])) return 1;
  return 0;
}

air_status_t air_cg_jit_create(air_cg_module_t* m, air_cg_jit_t** out) {
  *out = NULL;
  air_allocator_t a = m->alloc;
  if (m->target.arch != AIR_CG_ARCH_HOST || !m->tsctx) {
    air_cg_module_free(m);
    return AIR_STATUS(&a, AIR_STATUS_INVALID_ARGUMENT, "only host modules can be JIT-compiled");
  }
  air_cg_jit_t* j = air_mem_calloc(&a, 1, sizeof *j);
  if (!j) {
    air_cg_module_free(m);
    return AIR_STATUS_OOM(&a, "JIT");
  }
  j->alloc = a;
  LLVMOrcJITTargetMachineBuilderRef jtmb;
  LLVMErrorRef e = LLVMOrcJITTargetMachineBuilderDetectHost(&jtmb);
  if (e) {
    air_mem_free(&a, j);
    air_cg_module_free(m);
    return llvm_error(&a, "LLVM JIT: host detection", e);
  }
  LLVMOrcLLJITBuilderRef jb = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(jb, jtmb);
  e = LLVMOrcCreateLLJIT(&j->jit, jb);
  if (e) {
    air_mem_free(&a, j);
    air_cg_module_free(m);
    return llvm_error(&a, "LLVM JIT", e);
  }
  LLVMOrcDefinitionGeneratorRef gen;
  e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
      &gen, LLVMOrcLLJITGetGlobalPrefix(j->jit), allow_symbol, NULL);
  if (!e) LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(j->jit), gen);
  if (!e) {
    LLVMOrcThreadSafeModuleRef tsm =
        LLVMOrcCreateNewThreadSafeModule(m->mod, (LLVMOrcThreadSafeContextRef)m->tsctx);
    m->mod = NULL; /* owned by tsm now */
    e = LLVMOrcLLJITAddLLVMIRModule(j->jit, LLVMOrcLLJITGetMainJITDylib(j->jit), tsm);
    if (e) LLVMOrcDisposeThreadSafeModule(tsm);
  }
  air_cg_module_free(m); /* the context lives on while the JIT's module uses it */
  if (e) {
    air_status_t st = llvm_error(&a, "LLVM JIT: adding the module", e);
    air_cg_jit_free(j);
    return st;
  }
  *out = j;
  return NULL;
}

air_status_t air_cg_jit_lookup(air_cg_jit_t* j, const char* name, void** out) {
  LLVMOrcExecutorAddress addr = 0;
  LLVMErrorRef e = LLVMOrcLLJITLookup(j->jit, &addr, name);
  if (e) return llvm_error(&j->alloc, "LLVM JIT: lookup", e);
  *out = (void*)(uintptr_t)addr;
  return NULL;
}

void air_cg_jit_free(air_cg_jit_t* j) {
  if (!j) return;
  if (j->jit) {
    LLVMErrorRef e = LLVMOrcDisposeLLJIT(j->jit);
    if (e) LLVMConsumeError(e);
  }
  air_allocator_t a = j->alloc;
  air_mem_free(&a, j);
}

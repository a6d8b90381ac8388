/* air_bench_prog.c - see air_bench_prog.h. */
#include "air_bench_prog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air_bench_util.h"

static int check(abp_t* r, const char* what, air_status_t st) {
  if (!st) return 0;
  fprintf(stderr, "%s: %s: %s\n", r->bench, what, air_status_message(st));
  air_status_free(st);
  return 1;
}

int abp_open(abp_t* r, const abp_desc_t* d) {
  memset(r, 0, sizeof *r);
  r->bench = d->bench ? d->bench : "air-bench";
  if (d->n_bufs > ABP_MAX_BUFS || d->n_ints > ABP_MAX_BUFS ||
      d->n_bufs + d->n_ints > ABP_MAX_BUFS) {
    fprintf(stderr, "%s: too many buffers\n", r->bench);
    return 1;
  }
  char uri[32];
  snprintf(uri, sizeof uri, "cpu:threads=%d", d->threads > 0 ? d->threads : 1);
  air_parse_options_t popts;
  memset(&popts, 0, sizeof popts);
  popts.filename = d->path ? d->path : "bench.mlir";
  if (check(r, "context", air_context_create(NULL, NULL, &r->ctx)) ||
      (d->kernel && check(r, "kernel", air_context_register_kernel(r->ctx, d->kernel,
                                                                   d->kernel_fn, NULL))) ||
      check(r, "device", air_device_open(r->ctx, uri, &r->dev)))
    return 1;
  air_status_t st = d->path ? air_program_parse_file(r->ctx, d->path, &popts, &r->prog)
                            : air_program_parse(r->ctx, d->text, d->len, &popts, &r->prog);
  if (check(r, "parse", st) ||
      check(r, "executable", air_executable_create(r->dev, r->prog, d->exe_flags, &r->exe)) ||
      check(r, "code info", air_executable_code_info(r->exe, &r->code)))
    return 1;
  /* Interpreted: asked for, or no generator could be loaded (abp_code_probe
   * reports that once). A program with nothing to compile (no loop, branch or
   * generic: the matmuls' linalg ops run library kernels) is not. */
  r->interpreted = (d->dispatch_flags & AIR_DISPATCH_INTERPRET) || !r->code.generator;
  if (!(d->dispatch_flags & AIR_DISPATCH_INTERPRET) && r->code.skipped)
    fprintf(stderr, "%s: warning: %u loop(s)/branch(es) of %s are interpreted (the code "
            "generator does not cover them; %u compiled)\n", r->bench, r->code.skipped,
            d->path ? d->path : "this case's program", r->code.units);
  air_binding_t bind[ABP_MAX_BUFS];
  memset(bind, 0, sizeof bind);
  for (uint32_t i = 0; i < d->n_bufs; ++i) {
    if (check(r, "import", air_buffer_import(r->dev, d->host[i], d->bytes[i], 0, &r->buf[i])))
      return 1;
    bind[i].buffer = r->buf[i];
  }
  for (uint32_t i = 0; i < d->n_ints; ++i) bind[d->n_bufs + i].i = d->ints[i];
  uint32_t ordinal = 0;
  air_dispatch_options_t opts;
  memset(&opts, 0, sizeof opts);
  opts.flags = d->dispatch_flags;
  return check(r, "entry", air_executable_lookup(r->exe, d->entry, &ordinal)) ||
         check(r, "command buffer", air_command_buffer_create(r->dev, 0, &r->cb)) ||
         check(r, "dispatch",
               air_command_buffer_dispatch(r->cb, r->exe, ordinal, d->n_bufs + d->n_ints, bind,
                                           &opts)) ||
         check(r, "end", air_command_buffer_end(r->cb)) ||
         check(r, "semaphore", air_semaphore_create(r->ctx, 0, &r->sem));
}

int abp_run(abp_t* r, double* seconds) {
  air_semaphore_t* sems[1] = {r->sem};
  uint64_t v = ++r->value;
  air_timepoint_list_t sig = {1, sems, &v};
  int64_t t0 = ab_now_ns();
  if (check(r, "submit", air_device_queue_execute(r->dev, 0, NULL, r->cb, &sig)) ||
      check(r, "run", air_semaphore_wait(r->sem, v, 600ll * 1000 * 1000 * 1000)))
    return 1;
  *seconds = (double)(ab_now_ns() - t0) * 1e-9;
  return 0;
}

void abp_close(abp_t* r) {
  air_semaphore_release(r->sem);
  air_command_buffer_release(r->cb);
  for (int i = 0; i < ABP_MAX_BUFS; ++i) air_buffer_release(r->buf[i]);
  air_executable_release(r->exe);
  air_program_destroy(r->prog);
  air_device_release(r->dev);
  air_context_destroy(r->ctx);
  memset(r, 0, sizeof *r);
}

char* abp_expand(const char* tmpl, const char* const* keys, const char* const* vals, int n) {
  size_t cap = strlen(tmpl) * 2 + 64, len = 0;
  char* out = malloc(cap);
  if (!out) return NULL;
  for (const char* p = tmpl; *p;) {
    if (len + 64 >= cap) {
      char* grown = realloc(out, cap *= 2);
      if (!grown) {
        free(out);
        return NULL;
      }
      out = grown;
    }
    const char* end = *p == '@' ? strchr(p + 1, '@') : NULL;
    int hit = -1;
    for (int i = 0; end && i < n && hit < 0; ++i)
      if ((size_t)(end - p - 1) == strlen(keys[i]) && !strncmp(p + 1, keys[i], strlen(keys[i])))
        hit = i;
    if (end && hit < 0 && end - p - 1 > 0 && end - p - 1 < 16) {
      int word = 1; /* an unknown @NAME@ is a template bug */
      for (const char* q = p + 1; q < end; ++q) word = word && ((*q >= 'A' && *q <= 'Z') || *q == '_');
      if (word) {
        free(out);
        return NULL;
      }
    }
    if (hit >= 0) {
      size_t vl = strlen(vals[hit]);
      if (vl > 48) { /* values are numbers and type names */
        free(out);
        return NULL;
      }
      memcpy(out + len, vals[hit], vl);
      len += vl;
      p = end + 1;
    } else {
      out[len++] = *p++;
    }
  }
  out[len] = 0;
  return out;
}

void abp_loadavg(char* out, size_t cap) {
  snprintf(out, cap, "?");
  FILE* f = fopen("/proc/loadavg", "r");
  if (!f) return;
  double a = 0, b = 0, c = 0;
  if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3) snprintf(out, cap, "%.2f %.2f %.2f", a, b, c);
  fclose(f);
}

uint32_t abp_take_no_compile(int* argc, char** argv) {
  uint32_t flags = 0;
  int kept = *argc > 0 ? 1 : 0;
  for (int i = 1; i < *argc; ++i) {
    if (!strcmp(argv[i], "--no-compile"))
      flags = AIR_DISPATCH_INTERPRET;
    else
      argv[kept++] = argv[i];
  }
  *argc = kept;
  return flags;
}

/* The probe: one herd with one loop, which the code generator compiles. */
static const char k_probe[] =
    "module {\n"
    "  func.func @probe() {\n"
    "    air.launch () in () {\n"
    "      air.segment @s {\n"
    "        %c1 = arith.constant 1 : index\n"
    "        air.herd @h tile (%tx, %ty) in (%sx=%c1, %sy=%c1) {\n"
    "          %c0 = arith.constant 0 : index\n"
    "          %one = arith.constant 1 : index\n"
    "          %n = arith.constant 64 : index\n"
    "          %x = arith.constant 1.0 : f32\n"
    "          %l = memref.alloc() : memref<64xf32, 2>\n"
    "          scf.for %i = %c0 to %n step %one {\n"
    "            memref.store %x, %l[%i] : memref<64xf32, 2>\n"
    "          }\n"
    "          memref.dealloc %l : memref<64xf32, 2>\n"
    "        }\n"
    "      }\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n";

int abp_code_probe(const char* bench, uint32_t dispatch_flags, abp_code_t* out) {
  memset(out, 0, sizeof *out);
  abp_desc_t d;
  memset(&d, 0, sizeof d);
  d.bench = bench;
  d.text = k_probe, d.len = sizeof k_probe - 1;
  /* Never run: code_info is the executable's, whatever a dispatch asks; the flag
   * keeps abp_open's per-case warning for the caller's own programs. */
  d.dispatch_flags = AIR_DISPATCH_INTERPRET;
  abp_t r;
  int rc = abp_open(&r, &d);
  air_code_info_t ci = r.code;
  char why[96];
  snprintf(why, sizeof why, "%s", ci.why_none ? ci.why_none : "?");
  abp_close(&r);
  if (rc) return 1;
  int interpret = (dispatch_flags & AIR_DISPATCH_INTERPRET) != 0;
  if (ci.units && !interpret) {
    out->compiled = 1;
    snprintf(out->line, sizeof out->line, "herd code compiled (%s%s%s)", ci.source,
             ci.generator ? ", " : "", ci.generator ? ci.generator : "");
    return 0;
  }
  if (interpret) {
    snprintf(out->line, sizeof out->line, "herd code INTERPRETED (--no-compile)");
    return 0;
  }
#ifdef AIR_BENCH_CODEGEN_LIB
  fprintf(stderr,
          "%s: compiled herd code was asked for but none can be made (%s): is %s beside "
          "libairrt (build target airrt_codegen_shared, or all)? Refusing to time the "
          "interpreter under the compiled path's name; --no-compile measures it.\n",
          bench, why, AIR_BENCH_CODEGEN_LIB);
  return 1;
#else
  fprintf(stderr,
          "%s: WARNING: this build has no code generator (AIR_CODEGEN=OFF or no LLVM 16): "
          "every figure below is the INTERPRETER's (%s)\n", bench, why);
  snprintf(out->line, sizeof out->line, "herd code INTERPRETED (no code generator in this build)");
  return 0;
#endif
}

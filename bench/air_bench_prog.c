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
      check(r, "device", air_device_open(r->ctx, uri, &r->dev)))
    return 1;
  air_status_t st = d->path ? air_program_parse_file(r->ctx, d->path, &popts, &r->prog)
                            : air_program_parse(r->ctx, d->text, d->len, &popts, &r->prog);
  if (check(r, "parse", st) ||
      check(r, "executable", air_executable_create(r->dev, r->prog, d->exe_flags, &r->exe)))
    return 1;
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

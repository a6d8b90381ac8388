/* program.c - the public program API: thin glue over parse, print and verify. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "air/program.h"
#include "runtime/base/mem.h"
#include "runtime/ir/context_impl.h"
#include "runtime/ir/ir.h"
#include "runtime/text/parse.h"
#include "runtime/text/print.h"
#include "runtime/base/status_util.h"
#include "runtime/verify/verify.h"

air_status_t air_program_create(air_context_t* context, air_program_t** out_program) {
  if (!context || !out_program)
    return AIR_STATUS(context ? &context->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_program_create: NULL argument");
  return air_ir_program_new(context, "<builder>", out_program);
}

/* "<name>: error: ... more than the limit of ..." for text over max_bytes. */
static air_status_t too_big(const air_allocator_t* a, const char* name, uint64_t have,
                            uint64_t max) {
  char limit[32];
  if (max % ((uint64_t)1 << 20) == 0)
    snprintf(limit, sizeof limit, "%llu MiB", (unsigned long long)(max >> 20));
  else
    snprintf(limit, sizeof limit, "%llu bytes", (unsigned long long)max);
  return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED,
                    "%s: error: the input is %s%llu bytes, more than the limit of %s "
                    "(air_parse_options_t.max_bytes)",
                    name ? name : "<input>", have == UINT64_MAX ? "over " : "",
                    (unsigned long long)(have == UINT64_MAX ? max : have), limit);
}

air_status_t air_program_parse(air_context_t* context, const char* text, size_t length,
                               const air_parse_options_t* options,
                               air_program_t** out_program) {
  if (!context || !out_program || (!text && length))
    return AIR_STATUS(context ? &context->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_program_parse: NULL argument");
  *out_program = NULL;
  if (options && options->flags)
    return AIR_STATUS(&context->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_program_parse: unknown flags 0x%x", options->flags);
  uint64_t max = options && options->max_bytes ? options->max_bytes : AIR_PARSE_DEFAULT_MAX_BYTES;
  if ((uint64_t)length > max)
    return too_big(&context->allocator, options ? options->filename : NULL, length, max);
  air_program_t* p = NULL;
  AIR_RETURN_IF_ERROR(
      air_ir_program_new(context, options ? options->filename : NULL, &p));
  uint32_t first_line = options && options->first_line ? options->first_line : 1;
  air_status_t s = air_parse(p, text ? text : "", length, first_line);
  if (s) {
    air_ir_program_free(p);
    return s;
  }
  *out_program = p;
  return NULL;
}

air_status_t air_program_parse_file(air_context_t* context, const char* path,
                                    const air_parse_options_t* options,
                                    air_program_t** out_program) {
  if (!context || !path || !out_program)
    return AIR_STATUS(context ? &context->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_program_parse_file: NULL argument");
  const air_allocator_t* a = &context->allocator;
  *out_program = NULL;
  uint64_t max = options && options->max_bytes ? options->max_bytes : AIR_PARSE_DEFAULT_MAX_BYTES;
  FILE* f = fopen(path, "rb");
  if (!f)
    return AIR_STATUS(a, errno == ENOENT ? AIR_STATUS_NOT_FOUND : AIR_STATUS_PERMISSION_DENIED,
                      "%s: error: cannot open file: %s", path, strerror(errno));
  /* A directory opens and fails only when read; a regular file's size is known
   * before reading it. Streams meet the limit while being read. */
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && (S_ISDIR(st.st_mode) ||
                                     (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max))) {
    fclose(f);
    if (S_ISDIR(st.st_mode))
      return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "%s: error: is a directory, not a file",
                        path);
    return too_big(a, path, (uint64_t)st.st_size, max);
  }
  char* buf = NULL;
  size_t len = 0, cap = 0;
  air_status_t s = NULL;
  for (;;) {
    /* Reads in chunks of at least 64 KiB; the buffer doubles as the file grows. */
    if (len == cap && !air_mem_grow_z(a, (void**)&buf, &cap, len + 65536, 1)) {
      s = AIR_STATUS_OOM(a, path);
      break;
    }
    size_t n = fread(buf + len, 1, cap - len, f);
    len += n;
    if ((uint64_t)len > max) {
      s = too_big(a, path, UINT64_MAX, max);
      break;
    }
    if (n == 0) {
      if (ferror(f))
        s = AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "%s: error: read error: %s", path,
                       strerror(errno));
      break;
    }
  }
  fclose(f);
  if (!s) {
    air_parse_options_t o = {0};
    if (options) o = *options;
    if (!o.filename) o.filename = path;
    s = air_program_parse(context, buf, len, &o, out_program);
  }
  air_mem_free(a, buf);
  return s;
}

void air_program_destroy(air_program_t* program) { air_ir_program_free(program); }

air_status_t air_program_print(const air_program_t* program, uint32_t flags,
                               air_write_fn_t write, void* user_data) {
  if (!program || !write)
    return AIR_STATUS(program ? &program->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_program_print: NULL argument");
  if (flags)
    return AIR_STATUS(&program->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_program_print: unknown flags 0x%x", flags);
  air_sb_t sb;
  air_sb_init(&sb, &program->allocator);
  air_status_t s = air_print(program, flags, &sb);
  if (!s && sb.oom)
    s = AIR_STATUS_OOM(&program->allocator, "air_program_print");
  if (!s) s = write(user_data, sb.data ? sb.data : "", sb.len);
  air_sb_free(&sb);
  return s;
}

air_status_t air_program_print_to_string(const air_program_t* program, uint32_t flags,
                                         char** out_text, size_t* out_length) {
  if (!program || !out_text)
    return AIR_STATUS(program ? &program->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_program_print_to_string: NULL argument");
  *out_text = NULL;
  if (flags)
    return AIR_STATUS(&program->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_program_print_to_string: unknown flags 0x%x", flags);
  air_sb_t sb;
  air_sb_init(&sb, &program->allocator);
  air_status_t s = air_print(program, flags, &sb);
  if (s) {
    air_sb_free(&sb);
    return s;
  }
  size_t n = 0;
  char* t = air_sb_take(&sb, &n);
  if (!t)
    return AIR_STATUS_OOM(&program->allocator, "air_program_print_to_string");
  *out_text = t;
  if (out_length) *out_length = n;
  return NULL;
}

void air_program_free_string(const air_program_t* program, char* text) {
  if (program && text) program->allocator.free(program->allocator.self, text);
}

air_status_t air_program_verify(const air_program_t* program, const char* target,
                                uint32_t flags) {
  if (!program)
    return AIR_STATUS(NULL, AIR_STATUS_INVALID_ARGUMENT, "air_program_verify: NULL program");
  if (flags)
    return AIR_STATUS(&program->allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "air_program_verify: unknown flags 0x%x", flags);
  return air_verify(program, target, flags);
}

size_t air_program_warning_count(const air_program_t* program) {
  return program ? program->n_warnings : 0;
}

const char* air_program_warning(const air_program_t* program, size_t index) {
  if (!program || index >= program->n_warnings) return NULL;
  return program->warnings[index];
}

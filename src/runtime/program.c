/* program.c - the public program API: thin glue over parse, print and verify. */
#include <stdio.h>
#include <string.h>

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
  FILE* f = fopen(path, "rb");
  if (!f) return AIR_STATUS(a, AIR_STATUS_NOT_FOUND, "%s: cannot open file", path);
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
    if (n == 0) {
      if (ferror(f)) s = AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "%s: read error", path);
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
  return air_verify(program, target, flags);
}

size_t air_program_warning_count(const air_program_t* program) {
  return program ? program->n_warnings : 0;
}

const char* air_program_warning(const air_program_t* program, size_t index) {
  if (!program || index >= program->n_warnings) return NULL;
  return program->warnings[index];
}

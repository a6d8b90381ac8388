/* programs.c - test programs from files and text, and lookups in them. */
#include "support/programs.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "support/status.h"

air_program_t* test_load_file(air_context_t* ctx, const char* path) {
  air_program_t* p = NULL;
  test_check(air_program_parse_file(ctx, path, NULL, &p));
  test_check(air_program_verify(p, NULL, 0));
  return p;
}

air_program_t* test_load_text(air_context_t* ctx, const char* name, const char* text) {
  air_parse_options_t o = {.filename = name};
  air_program_t* p = NULL;
  test_check(air_program_parse(ctx, text, strlen(text), &o, &p));
  test_check(air_program_verify(p, NULL, 0));
  return p;
}

const air_op_t* test_find_func(const air_program_t* p, const char* name) {
  for (const air_op_t* o = p->module->regions[0]->first; o; o = o->next)
    if (o->kind == AIR_OP_FUNC && o->sym && !strcmp(o->sym, name)) return o;
  return NULL;
}

const air_op_t* test_find_op(const air_op_t* op, air_opkind_t kind, const char* sym) {
  if (op->kind == kind && (!sym || (op->sym && !strcmp(op->sym, sym)))) return op;
  for (uint32_t i = 0; i < op->n_regions; ++i)
    for (const air_op_t* o = op->regions[i] ? op->regions[i]->first : NULL; o; o = o->next) {
      const air_op_t* x = test_find_op(o, kind, sym);
      if (x) return x;
    }
  return NULL;
}

void test_text_subst(char* out, size_t cap, const char* text, const char* const* keys,
                     const char* const* vals, int n) {
  size_t o = 0;
  for (const char* t = text; *t;) {
    int k = 0;
    while (k < n && strncmp(t, keys[k], strlen(keys[k]))) ++k;
    const char* piece = k < n ? vals[k] : t;
    size_t len = k < n ? strlen(vals[k]) : 1;
    assert_true(o + len < cap);
    memcpy(out + o, piece, len);
    o += len;
    t += k < n ? strlen(keys[k]) : 1;
  }
  out[o] = 0;
}

/* codegen_test.h - what the code generator tests (test_codegen.c,
 * test_codegen_limits.c) share: a context and a one-worker pool per case, parsing
 * and verifying a program, memref and scalar arguments over caller buffers, the
 * first compiled unit of a function, and run_case: a function run by the
 * interpreter on one copy of its buffers and its unit run compiled on another,
 * the buffers then compared bit for bit (or both stopped at the same op).
 * Header-only (static inline), like parse_test.h. */
#ifndef AIR_TESTS_CODEGEN_TEST_H_
#define AIR_TESTS_CODEGEN_TEST_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "air/context.h"
#include "air/program.h"
#include "codegen/codegen.h"
#include "hal/compiled.h"
#include "hal/cpu/interp/interp.h"
#include "hal/cpu/pool.h"
#include "runtime/ir/ir.h"
#include "support/programs.h"
#include "support/status.h"

typedef struct fx_t {
  air_context_t* ctx;
  air_pool_t* pool;
} fx_t;

static inline int setup(void** state) {
  fx_t* f = calloc(1, sizeof *f);
  assert_null(air_context_create(NULL, NULL, &f->ctx));
  assert_null(air_pool_create(NULL, 1, &f->pool));
  *state = f;
  return 0;
}

static inline int teardown(void** state) {
  fx_t* f = *state;
  air_pool_destroy(f->pool);
  air_context_destroy(f->ctx);
  free(f);
  return 0;
}

static inline air_program_t* load_text(fx_t* f, const char* text) {
  air_parse_options_t o = {.filename = "cg.mlir"};
  air_program_t* p = NULL;
  air_status_t st = air_program_parse(f->ctx, text, strlen(text), &o, &p);
  if (st) fprintf(stderr, "%s\n", text);
  test_check(st);
  test_check(air_program_verify(p, NULL, 0));
  return p;
}

/* Arguments: memrefs over caller buffers, and scalars. */
static inline air_arg_t mref(void* data, uint32_t elem, uint32_t rank,
                             const int64_t* sizes, const int64_t* strides, int64_t offset) {
  air_arg_t a;
  memset(&a, 0, sizeof a);
  a.kind = AIR_ARG_MEMREF;
  a.elem = elem;
  a.memref.data = data;
  a.memref.elem = elem;
  a.memref.rank = rank;
  a.memref.offset = offset;
  int64_t s = 1;
  for (uint32_t k = rank; k-- > 0;) {
    a.memref.sizes[k] = sizes[k];
    a.memref.strides[k] = strides ? strides[k] : s;
    s *= sizes[k];
  }
  return a;
}
static inline air_arg_t iarg(uint32_t elem, int64_t v) {
  air_arg_t a;
  memset(&a, 0, sizeof a);
  a.kind = AIR_ARG_INT;
  a.elem = elem;
  a.i = v;
  return a;
}

static inline const air_op_t* first_unit(const air_program_t* p, const air_op_t* fn) {
  for (const air_op_t* o = fn->regions[0]->first; o; o = o->next)
    if (air_cg_unit_candidate(p, o)) return o;
  return NULL;
}

/* memref.store of a frame word into element `i` of a 1-d view, as the
 * interpreter stores a held value. */
static inline void store_word(const air_memref_t* m, int64_t i, air_cg_word_t w) {
  char* p = (char*)m->data + (m->offset + i * m->strides[0]) * air_elem_size(m->elem);
  switch (m->elem) {
    case AIR_ELEM_F64: memcpy(p, &w.f, 8); break;
    case AIR_ELEM_F32: { float x = (float)w.f; memcpy(p, &x, 4); break; }
    case AIR_ELEM_BF16: {
      float x = (float)w.f;
      uint32_t b;
      memcpy(&b, &x, 4);
      uint16_t h = (uint16_t)(b >> 16); /* exact: the value is a bf16 */
      memcpy(p, &h, 2);
      break;
    }
    case AIR_ELEM_I1: case AIR_ELEM_I8: *(int8_t*)p = (int8_t)w.i; break;
    case AIR_ELEM_I16: { int16_t x = (int16_t)w.i; memcpy(p, &x, 2); break; }
    case AIR_ELEM_I32: { int32_t x = (int32_t)w.i; memcpy(p, &x, 4); break; }
    default: memcpy(p, &w.i, 8); break;
  }
}

typedef struct case_t {
  const char* text;
  uint32_t n_args;
  air_arg_t args[8];
  size_t bytes[8];          /* memref args: buffer size to copy */
  int32_t want_code;        /* AIR_CG_OK or the error */
  air_opkind_t fail_kind;   /* the op the error must name */
} case_t;

/* Runs case `c` both ways and compares. The function's last memref argument
 * receives the unit's results (one element each), stored after the unit. */
static inline void run_case(fx_t* f, case_t* c) {
  air_program_t* p = load_text(f, c->text);
  const air_op_t* fn = test_find_func(p, "f");
  assert_non_null(fn);
  const air_op_t* unit = first_unit(p, fn);
  assert_non_null(unit);

  /* Two copies of every buffer. */
  air_arg_t a_int[8], a_cg[8];
  void* bufs[16] = {0};
  for (uint32_t i = 0; i < c->n_args; ++i) {
    a_int[i] = a_cg[i] = c->args[i];
    if (c->args[i].kind != AIR_ARG_MEMREF) continue;
    bufs[2 * i] = malloc(c->bytes[i]);
    bufs[2 * i + 1] = malloc(c->bytes[i]);
    memcpy(bufs[2 * i], c->args[i].memref.data, c->bytes[i]);
    memcpy(bufs[2 * i + 1], c->args[i].memref.data, c->bytes[i]);
    a_int[i].memref.data = bufs[2 * i];
    a_cg[i].memref.data = bufs[2 * i + 1];
  }

  /* Interpreter. */
  air_interp_desc_t d = {.program = p, .entry = fn, .n_args = c->n_args, .args = a_int,
                         .pool = f->pool, .context = f->ctx};
  air_allocator_init_system(&d.allocator);
  air_status_t ist = air_interp_run(&d);

  /* Compiled, through the hook table the runtime uses. */
  const air_cg_hooks_t* h = air_cg_hooks();
  air_allocator_t al;
  air_allocator_init_system(&al);
  air_cg_program_t* cp = NULL;
  test_check(h->compile(&al, p, &cp));
  const air_cg_unit_t* u = h->find(cp, unit);
  assert_non_null(u);
  air_cg_stats_t stats;
  h->stats(cp, &stats);
  assert_true(stats.n_units >= 1);
  air_cg_word_t in[64], out[64];
  for (uint32_t i = 0; i < u->n_in; ++i) {
    const air_value_info_t* vi = air_ir_value(p, u->in[i]);
    if (vi->def) {
      /* an arith.constant of the function body */
      assert_int_equal(vi->def->kind, AIR_OP_CONSTANT);
      const air_attr_t* v = air_ir_attr_resolve(p, &vi->def->value);
      if (v->kind == AIR_ATTR_FLOAT)
        in[i].f = v->f;
      else
        in[i].i = v->i;
      continue;
    }
    assert_true(vi->block == fn->regions[0]); /* else an argument of the function */
    const air_arg_t* a = &a_cg[vi->index];
    if (a->kind == AIR_ARG_MEMREF)
      in[i].m = &a->memref;
    else if (a->kind == AIR_ARG_FLOAT)
      in[i].f = a->f;
    else
      in[i].i = a->i;
  }
  air_cg_frame_t fr = {.in = in, .out = out};
  int32_t rc = u->fn(&fr);
  assert_int_equal(rc, c->want_code);
  if (rc == AIR_CG_OK) {
    if (ist) fprintf(stderr, "interpreter failed: %s\n", air_status_message(ist));
    assert_null(ist);
    const air_memref_t* res = &a_cg[c->n_args - 1].memref;
    for (uint32_t i = 0; i < u->n_out; ++i) store_word(res, i, out[i]);
  } else {
    assert_non_null(ist);
    const air_op_t* bad = air_cg_op_at(unit, fr.fail_op);
    assert_non_null(bad);
    assert_int_equal(bad->kind, c->fail_kind);
    char where[32];
    snprintf(where, sizeof where, ":%u:%u:", bad->line, bad->col);
    test_expect_in(air_status_message(ist), "%s", where);
    air_status_free(ist);
  }
  for (uint32_t i = 0; i < c->n_args; ++i)
    if (bufs[2 * i]) {
      if (memcmp(bufs[2 * i], bufs[2 * i + 1], c->bytes[i]))
        fprintf(stderr, "argument %u differs between the interpreter and compiled code\n", i);
      assert_memory_equal(bufs[2 * i], bufs[2 * i + 1], c->bytes[i]);
      free(bufs[2 * i]);
      free(bufs[2 * i + 1]);
    }
  h->release(cp);
  air_program_destroy(p);
}

#endif /* AIR_TESTS_CODEGEN_TEST_H_ */

/* verify_test.h - what the verifier tests on IR built in code (test_verify_ir.c,
 * test_verify_robust.c) share: a small IR builder (hb_*: a program with index,
 * f32, token and memref types, ops, results, regions, constants, a function,
 * hierarchy ops, channel puts/gets, a valid program using most op classes),
 * expect(): verify and require the message to name a rule (or pass), and
 * find_op. Header-only (static inline), like parse_test.h. */
#ifndef AIR_TESTS_VERIFY_TEST_H_
#define AIR_TESTS_VERIFY_TEST_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "test_util.h"

#include "air/context.h"
#include "air/program.h"
#include "runtime/ir/ir.h"
#include "runtime/verify/verify.h"

/* True when `msg` names [rule] anywhere. */
static inline bool has_rule(const char* msg, const char* rule) {
  char tag[64];
  snprintf(tag, sizeof tag, "[%s]", rule);
  return strstr(msg, tag) != NULL;
}

typedef struct hb_t {
  air_program_t* p;
  uint32_t line;
  air_tid_t index, f32, token, l3, l1;
} hb_t;

static inline void hb_init(hb_t* h, air_context_t* ctx) {
  memset(h, 0, sizeof(*h));
  assert_null(air_ir_program_new(ctx, "hand.mlir", &h->p));
  int64_t shape[1] = {64};
  h->index = air_ir_type_scalar(h->p, AIR_ELEM_INDEX);
  h->f32 = air_ir_type_scalar(h->p, AIR_ELEM_F32);
  h->token = air_ir_type_token(h->p, false);
  h->l3 = air_ir_type_memref(h->p, AIR_ELEM_F32, 1, shape, AIR_MEM_L3, NULL);
  h->l1 = air_ir_type_memref(h->p, AIR_ELEM_F32, 1, shape, AIR_MEM_L1, NULL);
}

static inline air_block_t* hb_body(const hb_t* h) {
  return h->p->module->regions[0];
}

static inline air_op_t* hb_op(hb_t* h, air_block_t* b, air_opkind_t k, uint32_t nops,
                              uint32_t nres, uint32_t nreg, uint32_t nlists) {
  air_op_t* op = air_ir_op_new(h->p, k, ++h->line, 3, nops, nres, nreg, nlists);
  assert_non_null(op);
  if (b) air_ir_block_append(b, op);
  return op;
}

static inline air_vid_t hb_res(hb_t* h, air_op_t* op, uint32_t i, air_tid_t t, const char* name) {
  air_vid_t v = air_ir_value_new(h->p, t, op, NULL, i, name);
  assert_true(v != 0);
  op->results[i] = v;
  return v;
}

static inline air_block_t* hb_region(hb_t* h, air_op_t* op, uint32_t r, uint32_t nargs,
                                     const air_tid_t* types) {
  air_block_t* b = air_ir_block_new(h->p, op, nargs);
  assert_non_null(b);
  op->regions[r] = b;
  for (uint32_t i = 0; i < nargs; ++i) {
    b->args[i] = air_ir_value_new(h->p, types[i], NULL, b, i, NULL);
    assert_true(b->args[i] != 0);
  }
  return b;
}

static inline air_vid_t hb_const(hb_t* h, air_block_t* b, int64_t v) {
  air_op_t* op = hb_op(h, b, AIR_OP_CONSTANT, 0, 1, 0, 0);
  op->value.kind = AIR_ATTR_INT;
  op->value.type = h->index;
  op->value.i = v;
  return hb_res(h, op, 0, h->index, NULL);
}

static inline void hb_term(hb_t* h, air_block_t* b, air_opkind_t k) {
  hb_op(h, b, k, 0, 0, 0, 0);
}

/* func @f(%a: memref<64xf32>) with an empty body; returns the body. */
static inline air_block_t* hb_func(hb_t* h, air_op_t** out) {
  air_op_t* f = hb_op(h, hb_body(h), AIR_OP_FUNC, 0, 0, 1, 0);
  f->sym = "f";
  f->types = air_ir_alloc(h->p, sizeof(air_tid_t));
  f->types[0] = h->l3;
  f->n_types = 1;
  f->iaux[0] = 1;
  if (out) *out = f;
  return hb_region(h, f, 0, 1, &h->l3);
}

/* A hierarchy op with n dims whose sizes are `sizes`, args `args`. */
static inline air_op_t* hb_hier(hb_t* h, air_block_t* b, air_opkind_t k, uint32_t n,
                                const air_vid_t* sizes, uint32_t nargs, const air_vid_t* args,
                                bool async, air_block_t** body) {
  air_op_t* op = hb_op(h, b, k, n + nargs, async ? 1 : 0, 1, 0);
  op->iaux[0] = n;
  if (async) {
    op->flags |= AIR_OPF_ASYNC;
    hb_res(h, op, 0, h->token, "t");
  }
  air_tid_t types[16] = {0}; /* gcc -O3 false maybe-uninitialized */
  for (uint32_t i = 0; i < n; ++i) {
    op->operands[i] = sizes[i];
    types[i] = types[n + i] = h->index;
  }
  for (uint32_t i = 0; i < nargs; ++i) {
    op->operands[n + i] = args[i];
    types[2 * n + i] = air_ir_value_type(h->p, args[i]);
  }
  *body = hb_region(h, op, 0, 2 * n + nargs, types);
  return op;
}

static inline air_op_t* hb_chan_io(hb_t* h, air_block_t* b, air_opkind_t k,
                                   const char* ch, air_vid_t index, air_vid_t mem,
                                   bool async) {
  air_op_t* op = hb_op(h, b, k, 2, async ? 1 : 0, 0, 3);
  op->sym = ch;
  op->iaux[0] = 1;
  op->operands[0] = index;
  op->operands[1] = mem;
  if (async) {
    op->flags |= AIR_OPF_ASYNC;
    hb_res(h, op, 0, h->token, k == AIR_OP_PUT ? "p" : "g");
  }
  return op;
}

/* A valid program exercising most op classes:
 *   air.channel @c [2]
 *   func @f(%a) { %t = launch async args(%a) { scf.for %i = 0 to 2 { put @c[%i] }
 *                 segment { herd tile(%x) in (2) { %l1 = alloc; get @c[%x] } } }
 *                 wait_all [%t]; return } */
static inline void hb_valid(hb_t* h) {
  air_op_t* ch = hb_op(h, hb_body(h), AIR_OP_CHANNEL, 0, 0, 0, 1);
  ch->sym = "c";
  assert_true(air_ir_list_init(h->p, &ch->lists[0], 1));
  ch->lists[0].items[0].cst = 2;
  air_block_t* fb = hb_func(h, NULL);
  air_vid_t arg = fb->args[0];
  air_block_t* lb;
  air_op_t* launch = hb_hier(h, fb, AIR_OP_LAUNCH, 0, NULL, 1, &arg, true, &lb);
  air_vid_t a = lb->args[0];
  air_vid_t c0 = hb_const(h, lb, 0), c1 = hb_const(h, lb, 1), c2 = hb_const(h, lb, 2);
  air_op_t* loop = hb_op(h, lb, AIR_OP_FOR, 3, 0, 1, 0);
  loop->operands[0] = c0;
  loop->operands[1] = c2;
  loop->operands[2] = c1;
  air_block_t* body = hb_region(h, loop, 0, 1, &h->index);
  hb_chan_io(h, body, AIR_OP_PUT, "c", body->args[0], a, true);
  hb_term(h, body, AIR_OP_YIELD);
  air_block_t* sb;
  hb_hier(h, lb, AIR_OP_SEGMENT, 0, NULL, 0, NULL, false, &sb);
  air_vid_t s2 = hb_const(h, sb, 2);
  air_block_t* hbk;
  hb_hier(h, sb, AIR_OP_HERD, 1, &s2, 0, NULL, false, &hbk);
  air_op_t* al = hb_op(h, hbk, AIR_OP_ALLOC, 0, 1, 0, 0);
  air_vid_t l1 = hb_res(h, al, 0, h->l1, "l1");
  hb_chan_io(h, hbk, AIR_OP_GET, "c", hbk->args[0], l1, false);
  hb_term(h, hbk, AIR_OP_HERD_TERM);
  hb_term(h, sb, AIR_OP_SEGMENT_TERM);
  hb_term(h, lb, AIR_OP_LAUNCH_TERM);
  air_op_t* w = hb_op(h, fb, AIR_OP_WAIT_ALL, 0, 0, 0, 0);
  assert_true(air_ir_vlist_init(h->p, &w->toks[AIR_TOK_DEP], 1));
  w->toks[AIR_TOK_DEP].items[0] = launch->results[0];
  hb_term(h, fb, AIR_OP_RETURN);
}

/* Verifies and checks that the message names `rule` (NULL: must pass). */
static inline void expect(hb_t* h, const char* rule) {
  air_status_t st = air_verify(h->p, NULL, 0);
  if (!rule) {
    if (st) print_error("unexpected: %s\n", air_status_message(st));
    assert_null(st);
  } else {
    assert_int_equal(air_status_code(st), AIR_STATUS_FAILED_PRECONDITION);
    if (!has_rule(air_status_message(st), rule))
      print_error("wanted [%s], got:\n%s\n", rule, air_status_message(st));
    assert_true(has_rule(air_status_message(st), rule));
  }
  air_status_free(st);
  air_ir_program_free(h->p);
  h->p = NULL;
}

static inline air_op_t* find_op(air_op_t* op, air_opkind_t k) {
  if (op->kind == k) return op;
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (air_op_t* o = op->regions[r] ? op->regions[r]->first : NULL; o; o = o->next) {
      air_op_t* f = find_op(o, k);
      if (f) return f;
    }
  return NULL;
}

#endif /* AIR_TESTS_VERIFY_TEST_H_ */

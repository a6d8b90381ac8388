/* test_parse.c - the AIR text parser: every program of tests/data/programs parses
 * and builds the IR ir.h describes (checked op by op on several of them), the
 * syntax cases of tests/data/parse give their expected result, malformed input
 * fails at the right line:col with a message that says what was expected, and
 * no prefix or mutation of a valid program crashes. */
#include <dirent.h>
#include <math.h>
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
#include "runtime/ir/ir.h"
#include "runtime/text/parse.h"
#include "support/alloc.h"

#define PROGRAMS AIR_TEST_DATA_DIR "/programs"
#define SYNTAX AIR_TEST_DATA_DIR "/parse"

/*---------------------------------------------------------------------------*/
/* Helpers                                                                   */
/*---------------------------------------------------------------------------*/

/* Parses `len` bytes as "<input>"; returns the status, *out the program or NULL. */
static air_status_t parse_n(air_context_t* ctx, const char* text, size_t len,
                            uint32_t first_line, air_program_t** out) {
  air_program_t* p = NULL;
  air_status_t s = air_ir_program_new(ctx, "<input>", &p);
  assert_null(s);
  s = air_parse(p, text, len, first_line);
  if (s) {
    air_ir_program_free(p);
    p = NULL;
  }
  *out = p;
  return s;
}

static air_program_t* parse_ok(air_context_t* ctx, const char* text) {
  air_program_t* p;
  air_status_t s = parse_n(ctx, text, strlen(text), 1, &p);
  if (s) fail_msg("unexpected parse error: %s", air_status_message(s));
  return p;
}

static air_program_t* parse_file_ok(air_context_t* ctx, const char* name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", PROGRAMS, name);
  size_t len;
  char* text = test_read_file(path, &len);
  assert_non_null(text);
  air_program_t* p;
  air_status_t s = parse_n(ctx, text, len, 1, &p);
  free(text);
  if (s) fail_msg("%s: %s", name, air_status_message(s));
  return p;
}

/* Parses and requires `<input>:LINE:COL: error: ...SUBSTR...`. */
static void expect_error_at(air_context_t* ctx, const char* text, uint32_t line, uint32_t col,
                            const char* substr) {
  air_program_t* p;
  air_status_t s = parse_n(ctx, text, strlen(text), 1, &p);
  if (!s) {
    air_ir_program_free(p);
    fail_msg("expected an error containing \"%s\" for:\n%s", substr, text);
  }
  char want[64];
  snprintf(want, sizeof want, "<input>:%u:%u: error: ", line, col);
  const char* msg = air_status_message(s);
  if (strncmp(msg, want, strlen(want)) != 0 || !strstr(msg, substr))
    fail_msg("want \"%s...%s\", got \"%s\"", want, substr, msg);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(s);
}

typedef struct find_t {
  air_opkind_t kind;
  int skip;
  air_op_t* found;
  int count;
} find_t;

static bool find_fn(air_op_t* op, void* user) {
  find_t* f = user;
  if (op->kind != f->kind) return true;
  f->count++;
  if (f->skip-- == 0) {
    f->found = op;
    return false;
  }
  return true;
}

/* The nth (0-based, pre-order) op of a kind. */
static air_op_t* nth_op(const air_program_t* p, air_opkind_t kind, int n) {
  find_t f = {kind, n, NULL, 0};
  air_ir_walk(p->module, find_fn, &f);
  if (!f.found) fail_msg("no %s #%d", air_opkind_name(kind), n);
  return f.found;
}

static int count_ops(const air_program_t* p, air_opkind_t kind) {
  find_t f = {kind, -1, NULL, 0};
  air_ir_walk(p->module, find_fn, &f);
  return f.count;
}

static const char* vname(const air_program_t* p, air_vid_t v) {
  const char* n = air_ir_value(p, v)->name;
  return n ? n : "";
}

static const air_type_info_t* vtype(const air_program_t* p, air_vid_t v) {
  return air_ir_type(p, air_ir_value_type(p, v));
}

static const air_attr_t* attr(const air_op_t* op, const char* name) {
  const air_attr_t* a = air_ir_attr_get(op, name);
  if (!a) fail_msg("%s has no attribute %s", air_opkind_name(op->kind), name);
  return a;
}

/* Checks list entry i: a value named `name`, or the literal `cst` when NULL. */
static void check_ix(const air_program_t* p, const air_ixlist_t* l, uint32_t i,
                     const char* name, int64_t cst) {
  assert_true(i < l->n);
  if (name) {
    assert_int_not_equal(l->items[i].value, 0);
    assert_string_equal(vname(p, l->items[i].value), name);
  } else {
    assert_int_equal(l->items[i].value, 0);
    assert_int_equal(l->items[i].cst, cst);
  }
}

static bool has_suffix(const char* s, const char* suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && strcmp(s + n - m, suf) == 0;
}

typedef struct names_t {
  char name[64][128];
  int n;
} names_t;

static int cmp_name(const void* a, const void* b) { return strcmp(a, b); }

static void list_dir(const char* dir, names_t* out) {
  out->n = 0;
  DIR* d = opendir(dir);
  assert_non_null(d);
  for (struct dirent* e; (e = readdir(d));) {
    if (!has_suffix(e->d_name, ".mlir") || out->n == 64 || strlen(e->d_name) >= 128) continue;
    strcpy(out->name[out->n++], e->d_name);
  }
  closedir(d);
  qsort(out->name, (size_t)out->n, sizeof out->name[0], cmp_name);
}

/*---------------------------------------------------------------------------*/
/* The program corpus                                                        */
/*---------------------------------------------------------------------------*/

static bool no_terminator_gaps(air_op_t* op, void* user) {
  (void)user;
  /* Every region of every op but the module ends with a terminator (REDUCE ends
   * scf.parallel). */
  if (op->kind == AIR_OP_MODULE) return true;
  for (uint32_t r = 0; r < op->n_regions; ++r) {
    air_op_t* t = op->regions[r]->last;
    assert_non_null(t);
    if (op->kind == AIR_OP_PARALLEL)
      assert_int_equal(t->kind, AIR_OP_REDUCE);
    else
      assert_int_equal(air_opkind_class(t->kind), AIR_OPC_TERMINATOR);
    assert_ptr_equal(op->regions[r]->parent, op);
  }
  return true;
}

static void test_programs_parse(void** state) {
  names_t files;
  list_dir(PROGRAMS, &files);
  assert_true(files.n >= 12);
  for (int i = 0; i < files.n; ++i) {
    air_program_t* p = parse_file_ok(*state, files.name[i]);
    assert_int_equal(p->n_warnings, 0);
    assert_true(air_ir_walk(p->module, no_terminator_gaps, NULL));
    air_ir_program_free(p);
  }
}

static void test_matmul_structure(void** state) {
  air_program_t* p = parse_file_ok(*state, "matmul_4x4_channels.mlir");
  assert_true(p->module->flags & AIR_OPF_EXPLICIT_MODULE);
  assert_int_equal(p->n_aliases, 1);
  assert_string_equal(p->aliases[0].name, "map");
  assert_int_equal(count_ops(p, AIR_OP_CHANNEL), 6);
  air_op_t* ch = nth_op(p, AIR_OP_CHANNEL, 3);
  assert_string_equal(ch->sym, "channel_3");
  check_ix(p, &ch->lists[0], 0, NULL, 4);
  check_ix(p, &ch->lists[0], 1, NULL, 4);
  assert_int_equal(attr(ch, "depth")->i, 2);
  assert_int_equal(air_ir_type(p, attr(ch, "depth")->type)->elem, AIR_ELEM_I64);

  /* launch: 2 dims, 3 args, async, attributes {id = 1 : i32}, implicit terminator */
  air_op_t* launch = nth_op(p, AIR_OP_LAUNCH, 0);
  assert_int_equal(launch->iaux[0], 2);
  assert_int_equal(launch->n_operands, 5);
  assert_true(launch->flags & AIR_OPF_ASYNC);
  assert_int_equal(launch->n_results, 1);
  assert_string_equal(vname(p, launch->results[0]), "0");
  assert_true(air_ir_type_is_token(p, air_ir_value_type(p, launch->results[0])));
  air_block_t* lb = launch->regions[0];
  assert_int_equal(lb->n_args, 7);
  assert_string_equal(vname(p, lb->args[0]), "arg3");
  assert_string_equal(vname(p, lb->args[2]), "arg5");
  assert_string_equal(vname(p, lb->args[6]), "arg9");
  assert_int_equal(vtype(p, lb->args[6])->kind, AIR_TYPE_MEMREF);
  assert_int_equal(lb->last->kind, AIR_OP_LAUNCH_TERM);
  assert_int_equal(launch->n_attrs, 1);
  assert_string_equal(launch->attrs[0].name, "id");

  /* segment without an iteration space; herd 4x4 with its terminator created */
  air_op_t* seg = nth_op(p, AIR_OP_SEGMENT, 0);
  assert_string_equal(seg->sym, "segment_0");
  assert_int_equal(seg->iaux[0], 0);
  assert_int_equal(seg->n_operands, 0);
  assert_int_equal(seg->regions[0]->last->kind, AIR_OP_SEGMENT_TERM);
  air_op_t* herd = nth_op(p, AIR_OP_HERD, 0);
  assert_int_equal(herd->iaux[0], 2);
  assert_string_equal(vname(p, herd->operands[0]), "c4");
  assert_int_equal(herd->toks[AIR_TOK_DEP].n, 1);
  assert_string_equal(vname(p, herd->toks[AIR_TOK_DEP].items[0]), "async_token_3");
  assert_int_equal(herd->regions[0]->n_args, 4);
  assert_int_equal(herd->regions[0]->last->kind, AIR_OP_HERD_TERM);

  /* put with a mixed offset list [%15, %arg10] and its channel indices */
  air_op_t* put = nth_op(p, AIR_OP_PUT, 2);
  assert_string_equal(put->sym, "channel_3");
  assert_int_equal(put->iaux[0], 2);
  assert_int_equal(put->n_operands, 3);
  assert_string_equal(vname(p, put->operands[0]), "arg12");
  assert_string_equal(vname(p, put->operands[2]), "results");
  check_ix(p, &put->lists[0], 0, "15", 0);
  check_ix(p, &put->lists[0], 1, "arg10", 0);
  check_ix(p, &put->lists[1], 1, "c32", 0);
  check_ix(p, &put->lists[2], 0, "c128", 0);
  assert_string_equal(vname(p, put->toks[AIR_TOK_DEP].items[0]), "arg11");
  assert_int_equal(attr(put, "id")->i, 6);

  /* herd's k loop: %17:2 with two iter_args; %17#1 feeds the output put */
  air_op_t* loop = nth_op(p, AIR_OP_FOR, 1);
  assert_int_equal(loop->n_results, 2);
  assert_int_equal(loop->n_operands, 5);
  assert_string_equal(vname(p, loop->results[0]), "17");
  assert_string_equal(vname(p, loop->results[1]), "17");
  assert_int_equal(loop->regions[0]->n_args, 3);
  air_op_t* yield = loop->regions[0]->last;
  assert_int_equal(yield->kind, AIR_OP_YIELD);
  assert_int_equal(yield->n_operands, 2);
  air_op_t* out = nth_op(p, AIR_OP_PUT, 4);
  assert_string_equal(out->sym, "channel_5");
  assert_int_equal(out->toks[AIR_TOK_DEP].items[0], loop->results[1]);

  /* scf.parallel with init: the body ends with one scf.reduce(lhs, rhs) */
  air_op_t* par = nth_op(p, AIR_OP_PARALLEL, 0);
  assert_int_equal(par->iaux[0], 2);
  assert_int_equal(par->n_operands, 7);
  air_op_t* red = par->regions[0]->last;
  assert_int_equal(red->kind, AIR_OP_REDUCE);
  assert_int_equal(red->n_operands, 1);
  assert_int_equal(red->n_regions, 1);
  assert_int_equal(red->regions[0]->n_args, 2);
  assert_int_equal(red->regions[0]->last->kind, AIR_OP_REDUCE_RETURN);
  assert_int_equal(count_ops(p, AIR_OP_YIELD), 2);

  /* execute with a result, explicit terminator; linalg.matmul ins/outs */
  air_op_t* ex = nth_op(p, AIR_OP_EXECUTE, 0);
  assert_int_equal(ex->n_results, 2);
  assert_string_equal(vname(p, ex->results[1]), "results");
  assert_int_equal(vtype(p, ex->results[1])->memspace, AIR_MEM_L2);
  assert_int_equal(ex->regions[0]->last->n_operands, 1);
  air_op_t* mm = nth_op(p, AIR_OP_MATMUL, 0);
  assert_int_equal(mm->iaux[0], 2);
  assert_int_equal(mm->n_operands, 3);
  air_op_t* wait = nth_op(p, AIR_OP_WAIT_ALL, count_ops(p, AIR_OP_WAIT_ALL) - 1);
  assert_false(wait->flags & AIR_OPF_ASYNC);
  assert_int_equal(wait->n_results, 0);
  assert_int_equal(wait->toks[AIR_TOK_DEP].items[0], launch->results[0]);
  air_ir_program_free(p);
}

static void test_old_token_structure(void** state) {
  air_program_t* p = parse_file_ok(*state, "old_async_token.mlir");
  air_op_t* seg = nth_op(p, AIR_OP_SEGMENT, 0);
  assert_null(seg->sym);
  const air_type_info_t* tt = vtype(p, seg->results[0]);
  assert_int_equal(tt->kind, AIR_TYPE_TOKEN);
  assert_true(tt->old_spelling);
  /* written terminators are kept, not doubled */
  assert_int_equal(count_ops(p, AIR_OP_HERD_TERM), 1);
  assert_int_equal(count_ops(p, AIR_OP_SEGMENT_TERM), 1);
  assert_int_equal(nth_op(p, AIR_OP_HERD, 0)->regions[0]->last->kind, AIR_OP_HERD_TERM);
  /* `1 : i32` memory space */
  air_op_t* dma = nth_op(p, AIR_OP_DMA, 0);
  assert_int_equal(dma->n_lists, 6);
  assert_int_equal(vtype(p, dma->operands[0])->memspace, AIR_MEM_L2);
  assert_int_equal(vtype(p, dma->operands[1])->memspace, AIR_MEM_L3);
  /* old scf.reduce + scf.yield normalised: the body ends with the reduce */
  air_op_t* par = nth_op(p, AIR_OP_PARALLEL, 0);
  air_op_t* red = par->regions[0]->last;
  assert_int_equal(red->kind, AIR_OP_REDUCE);
  assert_int_equal(red->n_operands, 1);
  assert_ptr_equal(red->regions[0]->parent, red);
  assert_true(vtype(p, red->regions[0]->args[0])->old_spelling);
  for (air_op_t* o = par->regions[0]->first; o; o = o->next)
    assert_int_not_equal(o->kind, AIR_OP_YIELD);
  /* execute_terminator with no operands stays explicit */
  air_op_t* ex = nth_op(p, AIR_OP_EXECUTE, 2);
  assert_int_equal(ex->n_results, 1);
  assert_int_equal(ex->regions[0]->last->kind, AIR_OP_EXECUTE_TERM);
  assert_int_equal(count_ops(p, AIR_OP_EXECUTE_TERM), 5);
  air_ir_program_free(p);
}

static void test_spec_forms_structure(void** state) {
  air_program_t* p = parse_file_ok(*state, "spec_token_lists.mlir");
  air_op_t* alloc = nth_op(p, AIR_OP_TOKEN_ALLOC, 0);
  assert_int_equal(alloc->n_results, 1);
  assert_string_equal(vname(p, alloc->results[0]), "part");
  assert_false(vtype(p, alloc->results[0])->old_spelling);

  air_op_t* l0 = nth_op(p, AIR_OP_LAUNCH, 0);
  assert_true(l0->flags & AIR_OPF_ASYNC); /* a bound result means async */
  assert_int_equal(l0->toks[AIR_TOK_AFF].n, 1);
  assert_int_equal(l0->toks[AIR_TOK_AFF].items[0], alloc->results[0]);
  assert_int_equal(l0->toks[AIR_TOK_DEP].n, 0);

  air_op_t* xcd = nth_op(p, AIR_OP_SEGMENT, 0);
  assert_string_equal(xcd->sym, "xcd");
  assert_int_equal(xcd->iaux[0], 1);
  assert_int_equal(xcd->n_operands, 2);
  assert_int_equal(xcd->toks[AIR_TOK_CONC].n, 1);
  assert_string_equal(vname(p, xcd->toks[AIR_TOK_CONC].items[0]), "co");
  assert_int_equal(xcd->n_attrs, 5);
  static const char* const names[] = {"x_loc", "y_loc", "x_size", "y_size",
                                      "backend-granularity"};
  for (int i = 0; i < 5; ++i) assert_string_equal(xcd->attrs[i].name, names[i]);
  assert_int_equal(xcd->attrs[0].value.kind, AIR_ATTR_INT);
  assert_int_equal(xcd->attrs[4].value.kind, AIR_ATTR_STRING);
  assert_string_equal(xcd->attrs[4].value.s, "XCD");
  /* the token arg of the segment is typed by `: !air.token` */
  assert_true(air_ir_type_is_token(p, air_ir_value_type(p, xcd->regions[0]->args[2])));

  air_op_t* warps = nth_op(p, AIR_OP_HERD, 0);
  assert_int_equal(warps->toks[AIR_TOK_DEP].n, 1);
  assert_int_equal(warps->toks[AIR_TOK_AFF].n, 1);
  air_op_t* more = nth_op(p, AIR_OP_HERD, 1);
  assert_true(more->flags & AIR_OPF_SYNC);
  assert_int_equal(more->n_results, 0);
  assert_int_equal(more->toks[AIR_TOK_DEP].items[0], warps->results[0]);
  /* an empty body still gets its terminator */
  assert_ptr_equal(more->regions[0]->first, more->regions[0]->last);
  assert_int_equal(more->regions[0]->last->kind, AIR_OP_HERD_TERM);

  air_op_t* get = nth_op(p, AIR_OP_GET, 0);
  assert_true(get->flags & AIR_OPF_ASYNC);
  assert_int_equal(get->toks[AIR_TOK_DEP].n, 1);
  assert_int_equal(get->lists[0].n, 0);

  air_op_t* l1 = nth_op(p, AIR_OP_LAUNCH, 1);
  assert_true(l1->flags & AIR_OPF_SYNC);
  assert_int_equal(l1->iaux[0], 0);
  assert_int_equal(l1->n_operands, 1);
  assert_int_equal(l1->regions[0]->n_args, 1);
  air_op_t* one = nth_op(p, AIR_OP_HERD, 2);
  assert_int_equal(one->iaux[0], 1);
  assert_string_equal(attr(one, "link_with")->s, "kernel.o");
  air_op_t* decl = nth_op(p, AIR_OP_FUNC, 0);
  assert_true(decl->flags & AIR_OPF_PRIVATE);
  assert_int_equal(decl->n_regions, 0);
  assert_int_equal(decl->iaux[0], 1);
  assert_int_equal(decl->n_types, 1);
  air_ir_program_free(p);
}

static void test_attribute_kinds(void** state) {
  air_program_t* p = parse_file_ok(*state, "module_attrs_opaque.mlir");
  air_op_t* m = p->module;
  assert_true(m->flags & AIR_OPF_EXPLICIT_MODULE);
  assert_string_equal(m->sym, "annotated");
  assert_int_equal(m->n_attrs, 3);
  assert_string_equal(m->attrs[2].name, "transform.with_named_sequence");
  assert_int_equal(m->attrs[2].value.kind, AIR_ATTR_UNIT);

  air_op_t* fn = nth_op(p, AIR_OP_FUNC, 0);
  const air_attr_t* note = attr(fn, "air.note");
  assert_int_equal(note->kind, AIR_ATTR_STRING);
  assert_int_equal(note->n, 18);
  assert_memory_equal(note->s, "line\nnext \"quoted\"", 18);

  air_op_t* launch = nth_op(p, AIR_OP_LAUNCH, 0);
  const air_attr_t* tags = attr(launch, "tags");
  assert_int_equal(tags->kind, AIR_ATTR_ARRAY);
  assert_int_equal(tags->n, 2);
  assert_string_equal(tags->elems[1].s, "b");
  const air_attr_t* opts = attr(launch, "opts");
  assert_int_equal(opts->kind, AIR_ATTR_DICT);
  assert_int_equal(opts->n, 3);
  assert_int_equal(opts->dict[1].value.kind, AIR_ATTR_FLOAT);
  assert_true(opts->dict[1].value.f == 0.5);
  assert_int_equal(air_ir_type(p, opts->dict[1].value.type)->elem, AIR_ELEM_F32);
  assert_int_equal(opts->dict[2].value.kind, AIR_ATTR_DICT);
  assert_int_equal(opts->dict[2].value.dict[0].value.kind, AIR_ATTR_BOOL);
  assert_int_equal(opts->dict[2].value.dict[0].value.i, 1);

  air_op_t* put = nth_op(p, AIR_OP_PUT, 0);
  const air_attr_t* pad = attr(put, "pad_before");
  assert_int_equal(pad->kind, AIR_ATTR_DENSE);
  assert_int_equal(air_ir_type(p, pad->type)->elem, AIR_ELEM_I32);
  assert_int_equal(pad->n, 2); /* zeros: the CPU driver runs padding (dma_padding.mlir) */
  assert_int_equal(pad->ints[1], 0);
  assert_int_equal(attr(put, "pad_after")->kind, AIR_ATTR_DENSE);
  assert_int_equal(attr(put, "pad_after")->n, 0);
  assert_int_equal(attr(put, "meta")->kind, AIR_ATTR_OPAQUE);
  assert_string_equal(attr(put, "meta")->s, "dense<[1, 2]> : tensor<2xi32>");
  assert_string_equal(attr(put, "kind")->s, "#linalg.type_fn<cast_signed>");
  /* an index operand from the launch id on a 1-d channel */
  assert_int_equal(put->iaux[0], 1);

  air_op_t* seg = nth_op(p, AIR_OP_SEGMENT, 0);
  assert_int_equal(attr(seg, "map")->kind, AIR_ATTR_ALIAS);
  const air_attr_t* set = air_ir_attr_resolve(p, attr(seg, "set"));
  assert_int_equal(set->kind, AIR_ATTR_SET);
  assert_int_equal(set->set->n_dims, 1);
  assert_int_equal(set->set->n_syms, 1);
  assert_int_equal(set->set->n_constraints, 2);
  assert_false(set->set->is_eq[0]);
  /* d0 - s0 >= 0 is ADD(d0, MUL(s0, -1)) */
  const air_aff_t* c0 = set->set->constraints[0];
  assert_int_equal(c0->kind, AIR_AFF_ADD);
  assert_int_equal(c0->lhs->kind, AIR_AFF_DIM);
  assert_int_equal(c0->rhs->kind, AIR_AFF_MUL);
  assert_int_equal(c0->rhs->lhs->kind, AIR_AFF_SYM);
  assert_int_equal(c0->rhs->rhs->value, -1);
  int64_t dims[1] = {9}, syms[1] = {4}, v;
  assert_true(air_aff_eval(set->set->constraints[1], dims, syms, &v));
  assert_int_equal(v, -2); /* -d0 + 7 */
  assert_int_equal(attr(seg, "ref")->kind, AIR_ATTR_SYMREF);
  assert_string_equal(attr(seg, "ref")->s, "annotated");
  assert_int_equal(attr(seg, "ty")->kind, AIR_ATTR_TYPE);
  assert_int_equal(air_ir_type(p, attr(seg, "ty")->type)->memspace, 1);
  assert_int_equal(air_ir_type(p, attr(seg, "elem")->type)->elem, AIR_ELEM_F32);
  assert_int_equal(attr(seg, "unit_flag")->kind, AIR_ATTR_UNIT);
  assert_int_equal(attr(seg, "neg")->i, -4);
  assert_int_equal(attr(seg, "big")->i, INT64_C(4294967296));
  assert_int_equal(attr(nth_op(p, AIR_OP_ALLOC, 0), "air.pinned")->kind, AIR_ATTR_UNIT);
  air_op_t* wait = nth_op(p, AIR_OP_WAIT_ALL, 0);
  assert_int_equal(attr(wait, "id")->i, 5);
  air_ir_program_free(p);
}

static void test_scalar_ops(void** state) {
  air_program_t* p = parse_file_ok(*state, "scalar_control.mlir");
  air_op_t* clamp = nth_op(p, AIR_OP_FUNC, 1);
  assert_string_equal(clamp->sym, "clamp");
  assert_int_equal(clamp->iaux[0], 2);
  assert_int_equal(clamp->n_types, 4);
  assert_int_equal(air_ir_type(p, clamp->types[3])->elem, AIR_ELEM_F32);
  air_op_t* ret = clamp->regions[0]->last;
  assert_int_equal(ret->kind, AIR_OP_RETURN);
  assert_int_equal(ret->n_operands, 2);

  air_op_t* c;
  c = nth_op(p, AIR_OP_CONSTANT, 3); /* 1.000000e+00 : f32 */
  assert_int_equal(c->value.kind, AIR_ATTR_FLOAT);
  assert_true(c->value.f == 1.0);
  c = nth_op(p, AIR_OP_CONSTANT, 4); /* 0x7FC00000 : f32 */
  assert_int_equal(c->value.kind, AIR_ATTR_FLOAT);
  assert_true(isnan(c->value.f));
  c = nth_op(p, AIR_OP_CONSTANT, 5); /* -2.500000e-01 : f64 */
  assert_true(c->value.f == -0.25);
  assert_int_equal(air_ir_type(p, c->value.type)->elem, AIR_ELEM_F64);
  c = nth_op(p, AIR_OP_CONSTANT, 6); /* true */
  assert_int_equal(c->value.kind, AIR_ATTR_INT);
  assert_int_equal(c->value.i, 1);
  assert_int_equal(vtype(p, c->results[0])->elem, AIR_ELEM_I1);
  c = nth_op(p, AIR_OP_CONSTANT, 8); /* -1 : i32 */
  assert_int_equal(c->value.i, -1);
  assert_string_equal(vname(p, c->results[0]), "c-1_i32");

  air_op_t* cmp = nth_op(p, AIR_OP_CMPI, 0);
  assert_int_equal(cmp->iaux[0], AIR_CMPI_SLT);
  assert_int_equal(vtype(p, cmp->results[0])->elem, AIR_ELEM_I1);
  assert_int_equal(nth_op(p, AIR_OP_CMPF, 1)->iaux[0], AIR_CMPF_UNO);
  air_op_t* sel = nth_op(p, AIR_OP_SELECT, 0);
  assert_int_equal(sel->n_operands, 3);
  assert_int_equal(sel->operands[0], cmp->results[0]);
  air_op_t* cast = nth_op(p, AIR_OP_EXTUI, 0);
  assert_int_equal(vtype(p, cast->operands[0])->elem, AIR_ELEM_I8);
  assert_int_equal(vtype(p, cast->results[0])->elem, AIR_ELEM_I32);

  air_op_t* iff = nth_op(p, AIR_OP_IF, 0);
  assert_int_equal(iff->n_regions, 2);
  assert_int_equal(iff->n_results, 1);
  air_op_t* iff2 = nth_op(p, AIR_OP_IF, 1);
  assert_int_equal(iff2->n_regions, 1);
  assert_int_equal(iff2->regions[0]->last->kind, AIR_OP_YIELD); /* created */
  assert_int_equal(iff2->regions[0]->last->n_operands, 0);

  air_op_t* call = nth_op(p, AIR_OP_CALL, 0);
  assert_string_equal(call->sym, "clamp");
  assert_int_equal(call->n_results, 2);
  assert_string_equal(vname(p, call->results[1]), "0");

  air_op_t* launch = nth_op(p, AIR_OP_LAUNCH, 0);
  assert_int_equal(launch->iaux[0], 0); /* () in () */
  assert_int_equal(launch->n_operands, 1);

  air_op_t* ap = nth_op(p, AIR_OP_AFFINE_APPLY, 1);
  assert_int_equal(ap->value.kind, AIR_ATTR_MAP);
  assert_int_equal(ap->iaux[0], 1);
  assert_int_equal(ap->n_operands, 2);
  int64_t d[1] = {3}, s[1] = {5}, v;
  assert_true(air_aff_eval(ap->value.map->results[0], d, s, &v));
  assert_int_equal(v, 3 * 16 + 5);

  air_op_t* sv = nth_op(p, AIR_OP_SUBVIEW, 0);
  const air_type_info_t* st = vtype(p, sv->results[0]);
  assert_string_equal(st->layout, "strided<[32, 1], offset: ?>");
  assert_int_equal(st->memspace, AIR_MEM_L1);
  check_ix(p, &sv->lists[0], 0, "4", 0);
  check_ix(p, &sv->lists[1], 1, NULL, 16);
  check_ix(p, &sv->lists[2], 0, NULL, 1);

  air_op_t* af = nth_op(p, AIR_OP_AFFINE_FOR, 0);
  check_ix(p, &af->lists[0], 0, NULL, 0);
  check_ix(p, &af->lists[0], 1, NULL, 16);
  assert_int_equal(af->iaux[1], 4);
  assert_int_equal(af->n_results, 1);
  assert_int_equal(af->regions[0]->n_args, 2);
  air_op_t* af2 = nth_op(p, AIR_OP_AFFINE_FOR, 1);
  check_ix(p, &af2->lists[0], 1, "c0_0", 0);
  assert_int_equal(af2->iaux[1], 1);
  assert_int_equal(af2->regions[0]->last->kind, AIR_OP_AFFINE_YIELD);
  air_op_t* cp = nth_op(p, AIR_OP_COPY, 0);
  assert_int_equal(cp->n_operands, 2);
  air_ir_program_free(p);
}

static void test_linalg_and_bf16(void** state) {
  air_program_t* p = parse_file_ok(*state, "linalg_generic_bf16.mlir");
  assert_int_equal(p->n_aliases, 5);
  air_op_t* g = nth_op(p, AIR_OP_GENERIC, 0);
  assert_int_equal(g->iaux[0], 2);
  assert_int_equal(g->n_operands, 3);
  const air_attr_t* maps = attr(g, "indexing_maps");
  assert_int_equal(maps->kind, AIR_ATTR_ARRAY);
  assert_int_equal(maps->n, 3);
  assert_int_equal(maps->elems[1].kind, AIR_ATTR_ALIAS);
  assert_int_equal(air_ir_attr_resolve(p, &maps->elems[1])->map->n_dims, 3);
  assert_string_equal(attr(g, "iterator_types")->elems[2].s, "reduction");
  air_block_t* body = g->regions[0];
  assert_int_equal(body->n_args, 3);
  assert_int_equal(vtype(p, body->args[0])->elem, AIR_ELEM_BF16);
  assert_int_equal(vtype(p, body->args[2])->elem, AIR_ELEM_F32);
  assert_int_equal(body->last->kind, AIR_OP_LINALG_YIELD);
  assert_int_equal(vtype(p, g->operands[0])->elem, AIR_ELEM_BF16);
  air_op_t* fill = nth_op(p, AIR_OP_FILL, 0);
  assert_int_equal(fill->iaux[0], 1);
  assert_int_equal(nth_op(p, AIR_OP_LINALG_COPY, 0)->iaux[0], 1);
  air_op_t* mm = nth_op(p, AIR_OP_MATMUL, 0);
  assert_int_equal(attr(mm, "cast")->kind, AIR_ATTR_OPAQUE);
  air_op_t* bc = nth_op(p, AIR_OP_CONSTANT, 7); /* 1.000000e+00 : bf16 */
  assert_int_equal(air_ir_type(p, bc->value.type)->elem, AIR_ELEM_BF16);
  air_ir_program_free(p);
}

static void test_execute_results(void** state) {
  air_program_t* p = parse_file_ok(*state, "execute_results.mlir");
  air_op_t* ex = nth_op(p, AIR_OP_EXECUTE, 1);
  assert_int_equal(ex->n_results, 3);
  for (int i = 0; i < 3; ++i) assert_string_equal(vname(p, ex->results[i]), "r");
  assert_int_equal(air_ir_value(p, ex->results[2])->index, 2);
  assert_ptr_equal(air_ir_value(p, ex->results[2])->def, ex);
  assert_int_equal(vtype(p, ex->results[2])->elem, AIR_ELEM_I32);
  assert_int_equal(ex->regions[0]->last->n_operands, 2);
  assert_int_equal(attr(nth_op(p, AIR_OP_ALLOC, 1), "alignment")->i, 64);
  air_op_t* ex2 = nth_op(p, AIR_OP_EXECUTE, 2);
  assert_int_equal(ex2->toks[AIR_TOK_DEP].items[0], ex->results[0]);
  air_op_t* fill = nth_op(p, AIR_OP_FILL, 0);
  assert_int_equal(fill->operands[1], ex->results[1]);
  air_op_t* blocking = nth_op(p, AIR_OP_WAIT_ALL, 1);
  assert_int_equal(blocking->n_results, 0);
  assert_int_equal(blocking->toks[AIR_TOK_DEP].n, 1);
  air_ir_program_free(p);
}

static void test_dma_and_segments(void** state) {
  air_program_t* p = parse_file_ok(*state, "vector_add_dma.mlir");
  air_op_t* dma = nth_op(p, AIR_OP_DMA, 0);
  assert_int_equal(dma->toks[AIR_TOK_DEP].n, 2);
  for (int i = 0; i < 3; ++i) assert_int_equal(dma->lists[i].n, 0);
  check_ix(p, &dma->lists[3], 0, "results", 0);
  check_ix(p, &dma->lists[4], 0, "c256", 0);
  check_ix(p, &dma->lists[5], 0, "c1_1", 0);
  air_op_t* herd = nth_op(p, AIR_OP_HERD, 0);
  assert_int_equal(herd->n_operands, 2 + 3);
  assert_int_equal(herd->regions[0]->n_args, 2 * 2 + 3);
  assert_string_equal(vname(p, herd->regions[0]->args[4]), "arg15");
  air_ir_program_free(p);

  p = parse_file_ok(*state, "segment_unroll_kernel.mlir");
  air_op_t* seg = nth_op(p, AIR_OP_SEGMENT, 0);
  assert_int_equal(seg->iaux[0], 2);
  assert_int_equal(seg->n_operands, 3);
  assert_string_equal(seg->attrs[1].name, "x_size");
  assert_string_equal(attr(nth_op(p, AIR_OP_HERD, 0), "link_with")->s, "scale.o");
  air_ir_program_free(p);

  p = parse_file_ok(*state, "segment_pipeline.mlir");
  assert_int_equal(count_ops(p, AIR_OP_SEGMENT), 2);
  assert_int_equal(count_ops(p, AIR_OP_NEGF), 1);
  air_ir_program_free(p);

  p = parse_file_ok(*state, "no_module_wrapper.mlir");
  assert_false(p->module->flags & AIR_OPF_EXPLICIT_MODULE);
  assert_int_equal(p->module->regions[0]->first->kind, AIR_OP_CHANNEL);
  air_ir_program_free(p);

  p = parse_file_ok(*state, "affine_if_broadcast.mlir");
  air_op_t* aif = nth_op(p, AIR_OP_AFFINE_IF, 0);
  assert_int_equal(aif->iaux[0], 0);
  assert_int_equal(aif->n_operands, 2);
  assert_int_equal(aif->n_regions, 2);
  assert_int_equal(aif->value.kind, AIR_ATTR_ALIAS);
  assert_int_equal(aif->regions[1]->last->kind, AIR_OP_AFFINE_YIELD);
  assert_int_equal(nth_op(p, AIR_OP_AFFINE_IF, 1)->iaux[0], 2);
  const air_attr_t* bs = attr(nth_op(p, AIR_OP_CHANNEL, 0), "broadcast_shape");
  assert_int_equal(bs->kind, AIR_ATTR_ARRAY);
  assert_int_equal(bs->elems[1].i, 4);
  air_ir_program_free(p);

  p = parse_file_ok(*state, "parallel_reduce_tokens.mlir");
  air_op_t* inner = nth_op(p, AIR_OP_PARALLEL, 1);
  assert_int_equal(inner->n_results, 0);
  assert_int_equal(inner->regions[0]->last->kind, AIR_OP_REDUCE);
  assert_int_equal(inner->regions[0]->last->n_operands, 0);
  air_ir_program_free(p);
}

/*---------------------------------------------------------------------------*/
/* Inline cases                                                              */
/*---------------------------------------------------------------------------*/

static void test_implicit_terminators(void** state) {
  air_program_t* p = parse_ok(*state,
                              "func.func @f(%lb: index, %c: i1) {\n"
                              "  scf.for %i = %lb to %lb step %lb {\n"
                              "  }\n"
                              "  affine.for %j = 0 to 4 {\n"
                              "  }\n"
                              "  scf.if %c {\n"
                              "  } else {\n"
                              "  }\n"
                              "  %t = air.execute {\n"
                              "  }\n"
                              "  scf.parallel (%k) = (%lb) to (%lb) step (%lb) {\n"
                              "  }\n"
                              "  return\n"
                              "}\n");
  assert_int_equal(nth_op(p, AIR_OP_FOR, 0)->regions[0]->last->kind, AIR_OP_YIELD);
  assert_int_equal(nth_op(p, AIR_OP_AFFINE_FOR, 0)->regions[0]->last->kind,
                   AIR_OP_AFFINE_YIELD);
  air_op_t* iff = nth_op(p, AIR_OP_IF, 0);
  assert_int_equal(iff->regions[0]->last->kind, AIR_OP_YIELD);
  assert_int_equal(iff->regions[1]->last->kind, AIR_OP_YIELD);
  air_op_t* ex = nth_op(p, AIR_OP_EXECUTE, 0);
  assert_int_equal(ex->regions[0]->last->kind, AIR_OP_EXECUTE_TERM);
  assert_int_equal(ex->regions[0]->last->line, 10);
  assert_int_equal(nth_op(p, AIR_OP_PARALLEL, 0)->regions[0]->last->kind, AIR_OP_REDUCE);
  air_ir_program_free(p);

  /* iter_args need their yield; results of scf.if need both branches */
  expect_error_at(*state,
                  "func.func @f(%lb: index) {\n"
                  "  %r = scf.for %i = %lb to %lb step %lb iter_args(%a = %lb) -> (index) {\n"
                  "  }\n  return\n}\n",
                  3, 3, "the body of 'scf.for' must end with 'scf.yield'");
  expect_error_at(*state,
                  "func.func @f(%lb: index) {\n"
                  "  %r = scf.for %i = %lb to %lb step %lb iter_args(%a = %lb) -> (index) {\n"
                  "    scf.yield\n  }\n  return\n}\n",
                  3, 5, "'scf.yield' yields 0 values but 'scf.for' has 1 result");
}

static void test_ssa_scoping(void** state) {
  /* Isolated bodies may reuse outer names; outer values used inside still
   * resolve (the verifier reports the isolation breach, not the parser). */
  air_program_t* p = parse_ok(*state,
                              "func.func @f(%a: memref<4xf32>) {\n"
                              "  %c1 = arith.constant 1 : index\n"
                              "  air.launch (%x) in (%n=%c1) args(%a=%a) : memref<4xf32> {\n"
                              "    %c1 = arith.constant 1 : index\n"
                              "    %u = arith.addi %c1, %c1 : index\n"
                              "  }\n"
                              "  air.launch (%x) in (%n=%c1) {\n"
                              "    %v = arith.addi %c1, %c1 : index\n"
                              "  }\n"
                              "  return\n"
                              "}\n");
  air_op_t* l0 = nth_op(p, AIR_OP_LAUNCH, 0);
  air_op_t* outer_c1 = nth_op(p, AIR_OP_CONSTANT, 0);
  air_op_t* inner_c1 = nth_op(p, AIR_OP_CONSTANT, 1);
  assert_ptr_equal(air_ir_value(p, l0->operands[1])->block, nth_op(p, AIR_OP_FUNC, 0)->regions[0]);
  assert_string_equal(vname(p, l0->regions[0]->args[2]), "a");
  assert_int_not_equal(l0->regions[0]->args[2], l0->operands[1]);
  assert_int_equal(nth_op(p, AIR_OP_ADDI, 0)->operands[0], inner_c1->results[0]);
  assert_int_equal(nth_op(p, AIR_OP_ADDI, 1)->operands[0], outer_c1->results[0]);
  air_ir_program_free(p);

  /* Names of sibling regions are independent; results live after their op. */
  p = parse_ok(*state,
               "func.func @g(%c: i1) {\n"
               "  scf.if %c {\n    %x = arith.constant 1 : index\n  }\n"
               "  scf.if %c {\n    %x = arith.constant 2 : index\n  }\n"
               "  %x = arith.constant 3 : index\n"
               "  return\n}\n");
  assert_int_equal(count_ops(p, AIR_OP_CONSTANT), 3);
  air_ir_program_free(p);

  /* A forward reference becomes the definition itself. */
  p = parse_ok(*state,
               "func.func @h() {\n"
               "  %w = air.wait_all async [%t]\n"
               "  %t = air.wait_all async\n"
               "  return\n}\n");
  air_op_t* w = nth_op(p, AIR_OP_WAIT_ALL, 0);
  air_op_t* t = nth_op(p, AIR_OP_WAIT_ALL, 1);
  assert_int_equal(w->toks[AIR_TOK_DEP].items[0], t->results[0]);
  assert_ptr_equal(air_ir_value(p, t->results[0])->def, t);
  air_ir_program_free(p);

  expect_error_at(*state,
                  "func.func @h() {\n  %w = air.wait_all async [%t]\n  return\n}\n"
                  "func.func @k() {\n  %t = air.wait_all async\n  return\n}\n",
                  2, 28, "use of undefined value '%t'");
  expect_error_at(*state,
                  "func.func @h(%a: index) {\n"
                  "  %s = arith.addi %b#2, %a : index\n"
                  "  %b:2 = air.execute -> (index) {\n"
                  "    air.execute_terminator %a : index\n  }\n  return\n}\n",
                  2, 19, "use of '%b#2', but its definition at 3:3 has 2 values");
}

static void test_first_line_offset(void** state) {
  const char* text = "func.func @f() {\n  %0 = foo.bar\n}\n";
  air_program_t* p;
  air_status_t s = parse_n(*state, text, strlen(text), 41, &p);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "<input>:42:8: error: unsupported operation"));
  air_status_free(s);
  /* a byte-order mark is skipped and not counted in columns */
  s = parse_n(*state, "\xEF\xBB\xBF$", 4, 1, &p);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "<input>:1:1: error: unexpected character '$'"));
  air_status_free(s);
  /* ops carry offset locations too */
  s = parse_n(*state, "\n  %c = arith.constant 0 : index\n", 32, 10, &p);
  assert_null(s);
  air_op_t* c = nth_op(p, AIR_OP_CONSTANT, 0);
  assert_int_equal(c->line, 11);
  assert_int_equal(c->col, 3);
  air_ir_program_free(p);
}

static void test_affine_expressions(void** state) {
  air_program_t* p = parse_ok(*state,
                              "#m = affine_map<(d0, d1)[s0] -> (d0 - d1, -d0, (d0 + 3) floordiv 2, "
                              "d1 ceildiv 4, d0 mod 5, d0 * -3 + s0, -7)>\n"
                              "#s = affine_set<(i) : (i <= 5, i == 2, 3 >= i)>\n");
  const air_affine_map_t* m = p->aliases[0].value.map;
  assert_int_equal(m->n_dims, 2);
  assert_int_equal(m->n_syms, 1);
  assert_int_equal(m->n_results, 7);
  const air_aff_t* sub = m->results[0];
  assert_int_equal(sub->kind, AIR_AFF_ADD);
  assert_int_equal(sub->rhs->kind, AIR_AFF_MUL);
  assert_int_equal(sub->rhs->lhs->kind, AIR_AFF_DIM);
  assert_int_equal(sub->rhs->lhs->value, 1);
  assert_int_equal(sub->rhs->rhs->value, -1);
  assert_int_equal(m->results[1]->kind, AIR_AFF_MUL);
  assert_int_equal(m->results[2]->kind, AIR_AFF_FLOORDIV);
  assert_int_equal(m->results[3]->kind, AIR_AFF_CEILDIV);
  assert_int_equal(m->results[4]->kind, AIR_AFF_MOD);
  assert_int_equal(m->results[6]->kind, AIR_AFF_CONST);
  assert_int_equal(m->results[6]->value, -7);
  int64_t d[2] = {-7, 10}, s[1] = {100}, want[7] = {-17, 7, -2, 3, 3, 121, -7}, v;
  for (int i = 0; i < 7; ++i) {
    assert_true(air_aff_eval(m->results[i], d, s, &v));
    assert_int_equal(v, want[i]);
  }
  const air_affine_set_t* st = p->aliases[1].value.set;
  assert_int_equal(st->n_constraints, 3);
  assert_false(st->is_eq[0]);
  assert_true(st->is_eq[1]);
  int64_t di[1] = {2};
  for (int i = 0; i < 3; ++i) {
    assert_true(air_aff_eval(st->constraints[i], di, NULL, &v));
    assert_true(i == 1 ? v == 0 : v >= 0);
  }
  air_ir_program_free(p);
}

static void test_opaque_and_skipped_text(void** state) {
  air_program_t* p = parse_ok(*state,
                              "#loc = loc(\"x.py\":1:2)\n"
                              "ml_program.global private @g(dense<[1.0,\n"
                              "    2.0]> : tensor<2xf32>) : tensor<2xf32>\n"
                              "func.func @f() {\n  return loc(#loc)\n} loc(#loc)\n"
                              "{-# dialect_resources: { builtin: { } } #-}\n");
  air_op_t* op = p->module->regions[0]->first;
  assert_int_equal(op->kind, AIR_OP_OPAQUE);
  assert_string_equal(op->text, "ml_program.global private @g(dense<[1.0,\n    2.0]> : "
                                "tensor<2xf32>) : tensor<2xf32>");
  assert_int_equal(p->n_warnings, 1);
  assert_non_null(strstr(p->warnings[0], "<input>:2:1: warning:"));
  assert_int_equal(p->n_aliases, 0);
  assert_int_equal(op->next->kind, AIR_OP_FUNC);
  air_ir_program_free(p);
  /* inside a region another dialect is an error, as is an unknown air op */
  expect_error_at(*state, "func.func @f() {\n  ml_program.global @g : memref<2xf32>\n}\n", 2, 3,
                  "unsupported operation 'ml_program.global'");
  expect_error_at(*state, "air.bogus @r {\n}\n", 1, 1, "unsupported operation 'air.bogus'");
  /* kept text must be balanced, or its extent would change when printed back */
  expect_error_at(*state, "foo.bar(1))\n", 1, 11, "unbalanced ')' in operation 'foo.bar'");
  expect_error_at(*state, "foo.bar(1]\n", 1, 10, "unbalanced ']' in operation 'foo.bar'");
}

static void test_nesting_limits(void** state) {
  enum { DEEP = 300 };
  char* text = malloc(DEEP * 64 + 64);
  assert_non_null(text);
  size_t n = 0;
  n += (size_t)sprintf(text + n, "func.func @f(%%c: i1) {\n");
  for (int i = 0; i < DEEP; ++i) n += (size_t)sprintf(text + n, "scf.if %%c {\n");
  for (int i = 0; i < DEEP; ++i) n += (size_t)sprintf(text + n, "}\n");
  n += (size_t)sprintf(text + n, "return\n}\n");
  air_program_t* p;
  air_status_t s = parse_n(*state, text, n, 1, &p);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "nested more than 256 deep"));
  air_status_free(s);
  free(text);

  enum { BRACKETS = 100000 };
  text = malloc(BRACKETS + 64);
  assert_non_null(text);
  n = (size_t)sprintf(text, "air.channel @c [1] {a = ");
  memset(text + n, '[', BRACKETS);
  n += BRACKETS;
  s = parse_n(*state, text, n, 1, &p);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "attribute nesting is too deep"));
  air_status_free(s);
  n = (size_t)sprintf(text, "#m = affine_map<(d0) -> (");
  memset(text + n, '(', BRACKETS);
  n += BRACKETS;
  s = parse_n(*state, text, n, 1, &p);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "affine expression nesting is too deep"));
  air_status_free(s);
  free(text);
}

/* Linear time: a large program parses, and 4x the ops costs well under 16x. */
static double parse_time(air_context_t* ctx, int n_ops) {
  size_t cap = (size_t)n_ops * 64 + 256, n = 0;
  char* text = malloc(cap);
  assert_non_null(text);
  n += (size_t)sprintf(text + n, "func.func @big() {\n  %%c1 = arith.constant 1 : index\n"
                                 "  %%t0 = air.wait_all async\n");
  for (int i = 1; i < n_ops / 2; ++i)
    n += (size_t)sprintf(text + n, "  %%v%d = arith.addi %%c1, %%c1 : index\n"
                                   "  %%t%d = air.wait_all async [%%t%d]\n",
                         i, i, i - 1);
  n += (size_t)sprintf(text + n, "  return\n}\n");
  air_program_t* p;
  clock_t t0 = clock();
  air_status_t s = parse_n(ctx, text, n, 1, &p);
  double dt = (double)(clock() - t0) / CLOCKS_PER_SEC;
  assert_null(s);
  assert_int_equal(p->n_values, (uint32_t)(2 + 2 * (n_ops / 2 - 1) + 1));
  air_ir_program_free(p);
  free(text);
  return dt;
}

static void test_scaling(void** state) {
  double small = parse_time(*state, 50000);
  double big = parse_time(*state, 200000);
  if (small > 0.01) assert_true(big < small * 16);
}

static void test_type_and_token_spellings(void** state) {
  air_program_t* p = parse_ok(*state,
                              "!t = !air.token\n"
                              "func.func @f(%a: !t, %b: !air.async.token,\n"
                              "    %m: memref<?x8xbf16, 2 : i32>, %n: memref<f16>, %k: i16) {\n"
                              "  %w = air.wait_all async [%a, %b]\n"
                              "  %o = arith.constant 1 : index\n"
                              "  %x = memref.alloc(%o) : memref<?x8xbf16, 2>\n"
                              "  %y = memref.load %x[%o, %o] : memref<?x8xbf16, 2>\n"
                              "  return\n}\n");
  air_op_t* fn = nth_op(p, AIR_OP_FUNC, 0);
  const air_type_info_t* a = air_ir_type(p, fn->types[0]);
  const air_type_info_t* b = air_ir_type(p, fn->types[1]);
  assert_int_equal(a->kind, AIR_TYPE_TOKEN);
  assert_false(a->old_spelling);
  assert_true(b->old_spelling);
  const air_type_info_t* m = air_ir_type(p, fn->types[2]);
  assert_int_equal(m->rank, 2);
  assert_true(m->shape[0] == AIR_DIM_DYNAMIC);
  assert_int_equal(m->shape[1], 8);
  assert_int_equal(m->elem, AIR_ELEM_BF16);
  assert_int_equal(m->memspace, 2);
  assert_null(m->layout);
  assert_int_equal(air_ir_type(p, fn->types[3])->rank, 0);
  assert_int_equal(fn->types[2], air_ir_value_type(p, nth_op(p, AIR_OP_ALLOC, 0)->results[0]));
  assert_int_equal(nth_op(p, AIR_OP_ALLOC, 0)->n_operands, 1);
  assert_int_equal(vtype(p, nth_op(p, AIR_OP_LOAD, 0)->results[0])->elem, AIR_ELEM_BF16);
  air_ir_program_free(p);
}

static void test_bracketed_placement(void** state) {
  /* The spec writes optional parts in brackets; `[x_loc=0]` is taken as written. */
  air_program_t* p = parse_ok(*state,
                              "func.func @f() {\n"
                              "  %c2 = arith.constant 2 : index\n"
                              "  air.launch {\n"
                              "    air.segment @s [x_loc=1] [y_loc=2] [backend-granularity=XCD] {\n"
                              "      %c1 = arith.constant 1 : index\n"
                              "      air.herd @h tile (%x) in (%sx=%c1) [link_with=\"k.o\"] {\n"
                              "      }\n    }\n  }\n  return\n}\n");
  air_op_t* seg = nth_op(p, AIR_OP_SEGMENT, 0);
  assert_int_equal(seg->n_attrs, 3);
  assert_int_equal(attr(seg, "y_loc")->i, 2);
  assert_string_equal(attr(seg, "backend-granularity")->s, "XCD");
  assert_string_equal(attr(nth_op(p, AIR_OP_HERD, 0), "link_with")->s, "k.o");
  assert_int_equal(nth_op(p, AIR_OP_LAUNCH, 0)->regions[0]->last->kind, AIR_OP_LAUNCH_TERM);
  air_ir_program_free(p);
}

static void test_misc_forms(void** state) {
  air_program_t* p = parse_ok(*state,
                              "air.channel @c []\n"
                              "func.func private @k(memref<4xf32>) -> i32\n"
                              "func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {\n"
                              "  air.launch @remote\n"
                              "  %t = air.channel.put async @c[] (%a[] [] []) dest(%b) "
                              ": (memref<4xf32>, memref<4xf32>)\n"
                              "  %g = air.channel.get [%t] @c (%b) : (memref<4xf32>)\n"
                              "  %r = call @k(%a) : (memref<4xf32>) -> i32\n"
                              "  %s = arith.addi %r, %r overflow<nsw> : i32\n"
                              "  return\n}\n");
  air_op_t* l = nth_op(p, AIR_OP_LAUNCH, 0);
  assert_string_equal(l->sym, "remote");
  assert_int_equal(l->n_regions, 0);
  assert_int_equal(l->n_results, 0);
  air_op_t* put = nth_op(p, AIR_OP_PUT, 0);
  assert_true(put->flags & AIR_OPF_HAS_DEST);
  assert_int_equal(put->n_operands, 2);
  assert_string_equal(vname(p, put->operands[1]), "b");
  assert_int_equal(put->iaux[0], 0);
  air_op_t* get = nth_op(p, AIR_OP_GET, 0);
  assert_true(get->flags & AIR_OPF_ASYNC);
  for (int i = 0; i < 3; ++i) assert_int_equal(get->lists[i].n, 0);
  air_op_t* call = nth_op(p, AIR_OP_CALL, 0);
  assert_string_equal(call->sym, "k");
  assert_int_equal(vtype(p, call->results[0])->elem, AIR_ELEM_I32);
  assert_int_equal(nth_op(p, AIR_OP_FUNC, 0)->n_types, 2);
  assert_int_equal(nth_op(p, AIR_OP_CHANNEL, 0)->lists[0].n, 0);
  assert_int_equal(nth_op(p, AIR_OP_RETURN, 0)->n_operands, 0);
  air_ir_program_free(p);
}

/* affine.load/store subscripts become a map over the distinct SSA values (dims in
 * order of first use, then `symbol(...)` values); min/max keep multi-result maps;
 * reshapes keep their reassociation as indices plus group sizes. */
static void test_affine_access_and_reshape(void** state) {
  air_program_t* p = parse_ok(
      *state,
      "func.func @f(%m: memref<4x8xf32, 2>, %i: index, %j: index, %s: index) {\n"
      "  %v = affine.load %m[%j * 2 + %i, symbol(%s) - %j] : memref<4x8xf32, 2>\n"
      "  affine.store %v, %m[%i, 3] : memref<4x8xf32, 2>\n"
      "  %a = affine.min affine_map<(d0)[s0] -> (d0 + 4, s0)>(%i)[%s]\n"
      "  %b = affine.max affine_map<(d0) -> (d0, 2)>(%j)\n"
      "  %c = memref.collapse_shape %m [[0, 1]] : memref<4x8xf32, 2> into memref<32xf32, 2>\n"
      "  %e = memref.expand_shape %c [[0, 1]] output_shape [%i, 8] : memref<32xf32, 2> into "
      "memref<?x8xf32, 2>\n"
      "  %d = memref.cast %m : memref<4x8xf32, 2> to memref<?x8xf32, 2>\n"
      "  return\n}\n");
  air_op_t* ld = nth_op(p, AIR_OP_AFFINE_LOAD, 0);
  assert_int_equal(air_opkind_class(ld->kind), AIR_OPC_LOAD);
  assert_int_equal(ld->n_operands, 4); /* memref, %j, %i, %s */
  assert_int_equal(ld->iaux[0], 2);
  assert_string_equal(vname(p, ld->operands[1]), "j");
  assert_string_equal(vname(p, ld->operands[2]), "i");
  assert_string_equal(vname(p, ld->operands[3]), "s");
  const air_affine_map_t* m = ld->value.map;
  assert_int_equal(ld->value.kind, AIR_ATTR_MAP);
  assert_int_equal(m->n_dims, 2);
  assert_int_equal(m->n_syms, 1);
  assert_int_equal(m->n_results, 2);
  int64_t dims[2] = {5, 1}, syms[1] = {7}, out;
  assert_true(air_aff_eval(m->results[0], dims, syms, &out));
  assert_int_equal(out, 11);
  assert_true(air_aff_eval(m->results[1], dims, syms, &out));
  assert_int_equal(out, 2);
  assert_int_equal(ld->n_results, 1);
  air_op_t* stv = nth_op(p, AIR_OP_AFFINE_STORE, 0);
  assert_int_equal(stv->n_operands, 3); /* value, memref, %i */
  assert_int_equal(stv->value.map->n_results, 2);
  assert_int_equal(stv->value.map->results[1]->kind, AIR_AFF_CONST);
  air_op_t* mn = nth_op(p, AIR_OP_AFFINE_MIN, 0);
  assert_int_equal(mn->value.map->n_results, 2);
  assert_int_equal(mn->iaux[0], 1);
  assert_int_equal(mn->n_operands, 2);
  assert_int_equal(nth_op(p, AIR_OP_AFFINE_MAX, 0)->n_operands, 1);
  air_op_t* co = nth_op(p, AIR_OP_COLLAPSE_SHAPE, 0);
  assert_int_equal(co->n_lists, 2);
  assert_int_equal(co->lists[0].n, 2);
  assert_int_equal(co->lists[1].n, 1);
  assert_int_equal(co->lists[1].items[0].cst, 2);
  air_op_t* ex = nth_op(p, AIR_OP_EXPAND_SHAPE, 0);
  assert_int_equal(ex->n_lists, 3);
  assert_string_equal(vname(p, ex->lists[2].items[0].value), "i");
  assert_int_equal(ex->lists[2].items[1].cst, 8);
  air_op_t* ca = nth_op(p, AIR_OP_MEMREF_CAST, 0);
  assert_int_equal(ca->n_lists, 0);
  assert_int_equal(vtype(p, ca->results[0])->shape[0], AIR_DIM_DYNAMIC);
  air_ir_program_free(p);
}

static void test_out_of_memory(void** state) {
  (void)state;
  test_budget_t b;
  test_budget_init(&b, -1);
  air_context_t* ctx = NULL;
  assert_null(air_context_create(NULL, &b.allocator, &ctx));
  long base = test_budget_live(&b);
  size_t len;
  char path[512];
  snprintf(path, sizeof path, "%s/%s", PROGRAMS, "execute_results.mlir");
  char* text = test_read_file(path, &len);
  assert_non_null(text);
  int oom = 0;
  for (long budget = 0;; ++budget) {
    air_program_t* p = NULL;
    test_budget_set(&b, -1);
    assert_null(air_ir_program_new(ctx, "<input>", &p));
    test_budget_set(&b, budget);
    air_status_t s = air_parse(p, text, len, 1);
    test_budget_set(&b, -1);
    air_ir_program_free(p);
    if (!s) break;
    assert_int_equal(air_status_code(s), AIR_STATUS_RESOURCE_EXHAUSTED);
    air_status_free(s);
    assert_int_equal(test_budget_live(&b), base);
    ++oom;
    assert_true(budget < 100000);
  }
  assert_true(oom > 5);
  assert_int_equal(test_budget_live(&b), base);
  free(text);
  air_context_destroy(ctx);
}

/*---------------------------------------------------------------------------*/
/* Malformed input                                                           */
/*---------------------------------------------------------------------------*/

typedef struct bad_t {
  const char* text;
  uint32_t line, col;
  const char* msg;
} bad_t;

static const bad_t k_bad[] = {
    /* constructs of mlir-air's wider programs (tests/data/constructs) */
    {"func.func @f(%i: index) {\n  scf.index_switch %i\n  case 1 {\n  }\n  case 1 {\n  }\n"
     "  default {\n  }\n  return\n}\n",
     5, 8, "case value 1 appears twice in 'scf.index_switch'"},
    {"func.func @f(%i: index) {\n  scf.index_switch %i\n  return\n}\n", 3, 3,
     "expected 'case' or 'default' in 'scf.index_switch'"},
    {"func.func @f() {\n  scf.forall (%i, %j) in (4) {\n  }\n  return\n}\n", 2, 3,
     "'scf.forall' has 2 induction variables but 1/1/1 bounds/steps"},
    {"func.func @f() {\n  scf.forall.in_parallel {\n  }\n  return\n}\n", 2, 3,
     "'scf.forall.in_parallel' must end an 'scf.forall' body"},
    {"func.func @f(%m: memref<*xf32, strided<[1]>>) {\n  return\n}\n", 1, 32,
     "an unranked memref has no layout, only a memory space"},
    {"func.func @f(%t: tensor<*xf32, #enc>) {\n  return\n}\n", 1, 32,
     "an unranked tensor has no encoding"},
    {"memref.global \"hidden\" @g : memref<2xf32>\n", 1, 15,
     "unknown symbol visibility \"hidden\""},
    {"func.func @f(%m: memref<4xf32>) {\n  %t = bufferization.to_tensor %m : tensor<4xf32>\n"
     "  return\n}\n",
     2, 37, "expected a memref type, found 'tensor<4xf32>'"},
    {"func.func @f(%m: memref<4x4xf32>) {\n  %t = memref.transpose %m (d0, d1)[s0] -> (d1, d0) "
     ": memref<4x4xf32> to memref<4x4xf32>\n  return\n}\n",
     2, 28, "'memref.transpose' needs a permutation map"},
    {"func.func @f() {\n  %i = linalg.index 0 : i32\n  return\n}\n", 2, 25,
     "'linalg.index' has type 'index'"},
    {"func.func @f(%m: memref<4xf32>) {\n  %v = memref.reinterpret_cast %m to offset: [0, 1], "
     "sizes: [4], strides: [1] : memref<4xf32> to memref<4xf32>\n  return\n}\n",
     2, 38, "'offset' takes exactly one value"},
    {"func.func @f() {\n  air.custom @k operands (%a) : f32, f32\n  return\n}\n", 2, 26,
     "1 operand but 2 types"},
    {"func.func @f() {\n  %c0 = arith.constant 0 : index\n", 3, 1,
     "expected '}' to close the region opened at 1:16"},
    {"func.func @f(%a: vector<4xf32>) {\n  return\n}\n", 1, 18, "unsupported type 'vector'"},
    {"func.func @f(%m: memref<4xvector<4xf32>>) {\n  return\n}\n", 1, 27,
     "unsupported memref element type 'vector'"},
    {"func.func @f() {\n  %0 = vector.transfer_read %a : f32\n  return\n}\n", 2, 8,
     "unsupported operation 'vector.transfer_read'"},
    {"func.func @f() {\n  %0 = arith.addi %x, %x : index\n  return\n}\n", 2, 19,
     "use of undefined value '%x'"},
    {"func.func @f() {\n  %c = arith.constant 0 : index\n  %c = arith.constant 1 : index\n"
     "  return\n}\n",
     3, 3, "redefinition of value '%c' (first defined at 2:3)"},
    {"func.func @f() {\n  %a, %b = arith.constant 0 : index\n  return\n}\n", 2, 3,
     "'arith.constant' produces 1 result but 2 names are bound"},
    {"func.func @f() {\n  %t, %v = air.wait_all async\n  return\n}\n", 2, 3,
     "'air.wait_all' produces 1 result but 2 names are bound"},
    {"air.channel @c [2] {depth = }\n", 1, 29, "expected an attribute value, found '}'"},
    {"air.channel @c [2] {depth = 2 : i32 x}\n", 1, 37,
     "expected ',' or '}' in an attribute dictionary, found 'x'"},
    {"func.func @f(%a: index) {\n  %0 = arith.addi %a, %a index\n  return\n}\n", 2, 26,
     "expected ':' and a type, found 'index'"},
    {"func.func @f() {\n}\n", 2, 1, "the body of 'func.func' must end with 'func.return'"},
    {"func.func @f() {\n  scf.yield\n}\n", 2, 3,
     "'scf.yield' cannot end the body of 'func.func': expected 'func.return'"},
    {"func.func @f() {\n  return\n  %c = arith.constant 0 : index\n}\n", 3, 3,
     "operation 'arith.constant' after the terminator 'func.return'"},
    {"func.func @f() {\n  %m = memref.alloc() : memref<4xf32, 2>\n"
     "  memref.dealloc %m : memref<4xf32, 1>\n  return\n}\n",
     3, 18, "use of value '%m' expects different type than prior uses: 'memref<4xf32, 1>' vs "
            "'memref<4xf32, 2>'"},
    {"func.func @f(%a: index) {\n  %1 = arith.addi %z, %a : index\n"
     "  %z = arith.constant 1 : i32\n  return\n}\n",
     3, 3, "'%z' is defined with type 'i32' but was used at 2:19 as 'index'"},
    {"func.func @f(%a: index) {\n  %0 = arith.addi %a, %a : index\n"
     "  %1 = arith.addi %0#1, %a : index\n  return\n}\n",
     3, 19, "result number 1 is out of range: '%0' has 1 value"},
    {"func.func @f() {\n  %c2 = arith.constant 2 : index\n"
     "  air.herd tile (%x, %y) in (%sx=%c2) {\n  }\n  return\n}\n",
     3, 3, "the iteration space has 2 ids but 1 size"},
    {"func.func @f(%a: index) {\n  air.launch args(%x=%a, %y=%a) : index {\n  }\n"
     "  return\n}\n",
     2, 3, "2 arguments but 1 type"},
    {"func.func @f(%a: index) {\n  %0 = arith.cmpi lt, %a, %a : index\n  return\n}\n", 2, 19,
     "unknown predicate 'lt' for 'arith.cmpi'"},
    {"func.func @f() {\n  \"foo.bar\"() : () -> ()\n}\n", 2, 3,
     "the generic operation form is not supported"},
    {"air.channel @c [1] {a = \"abc\n}\n", 1, 25, "unterminated string"},
    {"func.func @f() {\n  $x\n}\n", 2, 3, "unexpected character '$'"},
    {"func.func @f(%a: memref<64 64xf32>) {\n  return\n}\n", 1, 27,
     "expected 'x' after a memref dimension"},
    {"func.func @f(%a: index) {\n  affine.for %i = max #m(%a) to 10 {\n  }\n  return\n}\n", 2,
     19, "unsupported 'affine.for' bound"},
    {"#s = affine_set<(d0) : (d0 >= 0)>\nfunc.func @f(%a: index) {\n"
     "  %0 = affine.apply #s(%a)\n  return\n}\n",
     3, 21, "'#s' is not an affine map"},
    {"func.func @f(%a: index) {\n  %0 = affine.apply #nomap(%a)\n  return\n}\n", 2, 21,
     "undefined attribute alias '#nomap'"},
    {"#m = affine_map<(d0) -> (d0 * 2 + q)>\n", 1, 35,
     "use of undeclared identifier 'q' in affine expression"},
    {"#m = affine_map<(d0) -> (d0)>\nfunc.func @f(%a: index) {\n"
     "  %0 = affine.apply #m(%a, %a)\n  return\n}\n",
     3, 21, "'#m' takes 1 dimension and 0 symbols, but 2 and 0 are given"},
    {"func.func @f() {\n  %t, %v = air.execute -> (index) {\n  }\n  return\n}\n", 3, 3,
     "the body of 'air.execute' must end with 'air.execute_terminator'"},
    {"func.func @f(%a: index) {\n  %t, %v = air.execute -> (index) {\n"
     "    air.execute_terminator\n  }\n  return\n}\n",
     3, 5, "'air.execute_terminator' yields 0 values but 'air.execute' has 1"},
    {"func.func @f() {\n  %c = arith.constant 300 : i8\n  return\n}\n", 2, 23,
     "integer constant 300 does not fit in type 'i8'"},
    {"func.func @f() {\n  %c = arith.constant 1.5 : i32\n  return\n}\n", 2, 23,
     "floating point literal for integer type 'i32'"},
    {"func.func @f(%t: !air.token) {\n  scf.reduce(%t : !air.token) {\n  }\n  return\n}\n", 2,
     3, "'scf.reduce' must be directly inside 'scf.parallel'"},
    {"func.func @f() {\n  return\n^bb1:\n  return\n}\n", 3, 1,
     "a region may hold only one block"},
    {"func.func @f() {\n  module {\n  }\n  return\n}\n", 2, 3,
     "a 'module' may only appear at module level"},
    {"%m = module {\n}\n", 1, 6, "'module' has no results"},
    {"func.func @f() {\n  %t = air.launch sync () in () {\n  }\n  return\n}\n", 2, 3,
     "a 'sync' operation has no result to bind"},
    {"func.func @f(%d: index) {\n  %m = memref.alloc() : memref<?xf32>\n  return\n}\n", 2, 3,
     "'memref.alloc' has 0 dynamic sizes but the type has 1 '?' dimension"},
    {"func.func @f(%a: memref<4xf32>) {\n"
     "  air.dma_memcpy_nd (%a[] [] [], %a[] [] []) : (memref<4xf32>)\n  return\n}\n",
     2, 3, "'air.dma_memcpy_nd' takes 2 types, not 1"},
    {"func.func @f() {\n  %r#1 = arith.constant 0 : index\n  return\n}\n", 2, 3,
     "a result name cannot carry a result number"},
    {"func.func @f() {\n  %c1 = arith.constant 1 : index\n"
     "  air.segment {\n    air.herd tile (%x) in (%s=%c1) %c1\n  }\n  return\n}\n",
     4, 36, "expected '{' to begin the body of 'air.herd'"},
    {"#m = affine_map<(d0) -> (d0)>\n#m = affine_map<(d0) -> (d0)>\n", 2, 1,
     "redefinition of attribute alias '#m'"},
    {"func.func @f(%a: memref<4xf32>) {\n"
     "  linalg.fill ins(%a : memref<4xf32>) outs(%a : memref<4xf32>) -> tensor<4xf32>\n"
     "  return\n}\n",
     2, 64, "result 0 of 'linalg.fill' must be a tensor of its outs operand's type"},
    {"func.func @f(index) {\n  return\n}\n", 1, 11,
     "a function with a body needs named arguments"},
    {"func.func @f() {\n  return loc(\"x\":1\n}\n", 2, 10, "unterminated location 'loc(...)'"},
    {"air.channel @c [1]\nair.channel.put @c[] (%m[] [] [] : (memref<4xf32>)\n", 2, 34,
     "')' after the memref's offsets, sizes and strides"},
    {"func.func @f(%t: !air.token) {\n  air.wait_all [dependency = [%t]] [latency = [%t]]\n"
     "  return\n}\n",
     2, 37, "expected 'dependency', 'affinity' or 'concurrency', found 'latency'"},
    {"func.func @f(%a: index) {\n  %0 = arith.addi %a, %a : index\n  %1 = arith.addi %0 %a"
     " : index\n  return\n}\n",
     3, 22, "expected ',' between the operands, found '%a'"},
    {"func.func @f() {\n  %c = arith.constant 99999999999999999999 : i64\n  return\n}\n", 2,
     23, "integer literal is out of range"},
    {"func.func @f(%m: memref<4xf32, #gpu.address_space<workgroup>>) {\n  return\n}\n", 1, 32,
     "unsupported memref layout or memory space '#gpu.address_space'"},
    {"func.func @f() {\n  %x = \n}\n", 3, 1, "expected an operation name, found '}'"},
    {"func.func @f(%t: !air.token) {\n  %x = air.wait_all async [%t, 3]\n  return\n}\n", 2, 32,
     "expected a token value, found '3'"},
    {"func.func @f(%m: memref<4x4xf32>, %i: index) {\n  %v = affine.load %m[%i] : "
     "memref<4x4xf32>\n  return\n}\n",
     2, 22, "'affine.load' of a rank-2 memref needs 2 subscripts, found 1"},
    {"func.func @f(%m: memref<4xf32>, %i: index) {\n  %v = affine.load %m[%i + q] : "
     "memref<4xf32>\n  return\n}\n",
     2, 28, "use of undeclared identifier 'q' in affine expression"},
    {"func.func @f(%m: memref<4xf32>, %i: index) {\n  %v = affine.load %m[symbol(%i] : "
     "memref<4xf32>\n  return\n}\n",
     2, 32, "expected ')' after the symbol value, found ']'"},
    {"func.func @f(%i: index) {\n  %v = affine.min affine_map<(d0) -> ()>(%i)\n  return\n}\n",
     2, 19, "'affine.min' needs a map with at least one result"},
    {"func.func @f(%m: memref<4x8xf32>) {\n  %v = memref.collapse_shape %m [[0, 1] : "
     "memref<4x8xf32> into memref<32xf32>\n  return\n}\n",
     2, 41, "expected ',' or ']' after a reassociation group, found ':'"},
    {"func.func @f(%m: memref<32xf32>) {\n  %v = memref.cast %m : memref<32xf32> into "
     "memref<?xf32>\n  return\n}\n",
     2, 40, "expected 'to'"},
};

static void test_malformed(void** state) {
  assert_true(sizeof k_bad / sizeof k_bad[0] >= 25);
  for (size_t i = 0; i < sizeof k_bad / sizeof k_bad[0]; ++i)
    expect_error_at(*state, k_bad[i].text, k_bad[i].line, k_bad[i].col, k_bad[i].msg);
  /* text that is not NUL-terminated, and NUL bytes inside it */
  const char cut[] = "air.channel @c [1]XXXX";
  air_program_t* p;
  air_status_t s = parse_n(*state, cut, 18, 1, &p);
  assert_null(s);
  air_ir_program_free(p);
  const char nul[] = "air.channel @c [1] // a\0b\n";
  s = parse_n(*state, nul, sizeof nul - 1, 1, &p);
  assert_non_null(s);
  assert_non_null(strstr(air_status_message(s), "<input>:1:24: error: unexpected character '\\x00'"));
  air_status_free(s);
}

/*---------------------------------------------------------------------------*/
/* tests/data/parse: `// expect-ok`, `// expect-warnings: N`,                */
/* `// expect-error: LINE:COL: message`                                      */
/*---------------------------------------------------------------------------*/

static void test_syntax_cases(void** state) {
  names_t files;
  list_dir(SYNTAX, &files);
  assert_true(files.n >= 8);
  for (int i = 0; i < files.n; ++i) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", SYNTAX, files.name[i]);
    size_t len;
    char* text = test_read_file(path, &len);
    assert_non_null(text);
    air_program_t* p;
    air_status_t s = parse_n(*state, text, len, 1, &p);
    unsigned line, col, warnings = 0;
    char msg[256];
    const char* w = strstr(text, "// expect-warnings: ");
    if (w) warnings = (unsigned)atoi(w + 20);
    if (strncmp(text, "// expect-ok", 12) == 0) {
      if (s) fail_msg("%s: %s", files.name[i], air_status_message(s));
      assert_int_equal(p->n_warnings, warnings);
      air_ir_program_free(p);
    } else if (sscanf(text, "// expect-error: %u:%u: %255[^\n]", &line, &col, msg) == 3) {
      if (!s) fail_msg("%s: parsed, expected an error", files.name[i]);
      char want[64];
      snprintf(want, sizeof want, "<input>:%u:%u: error: ", line, col);
      const char* got = air_status_message(s);
      if (strncmp(got, want, strlen(want)) != 0 || !strstr(got, msg))
        fail_msg("%s: want \"%s...%s\", got \"%s\"", files.name[i], want, msg, got);
      air_status_free(s);
    } else {
      fail_msg("%s: no expect-ok / expect-error header", files.name[i]);
    }
    free(text);
  }
}

/*---------------------------------------------------------------------------*/
/* Robustness: every prefix and a sweep of one-byte mutations                */
/*---------------------------------------------------------------------------*/

static void check_located(air_status_t s) {
  const char* msg = air_status_message(s);
  if (strncmp(msg, "<input>:", 8) != 0 || !strstr(msg, ": error: "))
    fail_msg("status without a location: %s", msg);
  air_status_free(s);
}

static void test_prefixes_and_mutations(void** state) {
  names_t files;
  list_dir(PROGRAMS, &files);
  static const char subs[] = "{}()[]<>%#@!:,=\"x0-";
  for (int f = 0; f < files.n; ++f) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", PROGRAMS, files.name[f]);
    size_t len;
    char* text = test_read_file(path, &len);
    assert_non_null(text);
    int ok = 0;
    for (size_t k = 0; k <= len; ++k) {
      /* A private copy so reading past `k` would be caught by ASan. */
      char* cut = malloc(k ? k : 1);
      assert_non_null(cut);
      memcpy(cut, text, k);
      air_program_t* p;
      air_status_t s = parse_n(*state, cut, k, 1, &p);
      if (s)
        check_located(s);
      else
        ok++, air_ir_program_free(p);
      free(cut);
    }
    assert_true(ok >= 1); /* the whole text */
    for (size_t k = 0; k < len; k += len / 300 + 1) {
      for (const char* c = subs; *c; ++c) {
        char saved = text[k];
        text[k] = *c;
        air_program_t* p;
        air_status_t s = parse_n(*state, text, len, 1, &p);
        if (s)
          check_located(s);
        else
          air_ir_program_free(p);
        text[k] = saved;
      }
    }
    free(text);
  }
}

/* @"..." symbol names decode their escapes, like strings: the stored name is the
 * bytes, so lookups and printing agree with what was meant. */
static void test_quoted_symbols(void** state) {
  air_context_t* ctx = *state;
  const char* t = "air.channel @\"ch\\41n\" [1]\nair.channel @plain [2]\n";
  air_program_t* p = NULL;
  air_status_t s = parse_n(ctx, t, strlen(t), 1, &p);
  assert_null(s);
  const air_op_t* op = p->module->regions[0]->first;
  assert_non_null(op);
  assert_string_equal(op->sym, "chAn");
  assert_non_null(op->next);
  assert_string_equal(op->next->sym, "plain");
  air_ir_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_programs_parse, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_quoted_symbols, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_matmul_structure, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_old_token_structure, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_spec_forms_structure, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_attribute_kinds, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_scalar_ops, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_linalg_and_bf16, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_execute_results, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_dma_and_segments, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_implicit_terminators, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_ssa_scoping, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_first_line_offset, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_affine_expressions, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_opaque_and_skipped_text, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_nesting_limits, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_scaling, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_type_and_token_spellings, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_bracketed_placement, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_misc_forms, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_affine_access_and_reshape, test_context_setup, test_context_teardown),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test_setup_teardown(test_malformed, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_syntax_cases, test_context_setup, test_context_teardown),
      cmocka_unit_test_setup_teardown(test_prefixes_and_mutations, test_context_setup, test_context_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The verifier on IR it must survive: broken links and shapes reported as
 * [structure] (never a crash), random corruption of a valid program, and about a
 * million ops verified quickly with balance and deadlock analyses in full.
 * Shares tests/verify_test.h with test_verify_ir.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "verify_test.h"

/* Broken links and shapes: reported as [structure], never a crash. */
static void test_malformed(void** state) {
  hb_t h;
  /* A wrong prev link. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* get = find_op(h.p->module, AIR_OP_GET);
  get->prev = NULL;
  expect(&h, "structure");
  /* A block's last pointer that is not its last op. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_block_t* hbk = find_op(h.p->module, AIR_OP_HERD)->regions[0];
  hbk->last = hbk->first;
  expect(&h, "structure");
  /* One block held by two regions. */
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* seg = find_op(h.p->module, AIR_OP_SEGMENT);
  air_op_t* herd = find_op(h.p->module, AIR_OP_HERD);
  air_block_t** regs = air_ir_alloc(h.p, 2 * sizeof(*regs));
  regs[0] = regs[1] = seg->regions[0];
  seg->regions = regs;
  seg->n_regions = 2;
  expect(&h, "structure");
  /* A block whose parent is another op. */
  hb_init(&h, *state);
  hb_valid(&h);
  herd = find_op(h.p->module, AIR_OP_HERD);
  herd->regions[0]->parent = find_op(h.p->module, AIR_OP_LAUNCH);
  expect(&h, "structure");
  /* A missing region block, and region/result counts without arrays. */
  hb_init(&h, *state);
  hb_valid(&h);
  find_op(h.p->module, AIR_OP_HERD)->regions[0] = NULL;
  expect(&h, "structure");
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* loop = find_op(h.p->module, AIR_OP_FOR);
  find_op(h.p->module, AIR_OP_ALLOC)->results = NULL;
  loop->regions = NULL;
  expect(&h, "structure");
  /* An unknown op kind, a value with no type, a value defined twice. */
  hb_init(&h, *state);
  hb_valid(&h);
  find_op(h.p->module, AIR_OP_ALLOC)->kind = (air_opkind_t)(AIR_OP_COUNT_ + 7);
  expect(&h, "structure");
  hb_init(&h, *state);
  hb_valid(&h);
  air_op_t* al = find_op(h.p->module, AIR_OP_ALLOC);
  h.p->values[al->results[0]].type = 9999;
  expect(&h, "structure");
  hb_init(&h, *state);
  hb_valid(&h);
  al = find_op(h.p->module, AIR_OP_ALLOC);
  get = find_op(h.p->module, AIR_OP_GET);
  air_op_t* c = find_op(h.p->module, AIR_OP_CONSTANT);
  c->results[0] = al->results[0];
  expect(&h, "structure");
  /* No module at all. */
  hb_init(&h, *state);
  air_op_t* m = h.p->module;
  h.p->module = NULL;
  air_status_t st = air_verify(h.p, NULL, 0);
  assert_true(has_rule(air_status_message(st), "structure"));
  air_status_free(st);
  h.p->module = m;
  air_ir_program_free(h.p);
  /* Nesting deeper than the verifier analyses. */
  hb_init(&h, *state);
  air_block_t* b = hb_func(&h, NULL);
  air_block_t* fb = b;
  /* Nested scf.if on a constant: well formed apart from the depth, so the depth
   * error is among the first errors the capped report keeps. */
  static air_block_t* blocks[1000];
  air_tid_t i1 = air_ir_type_scalar(h.p, AIR_ELEM_I1);
  air_op_t* cst = hb_op(&h, b, AIR_OP_CONSTANT, 0, 1, 0, 0);
  air_vid_t cond = hb_res(&h, cst, 0, i1, "true");
  cst->value.kind = AIR_ATTR_INT;
  cst->value.i = 1;
  cst->value.type = i1;
  for (int i = 0; i < 1000; ++i) {
    air_op_t* e = hb_op(&h, b, AIR_OP_IF, 1, 0, 1, 0);
    e->operands[0] = cond;
    b = blocks[i] = hb_region(&h, e, 0, 0, NULL);
  }
  for (int i = 1000; i-- > 0;) hb_term(&h, blocks[i], AIR_OP_YIELD);
  hb_term(&h, fb, AIR_OP_RETURN);
  st = air_verify(h.p, NULL, 0);
  assert_non_null(strstr(air_status_message(st), "nested more than"));
  air_status_free(st);
  air_ir_program_free(h.p);
}

/* Random corruption of a valid program: any kind over any operand layout,
 * random value ids, dimension counts and list lengths. Must never crash. */
static uint64_t rnd(uint64_t* s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void collect(air_op_t* op, air_op_t** ops, int* n) {
  if (*n < 256) ops[(*n)++] = op;
  for (uint32_t r = 0; r < op->n_regions; ++r)
    for (air_op_t* o = op->regions[r] ? op->regions[r]->first : NULL; o; o = o->next)
      collect(o, ops, n);
}

static void test_mutations(void** state) {
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  int failed = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    hb_t h;
    hb_init(&h, *state);
    hb_valid(&h);
    air_op_t* ops[256];
    int n = 0;
    collect(h.p->module, ops, &n);
    int muts = 1 + (int)(rnd(&seed) % 4);
    for (int m = 0; m < muts; ++m) {
      air_op_t* op = ops[1 + rnd(&seed) % (uint64_t)(n - 1)];
      uint32_t nv = h.p->n_values + 3;
      switch (rnd(&seed) % 9) {
        case 0: op->kind = (air_opkind_t)(rnd(&seed) % AIR_OP_COUNT_); break;
        case 1:
          if (op->n_operands)
            op->operands[rnd(&seed) % op->n_operands] = (air_vid_t)(rnd(&seed) % nv);
          break;
        case 2: op->iaux[0] = (uint32_t)(rnd(&seed) % 5); break;
        case 3: op->iaux[0] = (uint32_t)rnd(&seed); break;
        case 4:
          if (op->n_lists) op->lists[rnd(&seed) % op->n_lists].n = 0;
          break;
        case 5: op->flags ^= 1u << (rnd(&seed) % 5); break;
        case 6:
          if (op->n_results) op->results[0] = (air_vid_t)(rnd(&seed) % nv);
          break;
        case 7: {
          air_vlist_t* l = &op->toks[rnd(&seed) % 3];
          if (air_ir_vlist_init(h.p, l, 2)) {
            l->items[0] = (air_vid_t)(rnd(&seed) % nv);
            l->items[1] = (air_vid_t)(rnd(&seed) % nv);
          }
          break;
        }
        default:
          if (op->n_regions && op->regions[0] && op->regions[0]->last) {
            air_block_t* b = op->regions[0];
            b->last = b->last->prev;
            if (b->last)
              b->last->next = NULL;
            else
              b->first = NULL;
          }
          break;
      }
    }
    static const char* const targets[] = {NULL, "npu1", "mi300x"};
    air_status_t st = air_verify(h.p, targets[iter % 3], 0);
    air_status_code_t code = air_status_code(st);
    if (code != AIR_STATUS_OK && code != AIR_STATUS_FAILED_PRECONDITION) failed++;
    air_status_free(st);
    air_ir_program_free(h.p);
  }
  assert_int_equal(failed, 0);
}

/* About a million ops: 16384 segments, each feeding a 4-PE herd through a
 * channel and computing in it. Balance and deadlock analyses run in full. */
static void test_large_program(void** state) {
  hb_t h;
  hb_init(&h, *state);
  air_op_t* ch = hb_op(&h, hb_body(&h), AIR_OP_CHANNEL, 0, 0, 0, 1);
  ch->sym = "c";
  assert_true(air_ir_list_init(h.p, &ch->lists[0], 1));
  ch->lists[0].items[0].cst = 4;
  air_block_t* fb = hb_func(&h, NULL);
  air_block_t* lb;
  air_op_t* launch = hb_hier(&h, fb, AIR_OP_LAUNCH, 0, NULL, 0, NULL, true, &lb);
  for (int s = 0; s < 16384; ++s) {
    air_block_t* sb;
    hb_hier(&h, lb, AIR_OP_SEGMENT, 0, NULL, 0, NULL, true, &sb);
    air_vid_t c0 = hb_const(&h, sb, 0), c1 = hb_const(&h, sb, 1), c4 = hb_const(&h, sb, 4);
    air_op_t* al = hb_op(&h, sb, AIR_OP_ALLOC, 0, 1, 0, 0);
    air_vid_t buf =
        hb_res(&h, al, 0, air_ir_type_memref(h.p, AIR_ELEM_F32, 1, (int64_t[]){64}, 1, NULL), "b");
    air_op_t* par = hb_op(&h, sb, AIR_OP_PARALLEL, 3, 0, 1, 0);
    par->iaux[0] = 1;
    par->operands[0] = c0;
    par->operands[1] = c4;
    par->operands[2] = c1;
    air_block_t* pb = hb_region(&h, par, 0, 1, &h.index);
    hb_chan_io(&h, pb, AIR_OP_PUT, "c", pb->args[0], buf, true);
    hb_op(&h, pb, AIR_OP_REDUCE, 0, 0, 0, 0);
    air_block_t* hbk;
    hb_hier(&h, sb, AIR_OP_HERD, 1, &c4, 0, NULL, true, &hbk);
    air_op_t* a1 = hb_op(&h, hbk, AIR_OP_ALLOC, 0, 1, 0, 0);
    air_vid_t l1 = hb_res(&h, a1, 0, h.l1, "l1");
    air_op_t* g = hb_chan_io(&h, hbk, AIR_OP_GET, "c", hbk->args[0], l1, true);
    air_vid_t x = hbk->args[0];
    for (int k = 0; k < 48; ++k) {
      air_op_t* add = hb_op(&h, hbk, AIR_OP_ADDI, 2, 1, 0, 0);
      add->operands[0] = x;
      add->operands[1] = hbk->args[1];
      x = hb_res(&h, add, 0, h.index, NULL);
    }
    air_op_t* w = hb_op(&h, hbk, AIR_OP_WAIT_ALL, 0, 0, 0, 0);
    assert_true(air_ir_vlist_init(h.p, &w->toks[AIR_TOK_DEP], 1));
    w->toks[AIR_TOK_DEP].items[0] = g->results[0];
    hb_term(&h, hbk, AIR_OP_HERD_TERM);
    hb_term(&h, sb, AIR_OP_SEGMENT_TERM);
  }
  hb_term(&h, lb, AIR_OP_LAUNCH_TERM);
  air_op_t* w = hb_op(&h, fb, AIR_OP_WAIT_ALL, 0, 0, 0, 0);
  assert_true(air_ir_vlist_init(h.p, &w->toks[AIR_TOK_DEP], 1));
  w->toks[AIR_TOK_DEP].items[0] = launch->results[0];
  hb_term(&h, fb, AIR_OP_RETURN);
  assert_true(h.line > 900000);

  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  air_status_t st = air_verify(h.p, NULL, 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (st) print_error("%.400s\n", air_status_message(st));
  assert_null(st);
  double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  print_message("verified %u ops in %.3f s\n", h.line, sec);
  /* Generous for sanitizer builds; unsanitized it takes well under a second. */
  assert_true(sec < 30.0);

  /* The same program with one herd reading one block too many is caught. */
  air_op_t* herd = find_op(h.p->module, AIR_OP_HERD);
  air_op_t* get = find_op(herd, AIR_OP_GET);
  air_op_t* get2 = hb_op(&h, NULL, AIR_OP_GET, 2, 0, 0, 3);
  get2->sym = "c";
  get2->iaux[0] = 1;
  get2->operands[0] = get->operands[0];
  get2->operands[1] = get->operands[1];
  air_ir_block_insert(herd->regions[0], get->next, get2);
  st = air_verify(h.p, NULL, 0);
  assert_true(has_rule(air_status_message(st), "channel-balance"));
  air_status_free(st);
  air_ir_program_free(h.p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_malformed), cmocka_unit_test(test_mutations),
      cmocka_unit_test(test_large_program),
  };
  return cmocka_run_group_tests(tests, test_context_setup, test_context_teardown);
}

/* test_artifact_corrupt.c - the .airbin reader on damaged files:
 *
 *  - every validation rule: a corrupt copy of tests/data/artifact/host_mix.mlir's
 *    artifact is rejected with DATA_LOSS naming the section, record and field (or
 *    INVALID_ARGUMENT when the file is no .airbin at all);
 *  - a deterministic mutation loop (every truncation, every header and section
 *    table byte flipped, seeded random flips) through the fuzz check.
 *
 * Round trips and write errors are in test_artifact.c; both share
 * tests/artifact_test.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "artifact_test.h"
#include "fuzz_artifact.h"

/*---------------------------------------------------------------------------*/
/* Corrupt files: one test per validation rule                               */
/*---------------------------------------------------------------------------*/

typedef struct fixture_t {
  air_context_t* ctx;
  air_program_t* prog;
  air_schedule_t* sched;
  bytes_t good;
} fixture_t;

static int fixture_setup(void** state) {
  fixture_t* f = calloc(1, sizeof *f);
  if (!f || air_context_create(NULL, NULL, &f->ctx)) return -1;
  if (!compile_path(f->ctx, AIR_TEST_DATA_DIR "/artifact/host_mix.mlir", &f->prog, &f->sched))
    return -1;
  f->good = write_mem(f->ctx, f->prog, f->sched);
  *state = f;
  return 0;
}

static int fixture_teardown(void** state) {
  fixture_t* f = *state;
  free(f->good.data);
  air_schedule_free(f->sched);
  air_program_destroy(f->prog);
  air_context_destroy(f->ctx);
  free(f);
  return 0;
}

/* ELF64 section header fields this test patches. */
enum { SH_NAME = 0, SH_TYPE = 4, SH_OFFSET = 24, SH_SIZE = 32, SH_ENTSIZE = 56 };

static uint64_t get_le(const uint8_t* p, unsigned width) {
  uint64_t v = 0;
  for (unsigned b = 0; b < width; ++b) v |= (uint64_t)p[b] << (8 * b);
  return v;
}

static void put_le(uint8_t* p, unsigned width, uint64_t v) {
  for (unsigned b = 0; b < width; ++b) p[b] = (uint8_t)(v >> (8 * b));
}

/* The section header of `name` (offset into the file). */
static size_t shdr_of(const bytes_t* b, const char* name) {
  uint64_t shoff = get_le(b->data + 0x28, 8);
  unsigned shnum = (unsigned)get_le(b->data + 0x3c, 2), shstrndx = (unsigned)get_le(b->data + 0x3e, 2);
  size_t strs = (size_t)get_le(b->data + shoff + 64 * shstrndx + SH_OFFSET, 8);
  for (unsigned i = 0; i < shnum; ++i) {
    size_t h = shoff + 64 * i;
    if (!strcmp((const char*)b->data + strs + get_le(b->data + h + SH_NAME, 4), name)) return h;
  }
  fail_msg("no section %s", name);
  return 0;
}

static size_t section_offset(const bytes_t* b, air_art_section_t sec) {
  return (size_t)get_le(b->data + shdr_of(b, k_air_art_sections[sec].name) + SH_OFFSET, 8);
}

/* Where field `field` of record `rec` of `sec` lives (.air.meta: after the magic). */
static uint8_t* field_at(const bytes_t* b, air_art_section_t sec, uint32_t rec, const char* field,
                         unsigned* width) {
  const air_art_layout_t* l = &k_air_art_sections[sec];
  size_t at = section_offset(b, sec) + (sec == AIR_ART_META ? AIR_ART_MAGIC_SIZE : 0) +
              (size_t)rec * air_art_record_size(l);
  for (uint32_t f = 0; f < l->n_fields; ++f) {
    if (!strcmp(l->field[f], field)) {
      *width = l->width[f];
      return b->data + at;
    }
    at += l->width[f];
  }
  fail_msg("no field %s in %s", field, l->name);
  return NULL;
}

static void set_field(bytes_t* b, air_art_section_t sec, uint32_t rec, const char* field,
                      uint64_t v) {
  unsigned w = 0;
  uint8_t* p = field_at(b, sec, rec, field, &w);
  put_le(p, w, v);
}

/* memmem is not POSIX. */
static char* find(char* hay, size_t n, const char* needle) {
  size_t k = strlen(needle);
  for (size_t i = 0; i + k <= n; ++i)
    if (!memcmp(hay + i, needle, k)) return hay + i;
  return NULL;
}

static bytes_t copy_good(const fixture_t* f) {
  bytes_t b = {malloc(f->good.size), f->good.size};
  assert_non_null(b.data);
  memcpy(b.data, f->good.data, b.size);
  return b;
}

typedef struct field_case_t {
  air_art_section_t sec;
  uint32_t rec;
  const char* field;
  uint64_t value;
  air_status_code_t code;
  const char* expect;
} field_case_t;

/* The layout of host_mix's schedule that the cases below assume; when the
 * compiler changes it, this fails first and the cases need new indices. */
static void assert_host_mix_layout(const air_schedule_t* s) {
  const air_partition_t* P = s->partition;
  assert_int_equal(s->n_cmds, 11);
  assert_int_equal(P->n_queues, 4);
  assert_int_equal(P->n_waves, 9);
  assert_int_equal(P->n_waits, 6);
  static const uint32_t k_waves_per_queue[] = {4, 3, 1, 1};
  for (uint32_t q = 0; q < 4; ++q)
    assert_int_equal(P->queues[q].wave_end - P->queues[q].wave_begin, k_waves_per_queue[q]);
  /* Waits are stored in level order: the first DMA's wait on the host, ..., the
   * host's wait_all on the last DMA wave. */
  assert_int_equal(P->waves[4].wait_begin, 0);
  assert_int_equal(P->waits[0].queue, 0);
  assert_int_equal(P->waves[7].wait_begin, 1); /* first launch waits for the channel wave */
  assert_int_equal(P->waits[1].queue, 1);
  assert_int_equal(P->waves[1].wait_begin, 5);
  assert_int_equal(P->waits[5].queue, 1);
  assert_int_equal(P->waits[5].value, 3);
  assert_int_equal(P->waves[0].cmd_end - P->waves[0].cmd_begin, 2);
  assert_int_equal(P->stats.groups, 1);
  const air_memplan_t* M = &s->memplan;
  assert_int_equal(M->n_arenas, 5);
  assert_int_equal(M->n_buffers, 3);
  assert_int_equal(M->arenas[3].space, AIR_MEMPLAN_L1);
  assert_int_equal(M->arenas[3].buffer_end - M->arenas[3].buffer_begin, 2);
  assert_int_equal(M->arenas[3].size, 384);
}

static void run_field_cases(fixture_t* f, const field_case_t* cases, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const field_case_t* c = &cases[i];
    bytes_t b = copy_good(f);
    set_field(&b, c->sec, c->rec, c->field, c->value);
    print_message("  %s[%u].%s = %llu\n", k_air_art_sections[c->sec].name, c->rec, c->field,
                  (unsigned long long)c->value);
    expect_read(f->ctx, b.data, b.size, c->code, c->expect);
    free(b.data);
  }
}

static void test_corrupt_meta(void** state) {
  fixture_t* f = *state;
  assert_host_mix_layout(f->sched);
  const field_case_t cases[] = {
      {AIR_ART_META, 0, "version", 3, AIR_STATUS_DATA_LOSS, ".air.meta: version 3, this build reads 2"},
      {AIR_ART_META, 0, "flags", 4, AIR_STATUS_DATA_LOSS, ".air.meta: flags 0x4"},
      {AIR_ART_META, 0, "n_cmds", 12, AIR_STATUS_DATA_LOSS, ".air.cmds: 88 bytes, expected 12 records (n_cmds)"},
      {AIR_ART_META, 0, "n_queues", 0, AIR_STATUS_DATA_LOSS, ".air.queues: 48 bytes, expected 0 records (n_queues)"},
      {AIR_ART_META, 0, "n_waves", 10, AIR_STATUS_DATA_LOSS, ".air.waves: 252 bytes, expected 10"},
      {AIR_ART_META, 0, "n_waits", 5, AIR_STATUS_DATA_LOSS, ".air.waits: 48 bytes, expected 5"},
      {AIR_ART_META, 0, "n_arenas", 6, AIR_STATUS_DATA_LOSS, ".air.memplan.arenas: 200 bytes"},
      {AIR_ART_META, 0, "n_buffers", 2, AIR_STATUS_DATA_LOSS, ".air.memplan.buffers: 96 bytes"},
      {AIR_ART_META, 0, "target_len", 2, AIR_STATUS_DATA_LOSS, ".air.meta: 105 bytes, expected 104 (header, then target and entry names of 2 and 4 bytes)"},
      {AIR_ART_META, 0, "entry_len", 3, AIR_STATUS_DATA_LOSS, ".air.meta: 105 bytes, expected 104"},
      {AIR_ART_META, 0, "alignment", 48, AIR_STATUS_DATA_LOSS, ".air.meta: alignment 48 is not a power of two"},
      {AIR_ART_META, 0, "alignment", 0, AIR_STATUS_DATA_LOSS, ".air.meta: alignment 0"},
      {AIR_ART_META, 0, "n_body_ops", 12, AIR_STATUS_DATA_LOSS, "the schedule has 12 commands but @host has 11 ops"},
  };
  run_field_cases(f, cases, sizeof cases / sizeof cases[0]);

  /* n_queues outside 1..64 with section sizes to match is caught by its range. */
  bytes_t b = copy_good(f);
  set_field(&b, AIR_ART_META, 0, "n_queues", 65);
  put_le(b.data + shdr_of(&b, ".air.queues") + SH_SIZE, 8, 65 * 12);
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, "n_queues 65 outside 1..64");
  free(b.data);

  /* The names after the header. */
  b = copy_good(f);
  uint8_t* names = b.data + section_offset(&b, AIR_ART_META) + AIR_ART_MAGIC_SIZE +
          air_art_record_size(&k_air_art_sections[AIR_ART_META]);
  names[0] = 'x'; /* "cpu" -> "xpu" */
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, ".air.meta: unknown target \"xpu\"");
  names[0] = 'c';
  names[1] = '\0';
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, "target name is not 3 characters");
  names[1] = 'p';
  names[4] = 'x'; /* "host" -> "xost" */
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, "unknown entry function @xost");
  names[4] = 'h';
  names[8] = 'x'; /* the entry's terminating NUL */
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, "entry name is not 4 characters");
  names[8] = '\0';
  b.data[section_offset(&b, AIR_ART_META)] = 'X';
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_INVALID_ARGUMENT, "AIRBIN magic");
  free(b.data);
}

static void test_corrupt_cmds_and_queues(void** state) {
  fixture_t* f = *state;
  const field_case_t cases[] = {
      {AIR_ART_CMDS, 3, "op", 11, AIR_STATUS_DATA_LOSS, ".air.cmds[3]: op 11 outside 0..11 (n_body_ops)"},
      {AIR_ART_CMDS, 3, "kind", AIR_SCHED_CMD_COUNT, AIR_STATUS_DATA_LOSS, ".air.cmds[3]: kind 11 is not a command kind"},
      {AIR_ART_CMDS, 3, "op", 4, AIR_STATUS_DATA_LOSS, ".air.cmds[3]: op 4; command i is body op i"},
      {AIR_ART_CMDS, 0, "kind", AIR_SCHED_CMD_LAUNCH, AIR_STATUS_DATA_LOSS, ".air.cmds[0]: kind launch, the program's op is other"},
      {AIR_ART_QUEUES, 1, "kind", 3, AIR_STATUS_DATA_LOSS, ".air.queues[1]: kind 3 is not a queue kind"},
      {AIR_ART_QUEUES, 1, "kind", AIR_SCHED_Q_HOST, AIR_STATUS_DATA_LOSS, ".air.queues[1]: kind host, the program's queue 1 is dma"},
      {AIR_ART_QUEUES, 1, "wave_begin", 5, AIR_STATUS_DATA_LOSS, ".air.queues[1]: wave range 5..7, expected one starting at 4 inside 0..9"},
      {AIR_ART_QUEUES, 3, "wave_end", 10, AIR_STATUS_DATA_LOSS, ".air.queues[3]: wave range 8..10"},
      {AIR_ART_QUEUES, 3, "wave_end", 8, AIR_STATUS_DATA_LOSS, ".air.queues: the queues hold 8 waves of 9"},
  };
  run_field_cases(f, cases, sizeof cases / sizeof cases[0]);
}

static void test_corrupt_waves(void** state) {
  fixture_t* f = *state;
  const field_case_t cases[] = {
      {AIR_ART_WAVES, 0, "queue", 1, AIR_STATUS_DATA_LOSS, ".air.waves[0]: queue 1, but it is in queue 0's range"},
      {AIR_ART_WAVES, 0, "level", 11, AIR_STATUS_DATA_LOSS, ".air.waves[0]: level 11 outside 0..11 (n_cmds)"},
      {AIR_ART_WAVES, 2, "level", 5, AIR_STATUS_DATA_LOSS, ".air.waves[2]: level 5 is not above the previous wave's level 5"},
      {AIR_ART_WAVES, 3, "level", 9, AIR_STATUS_DATA_LOSS, ".air.waves: no wave at level 7 of 0..10; levels have no gaps"},
      {AIR_ART_WAVES, 0, "cmd_end", 0, AIR_STATUS_DATA_LOSS, ".air.waves[0]: cmd range 0..0, expected a non-empty one starting at 0 inside 0..11"},
      {AIR_ART_WAVES, 1, "cmd_begin", 1, AIR_STATUS_DATA_LOSS, ".air.waves[1]: cmd range 1..3, expected a non-empty one starting at 2"},
      {AIR_ART_WAVES, 8, "cmd_end", 12, AIR_STATUS_DATA_LOSS, ".air.waves[8]: cmd range 10..12"},
      {AIR_ART_WAVES, 8, "cmd_end", 10, AIR_STATUS_DATA_LOSS, ".air.waves[8]: cmd range 10..10"},
      {AIR_ART_WAVES, 0, "wait_end", 1, AIR_STATUS_DATA_LOSS, ".air.waves[4]: wait range 0..1 shares .air.waits[0] with wave 0"},
      {AIR_ART_WAVES, 8, "wait_end", 7, AIR_STATUS_DATA_LOSS, ".air.waves[8]: wait range 2..7 outside 0..6"},
      {AIR_ART_WAVES, 0, "flags", 2, AIR_STATUS_DATA_LOSS, ".air.waves[0]: flags 0x2, only bit 0 is defined"},
      {AIR_ART_WAVE_CMDS, 0, "node", 11, AIR_STATUS_DATA_LOSS, ".air.wave_cmds[0]: node 11 outside 0..11 (n_cmds)"},
      {AIR_ART_WAVE_CMDS, 1, "node", 0, AIR_STATUS_DATA_LOSS, ".air.wave_cmds[1]: node 0 is in waves 0 and 0"},
  };
  run_field_cases(f, cases, sizeof cases / sizeof cases[0]);
  /* The last wave's wait range ends short of n_waits. */
  bytes_t b = copy_good(f);
  set_field(&b, AIR_ART_WAVES, 8, "wait_end", 2);
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, ".air.waves: the waves hold 5 waits of 6");
  free(b.data);
}

static void test_corrupt_waits(void** state) {
  fixture_t* f = *state;
  const field_case_t cases[] = {
      {AIR_ART_WAITS, 0, "queue", 4, AIR_STATUS_DATA_LOSS, ".air.waits[0]: queue 4 outside 0..4 (n_queues)"},
      {AIR_ART_WAITS, 0, "queue", 1, AIR_STATUS_DATA_LOSS, ".air.waits[0]: wave 4 waits on its own queue 1"},
      {AIR_ART_WAITS, 0, "value", 0, AIR_STATUS_DATA_LOSS, ".air.waits[0]: value 0 outside 1..5 (queue 0 has 4 waves)"},
      {AIR_ART_WAITS, 0, "value", 5, AIR_STATUS_DATA_LOSS, ".air.waits[0]: value 5 outside 1..5"},
      /* An elided-too-far wait: the host's wait_all no longer waits for the last DMA. */
      {AIR_ART_WAITS, 5, "value", 2, AIR_STATUS_DATA_LOSS, ".air.waves[1]: command 8 may start before command 7 (wave 6) completes"},
  };
  run_field_cases(f, cases, sizeof cases / sizeof cases[0]);
  /* The first launch waits for the other launch, at its own level. */
  bytes_t b = copy_good(f);
  set_field(&b, AIR_ART_WAITS, 1, "queue", 3);
  set_field(&b, AIR_ART_WAITS, 1, "value", 1);
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS,
              ".air.waits[1]: wave 7 (level 3) waits for a wave at level 3, not an earlier one");
  free(b.data);
}

/* A partition that honours every edge but splits the channel group: rebuilt from
 * the program's host graph without groups, with an extra edge put -> get. */
static void test_corrupt_group(void** state) {
  fixture_t* f = *state;
  const air_allocator_t* a = air_context_allocator(f->ctx);
  const air_op_t* entry = NULL;
  const air_op_t** ops = NULL;
  assert_null(air_schedule_bind(a, f->sched, f->prog, &entry, &ops));
  a->free(a->self, (void*)ops);
  const air_target_t* t = NULL;
  assert_null(air_target_lookup(NULL, "cpu", &t));
  air_arena_t arena;
  air_arena_init(&arena, a);
  air_sched_host_graph_t hg;
  assert_null(air_schedule_host_graph(&arena, a, f->prog, entry, t, &hg));
  air_partition_graph_t g = hg.graph;
  uint32_t put = 3, get = 4;
  assert_int_equal(hg.kind[put], AIR_SCHED_CMD_CHANNEL);
  assert_int_equal(hg.kind[get], AIR_SCHED_CMD_CHANNEL);
  uint32_t n_edges = g.pred_off[g.n];
  uint32_t* off = calloc(g.n + 1, sizeof *off);
  uint32_t* pred = calloc(n_edges + 1, sizeof *pred);
  assert_true(off && pred);
  for (uint32_t i = 0, m = 0; i < g.n; ++i) {
    for (uint32_t k = g.pred_off[i]; k < g.pred_off[i + 1]; ++k) pred[m++] = g.pred[k];
    if (i == get) pred[m++] = put;
    off[i + 1] = m;
  }
  g.pred_off = off;
  g.pred = pred;
  g.group = NULL;
  air_partition_t* split = NULL;
  assert_null(air_partition_build(a, &g, &split));
  air_partition_t* keep = f->sched->partition;
  f->sched->partition = split;
  bytes_t b = write_mem(f->ctx, f->prog, f->sched);
  f->sched->partition = keep;
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS,
              "command 4 must run at once with command 3 (a channel group)");
  free(b.data);
  air_partition_free(split);
  free(off);
  free(pred);
  air_arena_deinit(&arena);
}

static void test_corrupt_memplan(void** state) {
  fixture_t* f = *state;
  const air_memplan_t* M = &f->sched->memplan;
  uint64_t herd0 = M->arenas[3].owner, herd1 = M->arenas[4].owner;
  uint64_t alloc1 = M->buffers[1].op;
  const field_case_t cases[] = {
      {AIR_ART_ARENAS, 0, "space", 3, AIR_STATUS_DATA_LOSS, ".air.memplan.arenas[0]: space 3 is not L3, L2 or L1"},
      {AIR_ART_ARENAS, 1, "space", 0, AIR_STATUS_DATA_LOSS, ".air.memplan.arenas[1]: space 0; the L3 arena comes first and only once"},
      {AIR_ART_ARENAS, 1, "space", 2, AIR_STATUS_DATA_LOSS, ".air.memplan.arenas[2]: space 1 after space 2; arenas go L3, L2, L1"},
      {AIR_ART_ARENAS, 0, "owner", 5, AIR_STATUS_DATA_LOSS, ".air.memplan.arenas[0]: owner 5; only the L3 arena has none"},
      {AIR_ART_ARENAS, 3, "size", 400, AIR_STATUS_DATA_LOSS, ".air.memplan.arenas[3]: size 400 with lower bound 384"},
      {AIR_ART_ARENAS, 3, "lower_bound", 448, AIR_STATUS_DATA_LOSS, ".air.memplan.arenas[3]: size 384 with lower bound 448"},
      {AIR_ART_ARENAS, 3, "capacity", 320, AIR_STATUS_DATA_LOSS, "lower bound 384 and capacity 320"},
      {AIR_ART_ARENAS, 1, "buffer_begin", 0, AIR_STATUS_DATA_LOSS, ".air.memplan.arenas[1]: buffer range 0..1, expected one starting at 1"},
      {AIR_ART_ARENAS, 4, "buffer_end", 2, AIR_STATUS_DATA_LOSS, ".air.memplan.arenas[4]: buffer range 3..2"},
      {AIR_ART_ARENAS, 3, "buffer_end", 2, AIR_STATUS_DATA_LOSS, ".air.memplan.arenas[4]: buffer range 3..3, expected one starting at 2"},
      {AIR_ART_ARENAS, 3, "owner", 100000, AIR_STATUS_DATA_LOSS, ".air.memplan.arenas[3]: owner op 100000 outside"},
      {AIR_ART_ARENAS, 1, "owner", herd0, AIR_STATUS_DATA_LOSS, "is air.herd, not air.segment"},
      {AIR_ART_ARENAS, 3, "owner", herd1, AIR_STATUS_DATA_LOSS, ".air.memplan.buffers[1]: op"},
      {AIR_ART_BUFFERS, 1, "arena", 0, AIR_STATUS_DATA_LOSS, ".air.memplan.buffers[1]: arena 0, but it is in arena 3's range"},
      {AIR_ART_BUFFERS, 2, "offset", 288, AIR_STATUS_DATA_LOSS, ".air.memplan.buffers[2]: offset 288 and size 128 must be multiples of 64"},
      {AIR_ART_BUFFERS, 2, "size", 96, AIR_STATUS_DATA_LOSS, ".air.memplan.buffers[2]: offset 256 and size 96"},
      {AIR_ART_BUFFERS, 2, "offset", 320, AIR_STATUS_DATA_LOSS, ".air.memplan.buffers[2]: bytes 320..+128 outside arena 3's 0..384"},
      {AIR_ART_BUFFERS, 2, "offset", UINT64_MAX - 63, AIR_STATUS_DATA_LOSS, ".air.memplan.buffers[2]: bytes 18446744073709551552..+128 outside"},
      {AIR_ART_BUFFERS, 2, "start", 12, AIR_STATUS_DATA_LOSS, ".air.memplan.buffers[2]: lifetime 12..11 is reversed"},
      {AIR_ART_BUFFERS, 2, "offset", 0, AIR_STATUS_DATA_LOSS, ".air.memplan.buffers[2]: shares bytes with buffers[1] while both are live"},
      {AIR_ART_BUFFERS, 1, "op", 100000, AIR_STATUS_DATA_LOSS, ".air.memplan.buffers[1]: op 100000 outside"},
      {AIR_ART_BUFFERS, 1, "op", herd0, AIR_STATUS_DATA_LOSS, "is air.herd, not an alloc"},
      {AIR_ART_BUFFERS, 2, "op", alloc1, AIR_STATUS_DATA_LOSS, ".air.memplan.buffers[2]: op"},
  };
  run_field_cases(f, cases, sizeof cases / sizeof cases[0]);
  /* The two cases whose message names an op index, in full. */
  char want[160];
  bytes_t b = copy_good(f);
  set_field(&b, AIR_ART_ARENAS, 3, "owner", herd1);
  snprintf(want, sizeof want, ".air.memplan.buffers[1]: op %u is not inside arena 3's owner op %u",
           (unsigned)alloc1, (unsigned)herd1);
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, want);
  free(b.data);
  b = copy_good(f);
  set_field(&b, AIR_ART_BUFFERS, 2, "op", alloc1);
  snprintf(want, sizeof want, ".air.memplan.buffers[2]: op %u is planned twice (also buffers[1])",
           (unsigned)alloc1);
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, want);
  free(b.data);
  /* No L3 arena at all. */
  b = copy_good(f);
  set_field(&b, AIR_ART_META, 0, "n_arenas", 0);
  put_le(b.data + shdr_of(&b, ".air.memplan.arenas") + SH_SIZE, 8, 0);
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, ".air.memplan.arenas: empty");
  free(b.data);
}

static void test_corrupt_program(void** state) {
  fixture_t* f = *state;
  bytes_t b = copy_good(f);
  size_t at = section_offset(&b, AIR_ART_PROGRAM);
  size_t size = (size_t)get_le(b.data + shdr_of(&b, ".air.program") + SH_SIZE, 8);
  char* text = (char*)b.data + at;
  char* func = find(text, size, "func.func");
  assert_non_null(func);
  func[6] = 'x';
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, "bad.airbin[.air.program]:");
  free(b.data);
  /* Text that breaks a rule: the put/get name a channel no longer declared. */
  b = copy_good(f);
  text = (char*)b.data + at;
  char* ch = find(text, size, "air.channel @ch");
  assert_non_null(ch);
  memcpy(ch + 13, "zz", 2);
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, "bad.airbin[.air.program]:");
  free(b.data);
}

static void test_corrupt_container(void** state) {
  fixture_t* f = *state;
  bytes_t b = copy_good(f);
  size_t waits = shdr_of(&b, ".air.waits"), cmds = shdr_of(&b, ".air.cmds");
  uint64_t shstr = get_le(b.data + shdr_of(&b, ".shstrtab") + SH_OFFSET, 8);
  uint32_t waits_name = (uint32_t)get_le(b.data + waits + SH_NAME, 4);

  b.data[shstr + waits_name + 5] = 'x'; /* ".air.xaits" */
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, "section .air.waits is missing");
  b.data[shstr + waits_name + 5] = 'w';
  put_le(b.data + waits + SH_NAME, 4, get_le(b.data + cmds + SH_NAME, 4));
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, ".air.cmds: appears twice");
  put_le(b.data + waits + SH_NAME, 4, waits_name);
  put_le(b.data + waits + SH_TYPE, 4, 8 /* SHT_NOBITS */);
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS,
              ".air.waits: section type 8, expected PROGBITS");
  put_le(b.data + waits + SH_TYPE, 4, 1);
  put_le(b.data + waits + SH_ENTSIZE, 8, 7);
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, ".air.waits: entry size 7, expected 8");
  put_le(b.data + waits + SH_ENTSIZE, 8, 8);
  uint64_t off = get_le(b.data + waits + SH_OFFSET, 8);
  put_le(b.data + waits + SH_OFFSET, 8, b.size - 8);
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, "outside the");
  put_le(b.data + waits + SH_OFFSET, 8, off);
  put_le(b.data + waits + SH_SIZE, 8, UINT64_MAX);
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_DATA_LOSS, "bad.airbin");
  free(b.data);

  /* An EM_NONE ET_REL ELF without .air.meta: some other file, not a corrupt one. */
  b = copy_good(f);
  size_t meta = shdr_of(&b, ".air.meta");
  b.data[shstr + get_le(b.data + meta + SH_NAME, 4) + 1] = 'x';
  expect_read(f->ctx, b.data, b.size, AIR_STATUS_INVALID_ARGUMENT, "no .air.meta section");
  free(b.data);
  /* Header fields. */
  static const struct {
    size_t at;
    uint8_t value;
    const char* expect;
  } k_header[] = {
      {0x12, 62, "not an .airbin: machine 62"}, /* e_machine = EM_X86_64 */
      {0x10, 2, "type 2"},                      /* e_type = ET_EXEC */
      {7, 3, "OS ABI 3"},                       /* EI_OSABI = Linux */
      {5, 2, "big-endian"},                     /* EI_DATA */
  };
  for (size_t i = 0; i < sizeof k_header / sizeof k_header[0]; ++i) {
    b = copy_good(f);
    b.data[k_header[i].at] = k_header[i].value;
    expect_read(f->ctx, b.data, b.size, AIR_STATUS_INVALID_ARGUMENT, k_header[i].expect);
    free(b.data);
  }
  b = copy_good(f);
  b.data[4] = 1; /* ELFCLASS32 */
  air_program_t* p = NULL;
  air_schedule_t* s = NULL;
  air_status_t st = air_artifact_read(f->ctx, b.data, b.size, "bad.airbin", &p, &s);
  assert_non_null(st);
  assert_true(air_status_code(st) == AIR_STATUS_INVALID_ARGUMENT ||
              air_status_code(st) == AIR_STATUS_DATA_LOSS);
  air_status_free(st);
  free(b.data);
  /* Truncated: the section table is at the end. */
  expect_read(f->ctx, f->good.data, f->good.size / 2, AIR_STATUS_DATA_LOSS, "bad.airbin");
}

/*---------------------------------------------------------------------------*/
/* Mutations                                                                 */
/*---------------------------------------------------------------------------*/

static uint64_t next_random(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Every read must return OK or an error status; air_fuzz_artifact_check traps on
 * anything else (and on a leak, or a loaded file that does not write back). */
static void mutate(const bytes_t* good, uint64_t seed, uint32_t random_runs, bool whole_file) {
  uint32_t loaded = 0, runs = 0;
  bytes_t b = {malloc(good->size), good->size};
  assert_non_null(b.data);
  for (size_t len = 0; len <= good->size; ++len, ++runs) /* every truncation */
    loaded += (uint32_t)air_fuzz_artifact_check(good->data, len);
  assert_int_equal(loaded, 1); /* only the whole file */
  size_t shoff = (size_t)get_le(good->data + 0x28, 8);
  for (size_t i = 0; i < good->size; ++i) { /* header and section table bytes */
    if (i >= 64 && i < shoff) continue;
    memcpy(b.data, good->data, b.size);
    b.data[i] ^= 0xff;
    loaded += (uint32_t)air_fuzz_artifact_check(b.data, b.size);
    ++runs;
  }
  /* Seeded flips; without whole_file only inside the record sections, where the
   * checks (not the parser) have to catch them. */
  size_t lo = whole_file ? 0 : section_offset(good, AIR_ART_META);
  size_t hi = whole_file ? good->size : shoff;
  if (!whole_file) {
    size_t prog = section_offset(good, AIR_ART_PROGRAM);
    lo = prog + (size_t)get_le(good->data + shdr_of(good, ".air.program") + SH_SIZE, 8);
  }
  uint64_t s = seed;
  for (uint32_t r = 0; r < random_runs; ++r, ++runs) {
    memcpy(b.data, good->data, b.size);
    uint32_t flips = 1 + (uint32_t)(next_random(&s) % 4);
    for (uint32_t k = 0; k < flips; ++k) {
      size_t at = lo + (size_t)(next_random(&s) % (hi - lo));
      b.data[at] = (uint8_t)next_random(&s);
    }
    loaded += (uint32_t)air_fuzz_artifact_check(b.data, b.size);
  }
  print_message("mutations: %u reads, %u loaded\n", runs, loaded);
  free(b.data);
}

static void test_mutations(void** state) {
  fixture_t* f = *state;
  air_program_t* prog = NULL;
  air_schedule_t* sched = NULL;
  assert_true(compile_path(f->ctx, AIR_TEST_DATA_DIR "/programs/no_module_wrapper.mlir", &prog,
                           &sched));
  bytes_t small = write_mem(f->ctx, prog, sched);
  mutate(&small, 1, 2000, true);
  free(small.data);
  air_schedule_free(sched);
  air_program_destroy(prog);
  mutate(&f->good, 2, 3000, false);
}

int main(void) {
  const struct CMUnitTest corrupt[] = {
      cmocka_unit_test(test_corrupt_meta),
      cmocka_unit_test(test_corrupt_cmds_and_queues),
      cmocka_unit_test(test_corrupt_waves),
      cmocka_unit_test(test_corrupt_waits),
      cmocka_unit_test(test_corrupt_group),
      cmocka_unit_test(test_corrupt_memplan),
      cmocka_unit_test(test_corrupt_program),
      cmocka_unit_test(test_corrupt_container),
      cmocka_unit_test(test_mutations),
  };
  return cmocka_run_group_tests_name("artifact_corrupt", corrupt, fixture_setup,
                                     fixture_teardown);
}

/* test_artifact.c - the .airbin writer and reader (src/scheduler/artifact/):
 *
 *  - round trip: every sample and test program that compiles for cpu reads back
 *    with the same program text and the same cmds/queues/waves/waits/memplan (and
 *    the same derived partition fields), and rewriting gives the same bytes;
 *  - write errors, files that are not ELF, ELFs that are not .airbin.
 *
 * Corrupt files (one case per validation rule) and the mutation loop are in
 * test_artifact_corrupt.c; both share tests/artifact_test.h.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "artifact_test.h"

static char* print(const air_program_t* p, size_t* len) {
  char* text = NULL;
  assert_null(air_program_print_to_string(p, 0, &text, len));
  return text;
}

static void assert_same_schedule(const air_schedule_t* a, const air_schedule_t* b) {
  assert_string_equal(a->target, b->target);
  assert_string_equal(a->entry, b->entry);
  assert_int_equal(a->n_body_ops, b->n_body_ops);
  assert_int_equal(a->n_cmds, b->n_cmds);
  assert_int_equal(a->n_queues, b->n_queues);
  assert_int_equal(a->compile_ns, b->compile_ns);
  for (uint32_t i = 0; i < a->n_cmds; ++i) {
    assert_int_equal(a->cmds[i].op, b->cmds[i].op);
    assert_int_equal(a->cmds[i].kind, b->cmds[i].kind);
  }
  assert_memory_equal(a->queue_kind, b->queue_kind, a->n_queues);
  const air_partition_t *P = a->partition, *Q = b->partition;
  assert_int_equal(P->n_nodes, Q->n_nodes);
  assert_int_equal(P->n_queues, Q->n_queues);
  assert_int_equal(P->n_waves, Q->n_waves);
  assert_int_equal(P->n_waits, Q->n_waits);
  assert_int_equal(P->n_levels, Q->n_levels);
  for (uint32_t q = 0; q < P->n_queues; ++q) {
    assert_int_equal(P->queues[q].wave_begin, Q->queues[q].wave_begin);
    assert_int_equal(P->queues[q].wave_end, Q->queues[q].wave_end);
  }
  for (uint32_t w = 0; w < P->n_waves; ++w) {
    const air_partition_wave_t *x = &P->waves[w], *y = &Q->waves[w];
    assert_int_equal(x->queue, y->queue);
    assert_int_equal(x->level, y->level);
    assert_int_equal(x->cmd_begin, y->cmd_begin);
    assert_int_equal(x->cmd_end, y->cmd_end);
    assert_int_equal(x->wait_begin, y->wait_begin);
    assert_int_equal(x->wait_end, y->wait_end);
    assert_int_equal(x->ordered, y->ordered);
  }
  assert_memory_equal(P->cmds, Q->cmds, P->n_nodes * sizeof *P->cmds);
  for (uint32_t i = 0; i < P->n_waits; ++i) {
    assert_int_equal(P->waits[i].queue, Q->waits[i].queue);
    assert_int_equal(P->waits[i].value, Q->waits[i].value);
  }
  assert_memory_equal(P->node_wave, Q->node_wave, P->n_nodes * sizeof(uint32_t));
  assert_memory_equal(P->node_queue, Q->node_queue, P->n_nodes * sizeof(uint32_t));
  assert_memory_equal(P->clocks, Q->clocks, (size_t)P->n_waves * P->n_queues * sizeof(uint32_t));
  /* Levels hold the same commands; the order inside a level is any topological one. */
  for (uint32_t l = 0; l < P->n_levels; ++l) {
    assert_int_equal(P->levels[l].cmd_begin, Q->levels[l].cmd_begin);
    assert_int_equal(P->levels[l].cmd_end, Q->levels[l].cmd_end);
    for (uint32_t k = P->levels[l].cmd_begin; k < P->levels[l].cmd_end; ++k)
      assert_int_equal(P->waves[P->node_wave[Q->level_cmds[k]]].level, l);
  }
  assert_int_equal(P->stats.edges, Q->stats.edges);
  assert_int_equal(P->stats.cross_edges, Q->stats.cross_edges);
  assert_int_equal(P->stats.waits_raw, Q->stats.waits_raw);
  assert_int_equal(P->stats.waits_kept, Q->stats.waits_kept);
  assert_int_equal(P->stats.groups, Q->stats.groups);
  assert_int_equal(P->stats.grown, Q->stats.grown);
  const air_memplan_t *M = &a->memplan, *N = &b->memplan;
  assert_int_equal(M->alignment, N->alignment);
  assert_int_equal(M->n_arenas, N->n_arenas);
  assert_int_equal(M->n_buffers, N->n_buffers);
  for (uint32_t i = 0; i < M->n_arenas; ++i) {
    const air_memplan_arena_t *x = &M->arenas[i], *y = &N->arenas[i];
    assert_int_equal(x->space, y->space);
    assert_int_equal(x->owner, y->owner);
    assert_int_equal(x->size, y->size);
    assert_int_equal(x->lower_bound, y->lower_bound);
    assert_int_equal(x->capacity, y->capacity);
    assert_int_equal(x->buffer_begin, y->buffer_begin);
    assert_int_equal(x->buffer_end, y->buffer_end);
  }
  for (uint32_t i = 0; i < M->n_buffers; ++i) {
    const air_memplan_buffer_t *x = &M->buffers[i], *y = &N->buffers[i];
    assert_int_equal(x->op, y->op);
    assert_int_equal(x->arena, y->arena);
    assert_int_equal(x->size, y->size);
    assert_int_equal(x->offset, y->offset);
    assert_int_equal(x->start, y->start);
    assert_int_equal(x->end, y->end);
  }
}

/* Reads `b`, compares with the originals, and checks that writing again gives
 * the same bytes. */
static void check_round_trip(air_context_t* ctx, const air_program_t* prog,
                             const air_schedule_t* sched, bytes_t b) {
  air_program_t* p2 = NULL;
  air_schedule_t* s2 = NULL;
  air_status_t st = air_artifact_read(ctx, b.data, b.size, "rt.airbin", &p2, &s2);
  if (st) fail_msg("read back: %s", air_status_message(st));
  assert_same_schedule(sched, s2);
  size_t l1 = 0, l2 = 0;
  char* t1 = print(prog, &l1);
  char* t2 = print(p2, &l2);
  assert_int_equal(l1, l2);
  assert_memory_equal(t1, t2, l1);
  air_program_free_string(prog, t1);
  air_program_free_string(p2, t2);
  bytes_t again = write_mem(ctx, p2, s2);
  assert_int_equal(again.size, b.size);
  assert_memory_equal(again.data, b.data, b.size);
  free(again.data);
  air_schedule_free(s2);
  air_program_destroy(p2);
}

/*---------------------------------------------------------------------------*/
/* Round trips                                                               */
/*---------------------------------------------------------------------------*/

static uint32_t round_trip_dir(air_context_t* ctx, const char* dir) {
  DIR* d = opendir(dir);
  assert_non_null(d);
  uint32_t n = 0;
  for (struct dirent* e; (e = readdir(d)) != NULL;) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".mlir") != 0) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    air_program_t* prog = NULL;
    air_schedule_t* sched = NULL;
    if (!compile_path(ctx, path, &prog, &sched)) continue;
    bytes_t b = write_mem(ctx, prog, sched);
    check_round_trip(ctx, prog, sched, b);
    free(b.data);
    air_schedule_free(sched);
    air_program_destroy(prog);
    ++n;
  }
  closedir(d);
  return n;
}

static void test_round_trip_every_program(void** state) {
  air_context_t* ctx = *state;
  uint32_t n = round_trip_dir(ctx, AIR_SOURCE_DIR "/samples");
  n += round_trip_dir(ctx, AIR_TEST_DATA_DIR "/programs");
  n += round_trip_dir(ctx, AIR_TEST_DATA_DIR "/artifact");
  /* 4 samples, 14 test programs and host_mix compile for cpu today; fewer means
   * the loop silently stopped covering something. */
  print_message("round trip: %u programs\n", n);
  assert_true(n >= 19);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The file API, and the numbers the report quotes: size and write/read times
 * of the matmul sample. */
static void test_file_round_trip_matmul(void** state) {
  air_context_t* ctx = *state;
  air_program_t* prog = NULL;
  air_schedule_t* sched = NULL;
  assert_true(compile_path(ctx, AIR_SOURCE_DIR "/samples/matmul_4x4.mlir", &prog, &sched));
  char path[] = "/tmp/test_artifact-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_null(air_artifact_write_file(air_context_allocator(ctx), prog, sched, path));
  size_t size = 0;
  char* file = test_read_file(path, &size);
  assert_non_null(file);
  assert_true(air_artifact_sniff(file, size));
  air_program_t* p2 = NULL;
  air_schedule_t* s2 = NULL;
  assert_null(air_artifact_read_file(ctx, path, &p2, &s2));
  assert_same_schedule(sched, s2);
  air_schedule_free(s2);
  air_program_destroy(p2);
  bytes_t b = write_mem(ctx, prog, sched);
  assert_int_equal(b.size, size); /* the file and memory writers agree */
  assert_memory_equal(b.data, file, size);

  enum { kRuns = 50 };
  double t0 = now_s();
  for (int i = 0; i < kRuns; ++i) free(write_mem(ctx, prog, sched).data);
  double t1 = now_s();
  for (int i = 0; i < kRuns; ++i) {
    assert_null(air_artifact_read(ctx, b.data, b.size, "m", &p2, &s2));
    air_schedule_free(s2);
    air_program_destroy(p2);
  }
  double t2 = now_s();
  print_message("matmul_4x4.airbin: %zu bytes, write %.1f us, read %.1f us (mean of %d)\n",
                size, 1e6 * (t1 - t0) / kRuns, 1e6 * (t2 - t1) / kRuns, kRuns);
  free(b.data);
  free(file);
  unlink(path);
  air_schedule_free(sched);
  air_program_destroy(prog);
}

/*---------------------------------------------------------------------------*/
/* Write errors, files that are not .airbin                                  */
/*---------------------------------------------------------------------------*/

static void test_write_errors(void** state) {
  air_context_t* ctx = *state;
  air_program_t* prog = NULL;
  air_schedule_t* sched = NULL;
  assert_true(compile_path(ctx, AIR_SOURCE_DIR "/samples/vector_add.mlir", &prog, &sched));
  const air_allocator_t* a = air_context_allocator(ctx);
  test_expect_status(air_artifact_write_file(a, prog, sched, "/nonexistent-dir/x.airbin"),
                AIR_STATUS_NOT_FOUND, "/nonexistent-dir/x.airbin: error: cannot create");
  air_status_t s = air_artifact_write_file(a, prog, sched, "/tmp");
  assert_non_null(s); /* a directory */
  assert_non_null(strstr(air_status_message(s), "/tmp: error: cannot create"));
  air_status_free(s);
  /* An incomplete schedule is refused rather than written. */
  air_partition_t* keep = sched->partition;
  sched->partition = NULL;
  void* data = NULL;
  size_t size = 0;
  test_expect_status(air_artifact_write(a, prog, sched, &data, &size), AIR_STATUS_INVALID_ARGUMENT,
                "incomplete");
  assert_null(data);
  sched->partition = keep;
  air_schedule_free(sched);
  air_program_destroy(prog);
}

static void test_not_an_airbin(void** state) {
  air_context_t* ctx = *state;
  expect_read(ctx, "module {}", 9, AIR_STATUS_INVALID_ARGUMENT, "bad.airbin: error: not an .airbin: not an ELF file");
  expect_read(ctx, "", 0, AIR_STATUS_INVALID_ARGUMENT, "not an ELF file");
  expect_read(ctx, "\x7f" "EL", 3, AIR_STATUS_INVALID_ARGUMENT, "not an ELF file");
  assert_false(air_artifact_sniff("\x7f" "ELX", 4));
  /* Just the magic, or less than a header: cut short, said so (libelf alone has
   * nothing to say: "no error"). */
  expect_read(ctx, "\x7f" "ELF", 4, AIR_STATUS_DATA_LOSS,
              "bad.airbin: error: cut short: 4 bytes, less than the 64-byte ELF header");
  /* This test's own executable: a valid ELF, but not an .airbin. */
  size_t size = 0;
  char* self = test_read_file("/proc/self/exe", &size);
  assert_non_null(self);
  expect_read(ctx, self, size, AIR_STATUS_INVALID_ARGUMENT, "not an .airbin: machine");
  free(self);
  air_program_t* p = NULL;
  air_schedule_t* s = NULL;
  test_expect_status(air_artifact_read_file(ctx, "/nonexistent.airbin", &p, &s), AIR_STATUS_NOT_FOUND,
                "/nonexistent.airbin: error: cannot open");
  test_expect_status(air_artifact_read_file(ctx, "/tmp", &p, &s), AIR_STATUS_INVALID_ARGUMENT,
                "/tmp: error: is a directory, not an .airbin");
  test_expect_status(air_artifact_read_file(ctx, "/dev/null", &p, &s), AIR_STATUS_INVALID_ARGUMENT,
                "/dev/null: error: not a regular file");
}

int main(void) {
  const struct CMUnitTest plain[] = {
      cmocka_unit_test(test_round_trip_every_program),
      cmocka_unit_test(test_file_round_trip_matmul),
      cmocka_unit_test(test_write_errors),
      cmocka_unit_test(test_not_an_airbin),
  };
  return cmocka_run_group_tests_name("artifact", plain, test_context_setup,
                                     test_context_teardown);
}

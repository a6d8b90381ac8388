/* The .npy reader and writer air-run uses (tools/npy.h): round trips of every
 * dtype, the header variants NumPy writes, and malformed files that must fail
 * with a message, never crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "npy.h"

/* Builds a .npy image by hand: version, header dict text and data. */
static size_t make_file(unsigned char* out, size_t cap, unsigned major, const char* dict,
                        const void* data, size_t data_len) {
  size_t prefix = major == 1 ? 10 : 12;
  size_t dlen = strlen(dict);
  size_t total = prefix + dlen + 1;
  assert_true(total + data_len <= cap);
  memcpy(out, "\x93NUMPY", 6);
  out[6] = (unsigned char)major;
  out[7] = 0;
  size_t hl = dlen + 1;
  out[8] = (unsigned char)(hl & 0xff);
  out[9] = (unsigned char)(hl >> 8);
  if (major != 1) {
    out[10] = (unsigned char)(hl >> 16);
    out[11] = (unsigned char)(hl >> 24);
  }
  memcpy(out + prefix, dict, dlen);
  out[prefix + dlen] = '\n';
  if (data_len) memcpy(out + total, data, data_len);
  return total + data_len;
}

static void expect_error(const void* bytes, size_t len, const char* needle) {
  npy_array_t a;
  char err[256] = "";
  assert_int_equal(npy_parse(bytes, len, &a, err, sizeof err), -1);
  assert_null(a.data);
  if (!strstr(err, needle)) fail_msg("error '%s' does not mention '%s'", err, needle);
}

static void test_round_trip_every_dtype(void** state) {
  (void)state;
  static const struct { char kind; uint32_t size; } k_types[] = {
      {'b', 1}, {'i', 1}, {'u', 1}, {'i', 2}, {'u', 2}, {'i', 4}, {'u', 4},
      {'i', 8}, {'u', 8}, {'f', 2}, {'f', 4}, {'f', 8},
  };
  static const struct { uint32_t rank; int64_t shape[3]; } k_shapes[] = {
      {0, {0}}, {1, {7}}, {2, {3, 5}}, {3, {2, 3, 4}}, {2, {0, 5}}, {1, {1}},
  };
  for (size_t t = 0; t < sizeof k_types / sizeof k_types[0]; ++t) {
    for (size_t s = 0; s < sizeof k_shapes / sizeof k_shapes[0]; ++s) {
      npy_array_t a, b;
      char err[256];
      assert_int_equal(npy_alloc(&a, k_types[t].kind, k_types[t].size, k_shapes[s].rank,
                                 k_shapes[s].shape, err, sizeof err), 0);
      unsigned char* p = a.data;
      for (uint64_t i = 0; i < a.nbytes; ++i) p[i] = (unsigned char)(i * 37 + t);
      if (a.kind == 'b')
        for (uint64_t i = 0; i < a.nbytes; ++i) p[i] &= 1;
      void* bytes = NULL;
      size_t len = 0;
      assert_int_equal(npy_encode(&a, &bytes, &len, err, sizeof err), 0);
      /* NumPy's layout: version 1.0, data on a 64-byte boundary, '\n' before it. */
      const unsigned char* f = bytes;
      assert_memory_equal(f, "\x93NUMPY\x01\x00", 8);
      size_t header_end = 10 + (size_t)(f[8] | f[9] << 8);
      assert_int_equal(header_end % 64, 0);
      assert_int_equal(f[header_end - 1], '\n');
      assert_int_equal(len, header_end + a.nbytes);
      assert_int_equal(npy_parse(bytes, len, &b, err, sizeof err), 0);
      assert_int_equal(b.kind, a.kind);
      assert_int_equal(b.itemsize, a.itemsize);
      assert_int_equal(b.rank, a.rank);
      assert_int_equal(b.count, a.count);
      for (uint32_t r = 0; r < a.rank; ++r) assert_int_equal(b.shape[r], a.shape[r]);
      if (a.nbytes) assert_memory_equal(b.data, a.data, a.nbytes);
      assert_int_equal((uintptr_t)b.data % 64, 0);
      free(bytes);
      npy_free(&a);
      npy_free(&b);
    }
  }
}

static void test_header_spellings(void** state) {
  (void)state;
  unsigned char buf[512];
  float data[6] = {1, 2, 3, 4, 5, 6};
  npy_array_t a;
  char err[256];
  /* Version 2.0 and 3.0 headers, double quotes, no trailing comma, odd spacing. */
  const char* dicts[] = {
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
      "{\"descr\":\"<f4\",\"fortran_order\":False,\"shape\":(2,3)}",
      "{ 'shape' : ( 2 , 3 , ) , 'fortran_order' : False , 'descr' : '<f4' }   ",
  };
  for (unsigned major = 1; major <= 3; ++major) {
    for (size_t d = 0; d < 3; ++d) {
      size_t len = make_file(buf, sizeof buf, major, dicts[d], data, sizeof data);
      if (npy_parse(buf, len, &a, err, sizeof err)) fail_msg("v%u dict %zu: %s", major, d, err);
      assert_int_equal(a.rank, 2);
      assert_int_equal(a.shape[0], 2);
      assert_int_equal(a.shape[1], 3);
      assert_memory_equal(a.data, data, sizeof data);
      npy_free(&a);
    }
  }
  /* Big-endian data is converted. */
  unsigned char be[8] = {0x3f, 0x80, 0, 0, 0x40, 0, 0, 0}; /* 1.0f, 2.0f */
  size_t len = make_file(buf, sizeof buf, 1,
                         "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", be, 8);
  assert_int_equal(npy_parse(buf, len, &a, err, sizeof err), 0);
  assert_true(((float*)a.data)[0] == 1.0f && ((float*)a.data)[1] == 2.0f);
  npy_free(&a);
  /* Fortran order is harmless for a vector (same bytes). */
  len = make_file(buf, sizeof buf, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (6,), }",
                  data, sizeof data);
  assert_int_equal(npy_parse(buf, len, &a, err, sizeof err), 0);
  npy_free(&a);
  /* '|b1', '?' and a Python 2 long. */
  unsigned char bools[3] = {1, 0, 1};
  len = make_file(buf, sizeof buf, 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3L,), }",
                  bools, 3);
  assert_int_equal(npy_parse(buf, len, &a, err, sizeof err), 0);
  assert_int_equal(a.kind, 'b');
  npy_free(&a);
  len = make_file(buf, sizeof buf, 1, "{'descr': '?', 'fortran_order': False, 'shape': (3,), }",
                  bools, 3);
  assert_int_equal(npy_parse(buf, len, &a, err, sizeof err), 0);
  assert_int_equal(a.kind, 'b');
  npy_free(&a);
}

static void test_malformed(void** state) {
  (void)state;
  unsigned char buf[1024];
  float data[6] = {0};
  const char* ok_tail = "'fortran_order': False, 'shape': (2, 3), }";
  char dict[256];
  size_t len;

  expect_error("", 0, "not a .npy file");
  expect_error("hello world, not numpy", 22, "not a .npy file");
  expect_error("\x93NUMPY\x01", 7, "not a .npy file");
  len = make_file(buf, sizeof buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                  data, sizeof data);
  buf[6] = 9;
  expect_error(buf, len, "version 9.0");
  buf[6] = 1;
  expect_error(buf, 20, "truncated");           /* header cut short */
  expect_error(buf, len - 4, "data has 20 bytes"); /* data cut short */
  memcpy(buf + len, "xxxx", 4);
  expect_error(buf, len + 4, "need 24");          /* trailing bytes */

  snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }");
  len = make_file(buf, sizeof buf, 1, dict, data, sizeof data);
  expect_error(buf, len, "Fortran-order");

  struct { const char* dict; const char* needle; } cases[] = {
      {"{'descr': '<c8', %s", "unsupported dtype '<c8'"},
      {"{'descr': '<U4', %s", "unsupported dtype '<U4'"},
      {"{'descr': '<f3', %s", "unsupported dtype '<f3'"},
      {"{'descr': '<f16', %s", "unsupported dtype '<f16'"},
      {"{'descr': 'O', %s", "unsupported dtype 'O'"},
      {"{'descr': '', %s", "unsupported dtype ''"},
      {"{'descr': '<f', %s", "unsupported dtype '<f'"},
      {"{'descr': '<f-4', %s", "unsupported dtype"},
      {"{'descr': [('a', '<f4')], %s", "structured dtypes"},
      {"{'descr': 4, %s", "'descr' must be a dtype string"},
      {"{'descr': '<f4', 'extra': 1, %s", "unknown key 'extra'"},
      {"['descr', '<f4'] %s", "expected a '{'"},
      {"{'descr' '<f4', %s", "expected ':'"},
      {"{descr: '<f4', %s", "expected a quoted key"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (2, 3), } %s", "expected ',' or '}'"},
      {"{'descr': '<f4', %s junk", "text after"},
      {"{'fortran_order': False, 'shape': (2, 3), } %s", "missing 'descr'"},
      {"{'descr': '<f4', 'shape': (2, 3), } %s", "missing 'fortran_order'"},
      {"{'descr': '<f4', 'fortran_order': False, } %s", "missing 'shape'"},
      {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2, 3), } %s", "True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3], } %s", "not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), } %s", "non-negative"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 3), } %s", "expected ',' or ')'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), } %s",
       "too large"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), } %s",
       "too large"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), %s", "expected a quoted key"},
      {"{'descr': '<f4\\'', %s", "must be a dtype string"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    snprintf(dict, sizeof dict, cases[i].dict, strstr(cases[i].dict, "'fortran_order'") ||
                                                       strstr(cases[i].dict, "'shape'")
                                                   ? ""
                                                   : ok_tail);
    len = make_file(buf, sizeof buf, 1, dict, data, sizeof data);
    npy_array_t a;
    char err[256] = "";
    if (npy_parse(buf, len, &a, err, sizeof err) == 0) fail_msg("case %zu parsed: %s", i, dict);
    if (!strstr(err, cases[i].needle))
      fail_msg("case %zu (%s): error '%s' lacks '%s'", i, dict, err, cases[i].needle);
  }
  /* 33 dimensions. */
  char big[512] = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 33; ++i) strcat(big, "1,");
  strcat(big, "), }");
  len = make_file(buf, sizeof buf, 1, big, data, 4);
  expect_error(buf, len, "more than 32 dimensions");
}

/* Every truncation and many single-byte corruptions of a valid file either parse
 * or fail with a message: under ASan this proves no read goes out of bounds. */
static void test_corruptions_never_crash(void** state) {
  (void)state;
  npy_array_t a;
  char err[256];
  int64_t shape[2] = {3, 4};
  assert_int_equal(npy_alloc(&a, 'f', 4, 2, shape, err, sizeof err), 0);
  void* bytes = NULL;
  size_t len = 0;
  assert_int_equal(npy_encode(&a, &bytes, &len, err, sizeof err), 0);
  npy_free(&a);
  unsigned char* copy = malloc(len);
  assert_non_null(copy);
  for (size_t cut = 0; cut <= len; ++cut) {
    memcpy(copy, bytes, cut);
    unsigned char* exact = malloc(cut ? cut : 1); /* exact size: ASan sees overreads */
    memcpy(exact, copy, cut);
    err[0] = '\0';
    if (npy_parse(exact, cut, &a, err, sizeof err) == 0) npy_free(&a);
    else assert_true(err[0] != '\0');
    free(exact);
  }
  uint32_t rng = 12345;
  for (int iter = 0; iter < 20000; ++iter) {
    memcpy(copy, bytes, len);
    int flips = 1 + iter % 4;
    for (int f = 0; f < flips; ++f) {
      rng = rng * 1664525u + 1013904223u;
      size_t at = (rng >> 8) % 128 < len ? (rng >> 8) % 128 : 0; /* the header */
      rng = rng * 1664525u + 1013904223u;
      copy[at] = (unsigned char)(rng >> 24);
    }
    err[0] = '\0';
    if (npy_parse(copy, len, &a, err, sizeof err) == 0) npy_free(&a);
    else assert_true(err[0] != '\0');
  }
  free(copy);
  free(bytes);
}

static void test_files(void** state) {
  (void)state;
  char path[256];
  const char* dir = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/air_test_npy_%ld.npy", dir && *dir ? dir : "/tmp",
           (long)getpid());
  npy_array_t a, b;
  char err[256];
  int64_t shape[1] = {100};
  assert_int_equal(npy_alloc(&a, 'i', 4, 1, shape, err, sizeof err), 0);
  for (int i = 0; i < 100; ++i) ((int32_t*)a.data)[i] = i * i - 50;
  assert_int_equal(npy_write_file(path, &a, err, sizeof err), 0);
  assert_int_equal(npy_read_file(path, &b, err, sizeof err), 0);
  assert_int_equal(b.count, 100);
  assert_memory_equal(a.data, b.data, 400);
  npy_free(&b);
  remove(path);
  assert_int_equal(npy_read_file(path, &b, err, sizeof err), -1);
  assert_non_null(strstr(err, "cannot open"));
  assert_int_equal(npy_write_file("/nonexistent-dir/x.npy", &a, err, sizeof err), -1);
  assert_non_null(strstr(err, "cannot create"));
  npy_free(&a);
  npy_free(&a); /* freeing twice is harmless: npy_free clears */

  char buf[64];
  int64_t s2[2] = {512, 512};
  assert_string_equal(npy_shape_string(0, NULL, buf, sizeof buf), "()");
  assert_string_equal(npy_shape_string(1, s2, buf, sizeof buf), "(512,)");
  assert_string_equal(npy_shape_string(2, s2, buf, sizeof buf), "(512, 512)");
  assert_string_equal(npy_dtype_string('f', 4, buf), "<f4");
  assert_string_equal(npy_dtype_string('u', 1, buf), "|u1");
  assert_int_equal(npy_alloc(&a, 'f', 3, 1, shape, err, sizeof err), -1);
  assert_int_equal(npy_alloc(&a, 'x', 4, 1, shape, err, sizeof err), -1);
  int64_t neg[1] = {-1};
  assert_int_equal(npy_alloc(&a, 'f', 4, 1, neg, err, sizeof err), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip_every_dtype),
      cmocka_unit_test(test_header_spellings),
      cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_corruptions_never_crash),
      cmocka_unit_test(test_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_base.c - the shared base helpers: checked allocation, array growth, the
 * pointer map (insert, replace, delete with tombstones, regrowth). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/base/mem.h"
#include "runtime/base/ptrmap.h"

static void test_calloc_overflow_and_zero(void** state) {
  (void)state;
  air_allocator_t a;
  air_allocator_init_system(&a);
  assert_null(air_mem_calloc(&a, SIZE_MAX / 2, 4));
  unsigned char* p = air_mem_calloc(&a, 10, 7);
  assert_non_null(p);
  for (int i = 0; i < 70; ++i) assert_int_equal(p[i], 0);
  air_mem_free(&a, p);
  void* z = air_mem_calloc(&a, 0, 8); /* zero bytes is still a valid pointer */
  assert_non_null(z);
  air_mem_free(&a, z);
  air_mem_free(&a, NULL);
}

static void test_grow(void** state) {
  (void)state;
  air_allocator_t a;
  air_allocator_init_system(&a);
  int* d = NULL;
  uint32_t cap = 0;
  assert_true(air_mem_grow(&a, (void**)&d, &cap, 1, sizeof(int)));
  assert_int_equal(cap, 16);
  assert_true(air_mem_grow(&a, (void**)&d, &cap, 1000, sizeof(int)));
  assert_int_equal(cap, 1024);
  for (int i = 0; i < 1000; ++i) d[i] = i;
  assert_true(air_mem_grow(&a, (void**)&d, &cap, 10, sizeof(int))); /* no shrink */
  assert_int_equal(cap, 1024);
  assert_int_equal(d[999], 999);
  assert_false(air_mem_grow(&a, (void**)&d, &cap, (size_t)UINT32_MAX + 1, 1));
  assert_int_equal(cap, 1024);
  size_t zc = 0;
  char* z = NULL;
  assert_false(air_mem_grow_z(&a, (void**)&z, &zc, SIZE_MAX / 2, 4));
  assert_null(z);
  air_mem_free(&a, d);
}

static void test_oom_status(void** state) {
  (void)state;
  air_allocator_t a;
  air_allocator_init_system(&a);
  air_status_t s = AIR_STATUS_OOM(&a, "test tables");
  assert_non_null(s);
  assert_int_equal(air_status_code(s), AIR_STATUS_RESOURCE_EXHAUSTED);
  assert_non_null(strstr(air_status_message(s), "test tables"));
  air_status_free(s);
}

static void test_ptrmap(void** state) {
  (void)state;
  air_allocator_t a;
  air_allocator_init_system(&a);
  enum { N = 20000 };
  char* base = malloc(N);
  air_ptrmap_t m = {0};
  assert_null(air_ptrmap_get(&m, base));
  assert_false(air_ptrmap_del(&m, base));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < N; ++i)
      assert_true(air_ptrmap_put(&m, &a, base + i, (void*)(uintptr_t)(i + 1)));
    assert_int_equal(m.n, N);
    for (int i = 0; i < N; i += 2) assert_true(air_ptrmap_del(&m, base + i));
    assert_int_equal(m.n, N / 2);
    for (int i = 0; i < N; ++i) {
      void* v = air_ptrmap_get(&m, base + i);
      if (i % 2 == 0)
        assert_null(v);
      else
        assert_int_equal((uintptr_t)v, (uintptr_t)(i + 1));
    }
    /* Re-insert the deleted keys: tombstones are reused, the count stays exact. */
    for (int i = 0; i < N; i += 2) assert_true(air_ptrmap_put(&m, &a, base + i, (void*)7));
    assert_int_equal(m.n, N);
    assert_int_equal((uintptr_t)air_ptrmap_get(&m, base + 2), 7);
  }
  air_ptrmap_free(&m, &a);
  assert_int_equal(m.cap, 0);
  assert_null(air_ptrmap_get(&m, base + 1));
  free(base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_calloc_overflow_and_zero),
      cmocka_unit_test(test_grow),
      cmocka_unit_test(test_oom_status),
      cmocka_unit_test(test_ptrmap),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_code_object.c - the AMDGPU code-object reader (src/amdgpu/) over objects
 * Debian's clang built for several targets and versions (tests/amdgpu.cmake writes
 * their manifest), the images embedded in libhsa-runtime64, and corrupt inputs:
 * every truncation, every single-byte flip, crafted metadata. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gelf.h>
#include <libelf.h>

#include "amdgpu/code_object.h"
#include "amdgpu/kernarg.h"
#include "test_util.h"

typedef struct entry_t {
  char path[512];
  char mcpu[32];
  unsigned version;
  char lang[8];
} entry_t;

static int read_manifest(entry_t* out, int cap) {
  FILE* f = fopen(AIR_AMDGPU_MANIFEST, "r");
  if (!f) return 0;
  int n = 0;
  while (n < cap && fscanf(f, "%511s %31s %u %7s", out[n].path, out[n].mcpu, &out[n].version,
                           out[n].lang) == 4)
    ++n;
  fclose(f);
  return n;
}

static air_amdgpu_code_object_t* read_ok(const char* path, char** bytes, size_t* len) {
  *bytes = test_read_file(path, len);
  assert_non_null(*bytes);
  air_amdgpu_code_object_t* co = NULL;
  air_status_t s = air_amdgpu_code_object_read(NULL, *bytes, *len, path, &co);
  if (s) fail_msg("%s", air_status_message(s));
  return co;
}

/* The entry address the descriptor gives is the kernel's STT_FUNC symbol: checked
 * here with libelf directly, independently of the reader. */
static uint64_t func_symbol(char* bytes, size_t len, const char* name) {
  elf_version(EV_CURRENT);
  Elf* e = elf_memory(bytes, len);
  uint64_t v = UINT64_MAX;
  for (Elf_Scn* s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
    GElf_Shdr sh;
    gelf_getshdr(s, &sh);
    if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) continue;
    Elf_Data* d = elf_getdata(s, NULL);
    for (size_t i = 0; d && i < d->d_size / sizeof(Elf64_Sym); ++i) {
      GElf_Sym sym;
      gelf_getsym(d, (int)i, &sym);
      const char* n = elf_strptr(e, sh.sh_link, sym.st_name);
      if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && n && !strcmp(n, name)) v = sym.st_value;
    }
  }
  elf_end(e);
  return v;
}

static void check_arg(const air_amdgpu_kernel_t* k, uint32_t i, uint32_t offset, uint32_t size,
                      const char* kind) {
  assert_true(i < k->n_args);
  assert_int_equal(k->args[i].offset, offset);
  assert_int_equal(k->args[i].size, size);
  assert_string_equal(k->args[i].value_kind, kind);
}

static void generated_objects(void** state) {
  (void)state;
  entry_t m[32];
  int n = read_manifest(m, 32);
  if (n == 0) {
    print_message("no clang that targets amdgcn here: generated objects skipped\n");
    skip();
  }
  int versions[6] = {0}, wave32 = 0, hip = 0;
  for (int i = 0; i < n; ++i) {
    char* bytes;
    size_t len;
    air_amdgpu_code_object_t* co = read_ok(m[i].path, &bytes, &len);
    assert_int_equal(co->version, m[i].version);
    versions[co->version]++;
    assert_string_equal(co->gfx->name, m[i].mcpu);
    char want[64];
    snprintf(want, sizeof want, "amdgcn-amd-amdhsa--%s", m[i].mcpu);
    assert_memory_equal(co->target, want, strlen(want));
    assert_int_equal(co->e_type, ET_DYN);
    uint32_t wave = co->gfx->wave64 ? 64 : 32;
    wave32 += wave == 32;
    if (!strcmp(m[i].lang, "cl")) {
      assert_int_equal(co->n_kernels, 3);
      const air_amdgpu_kernel_t* v = air_amdgpu_code_object_kernel(co, "vadd");
      assert_non_null(v);
      assert_ptr_equal(air_amdgpu_code_object_kernel(co, "vadd.kd"), v);
      assert_string_equal(v->symbol, "vadd.kd");
      assert_int_equal(v->kernarg_segment_size, 28);
      assert_int_equal(v->n_args, 4);
      check_arg(v, 0, 0, 8, "global_buffer");
      check_arg(v, 2, 16, 8, "global_buffer");
      check_arg(v, 3, 24, 4, "by_value");
      assert_int_equal(v->args[3].kind, AIR_AMDGPU_ARG_BY_VALUE);
      assert_int_equal(v->wavefront_size, wave);
      assert_true(v->sgpr_count > 0 && v->vgpr_count > 0);
      const air_amdgpu_kernel_t* l = air_amdgpu_code_object_kernel(co, "lds_reverse");
      assert_non_null(l);
      assert_int_equal(l->group_segment_fixed_size, 1024);
      assert_int_equal(l->kd.group_segment_fixed_size, 1024);
      const air_amdgpu_kernel_t* p = air_amdgpu_code_object_kernel(co, "private_pick");
      assert_non_null(p);
      assert_true(p->private_segment_fixed_size >= 97 * 4);
      check_arg(p, 3, 20, 1, "by_value");
      check_arg(p, 4, 24, 8, "by_value");
      for (uint32_t k = 0; k < co->n_kernels; ++k)
        assert_int_equal(co->kernels[k].entry_address,
                         func_symbol(bytes, len, co->kernels[k].name));
    } else {
      ++hip;
      const air_amdgpu_kernel_t* k = air_amdgpu_code_object_kernel(co, "scale");
      assert_non_null(k);
      check_arg(k, 0, 0, 8, "global_buffer");
      check_arg(k, 1, 8, 4, "by_value");
      if (co->version >= 5) {
        check_arg(k, 3, 16, 4, "hidden_block_count_x");
        assert_int_equal(k->args[3].kind, AIR_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_X);
        check_arg(k, 6, 28, 2, "hidden_group_size_x");
        assert_int_equal(k->args[6].kind, AIR_AMDGPU_ARG_HIDDEN_GROUP_SIZE_X);
      } else {
        check_arg(k, 3, 16, 8, "hidden_global_offset_x");
        assert_int_equal(k->args[3].kind, AIR_AMDGPU_ARG_HIDDEN_GLOBAL_OFFSET_X);
      }
      assert_int_equal(k->entry_address, func_symbol(bytes, len, "scale"));
    }
    air_amdgpu_code_object_free(co);
    free(bytes);
  }
  print_message("%d generated objects: v3 %d, v4 %d, v5 %d; %d wave32, %d HIP\n", n,
                versions[3], versions[4], versions[5], wave32, hip);
}

/* The AMDGPU ELF images inside libhsa-runtime64 (its blit kernels): code-object v4
 * ones read; the legacy v2 ones are refused by name. */
static void libhsa_images(void** state) {
  (void)state;
  size_t len;
  char* lib = test_read_file("/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1", &len);
  if (!lib) {
    print_message("libhsa-runtime64.so.1 not installed: skipped\n");
    skip();
  }
  int read = 0, refused = 0, kernels = 0;
  for (size_t at = 0; at + 64 <= len; ++at) {
    const uint8_t* p = (const uint8_t*)lib + at;
    if (memcmp(p, ELFMAG, SELFMAG) || p[EI_CLASS] != ELFCLASS64 ||
        (p[18] | p[19] << 8) != AIR_EM_AMDGPU)
      continue;
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, p + 0x28, 8);
    memcpy(&shentsize, p + 0x3a, 2);
    memcpy(&shnum, p + 0x3c, 2);
    size_t size = (size_t)(shoff + (uint64_t)shentsize * shnum);
    if (size > len - at) continue;
    air_amdgpu_code_object_t* co = NULL;
    air_status_t s = air_amdgpu_code_object_read(NULL, p, size, "libhsa image", &co);
    if (s) {
      assert_int_equal(air_status_code(s), AIR_STATUS_UNIMPLEMENTED);
      assert_non_null(strstr(air_status_message(s), "version 2"));
      air_status_free(s);
      ++refused;
      continue;
    }
    ++read;
    assert_int_equal(co->version, 4);
    assert_true(co->n_kernels > 0);
    for (uint32_t k = 0; k < co->n_kernels; ++k) {
      const air_amdgpu_kernel_t* K = &co->kernels[k];
      ++kernels;
      assert_true(K->kernarg_segment_size > 0);
      for (uint32_t i = 0; i < K->n_args; ++i)
        assert_true(K->args[i].offset + K->args[i].size <= K->kernarg_segment_size);
      assert_true(K->entry_address > K->kd_address);
    }
    assert_non_null(air_amdgpu_code_object_kernel(co, "copy_buffer_to_image"));
    air_amdgpu_code_object_free(co);
  }
  print_message("libhsa-runtime64: %d v4 images read (%d kernels), %d v2 images refused\n",
                read, kernels, refused);
  assert_true(read >= 20);
  free(lib);
}

static const char* first_object(void) {
  static entry_t m[32]; /* test-local storage; cmocka runs tests one at a time */
  int n = read_manifest(m, 32);
  for (int i = 0; i < n; ++i)
    if (!strcmp(m[i].lang, "hip") && m[i].version == 5) return m[i].path;
  return n ? m[0].path : NULL;
}

/* Every strict prefix of a valid object is an error, and never a crash. */
static void truncations(void** state) {
  (void)state;
  const char* path = first_object();
  if (!path) skip();
  size_t len;
  char* bytes = test_read_file(path, &len);
  assert_non_null(bytes);
  for (size_t n = 0; n < len; ++n) {
    char* copy = malloc(n ? n : 1); /* exactly n bytes: ASan sees any overread */
    memcpy(copy, bytes, n);
    air_amdgpu_code_object_t* co = NULL;
    air_status_t s = air_amdgpu_code_object_read(NULL, copy, n, "prefix", &co);
    if (!s) fail_msg("a %zu-byte prefix of a %zu-byte object was read", n, len);
    air_status_free(s);
    free(copy);
  }
  free(bytes);
}

/* Each byte flipped in turn: a read either fails with a status or yields an object
 * whose arguments lie inside their kernarg segments. */
static void byte_flips(void** state) {
  (void)state;
  const char* path = first_object();
  if (!path) skip();
  size_t len;
  char* bytes = test_read_file(path, &len);
  assert_non_null(bytes);
  int errors = 0;
  for (size_t i = 0; i < len; ++i) {
    bytes[i] ^= (char)0xa5;
    air_amdgpu_code_object_t* co = NULL;
    air_status_t s = air_amdgpu_code_object_read(NULL, bytes, len, "flip", &co);
    if (s) {
      ++errors;
      air_status_free(s);
    } else {
      for (uint32_t k = 0; k < co->n_kernels; ++k)
        for (uint32_t a = 0; a < co->kernels[k].n_args; ++a)
          assert_true((uint64_t)co->kernels[k].args[a].offset + co->kernels[k].args[a].size <=
                      co->kernels[k].kernarg_segment_size);
      air_amdgpu_code_object_free(co);
    }
    bytes[i] ^= (char)0xa5;
  }
  print_message("%d of %zu single-byte flips refused\n", errors, len);
  assert_true(errors > 0);
  free(bytes);
}

static air_status_code_t code_of(const void* data, size_t len) {
  air_amdgpu_code_object_t* co = NULL;
  air_status_t s = air_amdgpu_code_object_read(NULL, data, len, "x", &co);
  air_status_code_t c = air_status_code(s);
  air_status_free(s);
  air_amdgpu_code_object_free(co);
  return c;
}

/* Files that are something else are INVALID_ARGUMENT; other versions UNIMPLEMENTED. */
static void wrong_kinds(void** state) {
  (void)state;
  assert_int_equal(code_of("hello", 5), AIR_STATUS_INVALID_ARGUMENT);
  assert_int_equal(code_of(NULL, 0), AIR_STATUS_INVALID_ARGUMENT);
  const char* path = first_object();
  if (!path) skip();
  size_t len;
  char* b = test_read_file(path, &len);
  b[18] = 62; /* EM_X86_64 */
  assert_int_equal(code_of(b, len), AIR_STATUS_INVALID_ARGUMENT);
  b[18] = (char)AIR_EM_AMDGPU;
  b[EI_OSABI] = 65; /* AMDGPU PAL */
  assert_int_equal(code_of(b, len), AIR_STATUS_INVALID_ARGUMENT);
  b[EI_OSABI] = AIR_ELFOSABI_AMDGPU_HSA;
  b[EI_ABIVERSION] = 0; /* code object v2 */
  assert_int_equal(code_of(b, len), AIR_STATUS_UNIMPLEMENTED);
  b[EI_ABIVERSION] = 9;
  assert_int_equal(code_of(b, len), AIR_STATUS_UNIMPLEMENTED);
  free(b);
}

/* MessagePack metadata decoded directly. */
static air_status_code_t meta(const uint8_t* p, size_t n, const char* expect) {
  air_allocator_t a;
  air_allocator_init_system(&a);
  air_amdgpu_code_object_t co;
  memset(&co, 0, sizeof co);
  air_arena_init(&co.arena, &a);
  air_status_t s = air_amdgpu_metadata_decode(&a, "m", p, n, &co);
  air_status_code_t c = air_status_code(s);
  if (expect) {
    assert_non_null(s);
    if (!strstr(air_status_message(s), expect)) fail_msg("%s", air_status_message(s));
  }
  air_status_free(s);
  air_arena_deinit(&co.arena);
  return c;
}

#define STR(s) (uint8_t)(0xa0 | (sizeof(s) - 1)), s
static void metadata(void** state) {
  (void)state;
  /* An array claiming 4 billion elements in 6 bytes: refused before msgpack-c
   * would allocate for them. */
  static const uint8_t huge[] = {0xdd, 0xff, 0xff, 0xff, 0xff, 0x01};
  assert_int_equal(meta(huge, sizeof huge, "malformed"), AIR_STATUS_DATA_LOSS);
  static const uint8_t huge_map[] = {0x81, 0xdf, 0x7f, 0xff, 0xff, 0xff};
  assert_int_equal(meta(huge_map, sizeof huge_map, "malformed"), AIR_STATUS_DATA_LOSS);
  static const uint8_t never[] = {0xc1};
  assert_int_equal(meta(never, 1, "malformed"), AIR_STATUS_DATA_LOSS);
  static const uint8_t not_map[] = {0x93, 1, 2, 3};
  assert_int_equal(meta(not_map, sizeof not_map, "root is not a map"), AIR_STATUS_DATA_LOSS);
  /* {amdhsa.version: [1, 2], amdhsa.kernels: []}: valid and empty. */
  const uint8_t empty[] = {0x82, 0xae, 'a', 'm', 'd', 'h', 's', 'a', '.', 'v', 'e', 'r', 's',
                           'i', 'o', 'n', 0x92, 1, 2, 0xae, 'a', 'm', 'd', 'h', 's', 'a', '.',
                           'k', 'e', 'r', 'n', 'e', 'l', 's', 0x90};
  assert_int_equal(meta(empty, sizeof empty, NULL), AIR_STATUS_OK);
  uint8_t no_kernels[sizeof empty];
  memcpy(no_kernels, empty, sizeof empty);
  no_kernels[0] = 0x81; /* only amdhsa.version */
  assert_int_equal(meta(no_kernels, 19, "no amdhsa.kernels"), AIR_STATUS_DATA_LOSS);
  /* A kernel map without its register counts. */
  uint8_t k[128];
  size_t n = 0;
  memcpy(k, empty, sizeof empty - 1);
  n = sizeof empty - 1;
  k[n++] = 0x91;
  k[n++] = 0x82;
  memcpy(k + n, (const uint8_t[]){0xa5, '.', 'n', 'a', 'm', 'e', 0xa1, 'k'}, 8);
  n += 8;
  memcpy(k + n, (const uint8_t[]){0xa7, '.', 's', 'y', 'm', 'b', 'o', 'l', 0xa4, 'k', '.', 'k',
                                  'd'}, 13);
  n += 13;
  assert_int_equal(meta(k, n, "lacks .kernarg_segment_size"), AIR_STATUS_DATA_LOSS);
}

static uint64_t get(const uint8_t* p, uint32_t off, uint32_t size) {
  uint64_t v = 0;
  for (uint32_t i = 0; i < size; ++i) v |= (uint64_t)p[off + i] << (8 * i);
  return v;
}

/* The HIP kernel's segment, v4 and v5: explicit arguments at their offsets, the
 * hidden ones from a 1000 x 3 grid of 64 x 2 workgroups. */
static void kernargs(void** state) {
  (void)state;
  entry_t m[32];
  int n = read_manifest(m, 32), done = 0;
  for (int i = 0; i < n; ++i) {
    if (strcmp(m[i].lang, "hip")) continue;
    char* bytes;
    size_t len;
    air_amdgpu_code_object_t* co = read_ok(m[i].path, &bytes, &len);
    const air_amdgpu_kernel_t* k = air_amdgpu_code_object_kernel(co, "scale");
    uint64_t ptr = 0x123456789abcull;
    float sc = 2.5f;
    int32_t cnt = 3000;
    const void* values[3] = {&ptr, &sc, &cnt};
    uint32_t sizes[3] = {8, 4, 4};
    air_amdgpu_dims_t dims = {{1000, 3, 1}, {64, 2, 1}, 2};
    uint8_t seg[512];
    memset(seg, 0xcc, sizeof seg);
    air_status_t s = air_amdgpu_kernarg_pack(NULL, k, values, sizes, 3, &dims, seg, sizeof seg);
    if (s) fail_msg("%s", air_status_message(s));
    assert_int_equal(get(seg, 0, 8), ptr);
    assert_memory_equal(seg + 8, &sc, 4);
    assert_int_equal(get(seg, 12, 4), 3000);
    if (co->version >= 5) {
      assert_int_equal(get(seg, 16, 4), 16); /* ceil(1000 / 64) */
      assert_int_equal(get(seg, 20, 4), 2);  /* ceil(3 / 2) */
      assert_int_equal(get(seg, 24, 4), 1);
      assert_int_equal(get(seg, 28, 2), 64);
      assert_int_equal(get(seg, 30, 2), 2);
      assert_int_equal(get(seg, 34, 2), 40); /* 1000 % 64 */
      assert_int_equal(get(seg, 36, 2), 1);  /* 3 % 2 */
      assert_int_equal(get(seg, 80, 2), 2);  /* grid dims */
    }
    assert_int_equal(get(seg, k->kernarg_segment_size - 8, 8), 0); /* zeroed */
    assert_int_equal(seg[k->kernarg_segment_size], 0xcc);          /* nothing past it */
    /* Wrong count and wrong size are refused. */
    s = air_amdgpu_kernarg_pack(NULL, k, values, sizes, 2, &dims, seg, sizeof seg);
    assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
    air_status_free(s);
    uint32_t bad[3] = {4, 4, 4};
    s = air_amdgpu_kernarg_pack(NULL, k, values, bad, 3, &dims, seg, sizeof seg);
    assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
    air_status_free(s);
    s = air_amdgpu_kernarg_pack(NULL, k, values, sizes, 3, &dims, seg, 8);
    assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
    air_status_free(s);
    air_amdgpu_code_object_free(co);
    free(bytes);
    ++done;
  }
  if (!done) skip();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(generated_objects), cmocka_unit_test(libhsa_images),
      cmocka_unit_test(truncations),       cmocka_unit_test(byte_flips),
      cmocka_unit_test(wrong_kinds),       cmocka_unit_test(metadata),
      cmocka_unit_test(kernargs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

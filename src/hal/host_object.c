/* host_object.c - links the code generator's x86-64 relocatable objects into
 * memory (host_object.h). Parsed by hand: the ELF structures are read field by
 * field from the byte buffer (no pointer into it is trusted before its bounds are
 * checked), and the only relocation applied is S + A into 8 bytes.
 *
 * Layout in memory: every allocated executable section in one run of pages
 * (mapped read+write while linking, then read+execute), every other allocated
 * section in a second run (then read-only). Section order and alignment follow
 * the file. */
#define _GNU_SOURCE 1
#include "hal/host_object.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "hal/compiled.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

enum {
  EHDR_SIZE = 64,
  SHDR_SIZE = 64,
  SYM_SIZE = 24,
  RELA_SIZE = 24,
  SHT_PROGBITS_ = 1,
  SHT_SYMTAB_ = 2,
  SHT_STRTAB_ = 3,
  SHT_RELA_ = 4,
  SHT_NOBITS_ = 8,
  SHT_REL_ = 9,
  SHF_WRITE_ = 1,
  SHF_ALLOC_ = 2,
  SHF_EXEC_ = 4,
  SHF_TLS_ = 0x400,
  SHN_UNDEF_ = 0,
  SHN_LORESERVE_ = 0xff00,
  SHN_ABS_ = 0xfff1,
  STT_FUNC_ = 2,
  STT_SECTION_ = 3,
  STB_LOCAL_ = 0,
  R_X86_64_NONE_ = 0,
  R_X86_64_64_ = 1,
  MAX_SECTIONS = 4096,
  MAX_ALIGN = 4096,
};
#define MAX_BYTES ((uint64_t)256 << 20)

typedef struct sec_t {
  uint32_t name, type;
  uint64_t flags, offset, size, align, entsize;
  uint32_t link, info;
  uint64_t at;   /* an allocated section's offset in its region */
  uint8_t* addr; /* where an allocated section lives, else NULL */
} sec_t;

typedef struct fn_t {
  const char* name; /* in `names` */
  void* addr;
} fn_t;

struct air_host_object_t {
  air_allocator_t alloc;
  uint8_t* code;       /* mapped pages */
  size_t code_bytes;
  uint8_t* data;
  size_t data_bytes;
  fn_t* fns;
  uint32_t n_fns;
  char* names;
};

static uint16_t rd16(const uint8_t* p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t* p) { return rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t* p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* Reads sections, maps and links; on error `st` is set and the caller frees. */
typedef struct ld_t {
  const air_allocator_t* a;
  const uint8_t* b;
  size_t n;
  const char* name;
  sec_t* sec;
  uint32_t n_sec;
  const char* shstr; /* section-name table */
  uint64_t shstr_size;
  air_host_object_t* obj;
} ld_t;

#define BAD(l, ...) AIR_STATUS((l)->a, AIR_STATUS_DATA_LOSS, __VA_ARGS__)

static bool in_file(const ld_t* l, uint64_t off, uint64_t size) {
  return off <= l->n && size <= l->n - off;
}

static const char* sec_name(const ld_t* l, uint32_t i) {
  uint32_t o = l->sec[i].name;
  if (!l->shstr || o >= l->shstr_size) return "?";
  /* NUL inside the table was checked when the table was read. */
  return l->shstr + o;
}

static air_status_t read_header(ld_t* l) {
  const uint8_t* b = l->b;
  if (l->n < EHDR_SIZE || memcmp(b, "\x7f" "ELF", 4))
    return AIR_STATUS(l->a, AIR_STATUS_DATA_LOSS, "%s: not an ELF object", l->name);
  if (b[4] != 2 || b[5] != 1 || b[6] != 1)
    return BAD(l, "%s: not a 64-bit little-endian ELF (version 1)", l->name);
  if (rd16(b + 16) != 1 /* ET_REL */ || rd16(b + 18) != 62 /* EM_X86_64 */ || rd32(b + 20) != 1)
    return BAD(l, "%s: not an x86-64 relocatable object", l->name);
  uint64_t shoff = rd64(b + 40);
  uint16_t shentsize = rd16(b + 58), shnum = rd16(b + 60), shstrndx = rd16(b + 62);
  if (shentsize != SHDR_SIZE || shnum == 0 || shnum > MAX_SECTIONS ||
      !in_file(l, shoff, (uint64_t)shnum * SHDR_SIZE))
    return BAD(l, "%s: section header table (offset %llu, %u entries of %u bytes) is not inside "
                  "the %zu-byte file",
               l->name, (unsigned long long)shoff, shnum, shentsize, l->n);
  if (shstrndx >= shnum) return BAD(l, "%s: section name table index %u out of range", l->name, shstrndx);
  l->sec = air_mem_calloc(l->a, shnum, sizeof(sec_t));
  if (!l->sec) return AIR_STATUS_OOM(l->a, "code object sections");
  l->n_sec = shnum;
  for (uint32_t i = 0; i < shnum; ++i) {
    const uint8_t* h = b + shoff + (uint64_t)i * SHDR_SIZE;
    sec_t* s = &l->sec[i];
    s->name = rd32(h), s->type = rd32(h + 4), s->flags = rd64(h + 8), s->offset = rd64(h + 24);
    s->size = rd64(h + 32), s->link = rd32(h + 40), s->info = rd32(h + 44);
    s->align = rd64(h + 48), s->entsize = rd64(h + 56);
    if (s->type != SHT_NOBITS_ && s->type != 0 && !in_file(l, s->offset, s->size))
      return BAD(l, "%s: section %u lies outside the file", l->name, i);
    if (s->size > MAX_BYTES) return BAD(l, "%s: section %u is too large", l->name, i);
  }
  const sec_t* ns = &l->sec[shstrndx];
  if (ns->type != SHT_STRTAB_ || !ns->size || b[ns->offset + ns->size - 1])
    return BAD(l, "%s: the section name table is not a NUL-terminated string table", l->name);
  l->shstr = (const char*)b + ns->offset;
  l->shstr_size = ns->size;
  return NULL;
}

/* Lays out allocated sections and maps them (read+write for now). */
static air_status_t map_sections(ld_t* l) {
  uint64_t at[2] = {0, 0}; /* code, data */
  for (uint32_t i = 0; i < l->n_sec; ++i) {
    sec_t* s = &l->sec[i];
    if (!(s->flags & SHF_ALLOC_)) continue;
    if (s->flags & (SHF_WRITE_ | SHF_TLS_))
      return BAD(l, "%s: section %s is writable or thread-local (generated code has no state)",
                 l->name, sec_name(l, i));
    if (s->type != SHT_PROGBITS_ && s->type != SHT_NOBITS_)
      return BAD(l, "%s: allocated section %s has unsupported type %u", l->name, sec_name(l, i),
                 s->type);
    uint64_t align = s->align ? s->align : 1;
    if (align & (align - 1) || align > MAX_ALIGN)
      return BAD(l, "%s: section %s has alignment %llu (a power of two up to %d expected)",
                 l->name, sec_name(l, i), (unsigned long long)s->align, MAX_ALIGN);
    int k = (s->flags & SHF_EXEC_) ? 0 : 1;
    at[k] = (at[k] + align - 1) & ~(align - 1);
    s->at = at[k];
    at[k] += s->size;
    if (at[k] > MAX_BYTES) return BAD(l, "%s: allocated sections are too large", l->name);
  }
  long pg = sysconf(_SC_PAGESIZE);
  uint64_t page = pg > 0 ? (uint64_t)pg : 4096;
  uint8_t* base[2] = {NULL, NULL};
  for (int k = 0; k < 2; ++k) {
    if (!at[k]) continue;
    size_t bytes = (size_t)((at[k] + page - 1) / page * page);
    void* m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
      return AIR_STATUS(l->a, AIR_STATUS_RESOURCE_EXHAUSTED, "%s: cannot map %zu bytes for code",
                        l->name, bytes);
    base[k] = m;
    if (k == 0) l->obj->code = m, l->obj->code_bytes = bytes;
    else l->obj->data = m, l->obj->data_bytes = bytes;
  }
  for (uint32_t i = 0; i < l->n_sec; ++i) {
    sec_t* s = &l->sec[i];
    if (!(s->flags & SHF_ALLOC_)) continue;
    uint8_t* region = base[(s->flags & SHF_EXEC_) ? 0 : 1];
    /* Empty sections of an empty region stay unmapped (NULL). */
    s->addr = region ? region + s->at : NULL;
    if (s->addr && s->type == SHT_PROGBITS_ && s->size)
      memcpy(s->addr, l->b + s->offset, (size_t)s->size);
  }
  return NULL;
}

typedef struct ext_t {
  const char* name;
  void* addr;
} ext_t;

#define AIR_CG_EXT(n) {#n, (void*)(uintptr_t)&n},
static const ext_t k_externals[] = {AIR_CG_EXTERNALS(AIR_CG_EXT)};
#undef AIR_CG_EXT

static void* external(const char* name) {
  for (size_t i = 0; i < sizeof k_externals / sizeof k_externals[0]; ++i)
    if (!strcmp(name, k_externals[i].name)) return k_externals[i].addr;
  return NULL;
}

/* The symbol table: checks every entry, resolves the value of symbol `i`. */
typedef struct symtab_t {
  uint32_t index;   /* its section */
  const uint8_t* p; /* entries */
  uint32_t n;
  const char* str;
  uint64_t str_size;
} symtab_t;

static air_status_t read_symtab(ld_t* l, symtab_t* t) {
  memset(t, 0, sizeof *t);
  for (uint32_t i = 0; i < l->n_sec; ++i) {
    if (l->sec[i].type != SHT_SYMTAB_) continue;
    if (t->p) return BAD(l, "%s: more than one symbol table", l->name);
    const sec_t* s = &l->sec[i];
    if (s->entsize != SYM_SIZE || s->size % SYM_SIZE || s->link >= l->n_sec)
      return BAD(l, "%s: malformed symbol table %s", l->name, sec_name(l, i));
    const sec_t* st = &l->sec[s->link];
    if (st->type != SHT_STRTAB_ || !st->size || l->b[st->offset + st->size - 1])
      return BAD(l, "%s: the symbol table's string table is not NUL-terminated", l->name);
    t->index = i;
    t->p = l->b + s->offset;
    t->n = (uint32_t)(s->size / SYM_SIZE);
    t->str = (const char*)l->b + st->offset;
    t->str_size = st->size;
  }
  if (!t->p) return BAD(l, "%s: no symbol table", l->name);
  for (uint32_t i = 0; i < t->n; ++i) {
    const uint8_t* e = t->p + (uint64_t)i * SYM_SIZE;
    uint32_t nm = rd32(e);
    uint16_t shndx = rd16(e + 6);
    uint64_t value = rd64(e + 8), size = rd64(e + 16);
    if (nm >= t->str_size) return BAD(l, "%s: symbol %u: name offset out of range", l->name, i);
    if (shndx == SHN_UNDEF_ || shndx == SHN_ABS_) continue;
    if (shndx >= SHN_LORESERVE_ || shndx >= l->n_sec)
      return BAD(l, "%s: symbol %u (%s): section index %u out of range", l->name, i, t->str + nm,
                 shndx);
    const sec_t* s = &l->sec[shndx];
    if (s->addr && (value > s->size || size > s->size - value))
      return BAD(l, "%s: symbol %u (%s) lies outside its section", l->name, i, t->str + nm);
  }
  return NULL;
}

static air_status_t symbol_address(ld_t* l, const symtab_t* t, uint32_t i, uint64_t* out) {
  const uint8_t* e = t->p + (uint64_t)i * SYM_SIZE;
  const char* nm = t->str + rd32(e);
  uint16_t shndx = rd16(e + 6);
  if (shndx == SHN_UNDEF_) {
    void* x = nm[0] ? external(nm) : NULL;
    if (!x)
      return BAD(l, "%s: the code calls '%s', which generated code may not use", l->name, nm);
    *out = (uint64_t)(uintptr_t)x;
    return NULL;
  }
  if (shndx == SHN_ABS_) return BAD(l, "%s: relocation against absolute symbol '%s'", l->name, nm);
  const sec_t* s = &l->sec[shndx];
  if (!s->addr)
    return BAD(l, "%s: relocation against '%s' in a section that is not loaded", l->name, nm);
  *out = (uint64_t)(uintptr_t)s->addr + rd64(e + 8);
  return NULL;
}

static air_status_t relocate(ld_t* l, const symtab_t* t) {
  for (uint32_t i = 0; i < l->n_sec; ++i) {
    const sec_t* r = &l->sec[i];
    if (r->type == SHT_REL_)
      return BAD(l, "%s: section %s: REL relocations (without addends) are not supported",
                 l->name, sec_name(l, i));
    if (r->type != SHT_RELA_) continue;
    if (r->info >= l->n_sec) return BAD(l, "%s: %s: target section out of range", l->name, sec_name(l, i));
    sec_t* target = &l->sec[r->info];
    if (!target->addr) continue; /* relocations of unloaded sections (debug info) */
    if (r->link != t->index || r->entsize != RELA_SIZE || r->size % RELA_SIZE)
      return BAD(l, "%s: malformed relocation section %s", l->name, sec_name(l, i));
    if (target->type == SHT_NOBITS_)
      return BAD(l, "%s: %s relocates a section without bytes", l->name, sec_name(l, i));
    uint64_t n = r->size / RELA_SIZE;
    for (uint64_t k = 0; k < n; ++k) {
      const uint8_t* e = l->b + r->offset + k * RELA_SIZE;
      uint64_t off = rd64(e), info = rd64(e + 8);
      int64_t addend = (int64_t)rd64(e + 16);
      uint32_t type = (uint32_t)info, sym = (uint32_t)(info >> 32);
      if (type == R_X86_64_NONE_) continue;
      if (type != R_X86_64_64_)
        return BAD(l, "%s: %s[%llu]: relocation type %u (only R_X86_64_64: objects use the large "
                      "code model)",
                   l->name, sec_name(l, i), (unsigned long long)k, type);
      if (off > target->size || target->size - off < 8)
        return BAD(l, "%s: %s[%llu]: offset %llu outside its section", l->name, sec_name(l, i),
                   (unsigned long long)k, (unsigned long long)off);
      if (sym == 0 || sym >= t->n)
        return BAD(l, "%s: %s[%llu]: symbol %u out of range", l->name, sec_name(l, i),
                   (unsigned long long)k, sym);
      uint64_t s = 0;
      AIR_RETURN_IF_ERROR(symbol_address(l, t, sym, &s));
      uint64_t v = s + (uint64_t)addend;
      memcpy(target->addr + off, &v, 8);
    }
  }
  return NULL;
}

/* The defined global functions. */
static air_status_t collect_functions(ld_t* l, const symtab_t* t) {
  air_host_object_t* o = l->obj;
  uint32_t n = 0;
  size_t chars = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t i = 0; i < t->n; ++i) {
      const uint8_t* e = t->p + (uint64_t)i * SYM_SIZE;
      uint8_t info = e[4];
      uint16_t shndx = rd16(e + 6);
      if ((info & 0xf) != STT_FUNC_ || (info >> 4) == STB_LOCAL_ || shndx == SHN_UNDEF_ ||
          shndx >= l->n_sec || !(l->sec[shndx].flags & SHF_EXEC_) || !l->sec[shndx].addr)
        continue;
      const char* nm = t->str + rd32(e);
      size_t len = strlen(nm); /* bounded: the table ends with NUL */
      if (pass == 0) {
        ++n;
        chars += len + 1;
        continue;
      }
      memcpy(o->names + chars, nm, len + 1);
      o->fns[o->n_fns].name = o->names + chars;
      o->fns[o->n_fns].addr = l->sec[shndx].addr + rd64(e + 8);
      ++o->n_fns;
      chars += len + 1;
    }
    if (pass == 0) {
      o->fns = air_mem_calloc(l->a, n ? n : 1, sizeof(fn_t));
      o->names = air_mem_alloc(l->a, chars ? chars : 1);
      if (!o->fns || !o->names) return AIR_STATUS_OOM(l->a, "code object symbols");
      chars = 0;
    }
  }
  return NULL;
}

air_status_t air_host_object_load(const air_allocator_t* allocator, const void* bytes,
                                  size_t size, const char* name, air_host_object_t** out) {
  *out = NULL;
  air_allocator_t a = air_mem_or_system_copy(allocator);
  air_host_object_t* o = air_mem_calloc(&a, 1, sizeof *o);
  if (!o) return AIR_STATUS_OOM(&a, "code object");
  o->alloc = a;
  ld_t l = {&o->alloc, bytes, bytes ? size : 0, name ? name : "<code object>", NULL, 0, NULL, 0, o};
  symtab_t t;
  air_status_t st = read_header(&l);
  if (!st) st = map_sections(&l);
  if (!st) st = read_symtab(&l, &t);
  if (!st) st = relocate(&l, &t);
  if (!st) st = collect_functions(&l, &t);
  if (!st && o->code && mprotect(o->code, o->code_bytes, PROT_READ | PROT_EXEC))
    st = AIR_STATUS(&a, AIR_STATUS_PERMISSION_DENIED,
                    "%s: the system refuses executable memory (mprotect)", l.name);
  if (!st && o->data && mprotect(o->data, o->data_bytes, PROT_READ))
    st = AIR_STATUS(&a, AIR_STATUS_INTERNAL, "%s: mprotect of constants failed", l.name);
  air_mem_free(&a, l.sec);
  if (st) {
    air_host_object_free(o);
    return st;
  }
  *out = o;
  return NULL;
}

void air_host_object_free(air_host_object_t* o) {
  if (!o) return;
  if (o->code) munmap(o->code, o->code_bytes);
  if (o->data) munmap(o->data, o->data_bytes);
  air_allocator_t a = o->alloc;
  air_mem_free(&a, o->fns);
  air_mem_free(&a, o->names);
  air_mem_free(&a, o);
}

uint32_t air_host_object_count(const air_host_object_t* o) { return o ? o->n_fns : 0; }
const char* air_host_object_name(const air_host_object_t* o, uint32_t i) {
  return o && i < o->n_fns ? o->fns[i].name : NULL;
}
void* air_host_object_address(const air_host_object_t* o, uint32_t i) {
  return o && i < o->n_fns ? o->fns[i].addr : NULL;
}

bool air_host_object_cpu_supports(const char* isa) {
#if defined(__x86_64__)
  if (!isa) return false;
  if (!strcmp(isa, "x86-64")) return true;
  if (strcmp(isa, "x86-64-v3")) return false;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  bool fma = c & (1u << 12), movbe = c & (1u << 22), osxsave = c & (1u << 27),
       avx = c & (1u << 28), f16c = c & (1u << 29), popcnt = c & (1u << 23),
       sse42 = c & (1u << 20), ssse3 = c & (1u << 9), sse41 = c & (1u << 19);
  if (!(fma && movbe && osxsave && avx && f16c && popcnt && sse42 && ssse3 && sse41)) return false;
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 6) != 6) return false; /* the OS saves XMM and YMM state */
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  bool bmi1 = b & (1u << 3), avx2 = b & (1u << 5), bmi2 = b & (1u << 8);
  if (!__get_cpuid(0x80000001u, &a, &b, &c, &d)) return false;
  bool lzcnt = c & (1u << 5);
  return bmi1 && avx2 && bmi2 && lzcnt;
#else
  (void)isa;
  return false;
#endif
}

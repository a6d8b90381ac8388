/* code_object.c - reading an AMDGPU HSA code object with libelf: the ELF header
 * (EM_AMDGPU, ELFOSABI_AMDGPU_HSA, the ABI version that gives the code-object
 * version, e_flags), the NT_AMDGPU_METADATA note (decoded by metadata.c) and the
 * `<kernel>.kd` descriptors the symbol tables point at. libelf reads a private
 * copy; every offset and size it reports is checked against the image before use,
 * and the metadata must agree with the header and the descriptors. */
#include "amdgpu/code_object.h"

#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

typedef struct rd_t {
  const air_allocator_t* a;
  const char* name;
  air_amdgpu_code_object_t* co;
  Elf* elf;
  size_t size;
} rd_t;

static air_status_t corrupt(const rd_t* r, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static air_status_t corrupt(const rd_t* r, const char* fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return AIR_STATUS(r->a, AIR_STATUS_DATA_LOSS, "%s: corrupt AMDGPU code object: %s", r->name, msg);
}

static air_status_t not_co(const rd_t* r, const char* why) {
  return AIR_STATUS(r->a, AIR_STATUS_INVALID_ARGUMENT,
                    "%s: not an AMDGPU HSA code object: %s", r->name, why);
}

bool air_amdgpu_code_object_sniff(const void* data, size_t size) {
  const uint8_t* p = data;
  return p && size >= 20 && memcmp(p, ELFMAG, SELFMAG) == 0 && p[EI_DATA] == ELFDATA2LSB &&
         (p[18] | p[19] << 8) == AIR_EM_AMDGPU;
}

/* The header: what kind of file this is, the version and the processor. */
static air_status_t read_header(rd_t* r) {
  air_amdgpu_code_object_t* co = r->co;
  if (elf_kind(r->elf) != ELF_K_ELF) return not_co(r, "not an ELF file");
  if (gelf_getclass(r->elf) != ELFCLASS64) return not_co(r, "not ELF64");
  Elf64_Ehdr* eh = elf64_getehdr(r->elf);
  if (!eh) return corrupt(r, "unreadable ELF header (%s)", elf_errmsg(-1));
  if (eh->e_ident[EI_DATA] != ELFDATA2LSB) return not_co(r, "big-endian");
  if (eh->e_machine != AIR_EM_AMDGPU) return not_co(r, "e_machine is not EM_AMDGPU (224)");
  if (eh->e_ident[EI_OSABI] != AIR_ELFOSABI_AMDGPU_HSA) {
    char why[96];
    snprintf(why, sizeof why, "OS ABI %u (64 = AMDGPU HSA; 65 PAL and 66 Mesa are graphics)",
             eh->e_ident[EI_OSABI]);
    return not_co(r, why);
  }
  co->version = air_gfx_code_object_version(eh->e_ident[EI_ABIVERSION]);
  if (co->version < 3 || co->version > 5)
    return AIR_STATUS(r->a, AIR_STATUS_UNIMPLEMENTED,
                      "%s: AMDGPU code object version %u (ABI version %u) is not supported; "
                      "this reader handles versions 3, 4 and 5", r->name, co->version,
                      eh->e_ident[EI_ABIVERSION]);
  if (eh->e_type != ET_DYN && eh->e_type != ET_REL)
    return corrupt(r, "e_type %u is neither ET_DYN nor ET_REL", eh->e_type);
  /* libelf hands out the section table in place: it must be aligned and whole. */
  if (eh->e_shoff) {
    size_t shnum = 0;
    bool fits = eh->e_shentsize == sizeof(Elf64_Shdr) && eh->e_shoff % 8 == 0 &&
                eh->e_shoff <= r->size && r->size - eh->e_shoff >= sizeof(Elf64_Shdr);
    fits = fits && elf_getshdrnum(r->elf, &shnum) == 0 &&
           shnum <= (r->size - eh->e_shoff) / sizeof(Elf64_Shdr);
    if (!fits)
      return corrupt(r, "the section table (offset %llu, %u-byte entries) does not fit the "
                     "%zu-byte file", (unsigned long long)eh->e_shoff, eh->e_shentsize, r->size);
  }
  co->e_type = eh->e_type;
  co->e_flags = eh->e_flags;
  co->gfx = air_gfx_by_mach(eh->e_flags & AIR_EF_AMDGPU_MACH);
  if (!co->gfx)
    return AIR_STATUS(r->a, AIR_STATUS_UNIMPLEMENTED,
                      "%s: unknown AMDGPU processor 0x%02x in e_flags 0x%x", r->name,
                      eh->e_flags & AIR_EF_AMDGPU_MACH, eh->e_flags);
  air_gfx_features(co->version, eh->e_flags, &co->xnack, &co->sramecc);
  return NULL;
}

/* The section's data, checked to lie inside the image. */
static air_status_t section_data(rd_t* r, Elf_Scn* scn, const GElf_Shdr* sh, Elf_Data** out) {
  *out = NULL;
  if (sh->sh_type == SHT_NOBITS) return NULL;
  if (sh->sh_offset > r->size || sh->sh_size > r->size - sh->sh_offset)
    return corrupt(r, "section %zu ([%llu, +%llu)) lies outside the %zu-byte file",
                   elf_ndxscn(scn), (unsigned long long)sh->sh_offset,
                   (unsigned long long)sh->sh_size, r->size);
  Elf_Data* d = elf_getdata(scn, NULL);
  if (!d && sh->sh_size) return corrupt(r, "section %zu: %s", elf_ndxscn(scn), elf_errmsg(-1));
  if (d && d->d_size && !d->d_buf) return corrupt(r, "section %zu has no data", elf_ndxscn(scn));
  *out = d;
  return NULL;
}

/* Finds the NT_AMDGPU_METADATA note and decodes it. */
static air_status_t read_metadata(rd_t* r) {
  bool found = false;
  for (Elf_Scn* scn = elf_nextscn(r->elf, NULL); scn; scn = elf_nextscn(r->elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) return corrupt(r, "section header: %s", elf_errmsg(-1));
    if (sh.sh_type != SHT_NOTE) continue;
    Elf_Data* d;
    AIR_RETURN_IF_ERROR(section_data(r, scn, &sh, &d));
    if (!d) continue;
    size_t off = 0, name_off, desc_off;
    GElf_Nhdr nh;
    while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
      if (name_off > d->d_size || nh.n_namesz > d->d_size - name_off ||
          desc_off > d->d_size || nh.n_descsz > d->d_size - desc_off)
        return corrupt(r, "a note in section %zu overruns it", elf_ndxscn(scn));
      const char* owner = (const char*)d->d_buf + name_off;
      if (nh.n_type != AIR_NT_AMDGPU_METADATA || nh.n_namesz != 7 || memcmp(owner, "AMDGPU", 7))
        continue;
      if (found) return corrupt(r, "two NT_AMDGPU_METADATA notes");
      found = true;
      AIR_RETURN_IF_ERROR(air_amdgpu_metadata_decode(
          r->a, r->name, (const uint8_t*)d->d_buf + desc_off, nh.n_descsz, r->co));
    }
  }
  if (!found) return corrupt(r, "no NT_AMDGPU_METADATA note (owner \"AMDGPU\", type 32)");
  return NULL;
}

static uint32_t le32(const uint8_t* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The 64 bytes of a descriptor symbol: located through its section, for ET_DYN at
 * st_value - sh_addr, for ET_REL at st_value. */
static air_status_t read_kd(rd_t* r, const GElf_Sym* sym, const char* symname,
                            air_amdgpu_kernel_t* k) {
  if (sym->st_size != 64)
    return corrupt(r, "descriptor %s is %llu bytes, not 64", symname,
                   (unsigned long long)sym->st_size);
  if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
    return corrupt(r, "descriptor %s is not defined in a section", symname);
  Elf_Scn* scn = elf_getscn(r->elf, sym->st_shndx);
  GElf_Shdr sh;
  if (!scn || !gelf_getshdr(scn, &sh))
    return corrupt(r, "descriptor %s: section %u: %s", symname, sym->st_shndx, elf_errmsg(-1));
  Elf_Data* d;
  AIR_RETURN_IF_ERROR(section_data(r, scn, &sh, &d));
  uint64_t base = r->co->e_type == ET_REL ? 0 : sh.sh_addr;
  if (!d || sym->st_value < base || sym->st_value - base > d->d_size ||
      d->d_size - (sym->st_value - base) < 64)
    return corrupt(r, "descriptor %s (0x%llx) lies outside its section", symname,
                   (unsigned long long)sym->st_value);
  const uint8_t* p = (const uint8_t*)d->d_buf + (sym->st_value - base);
  air_amdgpu_kd_t* kd = &k->kd;
  kd->group_segment_fixed_size = le32(p + 0);
  kd->private_segment_fixed_size = le32(p + 4);
  kd->kernarg_size = le32(p + 8);
  kd->kernel_code_entry_byte_offset = (int64_t)((uint64_t)le32(p + 16) | (uint64_t)le32(p + 20) << 32);
  kd->compute_pgm_rsrc3 = le32(p + 44);
  kd->compute_pgm_rsrc1 = le32(p + 48);
  kd->compute_pgm_rsrc2 = le32(p + 52);
  kd->kernel_code_properties = (uint16_t)(p[56] | p[57] << 8);
  k->kd_address = sym->st_value;
  k->entry_address = sym->st_value + (uint64_t)kd->kernel_code_entry_byte_offset;
  return NULL;
}

/* Attaches each kernel's descriptor (its .symbol in SHT_SYMTAB or SHT_DYNSYM) and
 * checks that descriptor and metadata agree on the segment sizes. */
static air_status_t read_descriptors(rd_t* r) {
  air_amdgpu_code_object_t* co = r->co;
  uint8_t* found = co->n_kernels ? air_mem_calloc(r->a, co->n_kernels, 1) : NULL;
  if (co->n_kernels && !found) return AIR_STATUS_OOM(r->a, "code-object reader");
  air_status_t s = NULL;
  for (Elf_Scn* scn = elf_nextscn(r->elf, NULL); scn && !s; scn = elf_nextscn(r->elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) {
      s = corrupt(r, "section header: %s", elf_errmsg(-1));
      break;
    }
    if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) continue;
    Elf_Data* d;
    if ((s = section_data(r, scn, &sh, &d)) || !d) break;
    /* The string table the symbols name into must be a section of this file. */
    size_t nsec = 0;
    if (elf_getshdrnum(r->elf, &nsec) != 0 || sh.sh_link == 0 || sh.sh_link >= nsec) {
      s = corrupt(r, "symbol table %zu links to no string table", elf_ndxscn(scn));
      break;
    }
    size_t nsym = d->d_size / sizeof(Elf64_Sym);
    for (size_t i = 1; i < nsym && !s; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(d, (int)i, &sym)) continue;
      if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT) continue;
      const char* sn = elf_strptr(r->elf, sh.sh_link, sym.st_name);
      if (!sn) continue;
      size_t len = strlen(sn);
      if (len < 4 || strcmp(sn + len - 3, ".kd")) continue;
      for (uint32_t k = 0; k < co->n_kernels; ++k) {
        if (found[k] || strcmp(co->kernels[k].symbol, sn)) continue;
        s = read_kd(r, &sym, sn, &co->kernels[k]);
        found[k] = 1;
        break;
      }
    }
  }
  for (uint32_t k = 0; k < co->n_kernels && !s; ++k) {
    const air_amdgpu_kernel_t* K = &co->kernels[k];
    if (!found[k])
      s = corrupt(r, "kernel '%s': no descriptor symbol '%s'", K->name, K->symbol);
    else if (K->kd.kernarg_size != K->kernarg_segment_size ||
             K->kd.group_segment_fixed_size != K->group_segment_fixed_size ||
             K->kd.private_segment_fixed_size != K->private_segment_fixed_size)
      s = corrupt(r, "kernel '%s': descriptor (kernarg %u, group %u, private %u) and metadata "
                  "(kernarg %u, group %u, private %u) disagree", K->name, K->kd.kernarg_size,
                  K->kd.group_segment_fixed_size, K->kd.private_segment_fixed_size,
                  K->kernarg_segment_size, K->group_segment_fixed_size,
                  K->private_segment_fixed_size);
  }
  air_mem_free(r->a, found);
  return s;
}

/* The metadata's target must name the processor e_flags names. */
static air_status_t check_target(rd_t* r) {
  air_amdgpu_code_object_t* co = r->co;
  static const char k_prefix[] = "amdgcn-amd-amdhsa--";
  if (!co->target) {
    /* Version 3 metadata has no amdhsa.target: spell it from e_flags. */
    char id[64];
    air_gfx_target_id(id, sizeof id, co->gfx->name, co->xnack, co->sramecc);
    size_t n = sizeof k_prefix + strlen(id);
    char* t = air_arena_alloc(&co->arena, n);
    if (!t) return AIR_STATUS_OOM(r->a, "code-object reader");
    snprintf(t, n, "%s%s", k_prefix, id);
    co->target = t;
    return NULL;
  }
  size_t plen = sizeof k_prefix - 1;
  const char* proc = co->target + plen;
  size_t n = strcspn(proc, ":");
  if (strncmp(co->target, k_prefix, plen) || n != strlen(co->gfx->name) ||
      memcmp(proc, co->gfx->name, n))
    return corrupt(r, "metadata target '%s' does not name e_flags' processor %s", co->target,
                   co->gfx->name);
  return NULL;
}

air_status_t air_amdgpu_code_object_read(const air_allocator_t* allocator, const void* data,
                                         size_t size, const char* name,
                                         air_amdgpu_code_object_t** out) {
  *out = NULL;
  air_allocator_t sys;
  allocator = air_mem_or_system(allocator, &sys);
  if (!name) name = "<code object>";
  if (!data || size < EI_NIDENT || memcmp(data, ELFMAG, SELFMAG))
    return AIR_STATUS(allocator, AIR_STATUS_INVALID_ARGUMENT,
                      "%s: not an AMDGPU HSA code object: no ELF header", name);
  if (elf_version(EV_CURRENT) == EV_NONE)
    return AIR_STATUS(allocator, AIR_STATUS_INTERNAL, "libelf: %s", elf_errmsg(-1));
  air_amdgpu_code_object_t* co = air_mem_calloc(allocator, 1, sizeof *co);
  char* copy = air_mem_alloc(allocator, size);
  if (!co || !copy) {
    air_mem_free(allocator, co);
    air_mem_free(allocator, copy);
    return AIR_STATUS_OOM(allocator, "code-object reader");
  }
  air_arena_init(&co->arena, allocator);
  memcpy(copy, data, size);
  rd_t r = {allocator, name, co, elf_memory(copy, size), size};
  air_status_t s;
  if (!r.elf)
    s = corrupt(&r, "%s", elf_errmsg(-1));
  else if (!(s = read_header(&r)) && !(s = read_metadata(&r)) && !(s = check_target(&r)))
    s = read_descriptors(&r);
  if (r.elf) elf_end(r.elf);
  air_mem_free(allocator, copy);
  if (s) {
    air_amdgpu_code_object_free(co);
    return s;
  }
  *out = co;
  return NULL;
}

void air_amdgpu_code_object_free(air_amdgpu_code_object_t* co) {
  if (!co) return;
  air_allocator_t a = co->arena.allocator;
  air_arena_deinit(&co->arena);
  air_mem_free(&a, co);
}

const air_amdgpu_kernel_t* air_amdgpu_code_object_kernel(const air_amdgpu_code_object_t* co,
                                                         const char* name) {
  for (uint32_t k = 0; co && name && k < co->n_kernels; ++k)
    if (!strcmp(co->kernels[k].name, name) || !strcmp(co->kernels[k].symbol, name))
      return &co->kernels[k];
  return NULL;
}

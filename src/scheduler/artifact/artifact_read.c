/* artifact_read.c - .airbin -> (program, schedule): the ELF container, the section
 * table and the records (artifact_format.h), then the checks of artifact_check.c
 * and artifact_bind.c. Everything the compiler stored is read as stored and
 * checked, never computed again; the program text is parsed and verified once. libelf reads a private copy of the bytes, and no offset or
 * size it reports is used before it is checked against the image. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/base/mem.h"
#include "npu/txn.h"
#include "runtime/base/status_util.h"
#include "runtime/target/target.h"
#include "scheduler/artifact/artifact.h"
#include "scheduler/artifact/artifact_code.h"
#include "scheduler/artifact/artifact_internal.h"
#include "scheduler/artifact/artifact_gpu.h"

bool air_artifact_sniff(const void* data, size_t size) {
  return data && size >= SELFMAG && memcmp(data, ELFMAG, SELFMAG) == 0;
}

typedef struct reader_t {
  const air_allocator_t* a;
  const char* name;
  const uint8_t* sec[AIR_ART_SECTION_COUNT];
  size_t size[AIR_ART_SECTION_COUNT];
  uint64_t meta[AIR_ART_M_COUNT_];
  const char* target;
  const char* entry;
  /* The optional GPU sections (artifact_gpu.h). */
  const uint8_t* gpu;
  size_t gpu_size;
  uint32_t n_objects;
  const uint8_t* objects[AIR_ART_GPU_MAX_OBJECTS];
  size_t object_size[AIR_ART_GPU_MAX_OBJECTS];
  const uint8_t* code; /* the optional .air.code */
  size_t code_size;
} reader_t;

static air_status_t not_airbin(const reader_t* r, const char* why) {
  return AIR_STATUS(r->a, AIR_STATUS_INVALID_ARGUMENT,
                    "%s: error: not an .airbin: %s (an .airbin is an ELF64 little-endian ET_REL "
                    "file for EM_NONE with a .air.meta section)",
                    r->name, why);
}

/* What libelf says went wrong; it has nothing to say (elf_errmsg gives "no error")
 * for much of a malformed image, which is then all there is to say. */
static const char* elf_why(void) {
  int e = elf_errno();
  return e ? elf_errmsg(e) : "malformed or cut short";
}

/* `.air.gpu` and `.air.hsaco.N` (N decimal, < AIR_ART_GPU_MAX_OBJECTS), kept for
 * air_art_gpu_decode. */
static air_status_t gpu_section(reader_t* r, Elf_Scn* scn, const Elf64_Shdr* sh, const char* nm,
                                size_t image_size) {
  size_t plen = strlen(AIR_ART_GPU_OBJECT_PREFIX);
  bool table = strcmp(nm, AIR_ART_GPU_SECTION) == 0;
  bool object = strncmp(nm, AIR_ART_GPU_OBJECT_PREFIX, plen) == 0;
  if (!table && !object) return NULL;
  uint32_t index = 0;
  if (object) {
    const char* d = nm + plen;
    size_t n = strlen(d);
    if (!n || n > 3 || (d[0] == '0' && n > 1))
      return air_art_corrupt(r->a, r->name, "%s: not a code-object section name", nm);
    for (size_t i = 0; i < n; ++i) {
      if (d[i] < '0' || d[i] > '9')
        return air_art_corrupt(r->a, r->name, "%s: not a code-object section name", nm);
      index = index * 10 + (uint32_t)(d[i] - '0');
    }
    if (index >= AIR_ART_GPU_MAX_OBJECTS)
      return air_art_corrupt(r->a, r->name, "%s: more than %u code objects", nm, AIR_ART_GPU_MAX_OBJECTS);
  }
  if (sh->sh_type != SHT_PROGBITS || sh->sh_offset > image_size ||
      sh->sh_size > image_size - sh->sh_offset)
    return air_art_corrupt(r->a, r->name, "%s: not PROGBITS inside the file", nm);
  Elf_Data* d = elf_rawdata(scn, NULL);
  if (!sh->sh_size || !d || !d->d_buf || d->d_size != sh->sh_size)
    return air_art_corrupt(r->a, r->name, "%s: empty or unreadable (%s)", nm, elf_why());
  if (table) {
    if (r->gpu) return air_art_corrupt(r->a, r->name, "%s: appears twice", nm);
    r->gpu = d->d_buf;
    r->gpu_size = sh->sh_size;
  } else {
    if (r->objects[index]) return air_art_corrupt(r->a, r->name, "%s: appears twice", nm);
    r->objects[index] = d->d_buf;
    r->object_size[index] = sh->sh_size;
    if (index + 1 > r->n_objects) r->n_objects = index + 1;
  }
  return NULL;
}

/* Finds the .air.* sections. */
static air_status_t read_sections(reader_t* r, Elf* elf, size_t image_size) {
  Elf64_Ehdr* eh = elf_kind(elf) == ELF_K_ELF ? elf64_getehdr(elf) : NULL;
  if (!eh) {
    if (elf_kind(elf) == ELF_K_ELF && gelf_getclass(elf) != ELFCLASS64)
      return not_airbin(r, "not ELF64");
    return air_art_corrupt(r->a, r->name, "unreadable ELF header (%s)", elf_why());
  }
  if (eh->e_ident[EI_DATA] != ELFDATA2LSB) return not_airbin(r, "big-endian");
  if (eh->e_machine != EM_NONE || eh->e_type != ET_REL ||
      eh->e_ident[EI_OSABI] != ELFOSABI_NONE) {
    char why[96];
    snprintf(why, sizeof why, "machine %u, type %u, OS ABI %u", eh->e_machine, eh->e_type,
             eh->e_ident[EI_OSABI]);
    return not_airbin(r, why);
  }
  /* libelf reads what it can of a truncated section table; a short file is
   * corrupt, not a file without .air sections. */
  size_t shnum = eh->e_shnum, shstrndx = 0;
  /* An unaligned table would be handed out as misaligned Elf64_Shdr pointers. */
  bool fits = eh->e_shentsize == sizeof(Elf64_Shdr) && eh->e_shoff % 8 == 0 &&
              eh->e_shoff <= image_size;
  /* e_shnum 0 with a table: the count is in entry 0 (extended numbering). */
  if (fits && shnum == 0 && eh->e_shoff) {
    fits = image_size - eh->e_shoff >= sizeof(Elf64_Shdr);
    if (fits && elf_getshdrnum(elf, &shnum) != 0)
      return air_art_corrupt(r->a, r->name, "section table: %s", elf_why());
  }
  if (!fits || shnum > (image_size - eh->e_shoff) / sizeof(Elf64_Shdr))
    return air_art_corrupt(r->a, r->name,
                           "section table of %zu entries of %u bytes at offset %llu is not an "
                           "aligned table of 64-byte entries inside the %zu-byte file",
                           shnum, eh->e_shentsize, (unsigned long long)eh->e_shoff, image_size);
  if (elf_getshdrstrndx(elf, &shstrndx) != 0)
    return air_art_corrupt(r->a, r->name, "section table: %s", elf_why());
  for (Elf_Scn* scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
    Elf64_Shdr* sh = elf64_getshdr(scn);
    if (!sh) return air_art_corrupt(r->a, r->name, "section table: %s", elf_why());
    const char* nm = elf_strptr(elf, shstrndx, sh->sh_name);
    if (!nm)
      return air_art_corrupt(r->a, r->name, "section %zu: bad name (%s)", elf_ndxscn(scn),
                             elf_why());
    int which = -1;
    for (int i = 0; i < AIR_ART_SECTION_COUNT; ++i)
      if (strcmp(nm, k_air_art_sections[i].name) == 0) which = i;
    if (which < 0 && strcmp(nm, AIR_ART_CODE_SECTION) == 0) {
      if (r->code) return air_art_corrupt(r->a, r->name, "%s: appears twice", nm);
      Elf_Data* d = sh->sh_type == SHT_PROGBITS && sh->sh_offset <= image_size &&
                            sh->sh_size <= image_size - sh->sh_offset && sh->sh_size
                        ? elf_rawdata(scn, NULL)
                        : NULL;
      if (!d || !d->d_buf || d->d_size != sh->sh_size)
        return air_art_corrupt(r->a, r->name, "%s: not a readable PROGBITS section inside the file",
                               nm);
      r->code = d->d_buf;
      r->code_size = sh->sh_size;
      continue;
    }
    if (which < 0) {
      AIR_RETURN_IF_ERROR(gpu_section(r, scn, sh, nm, image_size));
      continue; /* other sections are allowed and ignored */
    }
    if (r->sec[which]) return air_art_corrupt(r->a, r->name, "%s: appears twice", nm);
    if (sh->sh_type != SHT_PROGBITS)
      return air_art_corrupt(r->a, r->name, "%s: section type %u, expected PROGBITS (1)", nm,
                             sh->sh_type);
    if (sh->sh_offset > image_size || sh->sh_size > image_size - sh->sh_offset)
      return air_art_corrupt(r->a, r->name,
                             "%s: bytes %llu..%llu outside the %zu-byte file", nm,
                             (unsigned long long)sh->sh_offset,
                             (unsigned long long)sh->sh_offset + sh->sh_size, image_size);
    const air_art_layout_t* l = &k_air_art_sections[which];
    uint64_t entsize = which == AIR_ART_META || !l->n_fields ? 0 : air_art_record_size(l);
    if (sh->sh_entsize != entsize)
      return air_art_corrupt(r->a, r->name, "%s: entry size %llu, expected %llu", nm,
                             (unsigned long long)sh->sh_entsize, (unsigned long long)entsize);
    Elf_Data* d = elf_rawdata(scn, NULL);
    if (sh->sh_size && (!d || !d->d_buf || d->d_size != sh->sh_size))
      return air_art_corrupt(r->a, r->name, "%s: unreadable (%s)", nm, elf_why());
    static const uint8_t k_empty[1] = {0};
    r->sec[which] = sh->sh_size ? d->d_buf : k_empty;
    r->size[which] = sh->sh_size;
  }
  if (!r->sec[AIR_ART_META]) return not_airbin(r, "no .air.meta section");
  for (int i = 0; i < AIR_ART_FIRST_OPTIONAL; ++i)
    if (!r->sec[i])
      return air_art_corrupt(r->a, r->name, "section %s is missing", k_air_art_sections[i].name);
  return NULL;
}

/* A NUL-terminated name of exactly `len` bytes at `s`. */
static bool exact_string(const uint8_t* s, uint64_t len) {
  return memchr(s, '\0', len) == NULL && s[len] == '\0';
}

static air_status_t read_meta(reader_t* r) {
  const air_art_layout_t* l = &k_air_art_sections[AIR_ART_META];
  const uint8_t* m = r->sec[AIR_ART_META];
  size_t fixed = AIR_ART_MAGIC_SIZE + air_art_record_size(l);
  if (r->size[AIR_ART_META] < AIR_ART_MAGIC_SIZE ||
      memcmp(m, AIR_ART_MAGIC, AIR_ART_MAGIC_SIZE) != 0)
    return not_airbin(r, ".air.meta does not start with the AIRBIN magic");
  if (r->size[AIR_ART_META] < fixed)
    return air_art_corrupt(r->a, r->name, ".air.meta: %zu bytes, shorter than its %zu-byte header",
                           r->size[AIR_ART_META], fixed);
  uint64_t* v = r->meta;
  air_art_unpack(l, m + AIR_ART_MAGIC_SIZE, v);
  if (v[AIR_ART_M_VERSION] != AIR_ART_VERSION)
    return air_art_corrupt(r->a, r->name, ".air.meta: version %llu, this build reads %u",
                           (unsigned long long)v[AIR_ART_M_VERSION], AIR_ART_VERSION);
  if (v[AIR_ART_M_FLAGS] != 0)
    return air_art_corrupt(r->a, r->name, ".air.meta: flags 0x%llx, expected 0",
                           (unsigned long long)v[AIR_ART_M_FLAGS]);
  uint64_t tl = v[AIR_ART_M_TARGET_LEN], el = v[AIR_ART_M_ENTRY_LEN];
  if (r->size[AIR_ART_META] != fixed + tl + 1 + el + 1)
    return air_art_corrupt(r->a, r->name,
                           ".air.meta: %zu bytes, expected %llu (header, then target and entry "
                           "names of %llu and %llu bytes)",
                           r->size[AIR_ART_META], (unsigned long long)(fixed + tl + el + 2),
                           (unsigned long long)tl, (unsigned long long)el);
  const uint8_t* names = m + fixed;
  if (!tl || !exact_string(names, tl))
    return air_art_corrupt(r->a, r->name, ".air.meta: target name is not %llu characters",
                           (unsigned long long)tl);
  if (!el || !exact_string(names + tl + 1, el))
    return air_art_corrupt(r->a, r->name, ".air.meta: entry name is not %llu characters",
                           (unsigned long long)el);
  r->target = (const char*)names;
  r->entry = (const char*)names + tl + 1;
  /* Counts against section sizes. */
  static const struct {
    int section, count;
  } k_counted[] = {
      {AIR_ART_CMDS, AIR_ART_M_CMDS},        {AIR_ART_QUEUES, AIR_ART_M_QUEUES},
      {AIR_ART_WAVES, AIR_ART_M_WAVES},      {AIR_ART_WAVE_CMDS, AIR_ART_M_CMDS},
      {AIR_ART_WAITS, AIR_ART_M_WAITS},      {AIR_ART_ARENAS, AIR_ART_M_ARENAS},
      {AIR_ART_BUFFERS, AIR_ART_M_BUFFERS},  {AIR_ART_CMD_EDGES, AIR_ART_M_CMDS},
  };
  for (size_t i = 0; i < sizeof k_counted / sizeof k_counted[0]; ++i) {
    const air_art_layout_t* sl = &k_air_art_sections[k_counted[i].section];
    uint64_t n = v[k_counted[i].count], rs = air_art_record_size(sl);
    if (r->size[k_counted[i].section] != n * rs)
      return air_art_corrupt(r->a, r->name, "%s: %zu bytes, expected %llu records (%s) of %llu",
                             sl->name, r->size[k_counted[i].section], (unsigned long long)n,
                             l->field[k_counted[i].count], (unsigned long long)rs);
  }
  return NULL;
}

#define ARENA_ARRAY(arena, T, n) ((T*)air_art_array((arena), (n), sizeof(T)))

static char* arena_strdup(air_arena_t* arena, const char* s) {
  size_t n = strlen(s) + 1;
  char* d = air_arena_alloc(arena, n);
  if (d) memcpy(d, s, n);
  return d;
}

/* Record i of section `sec` into v. */
static void record(const reader_t* r, int sec, uint32_t i, uint64_t* v) {
  const air_art_layout_t* l = &k_air_art_sections[sec];
  air_art_unpack(l, r->sec[sec] + (size_t)i * air_art_record_size(l), v);
}

/* Values are stored as read; a field wider than its struct member is caught by
 * the range checks, except these that are checked here. */
/* The optional NPU sections: a stream the TXN decoder accepts, or a reason
 * (text without NUL), never both. */
static air_status_t decode_npu(const reader_t* r, air_schedule_t* s) {
  size_t nb = r->size[AIR_ART_NPU_INSTS], ne = r->size[AIR_ART_NPU_ERROR];
  if (nb % 4)
    return air_art_corrupt(r->a, r->name, ".air.npu.insts: %zu bytes, not whole words", nb);
  if (nb && ne)
    return air_art_corrupt(r->a, r->name, ".air.npu.insts and .air.npu.error are both present");
  if (nb / 4 > UINT32_MAX)
    return air_art_corrupt(r->a, r->name, ".air.npu.insts: too large");
  if (nb) {
    uint32_t* w = air_art_array(&s->arena, nb / 4, 4);
    if (!w) return AIR_STATUS(r->a, AIR_STATUS_RESOURCE_EXHAUSTED, "%s: error: out of memory", r->name);
    uint64_t v[AIR_ART_MAX_FIELDS];
    for (size_t k = 0; k < nb / 4; ++k) {
      record(r, AIR_ART_NPU_INSTS, (uint32_t)k, v);
      w[k] = (uint32_t)v[0];
    }
    air_txn_view_t view;
    air_status_t st = air_txn_decode(r->a, w, nb / 4, ".air.npu.insts", &view);
    if (st) {
      air_status_t c = air_art_corrupt(r->a, r->name, "%s", air_status_message(st));
      air_status_free(st);
      return c;
    }
    air_txn_view_free(r->a, &view);
    s->npu_insts = w;
    s->n_npu_insts = (uint32_t)(nb / 4);
  }
  if (ne) {
    const uint8_t* e = r->sec[AIR_ART_NPU_ERROR];
    if (memchr(e, 0, ne) || ne > 65536)
      return air_art_corrupt(r->a, r->name, ".air.npu.error: not a message");
    char* m = air_art_array(&s->arena, ne + 1, 1);
    if (!m) return AIR_STATUS(r->a, AIR_STATUS_RESOURCE_EXHAUSTED, "%s: error: out of memory", r->name);
    memcpy(m, e, ne);
    s->npu_error = m;
  }
  return NULL;
}

static air_status_t decode(const reader_t* r, air_schedule_t* s) {
  const uint64_t* m = r->meta;
  air_partition_t* P = s->partition;
  air_memplan_t* M = &s->memplan;
  air_arena_t* ar = &s->arena;
  uint64_t v[AIR_ART_MAX_FIELDS];
  s->target = arena_strdup(ar, r->target);
  s->entry = arena_strdup(ar, r->entry);
  s->n_body_ops = (uint32_t)m[AIR_ART_M_BODY_OPS];
  s->n_cmds = P->n_nodes = (uint32_t)m[AIR_ART_M_CMDS];
  s->n_queues = P->n_queues = (uint32_t)m[AIR_ART_M_QUEUES];
  P->n_waves = (uint32_t)m[AIR_ART_M_WAVES];
  P->n_waits = (uint32_t)m[AIR_ART_M_WAITS];
  M->n_arenas = (uint32_t)m[AIR_ART_M_ARENAS];
  M->n_buffers = (uint32_t)m[AIR_ART_M_BUFFERS];
  M->alignment = (uint32_t)m[AIR_ART_M_ALIGNMENT];
  s->compile_ns = m[AIR_ART_M_COMPILE_NS];
  P->stats.edges = m[AIR_ART_M_EDGES];
  P->stats.cross_edges = m[AIR_ART_M_CROSS_EDGES];
  P->stats.waits_raw = m[AIR_ART_M_WAITS_RAW];
  P->stats.waits_kept = P->n_waits;
  P->stats.groups = (uint32_t)m[AIR_ART_M_GROUPS];
  P->stats.grown = (uint32_t)m[AIR_ART_M_GROWN];
  s->cmds = ARENA_ARRAY(ar, air_sched_cmd_t, s->n_cmds);
  s->queue_kind = ARENA_ARRAY(ar, uint8_t, s->n_queues);
  P->queues = ARENA_ARRAY(ar, air_partition_queue_t, P->n_queues);
  P->waves = ARENA_ARRAY(ar, air_partition_wave_t, P->n_waves);
  P->cmds = ARENA_ARRAY(ar, uint32_t, P->n_nodes);
  P->waits = ARENA_ARRAY(ar, air_partition_wait_t, P->n_waits);
  M->arenas = ARENA_ARRAY(ar, air_memplan_arena_t, M->n_arenas);
  M->buffers = ARENA_ARRAY(ar, air_memplan_buffer_t, M->n_buffers);
  s->pred_off = ARENA_ARRAY(ar, uint32_t, (size_t)s->n_cmds + 1);
  s->wave_pred_end = ARENA_ARRAY(ar, uint32_t, s->n_cmds);
  s->group = ARENA_ARRAY(ar, uint32_t, s->n_cmds);
  s->aff_off = ARENA_ARRAY(ar, uint32_t, (size_t)s->n_cmds + 1);
  if (!s->target || !s->entry || !s->cmds || !s->queue_kind || !P->queues || !P->waves ||
      !P->cmds || !P->waits || !M->arenas || !M->buffers || !s->pred_off || !s->wave_pred_end ||
      !s->group || !s->aff_off)
    return AIR_STATUS(r->a, AIR_STATUS_RESOURCE_EXHAUSTED, "%s: error: out of memory", r->name);
  for (uint32_t i = 0; i < s->n_cmds; ++i) {
    record(r, AIR_ART_CMDS, i, v);
    s->cmds[i] = (air_sched_cmd_t){(uint32_t)v[0], (uint32_t)v[1]};
    record(r, AIR_ART_WAVE_CMDS, i, v);
    P->cmds[i] = (uint32_t)v[0];
    /* Ranges begin where the previous command's end; their order is checked later. */
    record(r, AIR_ART_CMD_EDGES, i, v);
    s->group[i] = (uint32_t)v[AIR_ART_E_GROUP];
    s->wave_pred_end[i] = (uint32_t)v[AIR_ART_E_WAVE_PRED_END];
    s->pred_off[i + 1] = (uint32_t)v[AIR_ART_E_PRED_END];
    s->aff_off[i + 1] = (uint32_t)v[AIR_ART_E_AFF_END];
  }
  static const struct {
    int section;
    const char* field;
  } k_lists[] = {{AIR_ART_PREDS, "pred_end"}, {AIR_ART_AFFINITY, "aff_end"}};
  uint32_t* lists[2] = {NULL, NULL};
  for (int l = 0; l < 2; ++l) {
    uint64_t count = (l ? s->aff_off : s->pred_off)[s->n_cmds];
    uint64_t rs = air_art_record_size(&k_air_art_sections[k_lists[l].section]);
    if (r->size[k_lists[l].section] != count * rs)
      return air_art_corrupt(r->a, r->name,
                             "%s: %zu bytes, expected %llu records (the last command's %s) of %llu",
                             k_air_art_sections[k_lists[l].section].name,
                             r->size[k_lists[l].section], (unsigned long long)count,
                             k_lists[l].field, (unsigned long long)rs);
    lists[l] = ARENA_ARRAY(ar, uint32_t, count);
    if (!lists[l])
      return AIR_STATUS(r->a, AIR_STATUS_RESOURCE_EXHAUSTED, "%s: error: out of memory", r->name);
    for (uint32_t k = 0; k < count; ++k) {
      record(r, k_lists[l].section, k, v);
      lists[l][k] = (uint32_t)v[0];
    }
  }
  s->preds = lists[0];
  s->aff = lists[1];
  for (uint32_t q = 0; q < s->n_queues; ++q) {
    record(r, AIR_ART_QUEUES, q, v);
    if (v[0] > AIR_SCHED_Q_COMPUTE)
      return air_art_corrupt(r->a, r->name, ".air.queues[%u]: kind %llu is not a queue kind", q,
                             (unsigned long long)v[0]);
    s->queue_kind[q] = (uint8_t)v[0];
    P->queues[q] = (air_partition_queue_t){(uint32_t)v[1], (uint32_t)v[2]};
  }
  for (uint32_t w = 0; w < P->n_waves; ++w) {
    record(r, AIR_ART_WAVES, w, v);
    if (v[6] > 1)
      return air_art_corrupt(r->a, r->name, ".air.waves[%u]: flags 0x%llx, only bit 0 is defined",
                             w, (unsigned long long)v[6]);
    P->waves[w] = (air_partition_wave_t){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2],
                                         (uint32_t)v[3], (uint32_t)v[4], (uint32_t)v[5], v[6]};
  }
  for (uint32_t i = 0; i < P->n_waits; ++i) {
    record(r, AIR_ART_WAITS, i, v);
    P->waits[i] = (air_partition_wait_t){(uint32_t)v[0], (uint32_t)v[1]};
  }
  for (uint32_t i = 0; i < M->n_arenas; ++i) {
    record(r, AIR_ART_ARENAS, i, v);
    M->arenas[i] = (air_memplan_arena_t){(uint32_t)v[0], (uint32_t)v[1], v[2], v[3], v[4],
                                         (uint32_t)v[5], (uint32_t)v[6]};
  }
  for (uint32_t i = 0; i < M->n_buffers; ++i) {
    record(r, AIR_ART_BUFFERS, i, v);
    M->buffers[i] = (air_memplan_buffer_t){(uint32_t)v[0], (uint32_t)v[1], v[2], v[3],
                                           (uint32_t)v[4], (uint32_t)v[5]};
  }
  return decode_npu(r, s);
}

/* A schedule with an empty partition; decode fills both (arrays in the schedule's
 * arena). */
static air_status_t new_schedule(const air_allocator_t* a, air_schedule_t** out) {
  air_schedule_t* s = air_mem_calloc(a, 1, sizeof *s);
  if (!s) return AIR_STATUS_OOM(a, "artifact");
  s->allocator = *a;
  air_arena_init(&s->arena, a);
  s->partition = air_partition_new(a);
  if (!s->partition) {
    air_schedule_free(s);
    return AIR_STATUS_OOM(a, "artifact");
  }
  *out = s;
  return NULL;
}

static air_status_t load_program(const reader_t* r, air_context_t* context,
                                 const air_schedule_t* s, air_program_t** out) {
  size_t nlen = strlen(r->name) + sizeof "[.air.program]";
  char* fname = r->a->alloc(r->a->self, nlen);
  if (!fname) return AIR_STATUS(r->a, AIR_STATUS_RESOURCE_EXHAUSTED,
                                "%s: error: out of memory", r->name);
  snprintf(fname, nlen, "%s[.air.program]", r->name);
  air_parse_options_t opts = {.filename = fname};
  air_status_t st = air_program_parse(context, (const char*)r->sec[AIR_ART_PROGRAM],
                                      r->size[AIR_ART_PROGRAM], &opts, out);
  if (!st) st = air_program_verify(*out, s->target, 0);
  r->a->free(r->a->self, fname);
  if (st && air_status_code(st) != AIR_STATUS_RESOURCE_EXHAUSTED) {
    /* The text came from a file that should hold a verified program: corrupt. */
    air_status_t loss = AIR_STATUS(r->a, AIR_STATUS_DATA_LOSS, "%s", air_status_message(st));
    air_status_free(st);
    st = loss;
  }
  if (st) {
    air_program_destroy(*out);
    *out = NULL;
  }
  return st;
}

air_status_t air_artifact_read(air_context_t* context, const void* data, size_t size,
                               const char* name, air_program_t** out_program,
                               air_schedule_t** out_schedule) {
  return air_artifact_read_ex(context, data, size, name, out_program, out_schedule, NULL);
}

air_status_t air_artifact_read_ex(air_context_t* context, const void* data, size_t size,
                                  const char* name, air_program_t** out_program,
                                  air_schedule_t** out_schedule, air_artifact_code_t* out_code) {
  *out_program = NULL;
  *out_schedule = NULL;
  if (out_code) memset(out_code, 0, sizeof *out_code);
  const air_allocator_t* a = air_context_allocator(context);
  reader_t r = {.a = a, .name = name ? name : "<memory>"};
  if (!air_artifact_sniff(data, size))
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT,
                      "%s: error: not an .airbin: not an ELF file (no ELF magic)", r.name);
  /* libelf takes a short header for a file of some other kind; say what it is. */
  if (size < sizeof(Elf64_Ehdr))
    return air_art_corrupt(a, r.name, "cut short: %zu bytes, less than the %zu-byte ELF header",
                           size, sizeof(Elf64_Ehdr));
  if (elf_version(EV_CURRENT) == EV_NONE)
    return AIR_STATUS(a, AIR_STATUS_INTERNAL, "artifact: error: libelf: %s", elf_why());
  char* copy = a->alloc(a->self, size);
  if (!copy) return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED,
                               "%s: error: out of memory", r.name);
  memcpy(copy, data, size);
  air_schedule_t* s = NULL;
  air_program_t* program = NULL;
  const air_target_t* target = NULL;
  air_status_t st = NULL;
  Elf* elf = elf_memory(copy, size);
  if (!elf) {
    st = air_art_corrupt(a, r.name, "unreadable ELF image (%s)", elf_why());
    goto done;
  }
  if ((st = read_sections(&r, elf, size)) || (st = read_meta(&r))) goto done;
  uint64_t nq = r.meta[AIR_ART_M_QUEUES];
  if (nq == 0 || nq > AIR_PARTITION_MAX_QUEUES) {
    st = air_art_corrupt(a, r.name, ".air.meta: n_queues %llu outside 1..%u",
                         (unsigned long long)nq, AIR_PARTITION_MAX_QUEUES);
    goto done;
  }
  if ((st = air_target_lookup(a, r.target, &target)) != NULL) {
    /* The lookup's message lists the known targets; keep it after the file's. */
    air_status_t lookup = st;
    st = air_art_corrupt(a, r.name, ".air.meta: unknown target \"%s\" (%s)", r.target,
                         air_status_message(lookup));
    air_status_free(lookup);
    goto done;
  }
  if ((st = new_schedule(a, &s)) || (st = decode(&r, s)) ||
      (st = air_art_gpu_decode(a, r.name, r.gpu, r.gpu_size, r.objects, r.object_size,
                               r.n_objects, s)) ||
      (st = air_art_check_structure(r.name, s)) || (st = load_program(&r, context, s, &program)) ||
      (st = air_art_check_program(r.name, s, program)))
    goto done;
  /* The code section is checked whenever present, so a file is rejected the same
   * way whoever reads it; only a caller that asks gets the object. */
  if (r.code) {
    air_artifact_code_t code;
    st = air_art_code_decode(a, r.name, r.code, r.code_size, r.sec[AIR_ART_PROGRAM],
                             r.size[AIR_ART_PROGRAM], &code);
    if (!st && out_code) *out_code = code;
    else if (!st) a->free(a->self, code.object);
  }
done:
  if (elf) elf_end(elf);
  a->free(a->self, copy);
  if (st) {
    air_program_destroy(program);
    air_schedule_free(s);
    return st;
  }
  *out_program = program;
  *out_schedule = s;
  return NULL;
}

air_status_t air_artifact_read_file(air_context_t* context, const char* path,
                                    air_program_t** out_program, air_schedule_t** out_schedule) {
  return air_artifact_read_file_ex(context, path, out_program, out_schedule, NULL);
}

air_status_t air_artifact_read_file_ex(air_context_t* context, const char* path,
                                       air_program_t** out_program, air_schedule_t** out_schedule,
                                       air_artifact_code_t* out_code) {
  *out_program = NULL;
  *out_schedule = NULL;
  if (out_code) memset(out_code, 0, sizeof *out_code);
  const air_allocator_t* a = air_context_allocator(context);
  int fd = open(path, O_RDONLY);
  struct stat st_buf;
  if (fd < 0 || fstat(fd, &st_buf) != 0) {
    int err = errno;
    if (fd >= 0) close(fd);
    return AIR_STATUS(a, err == ENOENT ? AIR_STATUS_NOT_FOUND : AIR_STATUS_UNAVAILABLE,
                      "%s: error: cannot open: %s", path, strerror(err));
  }
  if (!S_ISREG(st_buf.st_mode)) {
    close(fd);
    return AIR_STATUS(a, AIR_STATUS_INVALID_ARGUMENT, "%s: error: %s", path,
                      S_ISDIR(st_buf.st_mode) ? "is a directory, not an .airbin"
                                              : "not a regular file");
  }
  size_t size = (size_t)st_buf.st_size, got = 0;
  uint8_t* data = a->alloc(a->self, size ? size : 1);
  if (!data) {
    close(fd);
    return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "%s: error: out of memory", path);
  }
  while (got < size) {
    ssize_t n = read(fd, data + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd);
  air_status_t st = got == size ? air_artifact_read_ex(context, data, size, path, out_program,
                                                       out_schedule, out_code)
                                : AIR_STATUS(a, AIR_STATUS_UNAVAILABLE, "%s: error: read error",
                                             path);
  a->free(a->self, data);
  return st;
}

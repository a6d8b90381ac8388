/* artifact_write.c - (program, schedule) -> .airbin, through libelf.
 *
 * The sections are encoded into plain byte arrays first (artifact_format.h), then
 * handed to libelf, which lays out the file and writes it to a descriptor. The
 * in-memory writer goes through an unlinked temporary file: libelf writes only to
 * descriptors, and mkstemp keeps that POSIX-only. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"
#include "scheduler/artifact/artifact.h"
#include "scheduler/artifact/artifact_code.h"
#include "scheduler/artifact/artifact_format.h"
#include "scheduler/artifact/artifact_gpu.h"

typedef struct section_t {
  uint8_t* data;
  size_t size;
} section_t;

typedef struct encoder_t {
  const air_allocator_t* a;
  section_t s[AIR_ART_SECTION_COUNT];
  section_t code;               /* the optional .air.code (size 0: none) */
  const air_program_t* program; /* owns s[AIR_ART_PROGRAM].data */
  /* Sections after the fixed ones: `.air.gpu` (owned) and the code objects
   * (borrowed from the schedule), artifact_gpu.h. */
  uint32_t n_extra;
  section_t* extra;
  char (*extra_name)[32];
} encoder_t;

/* Room for `count` records of `sec` plus `extra` bytes. */
static uint8_t* table(encoder_t* e, air_art_section_t sec, uint32_t count, size_t extra) {
  size_t size = (size_t)count * air_art_record_size(&k_air_art_sections[sec]) + extra;
  e->s[sec].size = size;
  e->s[sec].data = e->a->alloc(e->a->self, size ? size : 1);
  return e->s[sec].data;
}

#define PUT(enc, sec, at, ...)                                          \
  do {                                                                  \
    const uint64_t v_[] = {__VA_ARGS__};                                \
    const air_art_layout_t* l_ = &k_air_art_sections[sec];              \
    air_art_pack(l_, v_, (at));                                         \
    (at) += air_art_record_size(l_);                                    \
  } while (0)

static air_status_t encode(encoder_t* e, const air_schedule_t* s) {
  const air_partition_t* P = s->partition;
  const air_memplan_t* M = &s->memplan;
  if (!P || P->n_nodes != s->n_cmds || P->n_queues != s->n_queues || !s->target || !s->entry ||
      !s->pred_off || !s->preds || !s->wave_pred_end || !s->group || !s->aff_off || !s->aff)
    return AIR_STATUS(e->a, AIR_STATUS_INVALID_ARGUMENT,
                      "artifact: the schedule is incomplete (no partition or edges, or its node "
                      "and queue counts differ from the schedule's)");
  size_t tlen = strlen(s->target), elen = strlen(s->entry);
  if (tlen > UINT32_MAX / 2 || elen > UINT32_MAX / 2)
    return AIR_STATUS(e->a, AIR_STATUS_INVALID_ARGUMENT, "artifact: target or entry name too long");

  uint8_t* at = table(e, AIR_ART_META, 1, AIR_ART_MAGIC_SIZE + tlen + 1 + elen + 1);
  if (!at) return AIR_STATUS_OOM(e->a, "artifact");
  memcpy(at, AIR_ART_MAGIC, AIR_ART_MAGIC_SIZE);
  at += AIR_ART_MAGIC_SIZE;
  PUT(e, AIR_ART_META, at, AIR_ART_VERSION, 0, s->n_body_ops, s->n_cmds, s->n_queues,
      P->n_waves, P->n_waits, M->n_arenas, M->n_buffers, M->alignment, tlen, elen,
      P->stats.groups, P->stats.grown, s->compile_ns, P->stats.edges, P->stats.cross_edges,
      P->stats.waits_raw);
  memcpy(at, s->target, tlen + 1);
  memcpy(at + tlen + 1, s->entry, elen + 1);

  if (!(at = table(e, AIR_ART_CMDS, s->n_cmds, 0))) return AIR_STATUS_OOM(e->a, "artifact");
  for (uint32_t i = 0; i < s->n_cmds; ++i) PUT(e, AIR_ART_CMDS, at, s->cmds[i].op, s->cmds[i].kind);
  if (!(at = table(e, AIR_ART_QUEUES, P->n_queues, 0))) return AIR_STATUS_OOM(e->a, "artifact");
  for (uint32_t q = 0; q < P->n_queues; ++q)
    PUT(e, AIR_ART_QUEUES, at, s->queue_kind[q], P->queues[q].wave_begin, P->queues[q].wave_end);
  if (!(at = table(e, AIR_ART_WAVES, P->n_waves, 0))) return AIR_STATUS_OOM(e->a, "artifact");
  for (uint32_t w = 0; w < P->n_waves; ++w) {
    const air_partition_wave_t* v = &P->waves[w];
    PUT(e, AIR_ART_WAVES, at, v->queue, v->level, v->cmd_begin, v->cmd_end, v->wait_begin,
        v->wait_end, v->ordered ? 1u : 0u);
  }
  if (!(at = table(e, AIR_ART_WAVE_CMDS, P->n_nodes, 0))) return AIR_STATUS_OOM(e->a, "artifact");
  for (uint32_t i = 0; i < P->n_nodes; ++i) PUT(e, AIR_ART_WAVE_CMDS, at, P->cmds[i]);
  if (!(at = table(e, AIR_ART_WAITS, P->n_waits, 0))) return AIR_STATUS_OOM(e->a, "artifact");
  for (uint32_t i = 0; i < P->n_waits; ++i)
    PUT(e, AIR_ART_WAITS, at, P->waits[i].queue, P->waits[i].value);
  if (!(at = table(e, AIR_ART_ARENAS, M->n_arenas, 0))) return AIR_STATUS_OOM(e->a, "artifact");
  for (uint32_t i = 0; i < M->n_arenas; ++i) {
    const air_memplan_arena_t* r = &M->arenas[i];
    PUT(e, AIR_ART_ARENAS, at, r->space, r->owner, r->size, r->lower_bound, r->capacity,
        r->buffer_begin, r->buffer_end);
  }
  if (!(at = table(e, AIR_ART_BUFFERS, M->n_buffers, 0))) return AIR_STATUS_OOM(e->a, "artifact");
  for (uint32_t i = 0; i < M->n_buffers; ++i) {
    const air_memplan_buffer_t* b = &M->buffers[i];
    PUT(e, AIR_ART_BUFFERS, at, b->op, b->arena, b->size, b->offset, b->start, b->end);
  }
  uint32_t n = s->n_cmds, n_preds = s->pred_off[n], n_aff = s->aff_off[n];
  if (!(at = table(e, AIR_ART_CMD_EDGES, n, 0))) return AIR_STATUS_OOM(e->a, "artifact");
  for (uint32_t i = 0; i < n; ++i)
    PUT(e, AIR_ART_CMD_EDGES, at, s->group[i], s->wave_pred_end[i], s->pred_off[i + 1],
        s->aff_off[i + 1]);
  if (!(at = table(e, AIR_ART_PREDS, n_preds, 0))) return AIR_STATUS_OOM(e->a, "artifact");
  for (uint32_t k = 0; k < n_preds; ++k) PUT(e, AIR_ART_PREDS, at, s->preds[k]);
  if (!(at = table(e, AIR_ART_AFFINITY, n_aff, 0))) return AIR_STATUS_OOM(e->a, "artifact");
  for (uint32_t k = 0; k < n_aff; ++k) PUT(e, AIR_ART_AFFINITY, at, s->aff[k]);
  uint32_t n_insts = s->npu_insts ? s->n_npu_insts : 0;
  if (!(at = table(e, AIR_ART_NPU_INSTS, n_insts, 0))) return AIR_STATUS_OOM(e->a, "artifact");
  for (uint32_t k = 0; k < n_insts; ++k) PUT(e, AIR_ART_NPU_INSTS, at, s->npu_insts[k]);
  size_t elen2 = s->npu_error && !n_insts ? strlen(s->npu_error) : 0;
  if (!(at = table(e, AIR_ART_NPU_ERROR, 0, elen2))) return AIR_STATUS_OOM(e->a, "artifact");
  memcpy(at, s->npu_error ? s->npu_error : "", elen2);
  return NULL;
}

static void encoder_free(encoder_t* e) {
  if (e->n_extra) e->a->free(e->a->self, e->extra[0].data);
  e->a->free(e->a->self, e->extra);
  e->a->free(e->a->self, e->extra_name);
  for (int i = 0; i < AIR_ART_SECTION_COUNT; ++i) {
    if (i == AIR_ART_PROGRAM) {
      if (e->s[i].data) air_program_free_string(e->program, (char*)e->s[i].data);
    } else {
      e->a->free(e->a->self, e->s[i].data);
    }
  }
  e->a->free(e->a->self, e->code.data);
}

static air_status_t elf_failure(const air_allocator_t* a, const char* what) {
  return AIR_STATUS(a, AIR_STATUS_INTERNAL, "artifact: libelf %s: %s", what, elf_errmsg(-1));
}

static Elf_Scn* add_section(Elf* elf, uint32_t name, uint32_t type, uint64_t entsize,
                            uint32_t align, void* data, size_t size) {
  Elf_Scn* scn = elf_newscn(elf);
  Elf64_Shdr* sh = scn ? elf64_getshdr(scn) : NULL;
  Elf_Data* d = sh ? elf_newdata(scn) : NULL;
  if (!d) return NULL;
  sh->sh_name = name;
  sh->sh_type = type;
  sh->sh_entsize = entsize;
  sh->sh_addralign = align;
  d->d_buf = data;
  d->d_size = size;
  d->d_type = ELF_T_BYTE;
  d->d_align = align;
  d->d_version = EV_CURRENT;
  return scn;
}

/* Lays the encoded sections out as an ELF64 little-endian ET_REL file on `fd`. */
static air_status_t write_elf(const air_allocator_t* a, encoder_t* e, int fd) {
  if (elf_version(EV_CURRENT) == EV_NONE) return elf_failure(a, "version");
  /* Section names: "\0" then each name NUL-terminated, `.shstrtab` last. */
  static const char k_shstrtab[] = ".shstrtab";
  size_t names = 1 + sizeof k_shstrtab + (e->code.size ? sizeof AIR_ART_CODE_SECTION : 0);
  for (int i = 0; i < AIR_ART_SECTION_COUNT; ++i) names += strlen(k_air_art_sections[i].name) + 1;
  for (uint32_t i = 0; i < e->n_extra; ++i) names += strlen(e->extra_name[i]) + 1;
  char* strtab = a->alloc(a->self, names);
  if (!strtab) return AIR_STATUS_OOM(a, "artifact");
  uint32_t name_at[AIR_ART_SECTION_COUNT + 2]; /* the table's, .shstrtab, .air.code */
  size_t used = 1;
  strtab[0] = '\0';
  /* .air.code's name only when the section is there. */
  int last = AIR_ART_SECTION_COUNT + (e->code.size ? 1 : 0);
  for (int i = 0; i <= last; ++i) {
    const char* n = i < AIR_ART_SECTION_COUNT    ? k_air_art_sections[i].name
                    : i == AIR_ART_SECTION_COUNT ? k_shstrtab
                                                 : AIR_ART_CODE_SECTION;
    name_at[i] = (uint32_t)used;
    memcpy(strtab + used, n, strlen(n) + 1);
    used += strlen(n) + 1;
  }
  size_t extra_at = used;
  for (uint32_t i = 0; i < e->n_extra; ++i) {
    memcpy(strtab + used, e->extra_name[i], strlen(e->extra_name[i]) + 1);
    used += strlen(e->extra_name[i]) + 1;
  }

  air_status_t st = NULL;
  Elf* elf = elf_begin(fd, ELF_C_WRITE, NULL);
  Elf64_Ehdr* eh = elf ? elf64_newehdr(elf) : NULL;
  if (!eh) {
    st = elf_failure(a, "begin");
    goto done;
  }
  eh->e_ident[EI_DATA] = ELFDATA2LSB;
  eh->e_ident[EI_OSABI] = ELFOSABI_NONE;
  eh->e_type = ET_REL;
  eh->e_machine = EM_NONE;
  eh->e_version = EV_CURRENT;
  for (int i = 0; i < AIR_ART_SECTION_COUNT; ++i) {
    const air_art_layout_t* l = &k_air_art_sections[i];
    uint64_t entsize = i == AIR_ART_META || !l->n_fields ? 0 : air_art_record_size(l);
    if (!add_section(elf, name_at[i], SHT_PROGBITS, entsize, l->align, e->s[i].data,
                     e->s[i].size)) {
      st = elf_failure(a, "section");
      goto done;
    }
  }
  if (e->code.size && !add_section(elf, name_at[AIR_ART_SECTION_COUNT + 1], SHT_PROGBITS, 0, 16,
                                   e->code.data, e->code.size)) {
    st = elf_failure(a, "section");
    goto done;
  }
  for (uint32_t i = 0; i < e->n_extra; ++i) {
    if (!add_section(elf, (uint32_t)extra_at, SHT_PROGBITS, 0, 8, e->extra[i].data,
                     e->extra[i].size)) {
      st = elf_failure(a, "section");
      goto done;
    }
    extra_at += strlen(e->extra_name[i]) + 1;
  }
  Elf_Scn* shstr = add_section(elf, name_at[AIR_ART_SECTION_COUNT], SHT_STRTAB, 0, 1, strtab,
                               names);
  if (!shstr) {
    st = elf_failure(a, "section");
    goto done;
  }
  eh->e_shstrndx = (Elf64_Half)elf_ndxscn(shstr);
  if (elf_update(elf, ELF_C_WRITE) < 0) st = elf_failure(a, "write");
done:
  if (elf) elf_end(elf);
  a->free(a->self, strtab);
  return st;
}

/* `.air.gpu` and one `.air.hsaco.N` per code object, when the schedule has GPU
 * kernels (artifact_gpu.h). */
static air_status_t encode_gpu(encoder_t* e, const air_gpu_code_t* code) {
  if (!code) return NULL;
  uint32_t n = 1 + code->n_objects;
  e->extra = e->a->alloc(e->a->self, n * sizeof *e->extra);
  e->extra_name = e->a->alloc(e->a->self, n * sizeof *e->extra_name);
  if (!e->extra || !e->extra_name) return AIR_STATUS_OOM(e->a, "artifact");
  AIR_RETURN_IF_ERROR(air_art_gpu_encode(e->a, code, &e->extra[0].data, &e->extra[0].size));
  e->n_extra = 1;
  snprintf(e->extra_name[0], sizeof e->extra_name[0], "%s", AIR_ART_GPU_SECTION);
  for (uint32_t i = 0; i < code->n_objects; ++i, ++e->n_extra) {
    e->extra[1 + i].data = (uint8_t*)code->objects[i].bytes;
    e->extra[1 + i].size = (size_t)code->objects[i].size;
    snprintf(e->extra_name[1 + i], sizeof e->extra_name[1 + i], "%s%u", AIR_ART_GPU_OBJECT_PREFIX, i);
  }
  return NULL;
}

static air_status_t encode_all(const air_allocator_t* a, const air_program_t* program,
                               const air_schedule_t* schedule, const air_artifact_code_t* code,
                               encoder_t* e) {
  memset(e, 0, sizeof *e);
  e->a = a;
  e->program = program;
  char* text = NULL;
  size_t len = 0;
  AIR_RETURN_IF_ERROR(air_program_print_to_string(program, 0, &text, &len));
  e->s[AIR_ART_PROGRAM].data = (uint8_t*)text;
  e->s[AIR_ART_PROGRAM].size = len;
  if (code && code->object)
    AIR_RETURN_IF_ERROR(air_art_code_encode(a, code, text, len, &e->code.data, &e->code.size));
  AIR_RETURN_IF_ERROR(encode(e, schedule));
  return encode_gpu(e, schedule->gpu);
}

static air_status_t errno_status(const air_allocator_t* a, int err, const char* what,
                                 const char* path) {
  air_status_code_t code = err == ENOENT || err == ENOTDIR ? AIR_STATUS_NOT_FOUND
                           : err == EACCES || err == EPERM || err == EROFS
                               ? AIR_STATUS_PERMISSION_DENIED
                               : AIR_STATUS_UNAVAILABLE;
  return AIR_STATUS(a, code, "%s: error: cannot %s: %s", path, what, strerror(err));
}

air_status_t air_artifact_write_file(const air_allocator_t* allocator,
                                     const air_program_t* program,
                                     const air_schedule_t* schedule, const char* path) {
  return air_artifact_write_file_ex(allocator, program, schedule, NULL, path);
}

air_status_t air_artifact_write_file_ex(const air_allocator_t* allocator,
                                        const air_program_t* program,
                                        const air_schedule_t* schedule,
                                        const air_artifact_code_t* code, const char* path) {
  encoder_t e;
  air_status_t st = encode_all(allocator, program, schedule, code, &e);
  if (!st) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
      st = errno_status(allocator, errno, "create", path);
    } else {
      st = write_elf(allocator, &e, fd);
      if (close(fd) != 0 && !st) st = errno_status(allocator, errno, "write", path);
      if (st) unlink(path); /* no half-written artifact left behind */
    }
  }
  encoder_free(&e);
  return st;
}

/* Reads the whole of `fd` (from offset 0) into an allocator buffer. */
static air_status_t slurp(const air_allocator_t* a, int fd, void** out_data, size_t* out_size) {
  off_t end = lseek(fd, 0, SEEK_END);
  if (end < 0 || lseek(fd, 0, SEEK_SET) != 0)
    return errno_status(a, errno, "seek", "artifact temporary file");
  size_t size = (size_t)end, got = 0;
  uint8_t* data = a->alloc(a->self, size ? size : 1);
  if (!data) return AIR_STATUS_OOM(a, "artifact");
  while (got < size) {
    ssize_t n = read(fd, data + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      a->free(a->self, data);
      return errno_status(a, n < 0 ? errno : EIO, "read", "artifact temporary file");
    }
    got += (size_t)n;
  }
  *out_data = data;
  *out_size = size;
  return NULL;
}

air_status_t air_artifact_write(const air_allocator_t* allocator, const air_program_t* program,
                                const air_schedule_t* schedule, void** out_data,
                                size_t* out_size) {
  return air_artifact_write_ex(allocator, program, schedule, NULL, out_data, out_size);
}

air_status_t air_artifact_write_ex(const air_allocator_t* allocator, const air_program_t* program,
                                   const air_schedule_t* schedule,
                                   const air_artifact_code_t* code, void** out_data,
                                   size_t* out_size) {
  *out_data = NULL;
  *out_size = 0;
  encoder_t e;
  air_status_t st = encode_all(allocator, program, schedule, code, &e);
  if (st) {
    encoder_free(&e);
    return st;
  }
  const char* dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  size_t plen = strlen(dir) + sizeof "/airbin-XXXXXX";
  char* path = allocator->alloc(allocator->self, plen);
  if (!path) {
    encoder_free(&e);
    return AIR_STATUS_OOM(allocator, "artifact");
  }
  snprintf(path, plen, "%s/airbin-XXXXXX", dir);
  int fd = mkstemp(path);
  if (fd < 0) {
    st = errno_status(allocator, errno, "create a temporary file in", dir);
  } else {
    unlink(path); /* gone when closed, whatever happens */
    st = write_elf(allocator, &e, fd);
    if (!st) st = slurp(allocator, fd, out_data, out_size);
    close(fd);
  }
  allocator->free(allocator->self, path);
  encoder_free(&e);
  return st;
}

/* artifact_format.h - the .airbin section and record layouts, shared by the writer
 * and the reader so the two cannot drift apart (docs/artifact.md describes them).
 *
 * Every array section is a sequence of fixed-width little-endian records; a record
 * is a list of unsigned fields of 4 or 8 bytes, packed without padding. The writer
 * and the reader move records through a uint64_t[] of field values, so the byte
 * layout is defined in exactly one place: the field widths in k_air_art_sections.
 * The bottom of the artifact layer: the reader's error and array helpers live here
 * too, so its stages (read, check, bind) import it and not each other. */
#ifndef AIR_SCHEDULER_ARTIFACT_ARTIFACT_FORMAT_H_
#define AIR_SCHEDULER_ARTIFACT_ARTIFACT_FORMAT_H_

#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"
#include "runtime/base/arena.h"

#define AIR_ART_MAGIC "AIRBIN\0\0"
#define AIR_ART_MAGIC_SIZE 8u
#define AIR_ART_VERSION 2u
#define AIR_ART_MAX_FIELDS 18u

/* Sections in file order; `.shstrtab` follows them. */
typedef enum air_art_section_e {
  AIR_ART_META = 0,
  AIR_ART_PROGRAM,
  AIR_ART_CMDS,
  AIR_ART_QUEUES,
  AIR_ART_WAVES,
  AIR_ART_WAVE_CMDS,
  AIR_ART_WAITS,
  AIR_ART_ARENAS,
  AIR_ART_BUFFERS,
  AIR_ART_CMD_EDGES,  /* version 2: the contract's edges, one record per command */
  AIR_ART_PREDS,
  AIR_ART_AFFINITY,
  /* Optional (absent in artifacts before them, empty off NPU targets): the NPU
   * instruction stream of the entry's L3 transfers, or why there is none. */
  AIR_ART_NPU_INSTS,
  AIR_ART_NPU_ERROR,
  AIR_ART_SECTION_COUNT,
} air_art_section_t;

/* The first optional section: later ones may be missing. */
#define AIR_ART_FIRST_OPTIONAL AIR_ART_NPU_INSTS

/* `.air.meta`: AIR_ART_MAGIC, one record of these fields, then the target and
 * entry names, each NUL-terminated. */
enum {
  AIR_ART_M_VERSION, AIR_ART_M_FLAGS, AIR_ART_M_BODY_OPS, AIR_ART_M_CMDS,
  AIR_ART_M_QUEUES, AIR_ART_M_WAVES, AIR_ART_M_WAITS, AIR_ART_M_ARENAS,
  AIR_ART_M_BUFFERS, AIR_ART_M_ALIGNMENT, AIR_ART_M_TARGET_LEN, AIR_ART_M_ENTRY_LEN,
  AIR_ART_M_GROUPS, AIR_ART_M_GROWN, AIR_ART_M_COMPILE_NS, AIR_ART_M_EDGES,
  AIR_ART_M_CROSS_EDGES, AIR_ART_M_WAITS_RAW, AIR_ART_M_COUNT_,
};

typedef struct air_art_layout_t {
  const char* name;        /* section name */
  uint32_t n_fields;       /* 0 for a byte section (.air.program) */
  uint8_t width[AIR_ART_MAX_FIELDS];
  const char* field[AIR_ART_MAX_FIELDS];
  uint32_t align;          /* sh_addralign */
} air_art_layout_t;

/* Indexed by air_art_section_t. */
extern const air_art_layout_t k_air_art_sections[AIR_ART_SECTION_COUNT];

/* Fields of a `.air.cmd_edges` record: each range begins where the previous
 * command's ends (0 for command 0). */
enum { AIR_ART_E_GROUP, AIR_ART_E_WAVE_PRED_END, AIR_ART_E_PRED_END, AIR_ART_E_AFF_END };

/* One little-endian field of 4 or 8 bytes outside the record tables (the
 * `.air.code` and GPU sections' headers and indexes). */
static inline void air_art_put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void air_art_put64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint32_t air_art_get32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= (uint32_t)p[i] << (8 * i);
  return v;
}
static inline uint64_t air_art_get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* Bytes of one record. */
uint32_t air_art_record_size(const air_art_layout_t* layout);
/* Packs values[0 .. n_fields) at `out` (air_art_record_size bytes). */
void air_art_pack(const air_art_layout_t* layout, const uint64_t* values, uint8_t* out);
/* Unpacks a record at `in` into values[0 .. n_fields). */
void air_art_unpack(const air_art_layout_t* layout, const uint8_t* in, uint64_t* values);

/* DATA_LOSS "NAME: <formatted>": every reader failure past the container. */
air_status_t air_art_corrupt(const air_allocator_t* a, const char* name, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* n zeroed elements of `size` bytes from the arena (at least one byte, so an empty
 * array is not NULL); NULL on overflow or when out of memory. */
void* air_art_array(air_arena_t* arena, size_t n, size_t size);

#endif /* AIR_SCHEDULER_ARTIFACT_ARTIFACT_FORMAT_H_ */

/* artifact_format.c - the record layouts of artifact_format.h, their codec, and the
 * reader's error and array helpers. */
#include "scheduler/artifact/artifact_format.h"

#include <stdarg.h>
#include <stdio.h>

#include "runtime/base/status_util.h"

const air_art_layout_t k_air_art_sections[AIR_ART_SECTION_COUNT] = {
    [AIR_ART_META] = {".air.meta", AIR_ART_M_COUNT_,
                      {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 8, 8, 8, 8},
                      {"version", "flags", "n_body_ops", "n_cmds", "n_queues", "n_waves",
                       "n_waits", "n_arenas", "n_buffers", "alignment", "target_len",
                       "entry_len", "groups", "grown", "compile_ns", "edges", "cross_edges",
                       "waits_raw"},
                      8},
    [AIR_ART_PROGRAM] = {".air.program", 0, {0}, {0}, 1},
    [AIR_ART_CMDS] = {".air.cmds", 2, {4, 4}, {"op", "kind"}, 4},
    [AIR_ART_QUEUES] = {".air.queues", 3, {4, 4, 4}, {"kind", "wave_begin", "wave_end"}, 4},
    [AIR_ART_WAVES] = {".air.waves", 7, {4, 4, 4, 4, 4, 4, 4},
                       {"queue", "level", "cmd_begin", "cmd_end", "wait_begin", "wait_end",
                        "flags"},
                       4},
    [AIR_ART_WAVE_CMDS] = {".air.wave_cmds", 1, {4}, {"node"}, 4},
    [AIR_ART_WAITS] = {".air.waits", 2, {4, 4}, {"queue", "value"}, 4},
    [AIR_ART_ARENAS] = {".air.memplan.arenas", 7, {4, 4, 8, 8, 8, 4, 4},
                        {"space", "owner", "size", "lower_bound", "capacity", "buffer_begin",
                         "buffer_end"},
                        8},
    [AIR_ART_BUFFERS] = {".air.memplan.buffers", 6, {4, 4, 8, 8, 4, 4},
                         {"op", "arena", "size", "offset", "start", "end"}, 8},
    [AIR_ART_CMD_EDGES] = {".air.cmd_edges", 4, {4, 4, 4, 4},
                           {"group", "wave_pred_end", "pred_end", "aff_end"}, 4},
    [AIR_ART_PREDS] = {".air.preds", 1, {4}, {"cmd"}, 4},
    [AIR_ART_AFFINITY] = {".air.affinity", 1, {4}, {"cmd"}, 4},
    [AIR_ART_NPU_INSTS] = {".air.npu.insts", 1, {4}, {"word"}, 4},
    [AIR_ART_NPU_ERROR] = {".air.npu.error", 0, {0}, {0}, 1},
};

uint32_t air_art_record_size(const air_art_layout_t* layout) {
  uint32_t size = 0;
  for (uint32_t f = 0; f < layout->n_fields; ++f) size += layout->width[f];
  return size;
}

void air_art_pack(const air_art_layout_t* layout, const uint64_t* values, uint8_t* out) {
  for (uint32_t f = 0; f < layout->n_fields; ++f)
    for (uint32_t b = 0; b < layout->width[f]; ++b) *out++ = (uint8_t)(values[f] >> (8 * b));
}

void air_art_unpack(const air_art_layout_t* layout, const uint8_t* in, uint64_t* values) {
  for (uint32_t f = 0; f < layout->n_fields; ++f) {
    uint64_t v = 0;
    for (uint32_t b = 0; b < layout->width[f]; ++b) v |= (uint64_t)*in++ << (8 * b);
    values[f] = v;
  }
}

air_status_t air_art_corrupt(const air_allocator_t* a, const char* name, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return AIR_STATUS(a, AIR_STATUS_DATA_LOSS, "%s: error: %s", name, msg);
}

void* air_art_array(air_arena_t* arena, size_t n, size_t size) {
  if (n && size > SIZE_MAX / n) return NULL;
  return air_arena_alloc(arena, n ? n * size : 1);
}

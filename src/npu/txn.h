/* txn.h - the NPU firmware's TXN 0.1 instruction stream: encoder, decoder and a
 * readable listing.
 *
 * A stream is little-endian 32-bit words: a 4-word header (version 0.1, device
 * generation, rows, columns, mem-tile rows, op count, byte size) then ops, each
 * starting with its opcode in the low byte of its first word. Layouts are in
 * /work/shared/design/BACKENDS.md §4.2-4.3 (restated in docs/npu.md). The encoder
 * takes absolute register addresses (npu.h composes them) and refuses values its
 * fields cannot hold; the decoder refuses anything the encoder would not have
 * written, naming the word, so decode then encode reproduces the bytes exactly. */
#ifndef AIR_NPU_TXN_H_
#define AIR_NPU_TXN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "air/allocator.h"
#include "air/status.h"

/* Opcodes (firmware numbering). Only those with a layout below are encoded. */
enum {
  AIR_TXN_WRITE = 0x00,
  AIR_TXN_BLOCKWRITE = 0x01,
  AIR_TXN_MASKWRITE = 0x03,
  AIR_TXN_PREEMPT = 0x06,
  AIR_TXN_LOAD_PDI = 0x08,
  AIR_TXN_TCT = 0x80,       /* sync: wait for a task-complete token */
  AIR_TXN_DDR_PATCH = 0x81, /* address patch */
  AIR_TXN_READ_REGS = 0x82,
};

/* Words each fixed-size op takes. */
enum {
  AIR_TXN_HEADER_WORDS = 4,
  AIR_TXN_WRITE_WORDS = 6,
  AIR_TXN_MASKWRITE_WORDS = 7,
  AIR_TXN_TCT_WORDS = 4,
  AIR_TXN_PATCH_WORDS = 12,
  AIR_TXN_LOAD_PDI_WORDS = 4,
  AIR_TXN_PREEMPT_WORDS = 1,
};

/* The header's geometry. */
typedef struct air_txn_geom_t {
  uint8_t dev_gen; /* 3 = npu1 (AIE2), 4 = npu2 (AIE2P) */
  uint8_t rows, cols, mem_tile_rows;
} air_txn_geom_t;

/* A stream being built. Ops append; air_txn_finish writes the header's count and
 * size. Appends after a failure are ignored, so a caller checks `error` once. */
typedef struct air_txn_t {
  air_allocator_t allocator;
  uint32_t* words;
  size_t n_words, cap_words;
  uint32_t n_ops;
  bool oom; /* an append ran out of memory (or past 4 GiB) */
} air_txn_t;

void air_txn_init(air_txn_t* t, const air_allocator_t* allocator, air_txn_geom_t geom);
void air_txn_free(air_txn_t* t);
/* Fills in the op count and byte size; RESOURCE_EXHAUSTED when an append failed. */
air_status_t air_txn_finish(air_txn_t* t);
/* Takes the words (finish first); the builder is left empty. */
uint32_t* air_txn_take(air_txn_t* t, size_t* out_n_words);

void air_txn_write32(air_txn_t* t, uint32_t addr, uint32_t value);
void air_txn_maskwrite32(air_txn_t* t, uint32_t addr, uint32_t value, uint32_t mask);
/* `col`/`row` go in word 1 (0/0 for a flat address, as mlir-aie writes it);
 * n >= 1 payload words. */
void air_txn_blockwrite(air_txn_t* t, uint8_t col, uint8_t row, uint32_t addr,
                        const uint32_t* payload, uint32_t n);
/* Waits for one task-complete token of (col, row, direction, channel) over a
 * column_num x row_num range; every field is 8 bits (direction 0 S2MM, 1 MM2S). */
void air_txn_sync(air_txn_t* t, uint8_t col, uint8_t row, uint8_t direction, uint8_t channel,
                  uint8_t col_num, uint8_t row_num);
/* The firmware writes (address of host buffer `arg_idx`) + arg_plus into `reg`. */
void air_txn_ddr_patch(air_txn_t* t, uint64_t reg, uint64_t arg_idx, uint64_t arg_plus);
void air_txn_load_pdi(air_txn_t* t, uint16_t id, uint32_t size, uint64_t address);
void air_txn_preempt(air_txn_t* t, uint8_t level);
/* n >= 1 register addresses. */
void air_txn_read_regs(air_txn_t* t, const uint32_t* addrs, uint32_t n);

/* arg_plus as the xclbin + instruction-buffer runtime needs it: the firmware only
 * translates the first 5 host buffers, so mlir-aie adds 0x80000000 to the offset
 * of arguments 5 and up (`fold` false: the full-ELF runtimes, which do not). */
uint64_t air_txn_patch_arg_plus(uint64_t arg_idx, uint64_t byte_offset, bool fold);

/*--- decoding -----------------------------------------------------------------*/

typedef struct air_txn_op_t {
  uint32_t opcode;
  uint32_t word;    /* index of the op's first word in the stream */
  uint32_t n_words; /* words it takes */
  uint64_t addr;    /* WRITE/MASKWRITE/BLOCKWRITE address, DDR_PATCH register,
                       LOAD_PDI address */
  uint32_t value, mask;
  uint8_t col, row;              /* BLOCKWRITE word 1; TCT tile */
  uint8_t direction, channel;    /* TCT */
  uint8_t col_num, row_num;      /* TCT */
  uint64_t arg_idx, arg_plus;    /* DDR_PATCH */
  uint16_t pdi_id;               /* LOAD_PDI */
  uint32_t size;                 /* LOAD_PDI */
  uint8_t level;                 /* PREEMPT */
  const uint32_t* payload;       /* BLOCKWRITE data, READ_REGS addresses */
  uint32_t n_payload;
} air_txn_op_t;

typedef struct air_txn_view_t {
  air_txn_geom_t geom;
  uint32_t n_ops;
  air_txn_op_t* ops; /* payload pointers point into the decoded words */
} air_txn_view_t;

/* Decodes and checks a whole stream. DATA_LOSS naming the word (and what was
 * expected) for anything malformed or truncated; `name` prefixes messages. */
air_status_t air_txn_decode(const air_allocator_t* allocator, const uint32_t* words,
                            size_t n_words, const char* name, air_txn_view_t* out);
void air_txn_view_free(const air_allocator_t* allocator, air_txn_view_t* view);
/* Appends a decoded op again (decode, then encode every op, gives the same words). */
void air_txn_encode_op(air_txn_t* t, const air_txn_op_t* op);

/* Reads a stream file's bytes: binary (a multiple of 4 bytes, little-endian) or
 * hex text (one word per line, optional 0x, `#`/`//` comments). Heap words via the
 * allocator. INVALID_ARGUMENT/DATA_LOSS naming `name` and the line or byte. */
air_status_t air_txn_read_file_bytes(const air_allocator_t* allocator, const void* data,
                                     size_t size, const char* name, uint32_t** out_words,
                                     size_t* out_n_words);

/* A readable listing (one line per op, fields named, addresses split into column,
 * row and offset) appended to a malloc'd-by-allocator NUL-terminated string. */
air_status_t air_txn_list(const air_allocator_t* allocator, const air_txn_view_t* view,
                          char** out_text, size_t* out_len);

/* The name of an opcode ("write32", ...), or NULL when unknown. */
const char* air_txn_opcode_name(uint32_t opcode);

#endif /* AIR_NPU_TXN_H_ */

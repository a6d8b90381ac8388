/* pack_seq.h - an ordered sequence of (a, b, c) entries as a two-level B-tree:
 * sorted blocks of up to 64 entries, a directory of the blocks in order and a
 * max segment tree over the directory holding each block's largest c. The sweep
 * placer (pack_sweep.c) keeps the live set in it, the window placer
 * (pack_window.c) its placed buffers: sorted by offset with c the free gap below
 * each entry, "the lowest gap of at least s bytes" is one descent of the tree and
 * one block scan. Not for use outside src/scheduler/pack/. */
#ifndef AIR_SCHEDULER_PACK_PACK_SEQ_H_
#define AIR_SCHEDULER_PACK_PACK_SEQ_H_

#include <stdint.h>

#include "air/allocator.h"

enum { PK_SEQ_BCAP = 64 };

/* Sorted by a, or by (a, b) in a sequence made with key2. */
typedef struct pk_ent_t {
  uint64_t a, b, c;
} pk_ent_t;

typedef struct pk_block_t {
  uint32_t n;
  uint64_t maxc;
  pk_ent_t e[PK_SEQ_BCAP];
} pk_block_t;

/* A directory slot: a block and the key of its first entry, side by side so the
 * search over blocks reads one array. */
typedef struct pk_dslot_t {
  uint64_t a, b;
  uint32_t id;
} pk_dslot_t;

typedef struct pk_seq_t {
  const air_allocator_t* al;
  pk_block_t* pool; /* blocks; free ones are chained through e[0].a */
  uint32_t cap, used, free_head;
  pk_dslot_t* dir; /* blocks in order */
  uint32_t ndir;
  uint64_t* tree; /* max segment tree over directory positions, leaves at size */
  uint32_t size;  /* leaves (a power of two >= cap) */
  int has_c;      /* the tree is kept */
  int key2;       /* b is part of the key */
  int oom;        /* an allocation failed: the sequence is incomplete */
} pk_seq_t;

/* A position: entry i of the block at directory slot d (i may be the block's
 * count: just past its last entry). */
typedef struct pk_at_t {
  uint32_t d, i;
} pk_at_t;

/* Room for about `live` entries (the arrays grow when needed). has_c: keep the
 * tree of largest c; key2: order by (a, b) rather than by a. 0 when out of memory. */
int pk_seq_init(pk_seq_t* q, const air_allocator_t* al, uint32_t live, int has_c, int key2);
void pk_seq_free(pk_seq_t* q);
void pk_seq_clear(pk_seq_t* q);

/* The first entry not below key (a, b). The sequence must not be empty. */
pk_at_t pk_seq_find(const pk_seq_t* q, uint64_t a, uint64_t b);

static inline pk_ent_t* pk_seq_at(const pk_seq_t* q, pk_at_t p) {
  return &q->pool[q->dir[p.d].id].e[p.i];
}

/* p itself, or the start of the next block when p is past its block's end. */
static inline pk_at_t pk_seq_norm(const pk_seq_t* q, pk_at_t p) {
  if (p.i < q->pool[q->dir[p.d].id].n) return p;
  return (pk_at_t){p.d + 1, 0};
}

/* The entry at p, or the next one when p is past its block's end; NULL at the end. */
pk_ent_t* pk_seq_at_or_next(const pk_seq_t* q, pk_at_t p);
/* The entry before p, or NULL. */
pk_ent_t* pk_seq_before(const pk_seq_t* q, pk_at_t p);
/* The last entry, or NULL. */
const pk_ent_t* pk_seq_last(const pk_seq_t* q);

/* Sets the c of entry e, which lives in the block at directory slot d. */
void pk_seq_set_c(pk_seq_t* q, uint32_t d, pk_ent_t* e, uint64_t c);
/* Inserts x at p (as found for x's key); removes the entry at p. */
void pk_seq_insert_at(pk_seq_t* q, pk_at_t p, pk_ent_t x);
void pk_seq_erase_at(pk_seq_t* q, pk_at_t p);
/* By key: insert x; erase the entry with key (a, b) when present. */
void pk_seq_insert(pk_seq_t* q, pk_ent_t x);
void pk_seq_erase(pk_seq_t* q, uint64_t a, uint64_t b);

/* The first entry at or after position p whose c is at least s, or NULL. */
const pk_ent_t* pk_seq_first_c(const pk_seq_t* q, pk_at_t p, uint64_t s);

#endif /* AIR_SCHEDULER_PACK_PACK_SEQ_H_ */

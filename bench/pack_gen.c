/* pack_gen.c - see pack_gen.h. */
#include "pack_gen.h"

#include <stdlib.h>

static uint64_t next(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t below(uint64_t* s, uint64_t n) { return n ? next(s) % n : 0; }

air_pack_buffer_t* pack_gen_random(size_t n, uint64_t seed, size_t* count) {
  air_pack_buffer_t* b = malloc((n ? n : 1) * sizeof *b);
  if (!b) return NULL;
  uint64_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    uint64_t lower = below(&s, n);
    uint64_t len = below(&s, 100) < 95 ? 1 + below(&s, 16) : 1 + below(&s, 1024);
    unsigned e = 6 + (unsigned)below(&s, 15);
    b[i] = (air_pack_buffer_t){lower, lower + len, (1ull << e) + below(&s, 1ull << e)};
  }
  *count = n;
  return b;
}

air_pack_buffer_t* pack_gen_cnn(uint64_t seed, size_t* count) {
  enum { LAYERS = 100, STAGES = 5 };
  air_pack_buffer_t* b = malloc(4 * LAYERS * sizeof *b);
  if (!b) return NULL;
  uint64_t s = seed;
  size_t n = 0;
  const uint64_t end = 2 * LAYERS + 2;
  for (uint64_t i = 0; i < LAYERS; ++i) {
    unsigned stage = (unsigned)(i * STAGES / LAYERS);
    /* Resolution halves per stage while channels double: bytes halve. */
    uint64_t act = (8ull << 20) >> stage;
    act += below(&s, act / 4);
    b[n++] = (air_pack_buffer_t){i, end - i, act};                    /* kept for backward */
    b[n++] = (air_pack_buffer_t){i, i + 1, act / 2 + below(&s, act)}; /* conv workspace */
    uint64_t j = end - i - 1;                                         /* backward step */
    b[n++] = (air_pack_buffer_t){j, j + 2, act};                      /* activation grad */
    if (i % 3 == 0) b[n++] = (air_pack_buffer_t){j, j + 1, (64ull << 10) << stage}; /* wgrad */
  }
  *count = n;
  return b;
}

air_pack_buffer_t* pack_gen_transformer(uint64_t seed, size_t* count) {
  enum { LAYERS = 48, STEPS = 8 };
  const uint64_t d = 4096 * 512 * 2; /* hidden: 512 tokens x 4096 x bf16 */
  air_pack_buffer_t* b = malloc(LAYERS * 10 * sizeof *b);
  if (!b) return NULL;
  uint64_t s = seed;
  size_t n = 0;
  for (uint64_t l = 0; l < LAYERS; ++l) {
    uint64_t t = l * STEPS;
    b[n++] = (air_pack_buffer_t){t, t + STEPS + 1, d};                        /* residual stream */
    b[n++] = (air_pack_buffer_t){t, t + 1, d};                                /* layer norm out */
    b[n++] = (air_pack_buffer_t){t + 1, t + 3, d};                            /* q */
    b[n++] = (air_pack_buffer_t){t + 1, t + 4, d};                            /* k */
    b[n++] = (air_pack_buffer_t){t + 1, t + 4, d};                            /* v */
    b[n++] = (air_pack_buffer_t){t + 2, t + 4, 32ull * 512 * 512 * 2};        /* scores */
    b[n++] = (air_pack_buffer_t){t + 3, t + 5, d};                            /* attention out */
    b[n++] = (air_pack_buffer_t){t + 5, t + 7, 4 * d};                        /* MLP hidden */
    b[n++] = (air_pack_buffer_t){t + 6, t + 8, d};                            /* MLP out */
    if (below(&s, 4) == 0) b[n++] = (air_pack_buffer_t){t + 4, t + 6, d / 8}; /* scratch */
  }
  *count = n;
  return b;
}

/* Log-uniform in [2^lo, 2^hi) bytes. */
static uint64_t log_size(uint64_t* s, unsigned lo, unsigned hi) {
  unsigned e = lo + (unsigned)below(s, hi - lo);
  return (1ull << e) + below(s, 1ull << e);
}

air_pack_buffer_t* pack_gen_trace(size_t n, uint64_t seed, size_t* count) {
  air_pack_buffer_t* b = malloc((n ? n : 1) * sizeof *b);
  if (!b) return NULL;
  uint64_t s = seed;
  const uint64_t steps = n;          /* one step per buffer on average */
  const uint64_t half = steps / 2;   /* forward [0, half), backward [half, steps) */
  size_t k = 0;
  /* Long-lived workspaces over 90% of the step, up to 9 GB. */
  for (size_t i = 0; i < 8 && k < n; ++i)
    b[k++] = (air_pack_buffer_t){steps / 20, steps - steps / 20,
                                 i == 0 ? 9000000000ull : log_size(&s, 24, 31)};
  /* Saved activations: 20% of the buffers, made in the forward half and freed
   * near the mirrored backward step (jitter up to 2% of the step), so they
   * mostly nest: the longest live about 0.9 n steps. A quarter are recomputed
   * instead and live a few hundred steps. */
  size_t acts = n * 20 / 100;
  for (size_t i = 0; i < acts && k < n; ++i) {
    uint64_t t = steps / 20 + below(&s, half - steps / 20);
    uint64_t back = steps - t - below(&s, steps / 50 + 1);
    if (below(&s, 4) == 0) back = t + 1 + below(&s, 512);
    if (back > steps) back = steps;
    if (back <= t) back = t + 1;
    b[k++] = (air_pack_buffer_t){t, back, below(&s, 100) < 1 ? log_size(&s, 27, 30)
                                                              : log_size(&s, 12, 26)};
  }
  /* Gradients: made in the backward half, kept to the optimizer step. */
  size_t grads = n * 4 / 100;
  for (size_t i = 0; i < grads && k < n; ++i) {
    uint64_t t = half + below(&s, half);
    b[k++] = (air_pack_buffer_t){t, steps, log_size(&s, 10, 26)};
  }
  /* Temporaries: short-lived, from 1 byte up. */
  while (k < n) {
    uint64_t t = below(&s, steps);
    uint64_t len = below(&s, 100) < 70 ? 1 + below(&s, 4) : 1 + below(&s, 64);
    uint64_t end = t + len > steps ? steps : t + len;
    if (end <= t) end = t + 1;
    uint64_t size = below(&s, 100) < 10 ? 1 + below(&s, 64) : log_size(&s, 6, 25);
    b[k++] = (air_pack_buffer_t){t, end, size};
  }
  *count = k;
  return b;
}

air_pack_buffer_t* pack_gen_make(const pack_gen_spec_t* spec, size_t* count) {
  switch (spec->kind) {
    case PACK_GEN_RANDOM: return pack_gen_random(spec->n, spec->seed, count);
    case PACK_GEN_CNN: return pack_gen_cnn(spec->seed, count);
    case PACK_GEN_TRANSFORMER: return pack_gen_transformer(spec->seed, count);
    case PACK_GEN_TRACE: return pack_gen_trace(spec->n, spec->seed, count);
  }
  *count = 0;
  return NULL;
}

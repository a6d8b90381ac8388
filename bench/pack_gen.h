/* pack_gen.h - generated packing instances for the arena-pack benchmark and the
 * packer's tests; deterministic (splitmix64) so figures compare across runs. */
#ifndef AIR_BENCH_PACK_GEN_H_
#define AIR_BENCH_PACK_GEN_H_

#include <stddef.h>
#include <stdint.h>

#include "scheduler/pack/pack.h"

/* Each returns a malloc'ed array of *count buffers, or NULL when out of memory. */

/* `n` buffers over n time steps: 95% live 1-16 steps, 5% up to 1024; sizes
 * log-uniform from 64 B to 2 MiB, not aligned. */
air_pack_buffer_t* pack_gen_random(size_t n, uint64_t seed, size_t* count);

/* A CNN training step as a chain: forward activations live until their backward
 * step (nested lifetimes), plus short workspaces and gradients; five stages of
 * halving resolution. */
air_pack_buffer_t* pack_gen_cnn(uint64_t seed, size_t* count);

/* Transformer inference, layer after layer: residual stream, q/k/v, attention
 * scores, MLP hidden states, each live for a few steps of its layer. */
air_pack_buffer_t* pack_gen_transformer(uint64_t seed, size_t* count);

/* A training step of a large network as a framework's allocator sees it, `n`
 * buffers over about n steps: activations made in the forward half and kept for
 * the backward half (nested lifetimes up to ~0.9 n steps; a quarter recomputed,
 * living a few hundred steps), short temporaries (1-64 steps), gradients kept to
 * the optimizer step at the end, and a few workspaces over 90% of the step;
 * sizes from 1 B to 9 GB, heavy-tailed. At n = 62000 about 9.2k buffers are live
 * at once, the shape of the real trace issue 12 names (62k buffers, ~9.3k live,
 * lifetimes 1 to 56k steps, 1 B to 9 GB). */
air_pack_buffer_t* pack_gen_trace(size_t n, uint64_t seed, size_t* count);

/* One generated instance by name, for the tables of cases the benchmark and the
 * tests run: which generator, its `n` (random and trace only) and seed. */
typedef enum pack_gen_kind_e {
  PACK_GEN_RANDOM,
  PACK_GEN_CNN,
  PACK_GEN_TRANSFORMER,
  PACK_GEN_TRACE,
} pack_gen_kind_t;

typedef struct pack_gen_spec_t {
  const char* name;
  pack_gen_kind_t kind;
  size_t n;
  uint64_t seed;
} pack_gen_spec_t;

air_pack_buffer_t* pack_gen_make(const pack_gen_spec_t* spec, size_t* count);

#endif /* AIR_BENCH_PACK_GEN_H_ */

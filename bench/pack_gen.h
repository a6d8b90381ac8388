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

#endif /* AIR_BENCH_PACK_GEN_H_ */

/* Reproducible random numbers: the per-process seed of an experiment, the
 * seed of each of its rounds, and a small generator (splitmix64) for the
 * RAND orderings, the uniform arrival delays and the buffers' places. */
#ifndef NBH_SEEDS_H
#define NBH_SEEDS_H

#include <stddef.h>
#include <stdint.h>

struct rng {
    uint64_t state;
};

/* The seed of process `rank` in experiment `id` of a run with `run_seed`.
 * Every process derives its own; the formula is recorded with the results. */
uint64_t process_seed(uint64_t run_seed, long id, int rank);

/* The seed process `rank` draws round `round` of an experiment from: round
 * 1 its process seed itself (what a run of one round always drew), round
 * r > 1 mix(seed ^ mix(r + NBH_ROUND_SEED_STREAM)). Every round draws anew
 * (SPEC 7.6: what varies per repetition must not replay a round before),
 * and a resumed attempt that starts at a later round draws what an
 * uninterrupted run would have drawn there. */
#define NBH_ROUND_SEED_STREAM 0x632be59bd9b4e019ULL
uint64_t round_seed(uint64_t process_seed, int round);

/* The splitmix64 finalizer: a 64-bit value scrambled (also the data
 * check's payload pattern). */
uint64_t mix64(uint64_t z);

uint64_t rng_next(struct rng *rng);
/* Uniform in [0, n), n > 0, without modulo bias. */
uint64_t rng_below(struct rng *rng, uint64_t n);
/* Fisher-Yates shuffle of n elements of `size` bytes (size <= 64). */
void rng_shuffle(struct rng *rng, void *base, size_t n, size_t size);

#define NBH_SEED_FORMULA \
    "splitmix64 stream seeded with mix(mix(seed) ^ mix(id + 0x9e3779b97f4a7c15) ^ mix(rank + 0xd1b54a32d192ed03))"
#define NBH_ROUND_SEED_FORMULA                                                                             \
    "round 1 draws from the process's seed of PREFIX.seeds.csv itself, round r > 1 from "                  \
    "mix(seed ^ mix(r + 0x632be59bd9b4e019)); mix is the splitmix64 finalizer"

#endif

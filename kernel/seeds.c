#include "seeds.h"

#include <string.h>

uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t process_seed(uint64_t run_seed, long id, int rank)
{
    return mix64(mix64(run_seed) ^ mix64((uint64_t)id + 0x9e3779b97f4a7c15ULL) ^
               mix64((uint64_t)rank + 0xd1b54a32d192ed03ULL));
}

uint64_t round_seed(uint64_t seed, int round)
{
    return round <= 1 ? seed : mix64(seed ^ mix64((uint64_t)round + NBH_ROUND_SEED_STREAM));
}

uint64_t rng_next(struct rng *rng)
{
    rng->state += 0x9e3779b97f4a7c15ULL;
    return mix64(rng->state);
}

uint64_t rng_below(struct rng *rng, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = rng_next(rng);
    while (x >= limit);
    return x % n;
}

void rng_shuffle(struct rng *rng, void *base, size_t n, size_t size)
{
    unsigned char tmp[64], *a = base;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)rng_below(rng, i);
        if (j == i - 1)
            continue;
        memcpy(tmp, a + j * size, size);
        memcpy(a + j * size, a + (i - 1) * size, size);
        memcpy(a + (i - 1) * size, tmp, size);
    }
}

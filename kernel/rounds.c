#include "rounds.h"

#include "seeds.h"

int rounds_of_input(const struct input *in)
{
    long rounds = 1;
    for (int i = 0; i < in->count; i++)
        if (in->experiments[i].blocks > rounds)
            rounds = in->experiments[i].blocks;
    return (int)rounds;
}

struct round_slot round_slot(const struct experiment *e, int round)
{
    struct round_slot slot = {round, 0, 0};
    if (round < e->first_round || round > e->blocks)
        return slot;
    long share = e->nrep / e->blocks, extra = e->nrep % e->blocks, before = round - 1;
    slot.reps = share + (before < extra);
    slot.first_rep = before * share + (before < extra ? before : extra);
    return slot;
}

void round_order(const struct input *in, int round, int *order)
{
    for (int i = 0; i < in->count; i++)
        order[i] = i;
    if (round <= 1 || in->count < 2)
        return;
    struct rng rng = {mix64(in->experiments[0].seed ^ mix64((uint64_t)round))};
    rng_shuffle(&rng, order, (size_t)in->count, sizeof(order[0]));
}

#include "arrival.h"

void arrival_plan_init(struct arrival_plan *a, const struct experiment *e, int rank, int nprocs, int round)
{
    *a = (struct arrival_plan){.pattern = e->arrival, .max_seconds = e->arrival_us * 1e-6,
                               .late_rank = e->late_rank, .rank = rank, .nprocs = nprocs};
    a->rng.state = experiment_round_seed(e, rank, round) ^ NBH_ARRIVAL_STREAM;
}

double arrival_next_delay(struct arrival_plan *a)
{
    switch (a->pattern) {
    case ARRIVAL_uniform:
        return a->max_seconds * (double)(rng_next(&a->rng) >> 11) * 0x1.0p-53;
    case ARRIVAL_one_late:
        return a->rank == a->late_rank ? a->max_seconds : 0;
    case ARRIVAL_ramp:
        return a->nprocs > 1 ? a->max_seconds * a->rank / (a->nprocs - 1) : 0;
    default:
        return 0;
    }
}

int arrival_delays(const struct arrival_plan *a)
{
    return a->pattern != ARRIVAL_none && a->max_seconds > 0;
}

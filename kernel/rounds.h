/* Interleaved rounds (SPEC 7.6, Randomized Multiple Interleaved Trials):
 * a run measures its experiments in rounds. Round 1 runs them in the
 * input's order (generate shuffles it per run), each later round in a new
 * order drawn from the run's seed, and every experiment gets a share of its
 * nrep repetitions in each of its `blocks` rounds: so both sides of every
 * guideline are measured close together in time, many times per launch,
 * and a machine that changes speed meets them alike. */
#ifndef NBH_ROUNDS_H
#define NBH_ROUNDS_H

#include "input.h"

/* An experiment's part of one round: repetitions first_rep ..
 * first_rep + reps - 1 of its nrep (reps 0: it has no such round). */
struct round_slot {
    int round;      /* 1 .. blocks */
    long reps;
    long first_rep;
};

/* The rounds of a run: the largest blocks of its experiments. */
int rounds_of_input(const struct input *in);

/* Experiment e's part of round `round`: nrep / blocks repetitions, one more
 * in the first nrep mod blocks rounds; none before its first_round (a
 * resumed attempt measures only the rounds an earlier one did not finish). */
struct round_slot round_slot(const struct experiment *e, int round);

/* The order of round `round`: indices of in->experiments (all in->count of
 * them). Round 1 is the input's order; round r > 1 a Fisher-Yates shuffle
 * of it with the splitmix64 stream seeded by mix(seed ^ mix(r)), seed the
 * first experiment's run seed (a run's experiments share it). */
void round_order(const struct input *in, int round, int *order);

#define NBH_ROUND_ORDER_FORMULA \
    "round 1: the input's order; round r > 1: Fisher-Yates shuffle of it by the splitmix64 stream " \
    "seeded with mix(seed ^ mix(r))"

#endif

/* The data check (--validate): every sent block carries its sender and its
 * pairing name; every receive slot is checked against the sender and name
 * it must get, per sender-receiver edge, not by block position. A library
 * that delivers the wrong block is a correctness finding, not a crash. */
#ifndef NBH_VALIDATION_H
#define NBH_VALIDATION_H

#include <stdio.h>

#include "run_context.h"
#include "whole_output.h"

#define NBH_FINDING_KINDS(X) \
    X(wrong_sender)          \
    X(wrong_edge)            \
    X(missing)               \
    X(corrupt)               \
    X(source_list)           \
    X(destination_list)      \
    X(gap)

#define NBH_ENUM_FINDING(name) FINDING_##name,
enum finding_kind { NBH_FINDING_KINDS(NBH_ENUM_FINDING) N_FINDING_KINDS };

struct finding {
    int kind;
    int rank;           /* the receiving (or listing) process, in comm ranks */
    int slot;           /* receive slot, or list position; -1: the degree */
    int expected_rank;
    int expected_name;
    int got_rank;       /* -1 where the data names no process */
    int got_name;
    long reps;          /* repetitions in which it was seen */
};

struct findings {
    struct finding *items;
    int count, capacity;
    int *slot_finding;  /* per receive slot: index into items, or -1 */
    int nslots;
    int gap_finding;    /* a layout's receive buffer written outside its slots: index, or -1 */
    char *scratch;      /* two blocks: the expected one, and a layout's slot gathered */
};

void findings_init(struct findings *f);
/* Makes room for the receive slots of ctx (after the setup's prepare). */
void findings_track_slots(struct findings *f, const struct run_context *ctx);
void findings_free(struct findings *f);

/* Writes every send block's payload (once, after prepare). */
void validation_fill(struct run_context *ctx);
/* Poisons the receive buffer (before each repetition, untimed). */
void validation_reset(struct run_context *ctx);
/* Checks every receive slot (after each repetition, untimed). */
void validation_check(struct run_context *ctx, struct findings *f);
/* Compares the lists the library reports with those the kernel computed. */
void validation_check_lists(const struct run_context *ctx, const struct neighbor_lists *computed,
                            int ordered, struct findings *f);

/* Appends every process's findings as CSV rows to the table on rank 0 of
 * base. Returns the total number of findings (on every rank). */
long findings_report(struct findings *f, MPI_Comm base, struct table *out, const struct experiment *e);

extern const char *const finding_kind_names[N_FINDING_KINDS];

#endif

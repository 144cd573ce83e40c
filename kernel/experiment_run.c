#include "experiment_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrival.h"
#include "busy_work.h"
#include "constructors.h"
#include "data_buffers.h"
#include "datatypes/layout_buffers.h"
#include "datatypes/packing.h"
#include "edge_counts.h"
#include "gather_text.h"
#include "loop_report.h"
#include "pairing.h"
#include "reorder_record.h"
#include "rounds.h"
#include "setups/setup.h"
#include "sync/start_skew.h"
#include "sync/sync.h"
#include "timing_loop.h"
#include "validation.h"
#include "work_factor.h"

/* Whether the library must report the lists in the order they were given:
 * Cart_create and Dist_graph_create_adjacent fix it; Dist_graph_create
 * leaves it to the library. */
static int order_is_fixed(enum constructor c)
{
    return c != CONSTRUCTOR_dist_graph;
}

/* The topology communicator and the lists as the library reports them. For
 * create, whose communicator lives for one repetition, one is made here
 * for the check and freed again; the repetitions run on base. Returns this
 * process's rank in the topology communicator. */
static int open_topology(struct run_context *ctx, struct findings *findings)
{
    const struct experiment *e = ctx->e;
    MPI_Comm topo;
    topology_comm_create(e, ctx->base, &ctx->hood, &topo);
    comm_neighbor_lists(topo, &ctx->lists);
    edge_counts_match(ctx, topo);
    if (findings) {
        struct neighbor_lists expected;
        translate_lists(ctx->base, topo, &ctx->hood.lists, &expected);
        MPI_Comm_rank(topo, &ctx->rank);
        validation_check_lists(ctx, &expected, order_is_fixed(e->constructor), findings);
        neighbor_lists_free(&expected);
    }
    int topology_rank;
    MPI_Comm_rank(topo, &topology_rank);
    ctx->send_tags = malloc(sizeof(int) * (size_t)(ctx->lists.outdegree + 1));
    ctx->recv_tags = malloc(sizeof(int) * (size_t)(ctx->lists.indegree + 1));
    pairing_tags(comm_is_cartesian(topo), &ctx->lists, ctx->send_tags, ctx->recv_tags);
    if (e->op == OP_create)
        MPI_Comm_free(&topo);
    ctx->comm = e->op == OP_create ? ctx->base : topo;
    MPI_Comm_rank(ctx->comm, &ctx->rank);
    MPI_Comm_size(ctx->comm, &ctx->nprocs);
    return topology_rank;
}

/* --dump-lists: the lists of a round as computed (ranks of base) and as
 * the library reports them (ranks of the topology communicator),
 * MPI_PROC_NULL as -1, with each edge's count (graph; 1 elsewhere). Every
 * round: a RAND order is drawn anew in each. */
static void dump_lists(const struct run_context *ctx, int round, int comm_rank, struct output *out)
{
    char *text = NULL;
    size_t size = 0;
    FILE *rows = open_memstream(&text, &size);
    int base_rank;
    MPI_Comm_rank(ctx->base, &base_rank);
    const struct {
        const char *name;
        const int *ranks;
        const int *counts;
        int n;
    } lists[] = {{"computed_sources", ctx->hood.lists.sources, ctx->hood.source_counts, ctx->hood.lists.indegree},
                 {"computed_destinations", ctx->hood.lists.destinations, ctx->hood.destination_counts,
                  ctx->hood.lists.outdegree},
                 {"sources", ctx->lists.sources, ctx->edge_in, ctx->lists.indegree},
                 {"destinations", ctx->lists.destinations, ctx->edge_out, ctx->lists.outdegree}};
    for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
        for (int i = 0; i < lists[l].n; i++)
            fprintf(rows, "%ld,%d,%d,%d,%s,%d,%d,%d\n", ctx->e->id, round, base_rank, comm_rank, lists[l].name, i,
                    lists[l].ranks[i] == MPI_PROC_NULL ? -1 : lists[l].ranks[i],
                    lists[l].counts ? lists[l].counts[i] : 1);
    fclose(rows);
    gather_text(ctx->base, text, size, &out->lists);
    free(text);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n values (sorted in place); 0 for none. */
static double median(double *values, size_t n)
{
    if (n == 0)
        return 0;
    qsort(values, n, sizeof(double), by_value);
    return (values[(n - 1) / 2] + values[n / 2]) / 2;
}

/* sync = clock: what the start cost and achieved (rank 0's prep). latest:
 * room for the valid repetitions' largest lateness. */
static void sync_record(const struct sync_run *sync, const struct repetitions *reps, const double *lateness,
                        double *latest, struct preparation *prep)
{
    int n = (int)reps->valid_count, rank;
    MPI_Comm_rank(sync->base, &rank);
    double mine[2] = {sync->prepare_seconds, sync->offset}, most[2], least;
    MPI_Reduce(lateness, latest, n, MPI_DOUBLE, MPI_MAX, 0, sync->base);
    MPI_Reduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, 0, sync->base);
    MPI_Reduce(&sync->offset, &least, 1, MPI_DOUBLE, MPI_MIN, 0, sync->base);
    if (rank != 0)
        return;
    prep->sync_seconds = most[0];
    prep->offset_spread = most[1] - least;
    prep->window_seconds = sync->window;
    prep->start_skew = median(latest, (size_t)n);
    prep->invalid = reps->attempts - reps->valid_count;
}

/* Rank 0: every process's row of PREFIX.ranks.csv, in rank order (NULL
 * elsewhere). one_late: a neighbor of the late process is one of its
 * sources or destinations, as the library reports the lists. */
static struct rank_row *rank_rows(const struct run_context *ctx, const struct repetitions *reps,
                                  const struct experiment *e)
{
    double *values = malloc(sizeof(double) * 2 * (size_t)(reps->valid_count + 1));
    size_t n = 0;
    for (long i = 0; i < reps->attempts; i++)
        if (reps->valid[i])
            values[n] = reps->seconds[i], values[reps->valid_count + (long)n++] = reps->delay[i];
    enum { NONE, LATE, NEIGHBOR, OTHER };
    int role = NONE;
    if (e->arrival == ARRIVAL_one_late) {
        role = ctx->rank == e->late_rank ? LATE : OTHER;
        for (int i = 0; i < ctx->lists.indegree && role == OTHER; i++)
            role = ctx->lists.sources[i] == e->late_rank ? NEIGHBOR : role;
        for (int i = 0; i < ctx->lists.outdegree && role == OTHER; i++)
            role = ctx->lists.destinations[i] == e->late_rank ? NEIGHBOR : role;
    }
    double mine[4] = {ctx->rank, median(values, n), median(values + reps->valid_count, n), role};
    free(values);
    int base_rank, p;
    MPI_Comm_rank(ctx->base, &base_rank);
    MPI_Comm_size(ctx->base, &p);
    double *all = base_rank == 0 ? malloc(sizeof(double) * 4 * (size_t)p) : NULL;
    MPI_Gather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, 0, ctx->base);
    if (base_rank != 0)
        return NULL;
    static const char *const roles[] = {"", "late", "neighbor", "other"};
    struct rank_row *rows = malloc(sizeof(*rows) * (size_t)p);
    for (int i = 0; i < p; i++) {
        int r = (int)all[4 * i];
        rows[r] = (struct rank_row){r, all[4 * i + 1], all[4 * i + 2], roles[(int)all[4 * i + 3]]};
    }
    free(all);
    return rows;
}

/* --dump-delays: every process's drawn delay of every timed attempt of the
 * round, in us. attempt: its draw in the round's stream (arrival.h), after
 * the round's `warmup` attempts; rep: the repetition of the results it
 * became (the round's first_rep on), -1 if invalid. */
static void dump_delays(const struct run_context *ctx, const struct round_slot *slot, long warmup_attempts,
                        const struct repetitions *reps, struct output *out)
{
    char *text = NULL;
    size_t size = 0;
    FILE *rows = open_memstream(&text, &size);
    for (long i = 0, rep = slot->first_rep; i < reps->attempts; i++)
        fprintf(rows, "%ld,%d,%d,%ld,%ld,%.6f\n", ctx->e->id, slot->round, ctx->rank, warmup_attempts + i,
                reps->valid[i] ? rep++ : -1L, reps->drawn[i] * 1e6);
    fclose(rows);
    gather_text(ctx->base, text, size, &out->delays);
    free(text);
}

static void close_topology(struct run_context *ctx)
{
    if (ctx->comm != ctx->base)
        MPI_Comm_free(&ctx->comm);
    neighbor_lists_free(&ctx->lists);
    neighborhood_free(&ctx->hood);
    edge_counts_free(ctx);
    free(ctx->send_tags);
    free(ctx->recv_tags);
}

/* The slowest process's seconds and work of the valid attempts of reps,
 * on rank 0 (n of them); NULL elsewhere. */
static double *slowest_of(const struct run_context *ctx, const struct repetitions *reps)
{
    size_t n = (size_t)reps->valid_count;
    double *mine = malloc(sizeof(double) * 2 * (n + 1)), *all = malloc(sizeof(double) * 2 * (n + 1));
    for (long i = 0, k = 0; i < reps->attempts; i++)
        if (reps->valid[i])
            mine[k] = reps->seconds[i], mine[n + (size_t)k++] = reps->work[i];
    MPI_Reduce(mine, all, 2 * (int)n, MPI_DOUBLE, MPI_MAX, 0, ctx->base);
    free(mine);
    return all;
}

int experiment_run(const struct experiment *e, const struct round_slot *slot, const struct run_settings *settings,
                   struct output *out, long *findings_total)
{
    struct run_context ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.e = e;
    ctx.base = settings->base;
    ctx.work = countdown_steps(e->work_us, settings->countdown_rate);
    int base_rank;
    MPI_Comm_rank(ctx.base, &base_rank);
    ctx.places.state = experiment_round_seed(e, base_rank, slot->round) ^ NBH_BUFFER_STREAM;
    topology_builder(e->topology)(e, ctx.base, slot->round, &ctx.hood);
    int first_round = slot->round == e->first_round;  /* this input's first round of it */

    struct findings findings, *check = settings->validate ? &findings : NULL;
    if (check)
        findings_init(check);
    int comm_rank = open_topology(&ctx, check);
    if (e->reorder && first_round)
        reorder_record(ctx.base, comm_rank, e, out);
    if (settings->dump_lists)
        dump_lists(&ctx, slot->round, comm_rank, out);

    struct preparation prep = {.init_seconds = -1, .reference_seconds = -1, .work_us = -1, .type_size = -1,
                               .type_extent = -1, .commit_seconds = -1, .sync_seconds = -1,
                               .construct_seconds = -1, .measured_skew = -1};
    if (e->work_factor > 0) {
        /* timed once per run, in the experiment's first round (work_factor.c keeps it) */
        struct work_plan plan;
        work_factor_plan(&ctx, e->work_factor, settings->countdown_rate, &plan);
        ctx.work = plan.steps;
        prep.reference_seconds = plan.reference_seconds;
        prep.reference_id = plan.reference_id;
        prep.work_us = plan.work_us;
    }

    const struct setup *s = packing_setup(&ctx, setup_for(e->op));
    ctx.init_seconds = -1;
    s->prepare(&ctx);
    int layout = operation_table[e->op].moves_data && !layout_is_plain(&e->layout);
    if (layout)
        layout_preparation(&ctx, &prep);
    if (check) {
        findings_track_slots(check, &ctx);
        validation_fill(&ctx);
    }
    struct sync_run sync;
    sync_run_init(&sync, e->sync, ctx.comm, ctx.base);
    sync.measure |= settings->measure_skew;
    sync.each = settings->sync_each_experiment;
    struct arrival_plan arrival;
    arrival_plan_init(&arrival, e, ctx.rank, ctx.nprocs, slot->round);
    arrival.yield = clock_host_oversubscribed(ctx.base);  /* asked once per run */
    sync.method->prepare(&sync, &ctx, s, &arrival);
    struct arrival_plan *delays = arrival_delays(&arrival) ? &arrival : NULL;
    struct repetitions warm, reps;
    memset(&warm, 0, sizeof(warm));
    if (e->warmup > 0)
        repetitions_run(&ctx, s, &sync, delays, check, e->warmup, &warm);
    repetitions_run(&ctx, s, &sync, delays, check, slot->reps, &reps);
    sync.method->finish(&sync, &ctx);
    s->release(&ctx);
    if (settings->loop_report)  /* over every attempt: a clock start's waits for its windows count too */
        loop_report(ctx.base, e->id, reps.attempts, reps.loop_seconds, reps.seconds);
    double *warm_slowest = e->warmup > 0 ? slowest_of(&ctx, &warm) : NULL;

    /* The valid repetitions, in order (with the barrier: all): time, work
     * and delay side by side, reduced to the slowest process's at once. */
    size_t n = (size_t)reps.valid_count;
    double *seconds = malloc(sizeof(double) * 8 * (n + 1)), *work = seconds + n, *delay = seconds + 2 * n;
    double *slowest = seconds + 3 * n, *slowest_work = seconds + 4 * n, *slowest_delay = seconds + 5 * n;
    double *lateness = seconds + 6 * n, *latest = seconds + 7 * n;
    for (long i = 0, k = 0; i < reps.attempts; i++)
        if (reps.valid[i])
            seconds[k] = reps.seconds[i], work[k] = reps.work[i], delay[k] = reps.delay[i],
            lateness[k++] = reps.lateness[i];

    MPI_Reduce(seconds, slowest, 3 * (int)n, MPI_DOUBLE, MPI_MAX, 0, ctx.base);
    double init_slowest;
    MPI_Reduce(&ctx.init_seconds, &init_slowest, 1, MPI_DOUBLE, MPI_MAX, 0, ctx.base);
    if (e->sync == SYNC_clock)
        sync_record(&sync, &reps, lateness, latest, &prep);
    struct rank_row *ranks = settings->ranks && operation_table[e->op].moves_data
                                 ? rank_rows(&ctx, &reps, e) : NULL;
    if (settings->dump_delays && operation_table[e->op].moves_data)
        dump_delays(&ctx, slot, warm.attempts, &reps, out);
    *findings_total = 0;
    if (check) {
        *findings_total = findings_report(check, ctx.base, &out->findings, e);
        findings_free(check);
    }
    if (base_rank == 0 && (long)n < slot->reps)
        fprintf(stderr, "nbh-kernel: experiment %ld, round %d: %ld of %ld repetitions started in their windows "
                "in %ld attempts; the results keep those\n", e->id, slot->round, (long)n, slot->reps,
                reps.attempts);
    /* Every table gets this round of the experiment whole, or none of it
     * does; everyone learns the verdict, so a full disk stops all
     * processes alike. */
    int status = 0;
    if (base_rank == 0) {
        if ((e->order == ORDER_RAND || e->arrival == ARRIVAL_uniform) && first_round)
            output_seeds(out, e, ctx.nprocs);
        if (warm_slowest)
            output_warmup(out, e, slot->round, warm.valid_count, warm_slowest, warm_slowest + warm.valid_count);
        output_results(out, e, slot, (long)n, slowest, slowest_work, slowest_delay);
        prep.init_seconds = init_slowest;
        prep.reps = (long)n;
        /* a measured start's row waits for the round's skew measurement (sync/start_skew.h) */
        if (!sync.measure && (prep.init_seconds >= 0 || prep.reference_seconds >= 0 || layout ||
                              prep.sync_seconds >= 0))
            output_preparation(out, e, slot->round, &prep);
        if (ranks)
            output_ranks(out, e, slot->round, ctx.nprocs, ranks);
        status = output_end_experiment(out);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, ctx.base);
    start_skew_defer(&sync, e, slot->round, warm.attempts, reps.valid, reps.attempts, &prep);
    free(ranks);
    free(seconds);
    free(warm_slowest);
    repetitions_free(&warm);
    repetitions_free(&reps);
    sync_run_free(&sync);
    close_topology(&ctx);
    return status;
}

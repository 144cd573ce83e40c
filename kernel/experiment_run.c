#include "experiment_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busy_work.h"
#include "constructors.h"
#include "datatypes/layout_buffers.h"
#include "datatypes/packing.h"
#include "edge_counts.h"
#include "gather_text.h"
#include "loop_report.h"
#include "pairing.h"
#include "reorder_record.h"
#include "setups/setup.h"
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

/* --dump-lists: the lists as computed (ranks of base) and as the library
 * reports them (ranks of the topology communicator), MPI_PROC_NULL as -1,
 * with each edge's count (graph; 1 elsewhere). */
static void dump_lists(const struct run_context *ctx, int comm_rank, struct output *out)
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
            fprintf(rows, "%ld,%d,%d,%s,%d,%d,%d\n", ctx->e->id, base_rank, comm_rank, lists[l].name, i,
                    lists[l].ranks[i] == MPI_PROC_NULL ? -1 : lists[l].ranks[i],
                    lists[l].counts ? lists[l].counts[i] : 1);
    fclose(rows);
    gather_text(ctx->base, text, size, &out->lists);
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

int experiment_run(const struct experiment *e, const struct run_settings *settings, struct output *out,
                   long *findings_total)
{
    struct run_context ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.e = e;
    ctx.base = settings->base;
    ctx.work = countdown_steps(e->work_us, settings->countdown_rate);
    topology_builder(e->topology)(e, ctx.base, &ctx.hood);

    struct findings findings, *check = settings->validate ? &findings : NULL;
    if (check)
        findings_init(check);
    int comm_rank = open_topology(&ctx, check);
    if (e->reorder)
        reorder_record(ctx.base, comm_rank, e, out);
    if (settings->dump_lists)
        dump_lists(&ctx, comm_rank, out);

    struct preparation prep = {.init_seconds = -1, .reference_seconds = -1, .work_us = -1, .type_size = -1,
                               .type_extent = -1, .commit_seconds = -1};
    if (e->work_factor > 0) {
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
    size_t n = (size_t)e->nrep;
    double *seconds = malloc(sizeof(double) * 4 * n), *work = seconds + n;
    double *slowest = seconds + 2 * n, *slowest_work = seconds + 3 * n;
    double loop_seconds = timing_loop(&ctx, s, check, e->nrep, seconds, work);
    s->release(&ctx);
    if (settings->loop_report)
        loop_report(ctx.base, e->id, e->nrep, loop_seconds, seconds);

    int base_rank;
    MPI_Comm_rank(ctx.base, &base_rank);
    MPI_Reduce(seconds, slowest, 2 * (int)e->nrep, MPI_DOUBLE, MPI_MAX, 0, ctx.base);
    double init_slowest;
    MPI_Reduce(&ctx.init_seconds, &init_slowest, 1, MPI_DOUBLE, MPI_MAX, 0, ctx.base);
    *findings_total = 0;
    if (check) {
        *findings_total = findings_report(check, ctx.base, &out->findings, e);
        findings_free(check);
    }
    /* Every table gets this experiment whole, or none of it does; everyone
     * learns the verdict, so a full disk stops all processes alike. */
    int status = 0;
    if (base_rank == 0) {
        if (e->order == ORDER_RAND)
            output_seeds(out, e, ctx.nprocs);
        output_results(out, e, slowest, slowest_work);
        prep.init_seconds = init_slowest;
        if (prep.init_seconds >= 0 || prep.reference_seconds >= 0 || layout)
            output_preparation(out, e, &prep);
        status = output_end_experiment(out);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, ctx.base);
    free(seconds);
    close_topology(&ctx);
    return status;
}

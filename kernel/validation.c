#include "validation.h"

#include <stdlib.h>
#include <string.h>

#include "datatypes/layout_buffers.h"
#include "gather_text.h"
#include "seeds.h"

#define NBH_FINDING_NAME(name) #name,
const char *const finding_kind_names[N_FINDING_KINDS] = {NBH_FINDING_KINDS(NBH_FINDING_NAME)};

enum { POISON = 0xA5, HEADER = 8 };

/* A block names its sender and its pairing name in its first 8 bytes (when
 * it has them); the rest is a pattern drawn from both, so a block is only
 * right if every byte is. */
static void payload(char *block, size_t size, int sender, int name)
{
    size_t o = 0;
    if (size >= HEADER) {
        int32_t header[2] = {sender, name};
        memcpy(block, header, HEADER);
        o = HEADER;
    }
    uint64_t key = ((uint64_t)(uint32_t)sender << 32) | (uint32_t)name;
    for (; o < size; o++)
        block[o] = (char)(mix64(key ^ ((o >> 3) * 0x9e3779b97f4a7c15ULL)) >> ((o & 7) * 8));
}

/* Bytes a slot receives: its part of the receive buffer, or with a layout
 * the data it carries (msize), gathered from the layout's elements. */
static size_t slot_size(const struct run_context *ctx, int k)
{
    return ctx->layout ? (size_t)ctx->e->msize : ctx->recv_offsets[k + 1] - ctx->recv_offsets[k];
}

void findings_init(struct findings *f)
{
    memset(f, 0, sizeof(*f));
}

void findings_track_slots(struct findings *f, const struct run_context *ctx)
{
    f->nslots = ctx->nrecv;
    f->slot_finding = malloc(sizeof(int) * (size_t)(f->nslots + 1));
    f->gap_finding = -1;
    size_t largest = 0;
    for (int k = 0; k < f->nslots; k++) {
        f->slot_finding[k] = -1;
        size_t size = slot_size(ctx, k);
        largest = size > largest ? size : largest;
    }
    f->scratch = malloc(2 * largest + 2);
}

void findings_free(struct findings *f)
{
    free(f->items);
    free(f->slot_finding);
    free(f->scratch);
    memset(f, 0, sizeof(*f));
}

static int findings_add(struct findings *f, struct finding item)
{
    if (f->count == f->capacity) {
        f->capacity = f->capacity ? 2 * f->capacity : 16;
        f->items = realloc(f->items, sizeof(*f->items) * (size_t)f->capacity);
    }
    f->items[f->count] = item;
    return f->count++;
}

void validation_fill(struct run_context *ctx)
{
    if (ctx->layout && layout_faces_overlap(ctx)) {
        layout_fill_pattern(ctx);
        return;
    }
    if (ctx->layout) {  /* each block's payload at the layout's elements */
        char *block = malloc((size_t)ctx->e->msize + 1);
        for (int j = 0; j < ctx->nsend; j++) {
            payload(block, (size_t)ctx->e->msize, ctx->rank, ctx->block_names[j]);
            layout_put_block(ctx, j, block);
        }
        free(block);
        return;
    }
    for (int j = 0; j < ctx->nsend; j++)
        payload(ctx->sendbuf + ctx->send_offsets[j], ctx->send_offsets[j + 1] - ctx->send_offsets[j],
                ctx->rank, ctx->block_names[j]);
}

void validation_reset(struct run_context *ctx)
{
    if (ctx->layout)
        layout_poison(ctx, POISON);
    else if (ctx->recv_offsets)  /* create moves no data */
        memset(ctx->recvbuf, POISON, ctx->recv_offsets[ctx->nrecv]);
}

static int all_poison(const char *block, size_t size)
{
    for (size_t o = 0; o < size; o++)
        if ((unsigned char)block[o] != POISON)
            return 0;
    return 1;
}

/* The bytes block `name` of process `sender` carries. */
static void expected(const struct run_context *ctx, char *out, size_t size, int sender, int name)
{
    if (ctx->layout && layout_faces_overlap(ctx))
        layout_expected(ctx, sender, name, out);
    else
        payload(out, size, sender, name);
}

/* With faces that share elements there is no header: which process's
 * face, if any, arrived is found by trying each. */
static void search_faces(const struct run_context *ctx, struct findings *f, const char *got, size_t size,
                         struct finding *d)
{
    for (int q = 0; q < ctx->nprocs; q++) {
        for (int name = 0; name < ctx->nrecv; name++) {
            expected(ctx, f->scratch, size, q, name);
            if (memcmp(f->scratch, got, size) == 0) {
                d->got_rank = q;
                d->got_name = name;
                d->kind = q != d->expected_rank ? FINDING_wrong_sender : FINDING_wrong_edge;
                return;
            }
        }
    }
}

/* What went wrong in a slot that does not hold the expected block. */
static struct finding diagnose(const struct run_context *ctx, struct findings *f, const char *got,
                               size_t size, int k)
{
    struct finding d = {.kind = FINDING_corrupt, .rank = ctx->rank, .slot = k,
                        .expected_rank = ctx->slot_senders[k], .expected_name = ctx->slot_names[k],
                        .got_rank = -1, .got_name = -1, .reps = 1};
    if (all_poison(got, size)) {
        d.kind = FINDING_missing;
        return d;
    }
    if (ctx->layout && layout_faces_overlap(ctx)) {
        search_faces(ctx, f, got, size, &d);
        return d;
    }
    if (size < HEADER)
        return d;
    int32_t header[2];
    memcpy(header, got, HEADER);
    if (header[0] < 0 || header[0] >= ctx->nprocs)
        return d;
    payload(f->scratch, size, header[0], header[1]);
    if (memcmp(f->scratch, got, size) != 0)
        return d;  /* not any process's block */
    d.got_rank = header[0];
    d.got_name = header[1];
    d.kind = header[0] != d.expected_rank ? FINDING_wrong_sender : FINDING_wrong_edge;
    return d;
}

void validation_check(struct run_context *ctx, struct findings *f)
{
    for (int k = 0; k < ctx->nrecv; k++) {
        size_t size = slot_size(ctx, k);
        if (ctx->slot_senders[k] == MPI_PROC_NULL || size == 0)
            continue;
        const char *got = ctx->recvbuf + ctx->recv_offsets[k];
        if (ctx->layout) {
            char *gathered = f->scratch + size + 1;
            layout_get_slot(ctx, k, gathered);
            got = gathered;
        }
        expected(ctx, f->scratch, size, ctx->slot_senders[k], ctx->slot_names[k]);
        if (memcmp(f->scratch, got, size) == 0)
            continue;
        if (f->slot_finding[k] >= 0) {
            f->items[f->slot_finding[k]].reps++;
            continue;
        }
        f->slot_finding[k] = findings_add(f, diagnose(ctx, f, got, size, k));
    }
    long written = ctx->layout ? layout_gap_written(ctx, POISON) : -1;
    if (written >= 0) {  /* got_name: the first byte written outside every received element */
        if (f->gap_finding >= 0)
            f->items[f->gap_finding].reps++;
        else
            f->gap_finding = findings_add(f, (struct finding){.kind = FINDING_gap, .rank = ctx->rank, .slot = -1,
                                                              .expected_rank = -1, .expected_name = -1,
                                                              .got_rank = -1, .got_name = (int)written,
                                                              .reps = 1});
    }
}

static int ascending(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* One finding per list at the first position where they differ. */
static void compare_list(const struct run_context *ctx, int kind, const int *want, const int *have,
                         int nwant, int nhave, int ordered, struct findings *f)
{
    struct finding d = {.kind = kind, .rank = ctx->rank, .expected_name = -1, .got_name = -1, .reps = 1};
    if (nwant != nhave) {
        d.slot = -1, d.expected_rank = nwant, d.got_rank = nhave;
        findings_add(f, d);
        return;
    }
    int *a = malloc(sizeof(int) * (size_t)(nwant + 1)), *b = malloc(sizeof(int) * (size_t)(nwant + 1));
    memcpy(a, want, sizeof(int) * (size_t)nwant);
    memcpy(b, have, sizeof(int) * (size_t)nwant);
    if (!ordered) {  /* the library may order these as it likes: compare as multisets */
        qsort(a, (size_t)nwant, sizeof(int), ascending);
        qsort(b, (size_t)nwant, sizeof(int), ascending);
    }
    for (int i = 0; i < nwant; i++) {
        if (a[i] != b[i]) {
            d.slot = i, d.expected_rank = a[i], d.got_rank = b[i];
            findings_add(f, d);
            break;
        }
    }
    free(a);
    free(b);
}

void validation_check_lists(const struct run_context *ctx, const struct neighbor_lists *computed,
                            int ordered, struct findings *f)
{
    const struct neighbor_lists *l = &ctx->lists;
    compare_list(ctx, FINDING_source_list, computed->sources, l->sources, computed->indegree,
                 l->indegree, ordered, f);
    compare_list(ctx, FINDING_destination_list, computed->destinations, l->destinations,
                 computed->outdegree, l->outdegree, ordered, f);
}

long findings_report(struct findings *f, MPI_Comm base, struct table *out, const struct experiment *e)
{
    long mine = f->count, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, base);
    if (total == 0)
        return 0;
    char *text = NULL;
    size_t size = 0;
    FILE *rows = open_memstream(&text, &size);
    for (int i = 0; i < f->count; i++) {
        const struct finding *d = &f->items[i];
        fprintf(rows, "%ld,%s,%s,%s,%d,%d,%d,%d,%d,%d,%ld\n", e->id, operation_table[e->op].name,
                topology_table[e->topology].name, finding_kind_names[d->kind], d->rank, d->slot,
                d->expected_rank, d->expected_name, d->got_rank, d->got_name, d->reps);
    }
    fclose(rows);
    gather_text(base, text, size, out);
    free(text);
    return total;
}

/* node_aware_alltoallv: the neighbor alltoallv written by hand as a
 * node-aware exchange (the idea of MPI Advance's locality-aware
 * neighborhood collectives, without its deduplication of vector entries):
 * the processes that share memory (MPI_Comm_split_type with
 * MPI_COMM_TYPE_SHARED on the topology communicator) form a node, and
 * between two nodes A and B one message carries every block from A to B.
 *
 *   an edge within a node        goes directly, as in p2p_alltoallv;
 *   an edge from node A to B     1. its sender packs it for the handler of
 *                                   (A, B) on A, one message per handler;
 *                                2. that handler sends one message to the
 *                                   handler of (B, A) on B: every block A
 *                                   has for B, ordered (receiver, sender,
 *                                   pairing name);
 *                                3. which forwards to each receiver on B
 *                                   one message with its blocks from the
 *                                   nodes it handles; the receiver unpacks
 *                                   them into its receive slots.
 *
 * The handler of node pair (A, B) on A is A's process of local rank
 * B mod size(A), so the pairs a node has are spread over its processes,
 * and both ends know each other's without asking. The plan (who packs and
 * forwards what, where) is made once per experiment, untimed, from the
 * neighbor lists and edge sizes: a sender tells its handlers its edges
 * off the node, a receiver its handlers its edges from other nodes (one
 * MPI_Alltoallv on the node each); the two handlers of a pair then know
 * the same edges, so they agree on the message's layout without talking.
 * On one node there is no pair of nodes: every edge goes directly and the
 * exchange is p2p_alltoallv's (the provenance's shared_memory_nodes says
 * how many nodes a run had).
 *
 * The receive slots end up exactly as neighbor_alltoallv fills them
 * (prepare_neighbor_alltoall's layout, the graph's counts on a graph), so
 * --validate checks every edge as for the library's collective. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_sentinels.h"
#include "setup.h"

enum { TAG_GATHER = 1, TAG_BETWEEN = 2, TAG_SCATTER = 3 };  /* gather and scatter on the node communicator */
enum base { SEND_BUFFER, RECV_BUFFER, STAGING };

struct place {
    enum base base;
    size_t offset;
};

struct copy {
    struct place from, to;
    size_t bytes;
};

struct message {
    struct place at;
    size_t bytes;
    int peer;  /* in the communicator of its step */
    int tag;
};

struct list {
    void *items;
    int n, capacity;
    size_t size;
};

/* One edge off the node, as a sender or a receiver tells its handler. */
struct edge {
    int node;         /* the node at the other end */
    int peer;         /* the process at the other end (rank in the topology communicator) */
    int name;         /* pairing name (pairing.h) */
    int owner;        /* the process telling (sender or receiver of the edge) */
    int index;        /* its block j or receive slot k */
    int handler;      /* local rank of the handler of the edge's node pair on this node */
    size_t bytes;
    struct place at;  /* handler: where the edge's block is when its step starts */
};

struct plan {
    MPI_Comm node;    /* the processes that share memory with this one */
    char *staging;
    size_t staged;
    struct list pack, place, forward, unpack;                    /* copies of steps 1..4 */
    struct list direct_send, direct_recv, gather_send, gather_recv, between_send, between_recv,
        scatter_send, scatter_recv;                              /* messages */
    MPI_Request *requests;
};

/* Where every process is: node numbers 0.. in the order of their lowest
 * rank, and each node's processes by local rank. */
struct node_map {
    int nnodes;
    int *node_of;     /* rank -> node */
    int *local_of;    /* rank -> local rank */
    int *start;       /* node -> first of its processes in `members` (nnodes + 1) */
    int *members;     /* by node, then local rank: ranks */
};

static void *grow(struct list *l)
{
    if (l->n == l->capacity) {
        l->capacity = l->capacity ? 2 * l->capacity : 8;
        l->items = realloc(l->items, l->size * (size_t)l->capacity);
    }
    return (char *)l->items + l->size * (size_t)l->n++;
}

static void add_copy(struct list *l, struct place from, struct place to, size_t bytes)
{
    *(struct copy *)grow(l) = (struct copy){from, to, bytes};
}

static void add_message(struct list *l, struct place at, size_t bytes, int peer, int tag)
{
    *(struct message *)grow(l) = (struct message){at, bytes, peer, tag};
}

static struct place staging(struct plan *plan, size_t bytes)
{
    struct place p = {STAGING, plan->staged};
    plan->staged += bytes;
    return p;
}

static void node_map_of(MPI_Comm comm, MPI_Comm node, struct node_map *L)
{
    int rank, p, local, lowest;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(node, &local);
    MPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, node);
    int mine[2] = {lowest, local}, *all = malloc(sizeof(int) * 2 * (size_t)p);
    MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
    int *number = malloc(sizeof(int) * (size_t)p);  /* a node's lowest rank -> its node number */
    L->nnodes = 0;
    for (int r = 0; r < p; r++)
        if (all[2 * r] == r)
            number[r] = L->nnodes++;
    L->node_of = malloc(sizeof(int) * (size_t)p);
    L->local_of = malloc(sizeof(int) * (size_t)p);
    L->start = calloc((size_t)L->nnodes + 1, sizeof(int));
    L->members = malloc(sizeof(int) * (size_t)p);
    for (int r = 0; r < p; r++) {
        L->node_of[r] = number[all[2 * r]];
        L->local_of[r] = all[2 * r + 1];
        L->start[L->node_of[r] + 1]++;
    }
    for (int n = 0; n < L->nnodes; n++)
        L->start[n + 1] += L->start[n];
    for (int r = 0; r < p; r++)
        L->members[L->start[L->node_of[r]] + L->local_of[r]] = r;
    free(number);
    free(all);
}

static void node_map_free(struct node_map *L)
{
    free(L->node_of);
    free(L->local_of);
    free(L->start);
    free(L->members);
}

/* The process of node `at` that handles its traffic with node `other`. */
static int handler(const struct node_map *L, int at, int other)
{
    int size = L->start[at + 1] - L->start[at];
    return L->members[L->start[at] + other % size];
}

/* Orders of the edges (qsort): each names the fields compared, in turn. */
#define COMPARE(field) \
    if (x->field != y->field) return (x->field > y->field) - (x->field < y->field);

static int by_handler_node_peer_name(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    COMPARE(handler) COMPARE(node) COMPARE(peer) COMPARE(name) return 0;
}

/* Out-edges at their handler: node B, then receiver, sender, name. */
static int by_node_peer_owner_name(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    COMPARE(node) COMPARE(peer) COMPARE(owner) COMPARE(name) return 0;
}

/* In-edges at their handler: node A, then receiver, sender, name (the
 * order the handler on A sent them in). */
static int by_node_owner_peer_name(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    COMPARE(node) COMPARE(owner) COMPARE(peer) COMPARE(name) return 0;
}

static int by_owner_node_peer_name(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    COMPARE(owner) COMPARE(node) COMPARE(peer) COMPARE(name) return 0;
}

#undef COMPARE

/* Sends each process of the node the edges it handles (`mine`, sorted by
 * handler); returns the edges this process handles, grouped by sender, with
 * their number in *n and each sender's count in counts[local rank]. */
static struct edge *tell_handlers(MPI_Comm node, const struct edge *mine, int nmine, int *n, int *counts)
{
    int size;
    MPI_Comm_size(node, &size);
    int *send_counts = calloc((size_t)size, sizeof(int)), *send_displs = calloc((size_t)size, sizeof(int));
    int *recv_bytes = calloc((size_t)size, sizeof(int)), *recv_displs = calloc((size_t)size, sizeof(int));
    for (int i = 0; i < nmine; i++)
        send_counts[mine[i].handler] += (int)sizeof(struct edge);
    MPI_Alltoall(send_counts, 1, MPI_INT, recv_bytes, 1, MPI_INT, node);
    int total = 0;
    for (int l = 0; l < size; l++) {
        send_displs[l] = l ? send_displs[l - 1] + send_counts[l - 1] : 0;
        recv_displs[l] = total;
        total += recv_bytes[l];
        counts[l] = recv_bytes[l] / (int)sizeof(struct edge);
    }
    struct edge *theirs = malloc((size_t)total + sizeof(struct edge));
    MPI_Alltoallv(mine, send_counts, send_displs, MPI_BYTE, theirs, recv_bytes, recv_displs, MPI_BYTE, node);
    *n = total / (int)sizeof(struct edge);
    free(send_counts);
    free(send_displs);
    free(recv_bytes);
    free(recv_displs);
    return theirs;
}

/* The bytes of the n edges from `edges` on. */
static size_t bytes_of(const struct edge *edges, int n)
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += edges[i].bytes;
    return total;
}

/* How many edges from edges[first] on have the same value as it in the
 * field the comparison `same` looks at. */
static int run_length(const struct edge *edges, int first, int n, int (*same)(const struct edge *, const struct edge *))
{
    int end = first + 1;
    while (end < n && same(&edges[first], &edges[end]))
        end++;
    return end - first;
}

static int same_handler(const struct edge *x, const struct edge *y) { return x->handler == y->handler; }
static int same_node(const struct edge *x, const struct edge *y) { return x->node == y->node; }
static int same_owner(const struct edge *x, const struct edge *y) { return x->owner == y->owner; }

/* Steps 1 and 4 of this process's own edges off the node: one message with
 * its blocks to each other handler (packed from the send buffer), one from
 * each (unpacked into the receive slots). Its edges that it handles itself
 * are taken from and put into its buffers by steps 2 and 3. */
static void own_edges(struct plan *plan, const struct run_context *c, int me_local, const struct edge *out, int nout,
                      const struct edge *in, int nin)
{
    for (int i = 0, n; i < nout; i += n) {
        n = run_length(out, i, nout, same_handler);
        if (out[i].handler == me_local)
            continue;
        struct place message = staging(plan, bytes_of(out + i, n)), to = message;
        for (int e = i; e < i + n; e++) {
            add_copy(&plan->pack, (struct place){SEND_BUFFER, c->send_offsets[out[e].index]}, to, out[e].bytes);
            to.offset += out[e].bytes;
        }
        add_message(&plan->gather_send, message, to.offset - message.offset, out[i].handler, TAG_GATHER);
    }
    for (int i = 0, n; i < nin; i += n) {
        n = run_length(in, i, nin, same_handler);
        if (in[i].handler == me_local)
            continue;
        struct place message = staging(plan, bytes_of(in + i, n)), from = message;
        for (int e = i; e < i + n; e++) {
            add_copy(&plan->unpack, from, (struct place){RECV_BUFFER, c->recv_offsets[in[e].index]}, in[e].bytes);
            from.offset += in[e].bytes;
        }
        add_message(&plan->scatter_recv, message, from.offset - message.offset, in[i].handler, TAG_SCATTER);
    }
}

/* Step 2 on the sending node: the edges this process handles, grouped by
 * sender (counts by local rank), arrive in step 1 (or are in its own send
 * buffer); one message per destination node, to that node's handler. */
static void send_between(struct plan *plan, const struct run_context *c, const struct node_map *L, int me_local,
                         struct edge *edges, int n, const int *counts)
{
    int size = L->start[L->node_of[c->rank] + 1] - L->start[L->node_of[c->rank]];
    for (int l = 0, i = 0; l < size; i += counts[l++]) {
        if (!counts[l])
            continue;
        struct place at = {STAGING, 0};
        if (l != me_local) {
            at = staging(plan, bytes_of(edges + i, counts[l]));
            add_message(&plan->gather_recv, at, bytes_of(edges + i, counts[l]), l, TAG_GATHER);
        }
        for (int e = i; e < i + counts[l]; e++) {
            if (l == me_local) {
                edges[e].at = (struct place){SEND_BUFFER, c->send_offsets[edges[e].index]};
            } else {
                edges[e].at = at;
                at.offset += edges[e].bytes;
            }
        }
    }
    qsort(edges, (size_t)n, sizeof(*edges), by_node_peer_owner_name);
    int here = L->node_of[c->rank];
    for (int i = 0, k; i < n; i += k) {
        k = run_length(edges, i, n, same_node);
        struct place message = staging(plan, bytes_of(edges + i, k)), to = message;
        for (int e = i; e < i + k; e++) {
            add_copy(&plan->place, edges[e].at, to, edges[e].bytes);
            to.offset += edges[e].bytes;
        }
        add_message(&plan->between_send, message, to.offset - message.offset, handler(L, edges[i].node, here),
                    TAG_BETWEEN);
    }
}

/* Step 2 on the receiving node and step 3: one message from each source
 * node this process handles, each receiver's blocks forwarded to it in one
 * message (or put into this process's own receive slots). */
static void receive_between(struct plan *plan, const struct run_context *c, const struct node_map *L,
                            struct edge *edges, int n)
{
    int here = L->node_of[c->rank];
    qsort(edges, (size_t)n, sizeof(*edges), by_node_owner_peer_name);
    for (int i = 0, k; i < n; i += k) {
        k = run_length(edges, i, n, same_node);
        struct place message = staging(plan, bytes_of(edges + i, k)), at = message;
        for (int e = i; e < i + k; e++) {
            edges[e].at = at;
            at.offset += edges[e].bytes;
        }
        add_message(&plan->between_recv, message, at.offset - message.offset, handler(L, edges[i].node, here),
                    TAG_BETWEEN);
    }
    qsort(edges, (size_t)n, sizeof(*edges), by_owner_node_peer_name);
    for (int i = 0, k; i < n; i += k) {
        k = run_length(edges, i, n, same_owner);
        int mine = edges[i].owner == c->rank;
        struct place message = mine ? (struct place){RECV_BUFFER, 0} : staging(plan, bytes_of(edges + i, k));
        struct place to = message;
        for (int e = i; e < i + k; e++) {
            if (mine)
                to.offset = c->recv_offsets[edges[e].index];
            add_copy(&plan->forward, edges[e].at, to, edges[e].bytes);
            if (!mine)
                to.offset += edges[e].bytes;
        }
        if (!mine)
            add_message(&plan->scatter_send, message, to.offset - message.offset, L->local_of[edges[i].owner],
                        TAG_SCATTER);
    }
}

/* A message is counted in bytes by an int: a node pair's, which sums many
 * edges, could pass it where every edge fits. Stops the run, saying so. */
static void too_large(const struct run_context *c, const struct list *l)
{
    const struct message *m = l->items;
    for (int i = 0; i < l->n; i++) {
        if (m[i].bytes > INT_MAX) {
            fprintf(stderr, "nbh-kernel: experiment %ld: node_aware_alltoallv would send %zu bytes in one "
                    "message, more than an MPI int counts (a smaller msize)\n", c->e->id, m[i].bytes);
            MPI_Abort(c->base, 2);
        }
    }
}

static void plan_build(struct plan *plan, const struct run_context *c)
{
    memset(plan, 0, sizeof(*plan));
    struct list *copies[] = {&plan->pack, &plan->place, &plan->forward, &plan->unpack};
    for (size_t i = 0; i < sizeof(copies) / sizeof(copies[0]); i++)
        copies[i]->size = sizeof(struct copy);
    struct list *messages[] = {&plan->direct_send, &plan->direct_recv, &plan->gather_send, &plan->gather_recv,
                               &plan->between_send, &plan->between_recv, &plan->scatter_send, &plan->scatter_recv};
    for (size_t i = 0; i < sizeof(messages) / sizeof(messages[0]); i++)
        messages[i]->size = sizeof(struct message);

    MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &plan->node);
    struct node_map L;
    node_map_of(c->comm, plan->node, &L);
    int here = L.node_of[c->rank], me_local = L.local_of[c->rank];
    const struct neighbor_lists *lists = &c->lists;
    struct edge *out = malloc(sizeof(struct edge) * (size_t)(lists->outdegree + 1));
    struct edge *in = malloc(sizeof(struct edge) * (size_t)(lists->indegree + 1));
    int nout = 0, nin = 0;
    for (int j = 0; j < lists->outdegree; j++) {
        int d = lists->destinations[j];
        size_t bytes = c->send_offsets[j + 1] - c->send_offsets[j];
        if (d == MPI_PROC_NULL)
            continue;
        if (L.node_of[d] == here)
            add_message(&plan->direct_send, (struct place){SEND_BUFFER, c->send_offsets[j]}, bytes, d, c->send_tags[j]);
        else
            out[nout++] = (struct edge){L.node_of[d], d, c->send_tags[j], c->rank, j,
                                        L.local_of[handler(&L, here, L.node_of[d])], bytes, {STAGING, 0}};
    }
    for (int k = 0; k < lists->indegree; k++) {
        int s = lists->sources[k];
        size_t bytes = c->recv_offsets[k + 1] - c->recv_offsets[k];
        if (s == MPI_PROC_NULL)
            continue;
        if (L.node_of[s] == here)
            add_message(&plan->direct_recv, (struct place){RECV_BUFFER, c->recv_offsets[k]}, bytes, s, c->recv_tags[k]);
        else
            in[nin++] = (struct edge){L.node_of[s], s, c->recv_tags[k], c->rank, k,
                                      L.local_of[handler(&L, here, L.node_of[s])], bytes, {STAGING, 0}};
    }
    qsort(out, (size_t)nout, sizeof(*out), by_handler_node_peer_name);
    qsort(in, (size_t)nin, sizeof(*in), by_handler_node_peer_name);
    own_edges(plan, c, me_local, out, nout, in, nin);

    int size = L.start[here + 1] - L.start[here];
    int *counts = malloc(sizeof(int) * (size_t)size), nsent, nreceived;
    struct edge *sent = tell_handlers(plan->node, out, nout, &nsent, counts);
    send_between(plan, c, &L, me_local, sent, nsent, counts);
    struct edge *received = tell_handlers(plan->node, in, nin, &nreceived, counts);
    receive_between(plan, c, &L, received, nreceived);

    plan->staging = malloc(plan->staged + 1);
    int nmessages = 0;
    for (size_t i = 0; i < sizeof(messages) / sizeof(messages[0]); i++) {
        nmessages += messages[i]->n;
        too_large(c, messages[i]);
    }
    plan->requests = malloc(sizeof(MPI_Request) * (size_t)(nmessages + 1));
    free(counts);
    free(sent);
    free(received);
    free(out);
    free(in);
    node_map_free(&L);
}

static char *where(const struct run_context *c, const struct plan *plan, struct place p)
{
    char *bases[] = {[SEND_BUFFER] = c->sendbuf, [RECV_BUFFER] = c->recvbuf, [STAGING] = plan->staging};
    return bases[p.base] + p.offset;
}

static void run_copies(const struct run_context *c, const struct plan *plan, const struct list *l)
{
    const struct copy *copies = l->items;
    for (int i = 0; i < l->n; i++)
        memcpy(where(c, plan, copies[i].to), where(c, plan, copies[i].from), copies[i].bytes);
}

/* Posts the messages of l (receives or sends) on comm into requests;
 * returns how many. */
static int post(const struct run_context *c, const struct plan *plan, const struct list *l, MPI_Comm comm,
                int receive, MPI_Request *requests)
{
    const struct message *m = l->items;
    for (int i = 0; i < l->n; i++) {
        char *at = where(c, plan, m[i].at);
        if (receive)
            MPI_Irecv(at, (int)m[i].bytes, MPI_BYTE, m[i].peer, m[i].tag, comm, &requests[i]);
        else
            MPI_Isend(at, (int)m[i].bytes, MPI_BYTE, m[i].peer, m[i].tag, comm, &requests[i]);
    }
    return l->n;
}

static void node_aware_alltoallv(struct run_context *c)
{
    const struct plan *p = c->setup_state;
    MPI_Request *r = p->requests;
    int n = post(c, p, &p->direct_recv, c->comm, 1, r);
    int gather = n;
    n += post(c, p, &p->gather_recv, p->node, 1, r + n);
    int between = n;
    n += post(c, p, &p->between_recv, c->comm, 1, r + n);
    int scatter = n;
    n += post(c, p, &p->scatter_recv, p->node, 1, r + n);
    run_copies(c, p, &p->pack);
    n += post(c, p, &p->gather_send, p->node, 0, r + n);
    n += post(c, p, &p->direct_send, c->comm, 0, r + n);
    MPI_Waitall(p->gather_recv.n, r + gather, MPI_STATUSES_IGNORE);
    run_copies(c, p, &p->place);
    n += post(c, p, &p->between_send, c->comm, 0, r + n);
    MPI_Waitall(p->between_recv.n, r + between, MPI_STATUSES_IGNORE);
    run_copies(c, p, &p->forward);
    n += post(c, p, &p->scatter_send, p->node, 0, r + n);
    MPI_Waitall(p->scatter_recv.n, r + scatter, MPI_STATUSES_IGNORE);
    run_copies(c, p, &p->unpack);
    MPI_Waitall(n, r, MPI_STATUSES_IGNORE);  /* the direct edges and the sends; the rest are done */
}

static void prepare(struct run_context *c)
{
    prepare_neighbor_alltoall(c);
    struct plan *plan = malloc(sizeof(*plan));
    plan_build(plan, c);
    c->setup_state = plan;
}

static void release(struct run_context *c)
{
    struct plan *plan = c->setup_state;
    struct list *lists[] = {&plan->pack, &plan->place, &plan->forward, &plan->unpack, &plan->direct_send,
                            &plan->direct_recv, &plan->gather_send, &plan->gather_recv, &plan->between_send,
                            &plan->between_recv, &plan->scatter_send, &plan->scatter_recv};
    for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
        free(lists[i]->items);
    MPI_Comm_free(&plan->node);
    free(plan->staging);
    free(plan->requests);
    free(plan);
    c->setup_state = NULL;
    buffers_release(c);
}

const struct setup setup_node_aware_alltoallv = {prepare, node_aware_alltoallv, NULL, NULL, release};

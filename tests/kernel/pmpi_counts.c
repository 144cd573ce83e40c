/* libnbh-counts.so: a PMPI tool that records the bytes every neighborhood
 * collective and every MPI_Isend/MPI_Irecv moves on each edge, so a test
 * can check what the kernel really asks the library to move (the graph's
 * per-edge counts), not only that the data check agrees with itself.
 * Loaded with LD_PRELOAD; NBH_COUNTS_LOG=PATH makes each process append
 * lines "call,direction,neighbor,value" to PATH.<rank in MPI_COMM_WORLD>,
 * neighbor in ranks of MPI_COMM_WORLD; direction send or recv (value: the
 * bytes), or out_weight or in_weight (value: the edge weight the library
 * reports for a weighted graph); and a line "MPI_Pack,pack,-1,bytes" per
 * MPI_Pack call (what packing mpi_pack packs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *log_file(void)
{
    static FILE *f;
    static int tried;
    if (!tried) {
        tried = 1;
        const char *path = getenv("NBH_COUNTS_LOG");
        int rank;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (path) {
            char name[4096];
            snprintf(name, sizeof(name), "%s.%d", path, rank);
            f = fopen(name, "a");
        }
    }
    return f;
}

static int world_rank(MPI_Comm comm, int rank)
{
    MPI_Group from, world;
    int out;
    PMPI_Comm_group(comm, &from);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(from, 1, &rank, world, &out);
    PMPI_Group_free(&from);
    PMPI_Group_free(&world);
    return out;
}

static long bytes(int count, MPI_Datatype type)
{
    int size;
    PMPI_Type_size(type, &size);
    return (long)count * size;
}

/* counts == NULL: `count` on every edge; types == NULL: `type` on every edge. */
static void record(const char *call, MPI_Comm comm, int count, const int *sendcounts, MPI_Datatype type,
                   const MPI_Datatype *sendtypes, int recvcount, const int *recvcounts,
                   MPI_Datatype recvtype, const MPI_Datatype *recvtypes)
{
    FILE *f = log_file();
    int kind;
    PMPI_Topo_test(comm, &kind);
    if (!f || kind != MPI_DIST_GRAPH)
        return;
    int indegree, outdegree, weighted;
    PMPI_Dist_graph_neighbors_count(comm, &indegree, &outdegree, &weighted);
    int *sources = malloc(sizeof(int) * (size_t)(indegree + 1));
    int *destinations = malloc(sizeof(int) * (size_t)(outdegree + 1));
    int *in_weights = malloc(sizeof(int) * (size_t)(indegree + 1));
    int *out_weights = malloc(sizeof(int) * (size_t)(outdegree + 1));
    PMPI_Dist_graph_neighbors(comm, indegree, sources, weighted ? in_weights : MPI_UNWEIGHTED, outdegree,
                              destinations, weighted ? out_weights : MPI_UNWEIGHTED);
    for (int j = 0; j < outdegree && weighted; j++)
        fprintf(f, "%s,out_weight,%d,%d\n", call, world_rank(comm, destinations[j]), out_weights[j]);
    for (int k = 0; k < indegree && weighted; k++)
        fprintf(f, "%s,in_weight,%d,%d\n", call, world_rank(comm, sources[k]), in_weights[k]);
    for (int j = 0; j < outdegree; j++)
        fprintf(f, "%s,send,%d,%ld\n", call, world_rank(comm, destinations[j]),
                bytes(sendcounts ? sendcounts[j] : count, sendtypes ? sendtypes[j] : type));
    for (int k = 0; k < indegree; k++)
        fprintf(f, "%s,recv,%d,%ld\n", call, world_rank(comm, sources[k]),
                bytes(recvcounts ? recvcounts[k] : recvcount, recvtypes ? recvtypes[k] : recvtype));
    fflush(f);
    free(sources);
    free(destinations);
    free(in_weights);
    free(out_weights);
}

int MPI_Neighbor_allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                           MPI_Comm comm)
{
    record("neighbor_allgather", comm, sc, NULL, st, NULL, rc, NULL, rt, NULL);
    return PMPI_Neighbor_allgather(sb, sc, st, rb, rc, rt, comm);
}

int MPI_Neighbor_allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[],
                            const int rd[], MPI_Datatype rt, MPI_Comm comm)
{
    record("neighbor_allgatherv", comm, sc, NULL, st, NULL, 0, rcs, rt, NULL);
    return PMPI_Neighbor_allgatherv(sb, sc, st, rb, rcs, rd, rt, comm);
}

int MPI_Neighbor_alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                          MPI_Comm comm)
{
    record("neighbor_alltoall", comm, sc, NULL, st, NULL, rc, NULL, rt, NULL);
    return PMPI_Neighbor_alltoall(sb, sc, st, rb, rc, rt, comm);
}

int MPI_Neighbor_alltoallv(const void *sb, const int scs[], const int sd[], MPI_Datatype st, void *rb,
                           const int rcs[], const int rd[], MPI_Datatype rt, MPI_Comm comm)
{
    record("neighbor_alltoallv", comm, 0, scs, st, NULL, 0, rcs, rt, NULL);
    return PMPI_Neighbor_alltoallv(sb, scs, sd, st, rb, rcs, rd, rt, comm);
}

int MPI_Neighbor_alltoallw(const void *sb, const int scs[], const MPI_Aint sd[], const MPI_Datatype sts[],
                           void *rb, const int rcs[], const MPI_Aint rd[], const MPI_Datatype rts[],
                           MPI_Comm comm)
{
    record("neighbor_alltoallw", comm, 0, scs, MPI_BYTE, sts, 0, rcs, MPI_BYTE, rts);
    return PMPI_Neighbor_alltoallw(sb, scs, sd, sts, rb, rcs, rd, rts, comm);
}

int MPI_Ineighbor_allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                            MPI_Comm comm, MPI_Request *req)
{
    record("ineighbor_allgather", comm, sc, NULL, st, NULL, rc, NULL, rt, NULL);
    return PMPI_Ineighbor_allgather(sb, sc, st, rb, rc, rt, comm, req);
}

int MPI_Ineighbor_allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[],
                             const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    record("ineighbor_allgatherv", comm, sc, NULL, st, NULL, 0, rcs, rt, NULL);
    return PMPI_Ineighbor_allgatherv(sb, sc, st, rb, rcs, rd, rt, comm, req);
}

int MPI_Ineighbor_alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                           MPI_Comm comm, MPI_Request *req)
{
    record("ineighbor_alltoall", comm, sc, NULL, st, NULL, rc, NULL, rt, NULL);
    return PMPI_Ineighbor_alltoall(sb, sc, st, rb, rc, rt, comm, req);
}

int MPI_Ineighbor_alltoallv(const void *sb, const int scs[], const int sd[], MPI_Datatype st, void *rb,
                            const int rcs[], const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    record("ineighbor_alltoallv", comm, 0, scs, st, NULL, 0, rcs, rt, NULL);
    return PMPI_Ineighbor_alltoallv(sb, scs, sd, st, rb, rcs, rd, rt, comm, req);
}

int MPI_Ineighbor_alltoallw(const void *sb, const int scs[], const MPI_Aint sd[], const MPI_Datatype sts[],
                            void *rb, const int rcs[], const MPI_Aint rd[], const MPI_Datatype rts[],
                            MPI_Comm comm, MPI_Request *req)
{
    record("ineighbor_alltoallw", comm, 0, scs, MPI_BYTE, sts, 0, rcs, MPI_BYTE, rts);
    return PMPI_Ineighbor_alltoallw(sb, scs, sd, sts, rb, rcs, rd, rts, comm, req);
}

/* The hand-written baselines: one line per message. */
int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    FILE *f = log_file();
    if (f)
        fprintf(f, "isend,send,%d,%ld\n", world_rank(comm, dest), bytes(count, type)), fflush(f);
    return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    FILE *f = log_file();
    if (f)
        fprintf(f, "irecv,recv,%d,%ld\n", world_rank(comm, source), bytes(count, type)), fflush(f);
    return PMPI_Irecv(buf, count, type, source, tag, comm, req);
}

int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position,
             MPI_Comm comm)
{
    FILE *f = log_file();
    if (f)
        fprintf(f, "MPI_Pack,pack,-1,%ld\n", bytes(incount, datatype));
    return PMPI_Pack(inbuf, incount, datatype, outbuf, outsize, position, comm);
}

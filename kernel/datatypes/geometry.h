/* Where a layout's elements lie (docs/datatypes.md), without MPI: the block
 * of the static layouts (the studies' Table 2), the faces of the halo and
 * the blocks of the transpose, all as boxes of runs in bytes; the bytes a
 * process's buffers need; and the input rules of the layout parameters. */
#ifndef NBH_GEOMETRY_H
#define NBH_GEOMETRY_H

#include <stddef.h>

#include "experiment.h"

#define NBH_MAX_UNITS 4

/* Runs of bytes in type-map order: for every index tuple of the levels,
 * outermost first, each unit at offset + sum(i_k * stride[k]) + unit_offset. */
struct run_box {
    size_t offset;
    int nlevels;
    long count[NBH_MAX_NDIM];
    size_t stride[NBH_MAX_NDIM];
    int nunits;
    size_t unit_offset[NBH_MAX_UNITS], unit_length[NBH_MAX_UNITS];
};

/* One block of a static layout, in elements (tiled_hetero: bytes): k
 * elements in nunits units, extent E. */
struct block_pattern {
    int nunits;
    long offset[NBH_MAX_UNITS], length[NBH_MAX_UNITS];
    long extent;
    long elements;
};

/* A layout made concrete for one experiment on one process count. */
struct layout_geometry {
    struct layout_params params;
    int is_static;           /* contiguous, tiled, block, bucket, alternating, tiled_hetero */
    size_t element;          /* bytes of an element of the pattern (tiled_hetero: 1) */
    size_t data_bytes;       /* bytes of data a block carries: msize */
    struct block_pattern pattern;  /* static */
    long blocks;             /* static: c = n / k blocks of the pattern per neighbor */
    size_t neighbor_extent;  /* static: c * E * element; transpose: b * element */
    int ndim;                /* halo */
    long n;                  /* halo: N; transpose: the matrix order */
    long rows;               /* transpose: b = n / p */
};

int layout_is_static(enum layout l);
/* The block of a static layout from its parameters (unchecked). */
void layout_pattern(const struct layout_params *l, struct block_pattern *p);
/* msize of a layout that derives it (halo, transpose), else -1. */
long layout_derived_msize(const struct experiment *e, int nprocs);
/* The geometry of experiment e (checked by layout_problem) on nprocs. */
void geometry_make(const struct experiment *e, int nprocs, struct layout_geometry *g);
/* The runs of send block j and of receive slot k in a process's buffers. */
void geometry_send_box(const struct layout_geometry *g, int j, struct run_box *b);
void geometry_recv_box(const struct layout_geometry *g, int k, struct run_box *b);
/* Bytes of a buffer holding nblocks blocks (halo, transpose: the array). */
size_t geometry_buffer_bytes(const struct layout_geometry *g, int nblocks);
/* Bytes of data in a box, and its runs one by one. */
size_t box_bytes(const struct run_box *b);
void box_for_each(const struct run_box *b, void (*run)(size_t offset, size_t length, void *arg), void *arg);

/* NULL if experiment e's layout parameters can run on nprocs processes;
 * else the column at fault, with the reason in why. */
const char *layout_problem(const struct experiment *e, int nprocs, char *why, size_t size);
/* NULL if the int displacements of e's operation can hold its blocks'
 * places for the given degree on nprocs processes (MPI_Alltoallw's in
 * bytes, the v variants' in elements of their type), else the column at
 * fault (msize, or the parameter a derived msize comes from) with the
 * reason in why. */
const char *displacement_problem(const struct experiment *e, long degree, int nprocs, char *why, size_t size);
/* Blocks of msize bytes the description check (description_check.c) packs
 * into before the repetitions: the description's, the normal one's and
 * the geometry's. */
#define LAYOUT_CHECK_BLOCKS 3
/* Bytes of buffers a process needs for e with the given degree (send plus
 * receive, the packed copies where the packing is not the library's, and
 * the description check's LAYOUT_CHECK_BLOCKS blocks). */
double layout_buffer_bytes(const struct experiment *e, long degree, int nprocs);

#endif

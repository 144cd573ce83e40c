"""guidelines-all: experiments for the study's guidelines GL1-GL12 and P2P (GL13-GL16: progress).

GL1-GL3   create: Cart_create against the same neighborhood as a graph;
          Dist_graph_create_adjacent against Dist_graph_create; reorder 0 against 1
GL4-GL6   the neighborhood collectives against each other (blocking and nonblocking)
GL7, GL8  global against neighborhood collectives on Full
GL9       Cartesian against von Neumann radius 1
GL10      Dist_graph_create_adjacent against Dist_graph_create communicators
GL11      FMAJ, LMAJ, LINEAR against RAND order
GL12      reorder 1 against 0
P2P       neighborhood collectives against the hand-written Isend/Irecv exchange
"""
from gen.design import cross, levels, operations, union

grids = levels(ndim=[2, 3], nfin=lambda ndim: {0, ndim})       # for every ndim, nfin in {0, ndim}
graph_constructors = ["dist_graph_adjacent", "dist_graph"]
msizes = levels(msize=[64, 1024, 16384])
exchanges = operations(family="neighbor", persistent=0) + operations(family="p2p")  # GL13-GL16: progress

creation = cross(                                               # GL1, GL2, GL3
    levels(op="create"),
    union(
        cross(levels(topology="cart"), grids),
        cross(levels(topology=["vneum", "moore"], radius=1, constructor=graph_constructors,
                     order="FMAJ"), grids),
        levels(topology="full", constructor=graph_constructors, order="LINEAR"),
    ),
    levels(reorder=[0, 1]),
)

on_grids = cross(                                               # GL4-GL6, GL9-GL12, P2P
    levels(op=exchanges),
    union(
        levels(topology="cart"),                                # Cartesian has no order
        levels(topology="vneum", radius=1, constructor=graph_constructors,
               order=["FMAJ", "LMAJ", "RAND"]),
        levels(topology="moore", radius=1, constructor="dist_graph_adjacent", order=["FMAJ", "RAND"]),
    ),
    grids,
    levels(reorder=[0, 1]),
    msizes,
)

on_full = cross(                                                # GL7, GL8 (and GL4-GL6, GL10-GL12 on Full)
    union(
        levels(op=exchanges, constructor=graph_constructors, order=["LINEAR", "RAND"]),
        levels(op=operations(family="global", pattern=["allgather", "alltoall"]), constructor="dist_graph_adjacent", order="LINEAR"),
    ),
    levels(topology="full"),
    levels(reorder=[0, 1]),
    msizes,
)

EXPERIMENTS = union(creation, on_grids, on_full)

"""Process graphs from applications (topology `graph`, docs/campaigns.md "Graphs").

A campaign names a graph by a spec (spec.py), e.g. "stencil3d n=20 points=27".
Generate turns it, for every process count p of the campaign, into one
graph file (contract: `source,dest,count`, docs/kernel.md) and its
description (describe.py):

    spec.py            the spec's syntax: source kind, arguments, partition
    matrix.py          a sparse pattern (rows, nonzeros) as numpy arrays, and its rows' points
    matrix_market.py   reads .mtx (coordinate; pattern/integer/real; general/symmetric)
    edge_list.py       reads a process-level edge list (source,dest,bytes)
    generators.py      stencils (2-D 5-point, 3-D 7/27-point), random geometric graphs, with coordinates
    partition.py       METIS k-way (pymetis) with a recorded seed, recursive coordinate
                       bisection of the rows' points (geometric), or a partition file
    halo.py            the SpMV halo of a partitioned matrix: who sends how many entries to whom
    describe.py        rows, nonzeros, edges, degree, volume, edge cut of one graph file
    files.py           every graph file of a workspace, written whole
"""

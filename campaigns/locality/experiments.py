"""locality: the halo exchange of application graphs on several nodes,
four ways (docs/campaigns.md "The shipped campaigns"):
  neighbor_alltoallv        the library's neighborhood collective
  neighbor_alltoallv_init   its persistent form (MPI-4: _init once, then Start + Wait)
  p2p_alltoallv             Isend/Irecv/Waitall over the same lists and counts
  node_aware_alltoallv      by hand, node-aware: edges within a node directly, one
                            message per node pair between the nodes (docs/kernel.md)
against:
  LA    neighbor_alltoallv (and _init) <= node_aware_alltoallv
  P2P   neighbor_alltoallv <= p2p_alltoallv
  GL14  neighbor_alltoallv_init <= neighbor_alltoallv
and the same LA on each run's 99th percentile (statistic = p99); the
report adds the persistent break-even and the tail latencies.

The graphs: app-graphs' four, and three of the size of the SuiteSparse
matrices node-aware SpMV is studied on, made by the built-in generators
(no download): a 1000 x 1000 5-point grid (the size and structure of
ecology2: 999 999 rows, 5-point), a random geometric graph of 2^17 points
with the radius of DIMACS10's rgg_n_2_17_s0 (0.55 sqrt(ln n / n)), and a
64^3 27-point stencil (262 144 rows, 7 M nonzeros: a hexahedral
finite-element matrix). msize: bytes per vector entry, 8 (doubles) and 64
(eight right-hand sides)."""
from gen.design import cross, levels

APP_GRAPHS = [
    "stencil3d n=24",                         # 13824 rows, 7 points
    "stencil3d n=16 points=27",               # 4096 rows, 27 points
    "rgg n=8000 radius=0.08 dim=3",           # 8000 points in the unit cube
    "mtx file=lshape-p1.mtx",                 # 1281 rows, a user's matrix (app-graphs' file, copied)
]
SUITESPARSE_SIZED = [
    "stencil2d n=1000",                       # ecology2's size and structure
    "rgg n=131072 radius=0.0052 dim=2",       # rgg_n_2_17_s0's size
    "stencil3d n=64 points=27",               # 262144 rows, 27 points
]

EXPERIMENTS = cross(
    levels(topology="graph", graph=APP_GRAPHS + SUITESPARSE_SIZED),
    levels(op=["neighbor_alltoallv", "neighbor_alltoallv_init", "p2p_alltoallv", "node_aware_alltoallv"]),
    levels(msize=[8, 64]),
)

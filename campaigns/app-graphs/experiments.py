"""app-graphs: the halo exchange of four application graphs (graph specs:
docs/campaigns.md "Graphs"), with the true per-neighbor counts (the v and
w variants and the hand-written p2p_alltoallv), against:
  GL6   neighbor_alltoallv <= neighbor_alltoallw (the same counts)
  P2P   neighbor_alltoallv <= p2p_alltoallv
  GL10  constructor dist_graph_adjacent ~ dist_graph
  GL11  order GIVEN (the partitioner's) ~ RAND, GIVEN ~ HEAVY (heaviest first)
  GL12  reorder=1 <= reorder=0, without and with the counts as edge weights
msize is bytes per vector entry: 8 (doubles) and 64 (eight right-hand sides)."""
from gen.design import cross, levels, union

GRAPHS = [
    "stencil3d n=24",                         # 13824 rows, 7 points
    "stencil3d n=16 points=27",               # 4096 rows, 27 points
    "rgg n=8000 radius=0.08 dim=3 seed=1",    # 8000 points in the unit cube
    "mtx file=lshape-p1.mtx",                 # 1281 rows, a user's matrix
]

exchanges = union(
    levels(op=["neighbor_alltoallv", "neighbor_alltoallw", "p2p_alltoallv"]),   # GL6, P2P
    levels(op="neighbor_alltoallv", constructor="dist_graph"),                  # GL10
    levels(op="neighbor_alltoallv", order=["RAND", "HEAVY"]),                   # GL11
    union(levels(op="neighbor_alltoallv", reorder=1, weights=[0, 1]),           # GL12
          levels(op="neighbor_alltoallv", reorder=0, weights=1)),
)

EXPERIMENTS = cross(levels(topology="graph", graph=GRAPHS), exchanges, levels(msize=[8, 64]))

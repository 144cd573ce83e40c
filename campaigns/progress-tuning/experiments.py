"""progress-tuning: alltoall and allgather in their three forms (blocking,
nonblocking, persistent), with busy work 0, 1 and 2 times the exchange, on
Moore radius 1 (2-D torus) and Full, at 4 KiB, 64 KiB and 1 MiB per
neighbor: where progress matters."""
from gen.design import cross, levels, union

forms = [f"{form}_{x}" for x in ("alltoall", "allgather") for form in ("neighbor", "ineighbor")] + \
        [f"neighbor_{x}_init" for x in ("alltoall", "allgather")]

EXPERIMENTS = cross(
    levels(op=forms),
    union(
        levels(topology="moore", radius=1, ndim=2, nfin=0, constructor="dist_graph_adjacent", order="FMAJ"),
        levels(topology="full", constructor="dist_graph_adjacent", order="LINEAR"),
    ),
    levels(work_factor=[0, 1, 2]),
    levels(msize=[4096, 65536, 1 << 20]),
)

"""Figures for bench/bench-progress (see there)."""
import sys
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests" / "kernel"))
from kernel_figures import run  # noqa: E402
from kernel_runner import BUILD, LIBRARIES, input_text  # noqa: E402

FORMS = {"blocking": "neighbor_{}", "nonblocking": "ineighbor_{}", "persistent": "neighbor_{}_init"}
SIZES = [8, 1024, 65536]
WORK_US = [10, 100, 1000]


def kernel_run(library, nprocs, experiments, prefix):
    path = Path(f"{prefix}.input.csv")
    path.write_text(input_text(experiments))
    run(library, nprocs, [str(BUILD / library / "nbh-kernel"), "-i", str(path), "-o", str(prefix)])
    results = pd.read_csv(f"{prefix}.results.csv")
    preparation = pd.read_csv(f"{prefix}.preparation.csv") if Path(f"{prefix}.preparation.csv").exists() \
        else pd.DataFrame(columns=["id", "init_seconds", "work_us"])
    return results, preparation


def overhead(library, nprocs, directory):
    """Median per call (slowest process) of each form, on a 2-D torus."""
    experiments, key = [], {}
    for collective in ("alltoall", "allgather"):
        for form, name in FORMS.items():
            for msize in SIZES:
                key[len(experiments)] = (collective, form, msize)
                experiments.append(dict(id=len(experiments), op=name.format(collective), topology="cart", ndim=2,
                                        nfin=0, reorder=0, msize=msize, nrep=300, seed=1))
    results, preparation = kernel_run(library, nprocs, experiments, directory / f"overhead-{library}-{nprocs}")
    medians = results.groupby("id")["seconds"].median() * 1e6
    init = preparation.set_index("id")["init_seconds"] * 1e6
    rows = []
    for i, (collective, form, msize) in key.items():
        rows.append(dict(collective=collective, form=form, msize=msize, us=medians[i], init_us=init.get(i)))
    return pd.DataFrame(rows)


def drift(library, nprocs, directory):
    """Busy work as measured against nominal: work_us levels and work_factor 1."""
    experiments = [dict(id=i, op="ineighbor_alltoall", topology="cart", ndim=1, nfin=0, reorder=0, msize=8,
                        nrep=100, work_us=w, seed=1) for i, w in enumerate(WORK_US)]
    experiments.append(dict(id=len(WORK_US), op="ineighbor_alltoall", topology="cart", ndim=1, nfin=0, reorder=0,
                            msize=65536, nrep=100, work_factor=1, seed=1))
    results, preparation = kernel_run(library, nprocs, experiments, directory / f"drift-{library}-{nprocs}")
    nominal = {i: w for i, w in enumerate(WORK_US)}
    nominal.update(preparation.set_index("id")["work_us"].to_dict())
    rows = []
    for i, group in results.groupby("id"):
        measured = group["work_seconds"] * 1e6
        label = f"work_us {WORK_US[i]}" if i < len(WORK_US) else "work_factor 1"
        rows.append(dict(work=label, nominal_us=nominal[i], median_ratio=measured.median() / nominal[i],
                         p90_ratio=measured.quantile(0.9) / nominal[i]))
    return pd.DataFrame(rows)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        print("persistent neighborhood collectives: median per call in us (slowest process, 300 repetitions,\n"
              "2-D torus, no work); ratio: against the blocking call; init: the _init call, once")
        print(f"{'library':8} {'procs':>5} {'collective':10} {'msize':>6} {'blocking':>9} {'nonblock':>9} "
              f"{'persist':>9} {'nb/bl':>6} {'pe/bl':>6} {'init_us':>8}")
        for library in LIBRARIES:
            for nprocs in (2, 4):
                table = overhead(library, nprocs, directory)
                for (collective, msize), group in table.groupby(["collective", "msize"], sort=False):
                    us = group.set_index("form")["us"]
                    init = group.set_index("form")["init_us"]["persistent"]
                    print(f"{library:8} {nprocs:5d} {collective:10} {msize:6d} {us['blocking']:9.2f} "
                          f"{us['nonblocking']:9.2f} {us['persistent']:9.2f} "
                          f"{us['nonblocking'] / us['blocking']:6.2f} {us['persistent'] / us['blocking']:6.2f} "
                          f"{init:8.1f}")
        print("\nbusy work as measured against nominal (calibrated countdown): median and 90th percentile of\n"
              "measured / nominal over 100 repetitions (slowest process); 4 processes share 2 cores")
        print(f"{'library':8} {'procs':>5} {'work':14} {'nominal_us':>10} {'median':>7} {'p90':>7}")
        for library in LIBRARIES:
            for nprocs in (1, 2, 4):
                for row in drift(library, nprocs, directory).itertuples():
                    print(f"{library:8} {nprocs:5d} {row.work:14} {row.nominal_us:10.1f} "
                          f"{row.median_ratio:7.3f} {row.p90_ratio:7.3f}")


if __name__ == "__main__":
    main()

"""Interleaved rounds (SPEC 7.6, kernel/rounds.c): a run measures its
experiments in rounds, round 1 in the input's order and every later one in
a new order drawn from the run's seed; each experiment gets its share of
nrep in each of its rounds, after its warm-up repetitions, which go to
PREFIX.warmup.csv. A/A twins draw their original's seeds."""
import subprocess

import pandas as pd

from kernel_runner import BUILD, input_text, launch_command


def experiment(id_, op="neighbor_alltoall", **values):
    e = dict(id=id_, op=op, topology="cart", ndim=2, nfin=0, reorder=0, msize=64, nrep=3, seed=5)
    if values.get("topology") == "moore":
        e.update(radius=1)
    e.update(values)
    return e


def rounds_of(results):
    """Per round, the order in which its experiments ran (as the rows are written)."""
    order = {}
    for ident, round_number in zip(results["id"], results["round"]):
        ids = order.setdefault(round_number, [])
        if not ids or ids[-1] != ident:
            ids.append(ident)
    return order


def test_rounds_split_nrep_and_run_in_new_orders(kernel, library):
    rows = [experiment(i, nrep=10, blocks=3, warmup=2, seed=42) for i in (5, 1, 9, 3)]
    rows.append(experiment(7, nrep=4, blocks=1, warmup=0, seed=42))
    run = kernel(library, 4, rows)
    assert run.returncode == 0, run.stderr
    results = run.results
    order = rounds_of(results)
    assert order[1] == [5, 1, 9, 3, 7], "round 1 in the input's order"
    assert sorted(order[2]) == sorted(order[3]) == [1, 3, 5, 9], "later rounds hold the experiments with blocks > 1"
    assert order[2] != order[1][:4] or order[3] != order[1][:4], "a new order in later rounds"
    for ident in (1, 3, 5, 9):
        mine = results[results["id"] == ident]
        assert mine.groupby("round").size().to_dict() == {1: 4, 2: 3, 3: 3}, "nrep 10 in 3 rounds: 4, 3, 3"
        assert list(mine.sort_values("rep")["round"]) == [1] * 4 + [2] * 3 + [3] * 3
        assert sorted(mine["rep"]) == list(range(10))
    assert results[results["id"] == 7]["round"].tolist() == [1] * 4
    warmup = run.table("warmup.csv")
    assert list(warmup.columns) == ["id", "round", "rep", "seconds", "work_seconds"]
    counts = warmup.groupby(["id", "round"]).size()
    assert set(counts.index) == {(i, r) for i in (1, 3, 5, 9) for r in (1, 2, 3)}
    assert set(counts) == {2}, "two warm-up repetitions before each round's timed ones"
    assert (warmup["seconds"] > 0).all()

    again = kernel(library, 4, rows)
    assert rounds_of(again.results) == order, "the orders come from the run's seed"
    other = kernel(library, 4, [dict(r, seed=43) for r in rows])
    assert rounds_of(other.results)[1] == order[1]
    assert [rounds_of(other.results)[r] for r in (2, 3)] != [order[2], order[3]], "another seed, other orders"


def test_a_twin_draws_its_originals_seeds(kernel, library):
    rows = [experiment(1, topology="moore", order="RAND", nrep=4, seed=9),
            experiment(2, topology="moore", order="RAND", nrep=4, seed=9, twin=1, twin_of=1),
            experiment(3, topology="moore", order="RAND", nrep=4, seed=9)]
    run = kernel(library, 4, rows, "--dump-lists")
    assert run.returncode == 0, run.stderr
    seeds = run.table("seeds.csv")
    by_id = {i: list(seeds[seeds["id"] == i]["seed"]) for i in (1, 2, 3)}
    assert by_id[2] == by_id[1] and by_id[3] != by_id[1]
    lists = run.table("lists.csv")
    computed = lists[lists["list"] == "computed_destinations"]
    of = {i: computed[computed["id"] == i][["rank", "position", "neighbor"]].values.tolist() for i in (1, 2, 3)}
    assert of[2] == of[1], "the twin's RAND lists are its original's"
    assert of[3] != of[1]


def test_preparation_rows_per_round_say_how_many_repetitions_were_kept(kernel, library):
    rows = [experiment(1, op="neighbor_alltoall_init", nrep=6, blocks=2, seed=3)]
    run = kernel(library, 2, rows)
    assert run.returncode == 0, run.stderr
    prep = run.table("preparation.csv")
    assert list(prep.columns[:3]) == ["id", "round", "op"] and "reps" in prep.columns
    assert prep[["id", "round", "reps"]].values.tolist() == [[1, 1, 3], [1, 2, 3]]
    assert (pd.to_numeric(prep["init_seconds"]) > 0).all(), "each round builds its persistent request anew"


def test_every_round_is_synced_to_disk(library, tmp_path):
    """After each round the kernel fsyncs its tables: a node that dies keeps
    every round before (strace counts the fsync calls on the results file)."""
    source = tmp_path / "in.csv"
    source.write_text(input_text([experiment(i, nrep=6, blocks=3, seed=2) for i in (1, 2)]))
    prefix = tmp_path / "out"
    command, env = launch_command(library, 2, [str(BUILD / library / "nbh-kernel"), "-i", str(source),
                                                "-o", str(prefix)])
    trace = tmp_path / "trace"
    done = subprocess.run(["strace", "-f", "-e", "trace=openat,fsync,fdatasync", "-o", str(trace), *command],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = trace.read_text().splitlines()
    opened = [line for line in lines if "out.results.csv" in line and "openat(" in line and "= " in line]
    [(pid, fd)] = {(line.split()[0], line.rsplit("= ", 1)[1].split()[0]) for line in opened}
    synced = [line for line in lines if line.startswith(pid + " ") and f"fsync({fd})" in line]
    assert len(synced) == 3, "one fsync of the results after each of the 3 rounds"

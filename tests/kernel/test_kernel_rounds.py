"""Interleaved rounds (SPEC 7.6, kernel/rounds.c): a run measures its
experiments in rounds, round 1 in the input's order and every later one in
a new order drawn from the run's seed (NBH_ROUND_ORDER_FORMULA, as
workflow/kernel_draws.py reproduces it); each experiment gets its share of
nrep in each of its rounds, after its warm-up repetitions, which go to
PREFIX.warmup.csv. Whatever is drawn is drawn anew in every round (RAND
orders, uniform delays, the buffers' places), as the recorded seeds and
formulas say; A/A twins draw their own, under their own ids."""
import subprocess

import pandas as pd

from kernel_runner import BUILD, input_text, launch_command
from workflow import kernel_draws


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


def test_round_orders_follow_the_recorded_formula(kernel, library):
    """Python's reproduction of NBH_ROUND_ORDER_FORMULA (kernel_draws.round_order)
    gives the order the kernel measured every round in (its rows' order), a
    resumed input's later first_round included."""
    rows = [experiment(i, nrep=6, blocks=b, seed=1234) for i, b in ((4, 3), (8, 2), (2, 3), (6, 1), (9, 3))]
    rows += [experiment(11, nrep=6, blocks=3, first_round=2, seed=1234)]
    run = kernel(library, 2, rows)
    assert run.returncode == 0, run.stderr
    measured = rounds_of(run.results)
    assert measured == {r: kernel_draws.round_order(rows, r) for r in (1, 2, 3)}
    assert measured[2] != [i for i in measured[1] if i in measured[2]], "round 2 is shuffled (seed 1234)"
    assert 11 not in measured[1], "first_round 2: not in round 1"


def full_rand(id_, **values):
    return experiment(id_, topology="full", ndim=None, nfin=None, order="RAND", **values)


def test_every_round_draws_anew_as_recorded_and_a_twin_its_own(kernel, library):
    """RAND orders (Full: reproduced from PREFIX.seeds.csv and the round's
    seed) and uniform delays (8 rounds x 1 repetition after a warm-up: 8
    different delays per process, reproduced from the seeds) are drawn anew
    in every round; a twin draws under its own id."""
    d, seed = 500.0, 21
    common = dict(nrep=8, blocks=8, warmup=1, seed=seed, arrival="uniform", arrival_us=d)
    rows = [full_rand(1, **common), full_rand(2, twin=1, twin_of=1, **common)]
    run = kernel(library, 4, rows, "--dump-lists", "--dump-delays", timeout=200)
    assert run.returncode == 0, run.stderr

    seeds = pd.read_csv(run.file("seeds.csv"), dtype=str)
    seed_of = {(int(i), int(r)): int(s) for i, r, s in zip(seeds["id"], seeds["rank"], seeds["seed"])}
    assert seed_of == {(i, r): kernel_draws.process_seed(seed, i, r) for i in (1, 2) for r in range(4)}, \
        "the twin's seeds are its own id's"
    assert all(seed_of[2, r] != seed_of[1, r] for r in range(4))

    lists = run.lists
    assert list(lists.columns[:2]) == ["id", "round"]
    computed = lists[lists["list"].isin(["computed_sources", "computed_destinations"])]
    drawn = {key: group.sort_values("position")["neighbor"].tolist()
             for key, group in computed.groupby(["id", "round", "rank", "list"])}
    assert len(drawn) == 2 * 8 * 4 * 2, "the lists of every round"
    for (ident, round_number, rank, which), neighbors in drawn.items():
        sources, destinations = kernel_draws.full_rand_lists(seed_of[ident, rank], round_number, rank, 4)
        assert neighbors == (sources if which == "computed_sources" else destinations), \
            (ident, round_number, rank, which)
    for ident in (1, 2):
        orders = {tuple(drawn[ident, r, 0, "computed_destinations"]) for r in range(1, 9)}
        assert len(orders) >= 4, f"experiment {ident}: rank 0's 3 destinations in new orders over 8 rounds"
    assert any(drawn[1, r, k, "computed_destinations"] != drawn[2, r, k, "computed_destinations"]
               for r in range(1, 9) for k in range(4)), "the twin's orders are not its original's"

    delays = run.table("delays.csv")
    assert list(delays.columns) == ["id", "round", "rank", "attempt", "rep", "delay_us"]
    results = run.results
    for (ident, rank), mine in delays.groupby(["id", "rank"]):
        assert mine["delay_us"].nunique() == 8, f"experiment {ident}, rank {rank}: a new delay in every round"
        for round_number, row in zip(mine["round"], mine.itertuples()):
            expected = kernel_draws.uniform_delays(seed_of[ident, rank], round_number, d, row.attempt + 1)
            assert row.attempt == 1, "the round's warm-up attempt drew first"
            assert round(expected[row.attempt], 6) == round(row.delay_us, 6), (ident, rank, round_number)
    reps = results.set_index(["id", "round"])["rep"].sort_index()
    dumped = delays[delays["rank"] == 0].set_index(["id", "round"])["rep"].sort_index()
    assert dumped.tolist() == reps.tolist(), "a delay's rep is the results' repetition"
    assert not set(delays[delays["id"] == 1]["delay_us"]) & set(delays[delays["id"] == 2]["delay_us"])


BALANCED = "source,dest,count\n0,1,2\n1,2,5\n2,3,1\n3,0,7\n0,2,3\n2,0,4\n1,3,6\n3,1,1\n"


def test_grid_and_graph_rand_orders_are_new_every_round_and_reproducible(kernel, library, tmp_path):
    """Moore and graph RAND lists change from round to round; the graph's are
    its file's rows shuffled by the round's seed (kernel_draws.rand_lists),
    and a second run with the same seed draws every round's lists again."""
    (tmp_path / "balanced.csv").write_text(BALANCED)
    graph = experiment(2, op="neighbor_alltoallv", topology="graph", ndim=None, nfin=None,
                       constructor="dist_graph_adjacent", order="RAND", graph=str(tmp_path / "balanced.csv"),
                       msize=8, nrep=6, blocks=6, seed=8)
    rows = [experiment(1, topology="moore", order="RAND", nrep=6, blocks=6, seed=8), graph]
    run = kernel(library, 4, rows, "--dump-lists")
    assert run.returncode == 0, run.stderr
    lists = run.lists
    computed = lists[lists["list"].isin(["computed_sources", "computed_destinations"])]
    drawn = {key: g.sort_values("position")["neighbor"].tolist()
             for key, g in computed.groupby(["id", "round", "rank", "list"])}
    for ident in (1, 2):
        for rank in range(4):
            orders = {tuple(drawn[ident, r, rank, "computed_destinations"]) for r in range(1, 7)}
            assert len(orders) > 1, f"experiment {ident}, rank {rank}: other orders in other rounds"
    edges = [tuple(int(x) for x in line.split(",")) for line in BALANCED.splitlines()[1:]]
    for rank in range(4):
        seed = kernel_draws.process_seed(8, 2, rank)
        for r in range(1, 7):
            sources, destinations = kernel_draws.rand_lists(seed, r, [s for s, d, _ in edges if d == rank],
                                                            [d for s, d, _ in edges if s == rank])
            assert drawn[2, r, rank, "computed_sources"] == sources, (rank, r)
            assert drawn[2, r, rank, "computed_destinations"] == destinations, (rank, r)
    again = kernel(library, 4, rows, "--dump-lists")
    assert again.returncode == 0, again.stderr
    pd.testing.assert_frame_equal(again.lists[again.lists["list"].str.startswith("computed")].reset_index(drop=True),
                                  computed.reset_index(drop=True))


def test_buffers_lie_where_each_round_draws_them(library, tmp_path):
    """Every round of an experiment places its buffers anew in their pages
    (kernel/data_buffers.h), a twin elsewhere than its original: where
    MPI_Neighbor_alltoall finds them (the PMPI tool libnbh-addresses.so) is
    what kernel_draws.buffer_places computes from the seeds."""
    seed = 3
    rows = [experiment(1, nrep=4, blocks=4, seed=seed), experiment(2, nrep=4, blocks=4, seed=seed, twin=1, twin_of=1)]
    source = tmp_path / "in.csv"
    source.write_text(input_text(rows))
    log = tmp_path / "addresses"
    command, env = launch_command(library, 2, [str(BUILD / library / "nbh-kernel"), "-i", str(source),
                                                "-o", str(tmp_path / "out")],
                                  launch_env=[("LD_PRELOAD", str(BUILD / library / "libnbh-addresses.so")),
                                              ("NBH_ADDRESSES_LOG", str(log))])
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    measured = [(r, i) for r in range(1, 5) for i in kernel_draws.round_order(rows, r)]
    for rank in range(2):
        calls = [tuple(int(x) for x in line.split(",")) for line in (tmp_path / f"addresses.{rank}").read_text().split()]
        assert len(calls) == len(measured), "one call per experiment and round"
        expected = [tuple(kernel_draws.buffer_places(kernel_draws.process_seed(seed, i, rank), r, 2))
                    for r, i in measured]
        assert calls == expected, f"rank {rank}: send and receive buffer where the round's draws put them"
        mine = {key: place for key, place in zip(measured, calls)}
        assert len({mine[r, 1] for r in range(1, 5)}) > 1, "the original's buffers move between rounds"
        assert any(mine[r, 1] != mine[r, 2] for r in range(1, 5)), "the twin's lie elsewhere"


def test_a_twin_times_its_own_work_reference(kernel, library):
    """work_factor: a twin does not reuse the reference its original timed
    (a launch-level draw that would cancel in twin / original)."""
    rows = [experiment(1, op="ineighbor_alltoall", work_factor=1, nrep=2, seed=4),
            experiment(2, op="neighbor_alltoall", work_factor=1, nrep=2, seed=4),
            experiment(3, op="ineighbor_alltoall", work_factor=1, nrep=2, seed=4, twin=1, twin_of=1),
            experiment(4, op="neighbor_alltoall", work_factor=1, nrep=2, seed=4, twin=1, twin_of=2)]
    run = kernel(library, 2, rows)
    assert run.returncode == 0, run.stderr
    prep = run.table("preparation.csv").set_index("id")["work_reference_id"].to_dict()
    assert prep == {1: 1, 2: 1, 3: 3, 4: 3}, "originals share theirs, twins share their own"


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

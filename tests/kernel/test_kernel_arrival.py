"""Arrival patterns in the real kernel (docs/kernel.md, SPEC 8.2): uniform
delays are drawn as the seeds file records them, one_late delays only the
named process, ramp grows with the rank; every process's delay is timed and
its median time lands in PREFIX.ranks.csv, with the late process's
neighbors named."""
import pandas as pd

from workflow.kernel_draws import uniform_delays

NREP, D = 6, 300.0


def experiments():
    ring = dict(op="neighbor_alltoall", topology="cart", ndim=1, nfin=0, reorder=0, msize=64, nrep=NREP, seed=11)
    return [dict(ring, id=1, arrival="uniform", arrival_us=D),
            dict(ring, id=2, arrival="one_late", arrival_us=D, late_rank=1),
            dict(ring, id=3, arrival="ramp", arrival_us=D, sync="barrier"),
            dict(ring, id=4, arrival="none", op="bcast")]


def test_delays_are_drawn_as_recorded_and_timed(kernel, library):
    run = kernel(library, 4, experiments(), "--dump-delays", timeout=120)
    assert run.returncode == 0, run.stderr
    delays = run.table("delays.csv")
    seeds = pd.read_csv(run.file("seeds.csv"), dtype=str)
    assert sorted(seeds["id"].unique()) == ["1"], "uniform draws from seeds: they are recorded"

    uniform = delays[delays["id"] == 1]
    for _, row in seeds.iterrows():
        expected = [round(x, 6) for x in uniform_delays(int(row["seed"]), 1, D, NREP)]
        drawn = uniform[uniform["rank"] == int(row["rank"])].sort_values("attempt")["delay_us"].round(6).tolist()
        assert drawn == expected, f"rank {row['rank']}: the delays follow its recorded seed"

    one_late = delays[delays["id"] == 2]
    assert set(one_late[one_late["rank"] == 1]["delay_us"]) == {D}
    assert set(one_late[one_late["rank"] != 1]["delay_us"]) == {0.0}, "only the late process waits"
    ramp = delays[delays["id"] == 3].groupby("rank")["delay_us"].unique()
    assert [list(ramp[r]) for r in range(4)] == [[0.0], [100.0], [200.0], [300.0]]
    assert set(delays[delays["id"] == 4]["delay_us"]) == {0.0}

    ranks = run.table("ranks.csv")
    assert list(ranks.columns) == ["id", "round", "rank", "seconds", "delay_seconds", "role"]
    assert ranks.groupby("id")["rank"].apply(sorted).tolist() == [[0, 1, 2, 3]] * 4, \
        "every process of every experiment, the one without delay (the baseline) too"
    roles = ranks[ranks["id"] == 2].set_index("rank")["role"].to_dict()
    assert roles == {0: "neighbor", 1: "late", 2: "neighbor", 3: "other"}, "a ring of 4: 1's neighbors are 0 and 2"
    assert set(ranks[ranks["id"] != 2]["role"]) == {""}
    # The delay is a wait on the clock: it never ends before the deadline.
    medians = delays.groupby(["id", "rank"])["delay_us"].median() * 1e-6
    timed = ranks.set_index(["id", "rank"])["delay_seconds"]
    assert (timed + 1e-9 >= medians.reindex(timed.index)).all()
    assert (ranks["seconds"] >= ranks["delay_seconds"]).all(), "a process completes after it arrived"
    results = run.results
    assert list(results.columns) == ["id", "rep", "round", "seconds", "work_seconds", "delay_seconds"]
    assert results.groupby("id").size().tolist() == [NREP] * 4
    assert (results[results["id"] == 2]["delay_seconds"] + 1e-9 >= D * 1e-6).all(), \
        "the slowest process's delay: the late one's, never shorter than d"
    assert (results[results["id"] == 4]["delay_seconds"] == 0).all()
    assert (results[results["id"] == 2]["seconds"] >= D * 1e-6).all(), \
        "the slowest process's time is counted from the common start: it holds the delay"
    assert not run.file("preparation.csv").exists(), "barrier starts record nothing before the repetitions"
    pd.testing.assert_series_equal(ranks["id"], ranks["id"].sort_values(), check_names=False)


def test_a_full_disk_keeps_ranks_whole_with_the_results(library, small_fs, tmp_path):
    """PREFIX.ranks.csv is cut back with the other tables (kernel/whole_output.c):
    the experiments it holds are exactly the results' whole ones, each with
    every process."""
    import subprocess

    from kernel_runner import BUILD, input_text, launch_command

    ring = dict(op="neighbor_alltoall", topology="cart", ndim=1, nfin=0, reorder=0, msize=64, nrep=20, seed=3)
    rows = [dict(ring, id=i, arrival="one_late" if i % 2 else "none", arrival_us=5 if i % 2 else None)
            for i in range(1, 61)]
    source = tmp_path / "in.csv"
    source.write_text(input_text(rows))
    def run(prefix):
        command, env = launch_command(library, 3, [str(BUILD / library / "nbh-kernel"), "-i", str(source),
                                                   "-o", str(prefix)])
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)

    # What a run writes before its first experiment, measured on this library.
    assert run(small_fs.path / "probe").returncode == 0
    before = sum(-(-(small_fs.path / f"probe.{s}").stat().st_size // 4096) for s in ("cvars.csv", "prov.json"))
    for path in small_fs.path.glob("probe.*"):
        path.unlink()
    small_fs.fill((before + 3 + 2) * 4096)  # three headers and about two pages of rows
    done = run(small_fs.path / "out")
    assert done.returncode == 4, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("nbh-kernel:")]
    assert len(lines) == 1 and lines[0].endswith("cannot write: No space left on device"), done.stderr
    results = (small_fs.path / "out.results.csv").read_text()
    ranks = (small_fs.path / "out.ranks.csv").read_text()
    assert results.endswith("\n") and ranks.endswith("\n")
    result_ids = [int(line.split(",")[0]) for line in results.splitlines()[1:]]
    rank_rows = [line.split(",") for line in ranks.splitlines()[1:]]
    assert 0 < len(set(result_ids)) < len(rows), "the disk filled up in the middle of the run"
    assert all(result_ids.count(i) == 20 for i in set(result_ids))
    by_id = {}
    for row in rank_rows:
        by_id.setdefault(int(row[0]), []).append(int(row[2]))
    assert set(by_id) == set(result_ids), "ranks.csv holds exactly the experiments the results hold"
    assert all(sorted(r) == [0, 1, 2] for r in by_id.values()), "each with every process"

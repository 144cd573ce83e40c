"""Tail latencies against numpy (analyze/reduce/percentiles.R): every cell's
P50/P90/P99 over every repetition of every run, with and without the
Tukey step, and each run's P90/P99 (statistic = p90, p99) are numpy's
numpy.percentile (method "linear", its default) bit for bit, from the C
routines and from the R code alike, on an archive with ties and with a
results file that is not clean; the analysis writes them to
percentiles.csv and assesses a `statistic = p99` set on the runs' P99; an
unknown statistic is one line."""
import csv
import pathlib
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def r_type7(sorted_x, p):
    """R's quantile(type = 7) as analyze/reduce/tukey_filter.R computes it
    (the Tukey fences are R's, not numpy's)."""
    n = len(sorted_x)
    index = 1 + (n - 1) * p
    lo, hi = int(np.floor(index)), int(np.ceil(index))
    q, x_hi = sorted_x[lo - 1], sorted_x[hi - 1]
    if index > lo and x_hi != q:
        h = index - lo
        q = (1 - h) * q + h * x_hi
    return q


def tukey_kept(x):
    s = np.sort(x)
    q1, q3 = r_type7(s, 0.25), r_type7(s, 0.75)
    iqr = q3 - q1
    return s[(s >= q1 - 1.5 * iqr) & (s <= q3 + 1.5 * iqr)]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """A synthetic archive (tests/analyze/synthetic_archive.R) of 2 deployments
    x 4 runs x 96 experiments x 20 repetitions; the times of two runs rounded
    to 3 digits (ties), one run's file with a malformed row (so it is read by
    read_results, not in C). Returns (dir, {(deployment, run_id, id): times})."""
    out = tmp_path_factory.mktemp("percentiles") / "archive"
    subprocess.run(["Rscript", "--vanilla", str(ROOT / "tests/analyze/synthetic_archive.R"), "--campaign", "small",
                    "--out", str(out), "--deployments", "1x4,2x4", "--nrun", "4", "--nrep", "20", "--seed", "5"],
                   check=True, capture_output=True, timeout=120, env={"NBH_ROOT": str(ROOT), "PATH": "/usr/bin:/bin"})
    runs = {r["run_id"]: r for r in read_csv(out / "runs.csv")}
    times = {}
    for k, run_id in enumerate(sorted(runs)):
        path = out / "results" / f"{run_id}.results.csv"
        rows = read_csv(path)
        if k in (1, 5):  # ties: three significant digits
            for row in rows:
                row["seconds"] = "%.9e" % float("%.2e" % float(row["seconds"]))
        lines = ["id,rep,seconds,work_seconds"] + [f"{r['id']},{r['rep']},{r['seconds']},{r['work_seconds']}"
                                                   for r in rows]
        if k == 2:
            lines.append("x,0,1.000000000e-05,0")  # malformed: left out by read_results, with a warning
        path.write_text("\n".join(lines) + "\n")
        for row in rows:
            times.setdefault((runs[run_id]["deployment"], run_id, int(row["id"])), []).append(float(row["seconds"]))
    return out, times


def numpy_cells(times):
    """{(deployment, id): (all times, kept times)} pooled over the runs."""
    cells = {}
    for (deployment, _, id_), x in times.items():
        every, kept = cells.setdefault((deployment, id_), ([], []))
        every.extend(x)
        kept.extend(tukey_kept(np.array(x)).tolist())
    return cells


@pytest.mark.parametrize("mode", ["c", "r"])
def test_cell_and_run_percentiles_are_numpys_bit_for_bit(archive, mode, tmp_path):
    directory, times = archive
    prefix = tmp_path / mode
    subprocess.run(["Rscript", "--vanilla", str(ROOT / "tests/analyze/percentiles_of_archive.R"), str(directory),
                    str(prefix), mode], check=True, capture_output=True, timeout=120, cwd=ROOT)
    cells = numpy_cells(times)
    # Exact from C, which reads every time as the double nearest its decimal
    # as Python does; R's fread may read a time 1 ulp off (docs/analyze.md).
    same = (lambda x, y: x == y) if mode == "c" else (lambda x, y: x == pytest.approx(y, rel=1e-15, abs=0))
    got = read_csv(f"{prefix}.cells.csv")
    assert len(got) == len(cells) == 2 * 96
    ties = 0
    for row in got:
        every, kept = cells[row["deployment"], int(row["id"])]
        assert int(row["count"]) == len(every) == 80 and int(row["count_kept"]) == len(kept)
        ties += len(every) - len(set(every))
        for q in (50, 90, 99):
            assert same(float.fromhex(row[f"p{q}"]), np.percentile(every, q)), (row, q)
            assert same(float.fromhex(row[f"p{q}_kept"]), np.percentile(kept, q)), (row, q)
    assert ties > 100, "the rounded runs give ties"
    assert sum(len(cells[c][0]) - len(cells[c][1]) for c in cells) > 0, "the Tukey step drops some"
    runs = read_csv(f"{prefix}.runs.csv")
    assert len(runs) == len(times)
    for row in runs:
        x = times[row["deployment"], row["run_id"], int(row["id"])]
        assert same(float.fromhex(row["p90"]), np.percentile(x, 90))
        assert same(float.fromhex(row["p99"]), np.percentile(x, 99))


ASSESSMENT = """\
[medians]
parameter = op
varied = msize
GL4: neighbor_allgather <= neighbor_alltoall

[tails]
parameter = op
varied = msize
statistic = p99
GL4: neighbor_allgather <= neighbor_alltoall
"""


def test_the_analysis_writes_percentiles_and_assesses_a_set_on_the_runs_p99(archive, tmp_path):
    directory, times = archive
    conf = tmp_path / "assessment.conf"
    conf.write_text(ASSESSMENT)
    out = tmp_path / "analysis"
    result = subprocess.run([str(ROOT / "nbhbench"), "analyze", str(directory), "--assess", str(conf), "--no-plots",
                             "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    cells = numpy_cells(times)
    experiments = {int(r["id"]): r for r in read_csv(directory / "experiments.csv")}
    rows = read_csv(out / "percentiles.csv")
    assert len(rows) == len(cells)
    key = ("op", "topology", "constructor", "ndim", "nfin", "radius", "order", "reorder", "msize")
    id_of = {tuple(e[k] for k in key): i for i, e in experiments.items()}
    for row in rows:
        every, kept = cells[row["deployment"], id_of[tuple(row[k] for k in key)]]
        assert int(row["runs"]) == 4 and int(row["count"]) == 80
        for q in (50, 90, 99):
            assert float(row[f"p{q}_us"]) == pytest.approx(np.percentile(every, q) * 1e6, rel=1e-13)
            assert float(row[f"p{q}_kept_us"]) == pytest.approx(np.percentile(kept, q) * 1e6, rel=1e-13)
    tests = read_csv(out / "tests.csv")
    assert {(t["set"], t["statistic"]) for t in tests} == {("medians", "median"), ("tails", "p99")}
    run_p99 = {}
    for (deployment, _, id_), x in times.items():
        run_p99.setdefault((deployment, id_), []).append(np.percentile(x, 99))
    tails = [t for t in tests if t["set"] == "tails"]
    assert len(tails) == len([t for t in tests if t["set"] == "medians"]) > 0
    for t in tails:
        a = dict(t, op="neighbor_allgather")
        want = np.median(run_p99[t["deployment"], id_of[tuple(a[k] for k in key)]]) * 1e6
        assert float(t["median_a_us"]) == pytest.approx(want, rel=1e-12)
    report = (out / "report.md").read_text()
    assert "## Tail latencies" in report and "| GL4: neighbor_allgather <= neighbor_alltoall | tails | p99 |" in report


def test_an_unknown_statistic_is_one_line(archive, tmp_path):
    directory, _ = archive
    conf = tmp_path / "bad.conf"
    conf.write_text(ASSESSMENT.replace("statistic = p99", "statistic = p95"))
    out = tmp_path / "analysis"
    result = subprocess.run([str(ROOT / "nbhbench"), "analyze", str(directory), "--assess", str(conf), "--no-plots",
                             "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines == [f"nbhbench: {conf}:9: statistic: unknown 'p95' (median, p90, p99)"], result.stderr
    assert not out.exists()

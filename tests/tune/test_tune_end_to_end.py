"""nbhbench tune with real runs (Open MPI, 2 processes): a GL8 violation
planted by a PMPI tool that slows MPI_Alltoall under every setting but
coll_tuned_alltoall_algorithm=pairwise (tests/tune/pmpi_algorithm.c). The
tune starts from the analysis that found it, races three candidates in
interleaved launches, drops the slow ones, confirms pairwise on fresh
launches as a fix, and writes the Open MPI files; an interrupted tune goes
on with --resume; status, archive and analyze work on its campaigns."""
import csv
import json
import os
import signal
import subprocess
import time

import pytest

from child_signals import default_sigint
from tune_testing import ROOT, Bench, build_shim, planted_analysis

pytestmark = pytest.mark.quiet   # timings decide: run alone (tests/run)

CANDIDATES = "alltoall_linear,alltoall_pairwise"


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_a_planted_gl8_violation_is_raced_to_its_setting_confirmed_and_deployed(tmp_path):
    bench = Bench(tmp_path)
    shim = build_shim("openmpi", tmp_path)
    analysis = planted_analysis(bench, shim, "OMPI_MCA_coll_tuned_alltoall_algorithm", "pairwise")
    violated = [r for r in read_csv(analysis / "tests.csv") if r["tag"] == "GL8" and r["decision"] == "violated"]
    assert len(violated) == 2, "both sizes violated under the default"

    listed = bench.ok("tune", analysis, "--guideline", "GL8", "--candidates", CANDIDATES, "--budget", "30", "--list")
    assert "3 candidates:" in listed.stdout and "alltoall_pairwise" in listed.stdout
    assert "coll_tuned_use_dynamic_rules=true coll_tuned_alltoall_algorithm=pairwise  [MPI_T]" in listed.stdout
    assert not bench.tune_folder("GL8-openmpi-1x2").exists(), "--list runs nothing"

    result = bench.ok("tune", analysis, "--guideline", "GL8", "--candidates", CANDIDATES, "--first", "5", "--budget", "30",
                      "--confirm-runs", "5", timeout=1800)
    folder = bench.tune_folder("GL8-openmpi-1x2")
    assert result.stdout.strip().splitlines()[-1] == str(folder / "report.md")
    plan = json.loads((folder / "tune.json").read_text())
    race = plan["race"]
    assert race["winner"] == "alltoall_pairwise"
    gone = {name for look in race["looks"] for name in look["leaving"]}
    assert gone == {"default", "alltoall_linear"}, race["looks"]
    assert race["stopped"] == "one candidate left"
    # The race's runs were interleaved: slots of one run of each candidate.
    runs = read_csv(folder / "work" / "GL8-openmpi-1x2-race" / "runs.csv")
    first = [r for r in runs if r["round"] == "1"]
    assert len(first) == 15 and {r["interleave"] for r in first} != {""}
    assert all(sorted(r["param_set"] for r in first if r["slot"] == str(k)) ==
               ["alltoall_linear", "alltoall_pairwise", "default"] for k in range(1, 6))
    # The looks are analyses by nbhbench analyze, Holm-adjusted over the race's tests.
    look = race["looks"][-1]
    meta = json.loads((folder / "looks" / str(look["look"]) / "race" / "analysis.json").read_text())
    assert meta["adjust"] == "holm" and float(meta["p_thres"]) == plan["p_look"]
    # ... which paired each candidate's launches with the best's by slot (no rank-sum floor).
    for record in race["looks"]:
        tests = read_csv(folder / "looks" / str(record["look"]) / "race" / "tests.csv")
        assert tests and {t["method"] for t in tests} == {"launches"}, record["look"]
        assert {int(t["pairs"]) for t in tests} == {5 + 2 * (record["look"] - 1)}, "a pair per slot: --first 5, --step 2"
    rows = read_csv(folder / "race.csv")
    assert {r["method"] for r in rows if r["best"] == "0"} == {"launches"}

    confirm = plan["confirm"]
    assert confirm["fix"], confirm
    row = confirm["table"][0]
    assert (row["deployment"], row["cells"], row["healed"]) == ("1x2", 2, 2)
    assert row["default"]["violated"] == 2 and row["winner"]["holds"] == 2
    assert (row["slower_cells"], row["new_violations"]) == (0, 0)
    report = (folder / "report.md").read_text()
    assert "**Verdict**: a fix: heals 2 of 2 cells at 1x2" in report and "![the race](race.svg)" in report
    assert (folder / "race.svg").read_text().startswith("<svg")
    conf = (folder / "deploy" / "mca-params.conf").read_text()
    assert "coll_tuned_use_dynamic_rules = true\ncoll_tuned_alltoall_algorithm = pairwise\n" in conf
    rules = (folder / "deploy" / "coll-tuned-rules.conf").read_text().splitlines()
    assert [line.split()[0] for line in rules[1:]] == ["1", "3", "1", "2", "2", "0", "512"]
    assert rules[-1].split()[:2] == ["512", "2"], "pairwise (2) from 256 B x 2 processes on"

    # It is campaigns underneath.
    env = dict(bench.env, NBH_WORK=str(folder / "work"))
    status = subprocess.run([str(ROOT / "nbhbench"), "status", "GL8-openmpi-1x2-race"], capture_output=True,
                            text=True, env=env, timeout=120)
    assert status.returncode == 0 and " done " in status.stdout


def test_an_interrupted_tune_goes_on_with_resume(tmp_path):
    bench = Bench(tmp_path)
    shim = build_shim("openmpi", tmp_path)
    analysis = planted_analysis(bench, shim, "OMPI_MCA_coll_tuned_alltoall_algorithm", "pairwise")
    process = subprocess.Popen([str(ROOT / "nbhbench"), "tune", str(analysis), "--guideline", "GL8",
                                "--candidates", CANDIDATES, "--budget", "30", "--no-confirm"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=bench.env, start_new_session=True,
                               preexec_fn=default_sigint)
    folder = bench.tune_folder("GL8-openmpi-1x2")
    results = folder / "work" / "GL8-openmpi-1x2-race" / "results"
    deadline = time.monotonic() + 300
    # Interrupted after its first launch, with the rest of the race to come
    # (after three, the first look could already decide it under load).
    while time.monotonic() < deadline and not (results.is_dir() and any(results.glob("*.results.csv"))):
        time.sleep(0.2)
    assert process.poll() is None, "the race ended before it could be interrupted"
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode != 0 and "--resume GL8-openmpi-1x2" in err, err
    again = bench("tune", analysis, "--guideline", "GL8", "--candidates", CANDIDATES, "--budget", "30")
    assert again.returncode == 2 and "go on with nbhbench tune --resume GL8-openmpi-1x2" in again.stderr
    done = bench.ok("tune", "--resume", "GL8-openmpi-1x2", timeout=1800)
    plan = json.loads((folder / "tune.json").read_text())
    assert plan["race"]["winner"] == "alltoall_pairwise", plan["race"]["looks"]
    assert "winner alltoall_pairwise" in done.stdout

"""A disk that fills up during submit, archive, analyze and an adaptive
campaign's look (docs/robustness.md): one clear line naming the path and
"No space left on device", no half-written file, and once there is space
again the step completes with every experiment (resume after submit)."""
import os
import re
import shutil
import subprocess
import threading
import time
import types

import pytest

from gen.errors import NbhError
from workflow.adaptive import run_look
from workflow_testing import ROOT, Bench, read_csv

FILL = ROOT / "tests" / "workflow" / "campaigns" / "fill"
NREP = 100


BLOCKS = 10   # the default: nrep 100 / 4, at most 10 rounds of 10 repetitions


def whole_rounds(results):
    """The (id, round) of RESULTS (id,rep,round,seconds,work_seconds), with
    their rows; fails on a partial round or a cut line."""
    text = results.read_text()
    assert text.endswith("\n"), f"{results} ends in a cut line"
    rounds = {}
    for line in text.split("\n")[1:-1]:
        ident, rep, round_number, _, _ = line.split(",")
        rounds.setdefault((ident, int(round_number)), []).append(line)
    share = NREP // BLOCKS
    assert all(len(rows) == share for rows in rounds.values()), f"a partial round in {results}"
    return rounds


def whole_experiments(results):
    """The ids of RESULTS with every round whole."""
    rounds = whole_rounds(results)
    return {i for i, _ in rounds if all((i, r) in rounds for r in range(1, BLOCKS + 1))}


def fill_when(small_fs, path, size, stop):
    """Fills the disk as soon as PATH holds SIZE bytes (the run is under way)."""
    while not stop.is_set():
        if path.exists() and path.stat().st_size >= size:
            small_fs.fill(0)
            return
        time.sleep(0.005)


def test_a_disk_full_during_submit_stops_cleanly_and_resume_loses_nothing(small_fs, tmp_path):
    bench = Bench(tmp_path)
    bench.work = small_fs.path / "work"
    bench.env["NBH_WORK"] = str(bench.work)
    bench.ok("generate", FILL)
    first = bench.work / "fill" / "results" / "1x2-default-r001.a1.results.csv"
    stop = threading.Event()
    filler = threading.Thread(target=fill_when, args=(small_fs, first, 3 * NREP * 40, stop))
    filler.start()
    try:
        failed = bench("submit", "fill", timeout=120)
    finally:
        stop.set()
        filler.join()
    assert failed.returncode == 74, failed.stdout + failed.stderr
    line = failed.stderr.strip()
    assert "\n" not in line and "No space left on device" in line, line
    assert line.startswith("nbhbench: run 1x2-default-r001: the launcher exited with 4: ") and \
        f"{bench.work}/fill/results" in line, line
    assert line.endswith("No space left on device; free space, then: nbhbench submit --resume fill") or \
        line.endswith("(the kernel kept every finished experiment); free space, then: nbhbench submit --resume fill"), line
    before = whole_rounds(first)
    assert 3 <= len(before) < 30 * BLOCKS, "the disk filled up in the middle of the first run"
    assert not [p for p in (bench.work / "fill").rglob("*") if ".partial-" in p.name or p.name.endswith(".tmp")]

    small_fs.free()
    bench.ok("submit", "--resume", "fill", timeout=120)
    assert bench.status("fill") == {"1x2-default-r001": ("done", "30/30", 2),
                                    "1x2-default-r002": ("done", "30/30", 1)}
    archive, _ = bench.archive("fill")
    runs = read_csv(archive / "runs.csv")
    assert [(r["state"], r["experiments_done"]) for r in runs] == [("done", "30"), ("done", "30")]
    for run in runs:
        assert len(whole_experiments(archive / "results" / f"{run['run_id']}.results.csv")) == 30
    merged = whole_rounds(archive / "results" / "1x2-default-r001.results.csv")
    assert all(merged[key] == rows for key, rows in before.items()), "every whole round of attempt 1 is kept"


def tiny_campaign(bench, *sets):
    bench.ok("generate", "demo", "--env", "local-openmpi", "--set", "nrun=2", "--set", "nrep=3", *sets)
    bench.ok("submit", "demo", timeout=120)


def test_a_disk_full_during_archive_leaves_no_archive_and_the_workspace_unchanged(small_fs, tmp_path):
    bench = Bench(tmp_path)
    bench.archives = small_fs.path / "archives"
    bench.env["NBH_ARCHIVES"] = str(bench.archives)
    tiny_campaign(bench, "--set", "msize=64")
    small_fs.fill(24 * 1024)
    failed = bench("archive", "demo")
    assert failed.returncode == 74, failed.stderr
    line = failed.stderr.strip()
    assert line.startswith(f"nbhbench: {bench.archives}: No space left on device (writing "), line
    assert line.endswith("; no archive was made, the workspace is unchanged)"), line
    assert small_fs.files() == ["archives"], "no half-made archive is left"
    assert not (bench.work / "demo" / "archived.json").exists()

    small_fs.free()
    archive, _ = bench.archive("demo")
    assert bench.ok("archive", "--verify", archive).returncode == 0
    assert [r["experiments_done"] for r in read_csv(archive / "runs.csv")] == ["10", "10"], "8 and 2 A/A twins"


def test_a_disk_full_during_analyze_leaves_out_dir_as_it_was(small_fs, tmp_path):
    bench = Bench(tmp_path)
    tiny_campaign(bench)
    archive, _ = bench.archive("demo")
    out = small_fs.path / "analysis"
    options = ["--out", out, "--max-plots", "1"]
    bench.ok("analyze", archive, *options)
    earlier = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert out / "summary.csv" in earlier and out / "report.html" in earlier
    size = sum(-(-len(data) // 4096) * 4096 for data in earlier.values())

    small_fs.fill(size // 2)  # half of what the analysis needs
    failed = bench("analyze", archive, *options)
    assert failed.returncode == 4, failed.stderr
    errors = [line for line in failed.stderr.splitlines() if not line.startswith("nbhbench: warning:")]
    assert len(errors) == 1 and errors[0].startswith(f"nbhbench: {out}/"), failed.stderr
    assert errors[0].endswith(f": No space left on device; {out} was left as it was"), errors[0]
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == earlier, "the earlier analysis is intact"
    assert small_fs.files() == sorted(str(p.relative_to(small_fs.path)) for p in [out, *out.rglob("*")])

    shutil.rmtree(out)
    small_fs.fill(size // 2)
    failed = bench("analyze", archive, *options)
    assert failed.returncode == 4 and f": No space left on device; {out} was left as it was" in failed.stderr
    assert small_fs.files() == [], "no half-written analysis is left"
    small_fs.free()
    bench.ok("analyze", archive, *options)
    assert sorted(p for p in out.rglob("*") if p.is_file()) == sorted(earlier)


def test_a_disk_full_during_an_adaptive_look_is_one_line_never_a_cut_needed_csv(small_fs, tmp_path):
    """The look of an adaptive campaign (analyze/adaptive_look.R) on a view
    with thousands of open tests; its folder on a disk with room for
    tests.csv and two pages more: needed.csv, 14 pages, is cut by the disk,
    and the look says so (exit 4, one line naming it) instead of handing a
    shorter list of experiments to the next round."""
    view = tmp_path / "view"
    subprocess.run(["Rscript", "--vanilla", "-e", 'source("tests/analyze/synthetic_archive.R"); '
                    'write_synthetic_archive(commandArgs(TRUE)[1], synthetic_experiments("nbhcoll", nrep = 5L), '
                    'deployments = "1x4", nrun = 3L, inputs = FALSE, run_sd = 0.3, '
                    'assessment = synthetic_assessment("nbhcoll"))', str(view)],
                   check=True, capture_output=True, cwd=ROOT, timeout=120, env=dict(os.environ, NBH_ROOT=str(ROOT)))

    def look(out):
        out.mkdir()
        return subprocess.run(["Rscript", "--vanilla", str(ROOT / "analyze" / "adaptive_look.R"), f"--out={out}",
                               "--hold-ratio=1.03", "--", str(view)], capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, NBH_ROOT=str(ROOT)))
    whole = tmp_path / "whole"
    assert look(whole).returncode == 0
    tests, needed = ((whole / name).stat().st_size for name in ("tests.csv", "needed.csv"))
    assert needed > 3 * 4096, "needed.csv is longer than the room left for it"

    small_fs.fill(-(-tests // 4096) * 4096 + 2 * 4096)
    out = small_fs.path / "look"
    failed = look(out)
    assert failed.returncode == 4, failed.stderr
    assert failed.stderr == f"nbhbench: {out}/needed.csv: No space left on device\n"
    # submit stops the rounds there, as on any full disk: exit 74, the way on
    shutil.rmtree(out)
    with pytest.raises(NbhError) as stopped:
        run_look(types.SimpleNamespace(name="adaptive"), view, out=out)
    assert stopped.value.code == 74 and str(stopped.value) == (
        f"adaptive: the look could not write its files: {out}/needed.csv: No space left on device; "
        "free space, then: nbhbench submit adaptive")


def pages(size):
    return -(-size // 4096) * 4096


def synthetic_archive(path, *sets):
    """A small archive made by tests/analyze/synthetic_archive.R (no MPI)."""
    subprocess.run(["Rscript", "--vanilla", "-e", 'source("tests/analyze/synthetic_archive.R"); '
                    'write_synthetic_archive(commandArgs(TRUE)[1], synthetic_experiments("nbhcoll", nrep = 5L), '
                    'deployments = "1x4", nrun = 3L, run_sd = 0.3, assessment = synthetic_assessment("nbhcoll"))',
                    str(path)], check=True, capture_output=True, cwd=ROOT, timeout=120,
                   env=dict(os.environ, NBH_ROOT=str(ROOT)))
    return path


def r_write_text(path, text_bytes):
    """write_text_file (analyze/output/output_files.R) of one line of
    TEXT_BYTES - 1 bytes; its exit status and stderr."""
    script = ('source(file.path(Sys.getenv("NBH_ROOT"), "analyze", "load.R")); '
              'args <- commandArgs(TRUE); '
              'status <- tryCatch({write_text_file(strrep("x", as.integer(args[2]) - 1L), args[1]); 0L}, '
              'nbh_output_error = function(e) {message("nbhbench: ", conditionMessage(e)); 4L}); '
              'quit(save = "no", status = status)')
    return subprocess.run(["Rscript", "--vanilla", "-e", script, str(path), str(text_bytes)],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, NBH_ROOT=str(ROOT)))


@pytest.mark.parametrize("size,room", [(40 * 4096, 3 * 4096), (3000, 0), (100, 0), (5000, 4096)],
                         ids=["many-pages", "within-a-buffer", "a-line", "one-page-short"])
def test_a_text_file_the_disk_cuts_is_an_error_naming_it(small_fs, size, room):
    """report.html, report.md, warnings.txt, the marker file and look.json
    go through write_text_file: a text longer than the room left, whether
    the file system refuses it while it is written or only when the
    connection is closed, is one line and exit 4, never a cut file taken
    for a whole one (R's writeLines on a re-encoding connection says
    nothing of a failed write)."""
    small_fs.fill(room)
    target = small_fs.path / "report.html"
    failed = r_write_text(target, size)
    assert failed.returncode == 4, failed.stderr
    assert failed.stderr == f"nbhbench: {target}: No space left on device\n"
    small_fs.free()
    assert r_write_text(target, size).returncode == 0 and target.stat().st_size == size


def test_every_text_file_of_the_analyzer_is_written_by_write_text_file():
    """No writer of its own that could leave a cut file unnoticed: the
    analyzer's and the plots' R code write text only through
    output_files.R (writeLines, cat(file =), sink and text connections
    opened for writing appear nowhere else but to temporary files)."""
    writers = re.compile(r"\b(writeLines|sink|cat\s*\([^)]*\bfile\s*=|file\s*\([^)]*\"w[bt]?\")")
    found = []
    for path in sorted([*(ROOT / "analyze").rglob("*.R"), *(ROOT / "plots").rglob("*.R")]):
        if path.name == "output_files.R":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if writers.search(line) and "tempfile(" not in line and "listing" not in line:
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def test_a_disk_full_while_analyze_writes_its_marker_or_report_is_exit_4(small_fs, tmp_path):
    """The issue's case: on a disk with room for every file of the
    analysis but the last page of report.html, analyze exited 0 with
    report.html cut; and with no room at all, the marker file (the first
    file) is cut. Both: one line naming the file, exit 4, --out as it was."""
    bench = Bench(tmp_path)
    archive = synthetic_archive(tmp_path / "archive")
    reference = tmp_path / "reference"
    bench.ok("analyze", archive, "--out", reference, "--no-plots")
    files = [p for p in reference.rglob("*") if p.is_file()]
    report = reference / "report.html"
    assert report.stat().st_size > 4096
    assert max(files, key=lambda p: p.stat().st_mtime_ns) == report, "report.html is the last file written"
    out = small_fs.path / "analysis"
    for room, cut in ((sum(pages(p.stat().st_size) for p in files) - 4096, "report.html"),
                      (0, ".nbhbench-analysis")):
        small_fs.fill(room)
        failed = bench("analyze", archive, "--out", out, "--no-plots")
        errors = [line for line in failed.stderr.splitlines() if not line.startswith("nbhbench: warning:")]
        assert failed.returncode == 4 and errors == [
            f"nbhbench: {out}/{cut}: No space left on device; {out} was left as it was"], failed.stderr
        assert small_fs.files() == [], "no half-written analysis is left"


def test_a_disk_full_when_the_look_writes_look_json_is_one_line(small_fs, tmp_path):
    """look.json, the adaptive look's last file: cut by the disk, the look
    fails with exit 4 naming it (before, it exited 0 with look.json cut)."""
    view = synthetic_archive(tmp_path / "view")

    def look(out):
        out.mkdir()
        return subprocess.run(["Rscript", "--vanilla", str(ROOT / "analyze" / "adaptive_look.R"), f"--out={out}",
                               "--", str(view)], capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, NBH_ROOT=str(ROOT)))
    whole = tmp_path / "whole"
    assert look(whole).returncode == 0
    before = sum(pages((whole / name).stat().st_size) for name in ("tests.csv", "needed.csv"))
    small_fs.fill(before + pages((whole / "look.json").stat().st_size) - 4096)
    out = small_fs.path / "look"
    failed = look(out)
    assert failed.returncode == 4 and failed.stderr == f"nbhbench: {out}/look.json: No space left on device\n"

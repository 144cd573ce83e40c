"""The write-ups of docs/examples quote what the files beside them hold:
the progress-tuning tables are its CSVs, the MPICH progress thread's
overlap comes with the floor the blocking operations give, MPICH 5's
slowdown is said in numbers, and no write-up denies an environment that
env/ ships."""
import csv
import pathlib
import re
import statistics

from markdown_tables import markdown_table

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
TUNING = EXAMPLES / "progress-tuning"


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number(cell):
    return float(re.search(r"[\d.]+", cell.replace("**", "")).group())


def form(op):
    return "blocking" if not (op.startswith("i") or op.endswith("_init")) else "overlapping"


def overlap_medians():
    """{(library, set, form, topology, msize): median overlap %} from overlap.csv."""
    cells = {}
    for r in rows(TUNING / "overlap.csv"):
        key = (r["library"], r["param_set"], form(r["op"]), r["topology"], int(r["msize"]))
        cells.setdefault(key, []).append(float(r["overlap_percent"]))
    return {key: statistics.median(values) for key, values in cells.items()}


def test_progress_tuning_has_a_write_up_whose_overlap_table_is_overlap_csv():
    text = (TUNING / "README.md").read_text()
    medians = overlap_medians()
    columns = [(t, m) for t in ("full", "moore") for m in (4096, 65536, 1048576)]
    checked, library, param_set = 0, None, None
    for cells in markdown_table(text, "## Overlap, against the floor"):
        if cells[0]:  # "Open MPI `tcp`", "MPICH `default`"; the row after it has none
            library = "openmpi" if cells[0].startswith("Open MPI") else "mpich"
            param_set = cells[0].split("`")[1]
        which = "blocking" if cells[1].startswith("blocking") else "overlapping"
        for (topology, msize), cell in zip(columns, cells[2:]):
            assert round(medians[(library, param_set, which, topology, msize)]) == number(cell), (cells, topology, msize)
            checked += 1
    assert checked == 5 * 2 * 6


def test_progress_tuning_verdict_heal_and_cost_tables_are_its_csvs():
    text = (TUNING / "README.md").read_text()
    summary = rows(TUNING / "summary.csv")
    decided = {}
    for r in summary:
        key = (r["tag"], r["library"], r["param_set"])
        counts = decided.get(key, (0, 0, 0))
        decided[key] = tuple(c + int(r[k]) for c, k in zip(counts, ("n_vio_tests", "n_holds_tests", "n_open_tests")))
    sets = [("openmpi", "default"), ("openmpi", "tcp"), ("openmpi", "tcp_progress_thread"), ("mpich", "default"),
            ("mpich", "async_progress")]
    for cells in markdown_table(text, "## What is decided"):
        tag = cells[0].split()[0]
        assert cells[1:] == ["/".join(str(n) for n in decided[(tag, lib, s)]) for lib, s in sets]
    total = [sum(int(r[k]) for r in summary) for k in ("n_vio_tests", "n_holds_tests", "n_open_tests", "n_tests")]
    assert f"{total[0]} violated, {total[1]} hold, {total[2]} open of {total[3]} tests" in " ".join(text.split())
    heal = {r["param_set"]: r for r in rows(TUNING / "heal_sets.csv")}
    for cells in markdown_table(text, "What becomes of the violations of `default` under each set"):
        # hold + open under the set are heal_sets.csv's removed (not violated under the set)
        h = heal[cells[0].strip("`")]
        assert [cells[1], str(int(cells[2]) + int(cells[3]))] + cells[4:7] == [
            h["ref_violations"], h["removed"], h["kept"], h["added"], f"{h['cells_slower']} of {h['cells']}"], cells
        assert cells[7] == h["cells_faster"]
    cost = {r["param_set"]: r for r in rows(TUNING / "overlap_sets.csv")}
    for cells in markdown_table(text, "## What the switches cost"):
        c = cost[cells[0].strip("`")]
        assert cells[1] == f"{round(float(c['median_overlap']))} % ({round(float(c['reference_median_overlap']))} %)"
        assert cells[2:] == [f"{float(c['median_pure_ratio']):.2f}×", f"{float(c['median_ovl_ratio']):.2f}×"]


def test_the_mpich_progress_thread_is_quoted_with_its_blocking_floor():
    medians = overlap_medians()
    floor = [round(medians[("mpich", "async_progress", "blocking", "full", m)]) for m in (4096, 65536)]
    overlap = [round(medians[("mpich", "async_progress", "overlapping", "full", m)]) for m in (4096, 65536)]
    text = " ".join((EXAMPLES / "progress" / "README.md").read_text().split())
    section = text[text.index("MPICH's progress thread"):]
    section = section[:section.index("- Intel MPI")]
    assert f"{overlap[0]} % on Full at 4 KiB, {overlap[1]} % at 64 KiB" in section
    assert f"read {floor[0]} % and {floor[1]} % on Full at 4 and 64 KiB" in section


def test_mpich5_against_mpich4_is_said_in_numbers():
    ratios = sorted(float(r["ratio"]) for r in rows(EXAMPLES / "releases" / "mpich5-vs-mpich" / "regressions.csv"))
    text = " ".join((EXAMPLES / "releases" / "README.md").read_text().split())
    assert "orders of magnitude" not in text
    said = f"{statistics.median(ratios):.1f}x MPICH 4.0's time, {ratios[0]:.1f}x to {ratios[-1]:.1f}x"
    assert said in text, said


def test_no_write_up_denies_an_environment_that_is_shipped():
    shipped = {path.name for path in (ROOT / "env").iterdir()}
    assert {"local-intelmpi", "slurm-intelmpi"} <= shipped
    for path in [*EXAMPLES.rglob("README.md"), *(ROOT / "campaigns").rglob("campaign.conf")]:
        text = " ".join(line.lstrip("# ") for line in path.read_text().splitlines())
        assert not re.search(r"no Intel MPI environment is shipped", text), path

"""docs/examples/arrival/README.md quotes the files beside it: the decision
table is summary.csv (violated / hold / open per guideline and context),
the start-skew table the medians of start_skew.csv's trials, and the other
process's extra times arrival.csv's range; its claims.csv covers the prose
(test_example_claims.py)."""
import csv
import pathlib
import statistics

from markdown_tables import markdown_table

ROOT = pathlib.Path(__file__).resolve().parents[2]
ARRIVAL = ROOT / "docs" / "examples" / "arrival"
TEXT = (ARRIVAL / "README.md").read_text()
NAMES = {"Open MPI 4.1.4": "openmpi", "MPICH 4.0.2": "mpich", "Open MPI 5.0.11": "openmpi5",
         "MPICH 5.0.2": "mpich5", "Intel MPI 2021.19": "intelmpi"}
GUIDELINES = {"AR1 uniform, d = 0.1 ms (Bcast)": "uniform,arrival_us=100 <= plus(none; delay)",
              "AR1 uniform, d = 1 ms": "uniform,arrival_us=1000 <= plus(none; delay)",
              "AR1 uniform, d = 10 ms (Bcast)": "uniform,arrival_us=10000 <= plus(none; delay)",
              "AR1 one_late, d = 5 ms": "one_late <= plus(none; delay)",
              "AR2 others(one_late) ⪯ others(none)": "others(one_late) <= others(none)",
              "P2P neighbor_alltoall ⪯ p2p_alltoall": "neighbor_alltoall <= p2p_alltoall"}


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_the_decision_table_is_summary_csv():
    """Each cell is `violated/hold/open` of the context's tests; the header
    names the contexts; every context of summary.csv is in the table."""
    summary = {(r["guideline"], r["library"], r["deployment"]):
               f"{r['n_vio_tests']}/{r['n_holds_tests']}/{r['n_open_tests']}"
               for r in rows(ARRIVAL / "summary.csv")}
    lines = TEXT[TEXT.index("## 1. What is decided"):].splitlines()
    header = next(line for line in lines if line.startswith("|"))
    contexts = [tuple(cell.split()) for cell in (c.strip() for c in header.strip("|").split("|")[1:])]
    assert {(library, deployment) for _, library, deployment in summary} == set(contexts)
    quoted = markdown_table(TEXT, "## 1. What is decided", unbold=True)
    assert [row[0] for row in quoted] == list(GUIDELINES)
    for row in quoted:
        for (library, deployment), cell in zip(contexts, row[1:], strict=True):
            assert cell == summary.get((GUIDELINES[row[0]], library, deployment), ""), \
                (row[0], library, deployment, cell)
    # Not vacuous: AR2 is tested in every library at 1x4.
    assert all(summary[GUIDELINES["AR2 others(one_late) ⪯ others(none)"], library, "1x4"] != "0/0/0"
               for library, deployment in contexts if deployment == "1x4")


def test_the_start_skew_table_is_the_median_of_start_skew_csv_trials():
    trials = rows(ARRIVAL / "start_skew.csv")
    columns = ["barrier_skew_median_us", "barrier_skew_p95_us", "clock_skew_median_us", "clock_skew_p95_us",
               "clock_late_percent", "model_lateness_median_us", "resolution_us"]
    library, seen = None, 0
    for row in markdown_table(TEXT, "## 3. The start", unbold=True):
        library = NAMES.get(row[0], library)
        mine = [r for r in trials if r["library"] == library and r["processes"] == row[1]]
        assert len(mine) == 3, (library, row[1])
        for column, cell in zip(columns, row[2:], strict=True):
            median = statistics.median(float(r[column]) for r in mine)
            assert abs(median - float(cell)) <= 0.05 * median + 0.01, (library, row[1], column, median, cell)
        seen += 1
    assert seen == len({(r["library"], r["processes"]) for r in trials})


def test_the_other_process_extra_times_are_arrival_csv():
    extra = {}
    for r in rows(ARRIVAL / "arrival.csv"):
        if r["role"] == "other":
            extra.setdefault((r["library"], r["sync"]), []).append(float(r["extra_us"]))

    def quoted(text, unit):
        """(value in us, half a unit of its last digit in us)."""
        value = text.replace("−", "-")
        digits = len(value.split(".")[1]) if "." in value else 0
        scale = 1000 if unit == "ms" else 1
        return float(value) * scale, 0.5 * 10 ** -digits * scale

    table = markdown_table(TEXT, "## 2. Where the delay went", unbold=True)
    assert {NAMES[row[0]] for row in table} == {library for library, _ in extra}
    for row in table:
        library = NAMES[row[0]]
        for sync, cell in zip(("barrier", "clock"), row[1:3]):
            low, high = cell.split(" to ")
            value, unit = high.split()
            low = quoted(low.split()[0], low.split()[1] if " " in low else unit)
            high = quoted(value, unit)
            values = extra[library, sync]
            assert abs(min(values) - low[0]) <= low[1] and abs(max(values) - high[0]) <= high[1], \
                (library, sync, min(values), max(values), cell)

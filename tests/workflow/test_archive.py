"""What the archive takes of a resumed run's attempts (workflow/archive.py,
docs/archive.md "results/"): each experiment round's rows of the side
tables from the attempt its results were taken from (a round measured again
after its rows were rejected is there once), the order each round was
measured in (RUN.order.csv), and every kernel file of every attempt in
attempts/. Hand-made kernel files: no kernel runs here."""
import csv
import dataclasses

from workflow import archive
from workflow.result_rows import Expected

# Experiments 1 and 2, nrep 4 in 2 rounds (2 rows each).
EXPECTED = Expected({1: 4, 2: 4}, {1: 2, 2: 2})
RESULTS = "id,rep,round,seconds,work_seconds"
PREPARATION = "id,round,op,reps"


@dataclasses.dataclass
class Status:
    run_id: str
    attempts: list
    total: int = 2


def rows(ident, round_number, seconds="1.0e-05"):
    first = 2 * (round_number - 1)
    return [f"{ident},{first + k},{round_number},{seconds},0" for k in range(2)]


def attempt(tmp_path, number, files):
    """An attempt whose kernel wrote FILES ({suffix: lines after the header, with the header first})."""
    prefix = str(tmp_path / "work" / f"r001.a{number}")
    (tmp_path / "work").mkdir(exist_ok=True)
    for suffix, lines in files.items():
        with open(prefix + suffix, "w") as f:
            f.write("\n".join(lines) + "\n")
    return {"attempt": number, "prefix": prefix, "run_id": "r001", "input": prefix + ".input.csv",
            "job": prefix + ".sh"}


def table(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def two_attempts(tmp_path):
    """Attempt 1 measured round 1 of both experiments (2 before 1) and round
    2 of experiment 1, whose rows came out damaged (a rep twice, so the
    round is rejected, its preparation and warm-up rows written); attempt 2
    (the resume: first_round 2 for both) measured round 2 of both, 1 before
    2."""
    first = attempt(tmp_path, 1, {
        ".results.csv": [RESULTS, *rows(2, 1), *rows(1, 1), "1,2,2,1.0e-05,0", "1,2,2,1.0e-05,0"],
        ".preparation.csv": [PREPARATION, "2,1,x,2", "1,1,x,2", "1,2,x,2"],
        ".warmup.csv": ["id,round,rep,seconds,work_seconds", "2,1,0,1e-05,0", "1,1,0,1e-05,0", "1,2,1,1e-05,0"],
        ".seeds.csv": ["id,rank,seed", "1,0,11", "2,0,22"],
        ".delays.csv": ["id,round,rank,attempt,rep,delay_us", "1,1,0,0,0,1.5", "1,2,0,0,2,2.5"]})
    second = attempt(tmp_path, 2, {
        ".results.csv": [RESULTS, *rows(1, 2, "3.0e-05"), *rows(2, 2, "3.0e-05")],
        ".preparation.csv": [PREPARATION, "1,2,x,2", "2,2,x,2"],
        ".warmup.csv": ["id,round,rep,seconds,work_seconds", "1,2,1,3e-05,0", "2,2,1,3e-05,0"],
        ".seeds.csv": ["id,rank,seed", "1,0,11", "2,0,22"],
        ".delays.csv": ["id,round,rank,attempt,rep,delay_us", "1,2,0,0,2,3.5"]})
    return Status("r001", [(first, None, []), (second, None, [])])


def test_side_tables_take_each_round_from_the_attempt_its_results_came_from(tmp_path):
    status = two_attempts(tmp_path)
    target = tmp_path / "results"
    target.mkdir()
    taken = archive.results_of(status, target, EXPECTED)
    assert taken.done == {1, 2}
    results = table(target / "r001.results.csv")
    source = {(r["id"], r["round"]): r["seconds"] for r in results}
    assert source == {("1", "1"): "1.0e-05", ("2", "1"): "1.0e-05", ("1", "2"): "3.0e-05",
                      ("2", "2"): "3.0e-05"}, "round 1 from attempt 1, round 2 from attempt 2"
    prep = [(r["id"], r["round"]) for r in table(target / "r001.preparation.csv")]
    assert sorted(prep) == [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")], "every experiment round once"
    warmup = {(r["id"], r["round"]): r["seconds"] for r in table(target / "r001.warmup.csv")}
    assert warmup == {("1", "1"): "1e-05", ("2", "1"): "1e-05", ("1", "2"): "3e-05", ("2", "2"): "3e-05"}, \
        "each round's warm-up from the attempt whose results were kept"
    assert len(table(target / "r001.seeds.csv")) == 2
    delays = {(r["id"], r["round"]): r["delay_us"] for r in table(target / "r001.delays.csv")}
    assert delays == {("1", "1"): "1.5", ("1", "2"): "3.5"}, "delays.csv is kept, each round from its attempt"


def test_the_order_of_each_round_is_kept(tmp_path):
    status = two_attempts(tmp_path)
    target = tmp_path / "results"
    target.mkdir()
    archive.results_of(status, target, EXPECTED)
    order = [{k: int(v) for k, v in r.items()} for r in table(target / "r001.order.csv")]
    assert order == [{"round": 1, "attempt": 1, "position": 1, "id": 2},
                     {"round": 1, "attempt": 1, "position": 2, "id": 1},
                     {"round": 2, "attempt": 2, "position": 1, "id": 1},
                     {"round": 2, "attempt": 2, "position": 2, "id": 2}], \
        "round 1 as attempt 1 measured it, round 2 as attempt 2 did (attempt 1's rejected rows of it not)"


def test_measured_order_reads_the_rows_order(tmp_path):
    path = tmp_path / "x.results.csv"
    path.write_text("\n".join([RESULTS, *rows(5, 1), *rows(3, 1), *rows(3, 2), *rows(5, 2), "5,9"]) + "\n")
    assert archive.measured_order(str(path)) == {1: [5, 3], 2: [3, 5]}
    path.write_text("id,rep,seconds\n4,0,1e-05\n2,0,1e-05\n4,1,1e-05\n")
    assert archive.measured_order(str(path)) == {1: [4, 2]}, "a kernel before the rounds: round 1"


class Workspace:
    def __init__(self, tmp_path):
        self.tmp_path = tmp_path

    def record(self, run_id, number):
        return self.tmp_path / "work" / f"{run_id}.a{number}.json"

    def start_file(self, run_id, number):
        return self.tmp_path / "work" / f"{run_id}.a{number}.start"


def test_attempt_files_keep_every_kernel_file_of_a_resumed_run(tmp_path):
    status = two_attempts(tmp_path)
    for record, _, _ in status.attempts:
        for suffix in (".lists.csv", ".ranks.csv", ".findings.csv", ".reorder.csv", ".cvars.csv", ".prov.json"):
            with open(record["prefix"] + suffix, "w") as f:
                f.write("x\n")
    archive.attempt_files(Workspace(tmp_path), status, tmp_path / "archived")
    kept = {p.name for p in (tmp_path / "archived" / "attempts").iterdir()}
    for number in (1, 2):
        for suffix in archive.KERNEL_FILES:
            assert f"r001.a{number}{suffix}" in kept, suffix
    assert {".warmup.csv", ".delays.csv"} <= set(archive.KERNEL_FILES)

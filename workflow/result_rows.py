"""What a row of a kernel results file must be, checked at archive time
(docs/archive.md, "Checked rows").

PREFIX.results.csv is `id,rep,round,seconds,work_seconds` (runs with
arrival patterns: `...,delay_seconds` after it; kernels before the
interleaved rounds: `id,rep,seconds,work_seconds`, and before the measured
busy work `id,rep,seconds`), written round by round (docs/kernel.md): an
experiment with `blocks` rounds has its rows in rounds 1..blocks, each
round's rows whole, nrep in all. check_results reads one such file and
sorts every line into taken or rejected:

  malformed   not the header's fields `INTEGER,INTEGER[,INTEGER],NUMBER[,NUMBER[,NUMBER]]`;
              an id the experiment table does not have; a rep outside
              0..nrep-1 or given twice; a round outside 1..blocks; seconds
              not a finite positive number, work_seconds or delay_seconds
              not a finite number >= 0. The run is damaged: it is archived
              as such and the analyzer leaves it out.
  cut off     an experiment without all its rows (a round missing, or a
              round with fewer rows than it keeps), or a last line without
              its newline: what a killed kernel can leave. Left out (a
              resume reruns it), not damage.

The rows an experiment keeps in a round: its share of nrep (nrep / blocks,
the first nrep mod blocks rounds one more; kernel/rounds.c), or, where the
kernel's PREFIX.preparation.csv says it kept fewer (a clock start whose
repetitions missed their windows: column reps), that many.

Every rejected line is kept, with its reason, in results/RUN.rejected.csv.
"""
import collections
import csv
import dataclasses
import io
import math
import re

import numpy as np
import pandas as pd

HEADER = "id,rep,round,seconds,work_seconds"
DELAY_HEADER = "id,rep,round,seconds,work_seconds,delay_seconds"
UNROUNDED_HEADER = "id,rep,seconds,work_seconds"        # kernels before the interleaved rounds
UNROUNDED_DELAY_HEADER = "id,rep,seconds,work_seconds,delay_seconds"
OLD_HEADER = "id,rep,seconds"                           # kernels before the measured busy work
HEADERS = (HEADER, DELAY_HEADER, UNROUNDED_HEADER, UNROUNDED_DELAY_HEADER, OLD_HEADER)


def integer_columns(header):
    """The leading integer columns of a header: id, rep[, round]."""
    return 3 if header.startswith("id,rep,round,") else 2


def _row_pattern(header):
    fields = header.count(",") + 1
    k = integer_columns(header)
    return re.compile(",".join([r"(\d+)"] * k + [r"([^,]+)"] * (fields - k)))


def _body_pattern(header):
    fields = header.count(",") + 1
    k = integer_columns(header)
    return re.compile(r"(?:" + ",".join([r"\d+"] * k + [r"[0-9.eE+-]+"] * (fields - k)) + r"\n)*")


ROW = {h: _row_pattern(h) for h in HEADERS}
BODY = {h: _body_pattern(h) for h in HEADERS}


def measured_columns(header):
    """The columns after seconds: work_seconds, delay_seconds (what the header has)."""
    names = header.split(",")
    return names[names.index("seconds") + 1:]


@dataclasses.dataclass
class Expected:
    """What the experiment table says every experiment's rows must be."""
    nrep: dict     # id -> nrep
    blocks: dict   # id -> rounds (1 for tables before the interleaved rounds)

    @classmethod
    def of(cls, experiments):
        """From the rows of experiments.csv (dicts of text)."""
        return cls({int(r["id"]): int(r["nrep"]) for r in experiments},
                   {int(r["id"]): int(r.get("blocks") or 1) for r in experiments})

    def all_rounds(self, ident):
        """The rounds experiment IDENT has: 1..blocks."""
        return set(range(1, self.blocks[ident] + 1))

    def share(self, ident, round_number):
        """The rows experiment IDENT has in round ROUND_NUMBER (kernel/rounds.c)."""
        nrep, blocks = self.nrep[ident], self.blocks[ident]
        return nrep // blocks + (round_number - 1 < nrep % blocks)


def kept_rows(prefix):
    """{(id, round): rows} where the kernel's PREFIX.preparation.csv says how
    many repetitions it kept (column reps); {} without."""
    try:
        with open(prefix + ".preparation.csv", encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return {}
    kept = {}
    for row in rows:
        try:
            kept[int(row["id"]), int(row.get("round") or 1)] = int(row["reps"])
        except (KeyError, TypeError, ValueError):
            continue
    return kept


def complete_rounds(rows_of, expected, kept, rounded):
    """{id: the rounds of it that ROWS_OF ({id: {round: rows}}) has whole,
    each with the rows it keeps}; without rounds (ROUNDED false) round 1 of
    an experiment with its nrep rows."""
    whole = {}
    for ident, rounds in rows_of.items():
        if ident not in expected.nrep:
            continue
        if not rounded:
            whole[ident] = {1} if sum(rounds.values()) == expected.nrep[ident] else set()
            continue
        whole[ident] = {r for r, n in rounds.items()
                        if 1 <= r <= expected.blocks[ident] and n == kept.get((ident, r), expected.share(ident, r))}
    return whole


def complete_ids(rows_of, expected, kept, rounded):
    """The ids of ROWS_OF ({id: {round: rows}}) whose rounds are all there
    and whole (complete_rounds), in the order of ROWS_OF."""
    whole = complete_rounds(rows_of, expected, kept, rounded)
    return [i for i in rows_of if i in whole and expected.all_rounds(i) <= whole[i]]


@dataclasses.dataclass
class Rejected:
    path: str
    line: int
    text: str
    reason: str
    malformed: bool  # False: cut off


@dataclasses.dataclass
class CheckedResults:
    rows: dict                     # id -> its lines, complete experiments only
    complete: list                 # their ids, in file order
    rejected: list                 # [Rejected]
    header: str = HEADER           # the file's header (one of HEADERS)
    rounds: dict = dataclasses.field(default_factory=dict)  # id -> {round: its lines}, whole rounds only

    @property
    def malformed(self):
        return [r for r in self.rejected if r.malformed]


def _row_problem(match, expected, seen, rounded):
    """Why a line that has the shape of the header is still wrong, or None."""
    ident, rep = int(match.group(1)), int(match.group(2))
    round_number = int(match.group(3)) if rounded else 1
    first_time = 4 if rounded else 3
    seconds = match.group(first_time)
    try:
        value = float(seconds)
    except ValueError:
        return f"seconds '{seconds}' is not a number"
    if not math.isfinite(value) or value <= 0:
        return f"seconds {seconds} is not a positive time"
    for k, column in enumerate(("work_seconds", "delay_seconds")[:match.re.groups - first_time]):
        text = match.group(first_time + 1 + k)
        try:
            value = float(text)
        except ValueError:
            return f"{column} '{text}' is not a number"
        if not math.isfinite(value) or value < 0:
            return f"{column} {text} is not a time >= 0"
    if ident not in expected.nrep:
        return f"experiment id {ident} is not in experiments.csv"
    if rep >= expected.nrep[ident]:
        return f"rep {rep} is outside 0..{expected.nrep[ident] - 1} (nrep {expected.nrep[ident]})"
    if not 1 <= round_number <= expected.blocks[ident]:
        return f"round {round_number} is outside 1..{expected.blocks[ident]} (blocks {expected.blocks[ident]})"
    if rep in seen[ident]:
        return f"rep {rep} of experiment {ident} appears twice"
    return None


def _clean(text, lines, expected, kept):
    """CheckedResults of a file with nothing to reject, found with pandas
    (a study-sized run in tens of milliseconds); None if there may be
    something to reject, which the line-by-line check then names."""
    header = lines[0]
    if (header not in BODY or lines[-1] != "" or len(lines) < 3
            or not BODY[header].fullmatch(text, len(header) + 1)):
        return None
    rounded = integer_columns(header) == 3
    try:
        table = pd.read_csv(io.StringIO(text), dtype={"id": "int64", "rep": "int64", "round": "int64",
                                                      "seconds": "float64", "work_seconds": "float64",
                                                      "delay_seconds": "float64"},
                            engine="c")
    except (ValueError, OverflowError):
        return None
    nrep = table["id"].map(expected.nrep)
    seconds = table["seconds"].to_numpy()
    measured = [table[c].to_numpy() for c in measured_columns(header)]
    if (nrep.isna().any() or (table["rep"] >= nrep).any() or not np.isfinite(seconds).all()
            or (seconds <= 0).any() or any(not np.isfinite(m).all() or (m < 0).any() for m in measured)
            or table.duplicated(["id", "rep"]).any()):
        return None
    if rounded and ((table["round"] < 1) | (table["round"] > table["id"].map(expected.blocks))).any():
        return None
    rounds = table["round"] if rounded else pd.Series(1, index=table.index)
    counts = table.groupby([table["id"], rounds], sort=False).size()
    rows_of = collections.defaultdict(dict)
    for (ident, round_number), n in counts.items():
        rows_of[int(ident)][int(round_number)] = int(n)
    if len(complete_ids(rows_of, expected, kept, rounded)) != len(rows_of):
        return None   # a cut round (or experiment): the line-by-line check says which
    rows = collections.defaultdict(list)
    by_round = collections.defaultdict(lambda: collections.defaultdict(list))
    for ident, round_number, line in zip(table["id"].tolist(), rounds.tolist(), lines[1:-1]):
        rows[ident].append(line)
        by_round[ident][round_number].append(line)
    return CheckedResults(dict(rows), list(rows), [], header, {i: dict(r) for i, r in by_round.items()})


def check_results(path, expected, kept=None):
    """The rows of results file PATH (str) sorted into complete experiments
    and rejected lines; EXPECTED (Expected) says what each experiment's rows
    must be, KEPT ({(id, round): rows}, kept_rows) where the kernel kept fewer."""
    kept = kept or {}
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    lines = text.split("\n")
    clean = _clean(text, lines, expected, kept)
    if clean is not None:
        return clean
    rejected = []
    header = lines[0] if lines[0] in ROW else HEADER
    if lines[0] != header and text:
        rejected.append(Rejected(path, 1, lines[0], f"the header is not {HEADER} (or "
                                 f"{', '.join(HEADERS[1:-1])} or {OLD_HEADER})", True))
    last = lines[-1]  # after the final newline: empty, or a line cut off
    if last and len(lines) > 1:
        rejected.append(Rejected(path, len(lines), last, "the last line has no newline (cut off)", False))
    rounded = integer_columns(header) == 3
    seen = collections.defaultdict(set)
    taken = collections.defaultdict(list)
    rows_of = collections.defaultdict(collections.Counter)
    round_of = {}
    for number, line in enumerate(lines[1:-1], start=2):
        match = ROW[header].fullmatch(line)
        problem = f"not {header}" if not match else _row_problem(match, expected, seen, rounded)
        if problem:
            rejected.append(Rejected(path, number, line, problem, True))
            continue
        ident, rep = int(match.group(1)), int(match.group(2))
        seen[ident].add(rep)
        taken[ident].append((number, line))
        round_of[number] = int(match.group(3)) if rounded else 1
        rows_of[ident][round_of[number]] += 1
    whole = complete_rounds(rows_of, expected, kept, rounded)
    complete = {i for i in taken if expected.all_rounds(i) <= whole.get(i, set())}
    for ident in taken:
        if ident not in complete:
            # whole rounds of an unfinished experiment: a resumed attempt measures its other rounds
            cut = [(number, line) for number, line in taken[ident] if round_of[number] not in whole.get(ident, ())]
            for number, line in cut:
                r = round_of[number]
                reason = (f"experiment {ident}: round {r} has {rows_of[ident][r]} of its "
                          f"{kept.get((ident, r), expected.share(ident, r))} rows (cut off)" if rounded else
                          f"experiment {ident} has {rows_of[ident][r]} of its {expected.nrep[ident]} rows (cut off)")
                rejected.append(Rejected(path, number, line, reason, False))
    rejected.sort(key=lambda r: r.line)
    ordered = [i for i in taken if i in complete]
    by_round = {}
    for ident in taken:
        for number, line in taken[ident]:
            if round_of[number] in whole.get(ident, ()):
                by_round.setdefault(ident, {}).setdefault(round_of[number], []).append(line)
    return CheckedResults({i: [line for _, line in taken[i]] for i in ordered}, ordered, rejected, header, by_round)


def as_header(line, header, target):
    """A results LINE of a file with HEADER as a line of TARGET's columns (a
    merge of attempts by different kernels): a missing round is 1, a
    missing measured time empty."""
    values = dict(zip(header.split(","), line.split(",")))
    values.setdefault("round", "1")
    return ",".join(values.get(name, "") for name in target.split(","))

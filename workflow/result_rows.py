"""What a row of a kernel results file must be, checked at archive time
(docs/archive.md, "Checked rows").

PREFIX.results.csv is `id,rep,seconds,work_seconds` (kernels before the
measured busy work: `id,rep,seconds`; runs with arrival patterns:
`id,rep,seconds,work_seconds,delay_seconds`) with nrep rows per finished
experiment (docs/kernel.md). check_results reads one such file and sorts
every line into taken or rejected:

  malformed   not the header's fields `INTEGER,INTEGER,NUMBER[,NUMBER[,NUMBER]]`; an
              id the experiment table does not have; a rep outside
              0..nrep-1 or given twice; seconds not a finite positive
              number, work_seconds or delay_seconds not a finite number >= 0. The run is damaged: it
              is archived as such and the analyzer leaves it out.
  cut off     an experiment with fewer than nrep rows, or a last line without
              its newline: what a killed kernel can leave on file systems
              without atomic appends. Left out (a resume reruns it), not damage.

Every rejected line is kept, with its reason, in results/RUN.rejected.csv.
"""
import collections
import dataclasses
import io
import math
import re

import numpy as np
import pandas as pd

HEADER = "id,rep,seconds,work_seconds"
OLD_HEADER = "id,rep,seconds"
DELAY_HEADER = "id,rep,seconds,work_seconds,delay_seconds"
HEADERS = (OLD_HEADER, HEADER, DELAY_HEADER)
ROW = {h: re.compile(r"(\d+),(\d+)" + r",([^,]+)" * (h.count(",") - 1)) for h in HEADERS}
BODY = {h: re.compile(r"(?:\d+,\d+" + r",[0-9.eE+-]+" * (h.count(",") - 1) + r"\n)*") for h in HEADERS}


def measured_columns(header):
    """The columns after seconds: work_seconds, delay_seconds (what the header has)."""
    return header.split(",")[3:]


@dataclasses.dataclass
class Rejected:
    path: str
    line: int
    text: str
    reason: str
    malformed: bool  # False: cut off


@dataclasses.dataclass
class CheckedResults:
    rows: dict                     # id -> its nrep lines, complete experiments only
    complete: list                 # their ids, in file order
    rejected: list                 # [Rejected]
    header: str = HEADER           # the file's header (HEADER or OLD_HEADER)

    @property
    def malformed(self):
        return [r for r in self.rejected if r.malformed]


def _row_problem(match, nrep_of, seen):
    """Why a line that has the shape id,rep,seconds[,work_seconds] is still wrong, or None."""
    ident, rep, seconds = int(match.group(1)), int(match.group(2)), match.group(3)
    try:
        value = float(seconds)
    except ValueError:
        return f"seconds '{seconds}' is not a number"
    if not math.isfinite(value) or value <= 0:
        return f"seconds {seconds} is not a positive time"
    for k, column in enumerate(("work_seconds", "delay_seconds")[:match.re.groups - 3]):
        text = match.group(4 + k)
        try:
            value = float(text)
        except ValueError:
            return f"{column} '{text}' is not a number"
        if not math.isfinite(value) or value < 0:
            return f"{column} {text} is not a time >= 0"
    if ident not in nrep_of:
        return f"experiment id {ident} is not in experiments.csv"
    if rep >= nrep_of[ident]:
        return f"rep {rep} is outside 0..{nrep_of[ident] - 1} (nrep {nrep_of[ident]})"
    if rep in seen[ident]:
        return f"rep {rep} of experiment {ident} appears twice"
    return None


def _clean(text, lines, nrep_of):
    """CheckedResults of a file with nothing to reject, found with pandas
    (a study-sized run in tens of milliseconds); None if there may be
    something to reject, which the line-by-line check then names."""
    header = lines[0]
    if (header not in BODY or lines[-1] != "" or len(lines) < 3
            or not BODY[header].fullmatch(text, len(header) + 1)):
        return None
    try:
        table = pd.read_csv(io.StringIO(text), dtype={"id": "int64", "rep": "int64", "seconds": "float64",
                                                      "work_seconds": "float64", "delay_seconds": "float64"},
                            engine="c")
    except (ValueError, OverflowError):
        return None
    nrep = table["id"].map(nrep_of)
    seconds = table["seconds"].to_numpy()
    measured = [table[c].to_numpy() for c in measured_columns(header)]
    if (nrep.isna().any() or (table["rep"] >= nrep).any() or not np.isfinite(seconds).all()
            or (seconds <= 0).any() or any(not np.isfinite(m).all() or (m < 0).any() for m in measured)
            or table.duplicated(["id", "rep"]).any()):
        return None
    counts = table.groupby("id", sort=False).size()
    if (counts != counts.index.map(nrep_of)).any():
        return None
    rows = collections.defaultdict(list)
    for ident, line in zip(table["id"].tolist(), lines[1:-1]):
        rows[ident].append(line)
    return CheckedResults(dict(rows), list(rows), [], header)


def check_results(path, nrep_of):
    """The rows of results file PATH (str) sorted into complete experiments
    and rejected lines; NREP_OF maps each experiment id to its nrep."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    lines = text.split("\n")
    clean = _clean(text, lines, nrep_of)
    if clean is not None:
        return clean
    rejected = []
    header = lines[0] if lines[0] in ROW else HEADER
    if lines[0] != header and text:
        rejected.append(Rejected(path, 1, lines[0], f"the header is not {HEADER} (or {OLD_HEADER}, or "
                                 f"{DELAY_HEADER})", True))
    last = lines[-1]  # after the final newline: empty, or a line cut off
    if last and len(lines) > 1:
        rejected.append(Rejected(path, len(lines), last, "the last line has no newline (cut off)", False))
    seen = collections.defaultdict(set)
    taken = collections.defaultdict(list)
    for number, line in enumerate(lines[1:-1], start=2):
        match = ROW[header].fullmatch(line)
        problem = f"not {header}" if not match else _row_problem(match, nrep_of, seen)
        if problem:
            rejected.append(Rejected(path, number, line, problem, True))
            continue
        ident, rep = int(match.group(1)), int(match.group(2))
        seen[ident].add(rep)
        taken[ident].append((number, line))
    complete = [i for i in taken if len(seen[i]) == nrep_of[i]]
    for ident in taken:
        if len(seen[ident]) != nrep_of[ident]:
            reason = f"experiment {ident} has {len(seen[ident])} of its {nrep_of[ident]} rows (cut off)"
            rejected += [Rejected(path, number, line, reason, False) for number, line in taken[ident]]
    rejected.sort(key=lambda r: r.line)
    return CheckedResults({i: [line for _, line in taken[i]] for i in complete}, complete, rejected, header)

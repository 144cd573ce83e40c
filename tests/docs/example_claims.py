"""Checking what a write-up under docs/examples says against the files
shipped beside it.

Each example folder holds a claims.csv beside its README.md, one row per
number or verdict word the README states:

    id,text,source,where,measure,expected

- id: unique in the file; named in every failure.
- text: a phrase exactly as README.md has it (line breaks and runs of
  spaces count as one space), found there exactly once; a table row may be
  claimed by its whole line ("| AR2 | openmpi | 1x4 | 0 | 16 | 0 |").
  `expected` must be written in it as a whole number ("2" is not in
  "12 tests", "0" not in "10") or a whole word.
- source: a file relative to the example folder, or a glob of files
  (`*/provenance/*/archive.json`) read together with a `file` column:
  CSV (tests.csv, demo/fixed/summary.csv, ...), JSON (one object is one
  row, nested keys joined by dots: `settings.nrun`; a list of objects is
  rows; `archive.json#param_set_check`: the list under that key), SQLite
  (`history.db#entries`: a table), or any other text file for `match:`
  (which reads any file as text). Empty for `calc:`.
- where: a pandas DataFrame.query expression selecting the rows (empty: all).
- measure: what the selected rows give:
  count | count_decision:violated|holds|open|decided (decided: violated or
  holds; on a table from before decisions, violated counts its `violated`
  TRUE rows) | sum:X | min:X | max:X | median:X | value:X (exactly one row) |
  all:X (the one value every row has; a mixture fails) |
  prefer:A|B[|C] (the selected tests each ask "A ⪯ B": A where none is
  violated and at least half hold, B where none holds and at least half
  are violated, C ("neither") otherwise; for a recommendation such as
  "subarray in 2-D", or "the data cannot decide") |
  match:REGEX (a text source: the first group of REGEX's first match; with
  a where, that arithmetic over its groups g1, g2, ...: minutes between
  two times of a log) |
  calc:EXPR (no source: arithmetic that a sentence derives from other
  claimed numbers, e.g. `1 / comb(14, 7)`).
  sum:, min:, max: and median: also take `INNER(X) per COL COL ...`: X
  aggregated by INNER (sum, min, max, median, count) within each group of
  the columns (or expressions without spaces: `op.str.endswith('_init')`),
  then over the groups ("the median width per guideline,
  library and deployment is 1.04–1.55":
  `min:median(ratio_ci_high / ratio_ci_low) per guideline library deployment`).
  X is a column or a pandas eval expression over columns
  (`median_a_us / 1000`, `ratio_ci_high / ratio_ci_low`; a JSON key with
  dots in backticks: `` `settings.nrun` - 10 ``).
- expected: the figure as written in the text, compared at the precision it
  is written with ("1.33": within 0.005; "55": within 0.5; "2.7e-5": within
  0.05e-5; "2^-14", written 2⁻¹⁴, exactly); or a word: for a text column
  the word itself, and for the `decision` column a verdict word (VERDICTS)
  naming the decisions it stands for: "holds" or "removes" only where
  every selected test holds, "open" where every one is open.

A range written in a write-up ("1.27–1.50×", "−0.6 to 6.0 µs") is claimed
by min: and max: of one column over one selection: the population the
sentence names (write_up_coverage.py checks it, with every number and
verdict word of the write-up having a claim).
"""
import csv
import functools
import glob
import json
import math
import pathlib
import re
import sqlite3
from dataclasses import dataclass

import pandas as pd

COLUMNS = ["id", "text", "source", "where", "measure", "expected"]
DECISIONS = ("violated", "holds", "open", "decided")
AGGREGATES = ("sum", "min", "max", "median", "value", "all")
# AGG:INNER(X) per COL COL ...: e.g. the range of the per-group medians
PER = re.compile(r"(sum|min|max|median|count)\((.+)\) per ((?:\s*\S+)+)")
SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
# The words a write-up states a test's decision with, and the decisions
# each may stand for.
VERDICTS = {
    "violated": {"violated"}, "violation": {"violated"},
    "holds": {"holds"}, "hold": {"holds"}, "held": {"holds"},
    "removes": {"holds"}, "removed": {"holds"}, "remove": {"holds"},
    "open": {"open"}, "undecided": {"open"},
    "decided": {"violated", "holds"},
}
# A number as a write-up writes it: digits with decimals and an exponent
# (2.7e-5, 5.4·10⁻⁶, 2⁻¹⁴), a sign only where no word or digit precedes it
# (in "256-5792" the hyphen is a range's), and not part of a word or a
# name (GL7, 4bee9d1, r001, 99th, 4.1.4).
CANDIDATE = re.compile(r"[−-]?\d+(?:\.\d+)?(?:e[-+]?\d+(?![\w.])|[·×]10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+|⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?")
# The verdict words a write-up's prose must have a claim for.
VERDICT_WORDS = ("violated", "holds", "hold", "held", "open", "removes", "removed", "remove", "decided", "undecided")
WORD = re.compile(r"(?<![\w/-])(" + "|".join(sorted(VERDICT_WORDS, key=len, reverse=True)) + r")(?![\w/-])")


# What needs no claim: (what it is, its pattern, what in it: numbers and/or words).
ALLOWED = [
    ("a command or code block", r"```.*?```", "number word"),
    ("code: a command, setting or file name", r"`[^`]*`", "number word"),
    ("a link's target", r"\]\([^)\s]*\)", "number word"),
    ("a file name", r"[\w.-]*\d[\w.-]*\.(?:csv|md|png|pdf|html|txt|json|conf|sh|py|R|db|mtx|sha256)\b", "number"),
    ("a file name", r"\b[\w.-]+\.(?:csv|md|png|pdf|html|txt|json|conf|sh|py|R|db|mtx|sha256)\b", "word"),
    ("a date", r"\b\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?Z?)?(?:/\d{2}\b)?|(?<=, )(?:19|20)\d{2}(?=\))", "number"),
    ("a time of day", r"\b\d{2}:\d{2}(?::\d{2})?\b", "number"),
    ("a version",  # Open MPI 5 and 4.1.4, MPICH 5 / 4.0, (2021.19), Intel MPI 2021.19, Debian 12, v4.1.4
     r"\b(?:Open\s+MPIs?|MPICH|NEC\s+MPI)\s+(?:\d+\.\d+\.\d+|1\.10\b|[345](?:\.\d+)*)(?:\s+(?:and|or)\s+[345]\b)?\b"
     r"|(?:(?<=MPI [345] / )|(?<=MPICH [345] / ))[345]\.\d+\b|\bMVAPICH2?\s+\d+(?:\.\d+)*"
     r"|\bIntel\s+MPI\s+20\d\d(?:\.\d+)*\b|\(20\d\d\.\d+\)|\bMPI [34]\.\d\b"
     r"|\b(?:Debian|Python|Slurm|PostgreSQL|SQLite|gcc|glibc|R)\s+\d+(?:\.\d+)*\b|\bv?\d+\.\d+\.\d+(?:\.\d+)?\b",
     "number"),
    ("a deployment", r"\b\d+[×x]\d+\b", "number"),
    ("a setting: name=value", r"\b[A-Za-z_]\w*=[\w.-]+", "number"),
    ("equality: a ratio above or below 1", r"(?<=above )1\b(?!\.\d)|(?<=below )1\b(?!\.\d)", "number"),
    ("a name: rank 0, Variant 1, Variants 1 and 2", r"\brank \d+\b|\bVariants? \d+(?: and \d+)?\b", "number"),
    ("a name joining a number to a word", r"\b[\d⁰¹²³⁴⁵⁶⁷⁸⁹]+-(?=[A-Za-z])|(?<![\d.]e-)(?<=[A-Za-z]-)\d+\b", "number"),
    ("a reference to a section or an issue", r"§ ?\d+(?:\.\d+)*|\b(?:[Ss]ections?|[Ii]ssues?)\s+\d+(?:\.\d+)*\b|#\d+\b", "number"),
    ("a heading", r"(?m:^#+ [^\n]*$)", "number word"),
    ("a table's header row", r"(?m:^[ \t]*\|[^\n]*\|[ \t]*\n(?=[ \t]*\|[-| :]+\|[ \t]*$))", "word"),
    ("a verdict word as a term: *open*, **holds**, *removes*, \"holds\", the legend violated, holds or "
     "open, a definition (holds: ...), the hold ratio",
     r"\*{1,2}(?:violated|holds?|open|decided|removes?|removed)\*{1,2}|\bviolated,\s+holds?,?\s+(?:or\s+|and\s+)?open\b|\bviolated\s+/\s+holds?\s+/\s+open\b"
     r"|\b(?:violated|holds?|open)(?=\*{0,2}:)|\bhold(?=\s+ratio)|(?<=\")(?:violated|holds?|open)(?=\")", "word"),
]
_ALLOWED = {kind: re.compile("|".join(f"(?:{p})" for _, p, kinds in ALLOWED if kind in kinds.split()), re.S)
            for kind in ("number", "word")}


def prose(readme, kind="number"):
    """README with every place ALLOWED for KIND (number or word) blanked
    (same length: offsets stay)."""
    return _ALLOWED[kind].sub(lambda m: re.sub(r"[^\n]", " ", m.group()), readme)


@functools.lru_cache(maxsize=64)
def squeeze(text):
    """TEXT with every run of whitespace as one space (README lines wrap)."""
    return re.sub(r"\s+", " ", text).strip()


@dataclass
class Claim:
    example: str     # the folder under docs/examples, e.g. "arrival" or "adaptive"
    folder: pathlib.Path
    id: str
    text: str
    source: str
    where: str
    measure: str
    expected: str

    @property
    def name(self):
        return f"{self.example}:{self.id}"

    @property
    def kind(self):
        return self.measure.partition(":")[0]

    @property
    def argument(self):
        return self.measure.partition(":")[2]


def read_claims(path, examples_root):
    """The claims of one claims.csv (a list of Claim); a malformed file
    raises ValueError naming it."""
    path = pathlib.Path(path)
    example = path.parent.relative_to(examples_root).as_posix()
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            raise ValueError(f"{example}/claims.csv: columns {reader.fieldnames}, expected {COLUMNS}")
        claims = [Claim(example, path.parent, **{k: (r[k] or "").strip() for k in COLUMNS}) for r in reader]
    seen = set()
    for c in claims:
        if not c.id or c.id in seen:
            raise ValueError(f"{example}/claims.csv: id {c.id!r} empty or repeated")
        seen.add(c.id)
    return claims


def find_claims(examples_root):
    """Every claim of every claims.csv under EXAMPLES_ROOT, in path order."""
    examples_root = pathlib.Path(examples_root)
    claims = []
    for path in sorted(examples_root.rglob("claims.csv")):
        claims.extend(read_claims(path, examples_root))
    return claims


def tolerance(expected):
    """Half a unit of the last digit EXPECTED is written with (a power,
    2^-14, is exact)."""
    if "^" in expected:
        return abs(as_number(expected)) * 1e-12
    mantissa, _, exponent = expected.lower().partition("e")
    digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 0.5 * 10 ** (-digits) * 10 ** int(exponent or 0)


def as_number(text):
    """TEXT as a float (a power written 2^-14 too), or None."""
    base, caret, power = text.partition("^")
    try:
        return float(base) ** float(power) if caret else float(text)
    except ValueError:
        return None


def is_number(text):
    return as_number(text) is not None


def written_forms(expected):
    """The ways a README writes the figure EXPECTED: as it is, with a
    typographic minus, with thin or plain spaces between thousands, and
    1.2e-5 as 1.2·10⁻⁵."""
    forms = {expected, expected.replace("-", "−")}
    if "^" in expected:
        base, _, power = expected.partition("^")
        return forms | {base + power.translate(SUPERSCRIPT)}
    if is_number(expected) and "e" not in expected.lower():
        whole, dot, fraction = expected.lstrip("-").partition(".")
        if len(whole) > 4:
            grouped = f"{int(whole):,}"
            sign = "−" if expected.startswith("-") else ""
            for sep in (" ", "\u2009", "\u202f", ","):
                forms.add(sign + grouped.replace(",", sep) + dot + fraction)
    if "e" in expected.lower() and is_number(expected):
        mantissa, _, exponent = expected.lower().partition("e")
        power = str(int(exponent)).translate(SUPERSCRIPT)
        forms.update({f"{mantissa}·10{power}", f"{mantissa}×10{power}", f"{mantissa} · 10{power}"})
        if float(mantissa) == 1:
            forms.add(f"10{power}")
    return forms


def _joined(char):
    """Whether a number next to CHAR is part of a word or a longer number."""
    return char.isalnum() or char in "_.,·"


def number_spans(text):
    """The (start, end) of every number in TEXT; a number grouped by spaces
    ("13 490") is one span per group."""
    spans = []
    for m in CANDIDATE.finditer(text):
        start, end = m.span()
        if text[start] in "−-" and start and _joined(text[start - 1]):
            start += 1  # a hyphen after a word or a number: a range's or a name's, not a sign
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if text[start].isdigit() and _joined(before):
            continue
        if after == "x" and not text[end + 1:end + 2].isalnum():
            after = " "  # 2.1x: a ratio, as 2.1×
        if after.isalnum() or after in "_·" or (after in ".," and text[end + 1:end + 2].isdigit()):
            continue
        spans.append((start, end))
    return _grouped(text, spans)


def _grouped(text, spans):
    """SPANS with a number written in groups of thousands ("18 673",
    "15 038") as one span."""
    merged = []
    for start, end in spans:
        if merged:
            s0, e0 = merged[-1]
            head, gap, tail = text[s0:e0], text[e0:start], text[start:end]
            if (gap in (" ", "\u2009", "\u202f") and re.fullmatch(r"\d{1,3}(?: \d{3})*", head.replace("\u2009", " ").replace("\u202f", " "))
                    and re.fullmatch(r"\d{3}(?:\.\d+)?", tail)):
                merged[-1] = (s0, end)
                continue
        merged.append((start, end))
    return merged


def find_written(expected, text):
    """Where TEXT writes EXPECTED as a whole number (a run of NUMBER
    matches that is one of its written forms) or a whole word: a list of
    (start, end)."""
    if not is_number(expected):
        return [m.span() for m in re.finditer(rf"(?<![\w/-]){re.escape(expected)}(?![\w/-])", text)]
    spans = number_spans(prose(text, "number"))  # not "5 173" of "Open MPI 5 173", nor numbers in code
    starts, ends = {s for s, _ in spans}, {e for _, e in spans}
    found = {m.span() for form in written_forms(expected) for m in re.finditer(re.escape(form), text)
             if m.start() in starts and m.end() in ends}
    return sorted(found)


@functools.lru_cache(maxsize=None)
def occurrences(readme, text):
    """Where the squeezed TEXT is in the squeezed README (start offsets)."""
    return tuple(m.start() for m in re.finditer(re.escape(squeeze(text)), squeeze(readme)))


@functools.lru_cache(maxsize=None)
def _read_table(path, mtime, key=""):
    if path.suffix == ".csv":
        return pd.read_csv(path, keep_default_na=True)
    if path.suffix == ".db":
        if not re.fullmatch(r"\w+", key):
            raise ValueError(f"{path.name}: name a table: {path.name}#TABLE")
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            return pd.read_sql_query(f"SELECT * FROM {key}", db)
    with open(path) as f:
        data = json.load(f)
    if key:
        data = data.get(key, []) if isinstance(data, dict) else []
    return pd.json_normalize(data if isinstance(data, list) else [data])


def read_source(claim):
    """The rows CLAIM's source holds (a DataFrame; the files of a glob
    together, each row with its `file`), or the text of a text source."""
    source, _, key = claim.source.partition("#")
    pattern = claim.folder / source
    paths = sorted(pathlib.Path(p) for p in glob.glob(str(pattern))) if glob.has_magic(source) else [pattern]
    paths = [p for p in paths if p.is_file()]
    if not paths:
        raise ValueError(f"{claim.name}: source {claim.source} does not exist")
    if claim.kind == "match":  # any file, as text
        return "\n".join(p.read_text() for p in paths)
    if paths[0].suffix not in (".csv", ".json", ".db"):
        raise ValueError(f"{claim.name}: {claim.source} is a text file: only match: measures it")
    frames = []
    for p in paths:
        frame = _read_table(p, p.stat().st_mtime, key).copy()
        frame["file"] = p.relative_to(claim.folder).as_posix()
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def calculate(claim, expression=None, values=None):
    """calc:EXPR (or EXPRESSION over VALUES): arithmetic with math's
    functions, nothing else."""
    expression = claim.argument if expression is None else expression
    names = {k: getattr(math, k) for k in dir(math) if not k.startswith("_")}
    names.update(min=min, max=max, abs=abs, round=round, range=range, **(values or {}))
    try:
        return float(eval(expression, {"__builtins__": {}, **names}))  # the claims are this repository's
    except Exception as error:
        raise ValueError(f"{claim.name}: {expression!r}: {error}") from error


def matched(claim, text):
    """match:REGEX on a text source: the first group of the first match,
    or WHERE as arithmetic over its groups g1, g2, ... (numbers)."""
    try:
        found = re.search(claim.argument, text, re.M)
    except re.error as error:
        raise ValueError(f"{claim.name}: match {claim.argument!r}: {error}") from error
    if not found:
        raise ValueError(f"{claim.name}: match {claim.argument!r} finds nothing in {claim.source}")
    if claim.where:
        groups = {f"g{i}": float(g) for i, g in enumerate(found.groups(), 1) if g is not None and is_number(g)}
        return calculate(claim, claim.where, groups)
    value = found.group(1) if found.re.groups else found.group(0)
    return float(value) if is_number(value) else value


def preferred(claim, data):
    """prefer:A|B[|C] over the selected tests, each "A ⪯ B": A where none
    is violated and at least half hold, B where none holds and at least
    half are violated, else C ("neither")."""
    options = claim.argument.split("|")
    if len(options) not in (2, 3) or not all(options):
        raise ValueError(f"{claim.name}: prefer: takes two or three options, A|B or A|B|C, not {claim.argument!r}")
    if "decision" not in data.columns or data.empty:
        raise ValueError(f"{claim.name}: prefer: needs tests with a decision, {claim.where!r} selects none")
    violated, holds = (data["decision"] == "violated").sum(), (data["decision"] == "holds").sum()
    if violated == 0 and 2 * holds >= len(data):
        return options[0]
    if holds == 0 and 2 * violated >= len(data):
        return options[1]
    return options[2] if len(options) == 3 else "neither"


def measure(claim):
    """What the source data give for CLAIM: a float, a str (a text column's
    word), or a frozenset of decisions (all:decision). Raises ValueError
    with a message naming the claim."""
    if claim.kind == "calc":
        if claim.source or claim.where:
            raise ValueError(f"{claim.name}: calc: takes no source and no where")
        return calculate(claim)
    data = read_source(claim)
    if claim.kind == "match":
        return matched(claim, data)
    if claim.where:
        try:
            data = data.query(claim.where, engine="python")
        except Exception as error:  # pandas raises many kinds; name the claim
            raise ValueError(f"{claim.name}: where {claim.where!r} on {claim.source}: {error}") from error
    kind, argument = claim.kind, claim.argument
    if kind == "count" and not argument:
        return float(len(data))
    if kind == "count_decision":
        if argument not in DECISIONS:
            raise ValueError(f"{claim.name}: measure {claim.measure!r}: decision must be one of {DECISIONS}")
        if "decision" not in data.columns:
            if argument == "violated" and "violated" in data.columns:  # an analyzer before decisions
                return float(data["violated"].astype(str).str.upper().eq("TRUE").sum())
            raise ValueError(f"{claim.name}: {claim.source} has no decision column")
        wanted = {"violated", "holds"} if argument == "decided" else {argument}
        return float(data["decision"].isin(wanted).sum())
    if kind == "prefer":
        return preferred(claim, data)
    if kind not in AGGREGATES or not argument:
        raise ValueError(f"{claim.name}: unknown measure {claim.measure!r}")
    grouped = PER.fullmatch(argument)
    if grouped:  # AGG:INNER(X) per COLS: INNER within each group, then AGG over the groups
        inner, argument, by = grouped.group(1), grouped.group(2), grouped.group(3).split()
    try:
        column = data[argument] if argument in data.columns else data.eval(argument, engine="python")
        if grouped:
            keys = [data[b] if b in data.columns else data.eval(b, engine="python") for b in by]
            column = pd.to_numeric(column, errors="coerce").groupby(keys, dropna=False).agg(inner)
    except Exception as error:
        raise ValueError(f"{claim.name}: {claim.argument!r} on {claim.source}: {error}") from error
    if kind == "value":
        if len(data) != 1:
            raise ValueError(f"{claim.name}: value: needs exactly one row, {claim.where!r} selects {len(data)}")
        value = column.iloc[0]
        return value if isinstance(value, str) else float(value)
    if kind == "all":
        values = column.dropna().unique()
        if len(values) == 0:
            raise ValueError(f"{claim.name}: {claim.where!r} selects no {argument!r} in {claim.source}")
        if argument == "decision":
            return frozenset(values)
        if len(values) > 1:
            shown = ", ".join(map(str, sorted(values, key=str)[:6]))
            raise ValueError(f"{claim.name}: all: the rows{' where ' + claim.where if claim.where else ''} "
                             f"differ in {argument!r} ({shown})")
        value = values[0]
        return value if isinstance(value, str) else float(value)
    column = pd.to_numeric(column, errors="coerce").dropna()
    if column.empty:
        raise ValueError(f"{claim.name}: {claim.where!r} selects no numeric {argument!r} in {claim.source}")
    return float({"sum": column.sum, "min": column.min, "max": column.max, "median": column.median}[kind]())


def agrees(claim, got):
    """None if the data's GOT is what CLAIM's expected says, else what the
    data give instead (for the message)."""
    expected = claim.expected
    if isinstance(got, frozenset) or (isinstance(got, str) and got in DECISIONS and expected in VERDICTS):
        decisions = got if isinstance(got, frozenset) else frozenset({got})
        if expected not in VERDICTS:
            return f"decisions {sorted(decisions)} (a verdict word must say them)"
        return None if decisions <= VERDICTS[expected] else f"{', '.join(sorted(decisions))}"
    if isinstance(got, str) or not is_number(expected):
        return None if str(got) == expected else repr(got)
    if math.isnan(got) or abs(got - as_number(expected)) > tolerance(expected) * (1 + 1e-9):
        return f"{got:.6g}"
    return None


def check(claim, readme):
    """None if CLAIM holds (README has its text once, its figure or word is
    written whole in its text and the data give it), else a message naming
    the example, the claim and both values."""
    found = occurrences(readme, claim.text)
    if not found:
        return f"{claim.name}: the text {claim.text!r} is not in {claim.example}/README.md"
    if len(found) > 1:
        return (f"{claim.name}: the text {claim.text!r} is in {claim.example}/README.md {len(found)} times: "
                "lengthen it until it names one place")
    if not claim.expected:
        return f"{claim.name}: no expected figure or word"
    if not find_written(claim.expected, squeeze(claim.text)):
        return f"{claim.name}: the expected {claim.expected!r} is not written in its text {claim.text!r}"
    try:
        got = measure(claim)
    except ValueError as error:
        return str(error)
    problem = agrees(claim, got)
    if problem is None:
        return None
    where = f" where {claim.where}" if claim.where else ""
    source = claim.source or "the arithmetic"
    if is_number(claim.expected) and not isinstance(got, (str, frozenset)):
        return f"{claim.name}: README says {claim.expected}, {source} gives {problem} ({claim.measure}{where})"
    return f"{claim.name}: README says {claim.expected!r}, {source} gives {problem} ({claim.measure}{where})"

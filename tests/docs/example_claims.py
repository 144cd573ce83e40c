"""Checking what a write-up under docs/examples says against the tables
shipped beside it.

Each example folder may hold a claims.csv beside its README.md, one row per
number, range or verdict the README states:

    id,text,source,where,measure,expected

- id: unique in the file; named in every failure.
- text: the phrase exactly as README.md has it (line breaks and runs of
  spaces count as one space); a table row may be claimed by its whole line
  ("| AR2 | openmpi | 1x4 | 0 | 16 | 0 |"). `expected` must be written in it.
- source: a CSV file relative to the example folder (tests.csv,
  demo/fixed/summary.csv, ...).
- where: a pandas DataFrame.query expression selecting the rows (empty: all).
- measure: count | count_decision:violated|holds|open | sum:X | min:X |
  max:X | median:X | value:X (exactly one row). X is a column or a pandas
  eval expression over columns (`median_a_us / 1000`, `ratio_ci_high / ratio_ci_low`).
- expected: the figure as written in the text, compared at the precision it
  is written with ("1.33": within 0.005; "55": within 0.5; "2.7e-5": within
  0.05e-5); for value: of a text column, the word itself.
"""
import csv
import math
import pathlib
import re
from dataclasses import dataclass

import pandas as pd

COLUMNS = ["id", "text", "source", "where", "measure", "expected"]
DECISIONS = ("violated", "holds", "open")
AGGREGATES = ("sum", "min", "max", "median", "value")
SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


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
    """Half a unit of the last digit EXPECTED is written with."""
    mantissa, _, exponent = expected.lower().partition("e")
    digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 0.5 * 10 ** (-digits) * 10 ** int(exponent or 0)


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def written_forms(expected):
    """The ways a README writes the figure EXPECTED: as it is, with a
    typographic minus, with thin or plain spaces between thousands, and
    1.2e-5 as 1.2·10⁻⁵."""
    forms = {expected, expected.replace("-", "−")}
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
    return forms


def readme_has(readme, text):
    return squeeze(text) in squeeze(readme)


def measure(claim):
    """What the source data give for CLAIM: a float, or a str for value: of
    a text column. Raises ValueError with a message naming the claim."""
    path = claim.folder / claim.source
    if not path.is_file():
        raise ValueError(f"{claim.name}: source {claim.source} does not exist")
    data = pd.read_csv(path, keep_default_na=True)
    if claim.where:
        try:
            data = data.query(claim.where, engine="python")
        except Exception as error:  # pandas raises many kinds; name the claim
            raise ValueError(f"{claim.name}: where {claim.where!r} on {claim.source}: {error}") from error
    kind, _, argument = claim.measure.partition(":")
    if kind == "count" and not argument:
        return float(len(data))
    if kind == "count_decision":
        if argument not in DECISIONS:
            raise ValueError(f"{claim.name}: measure {claim.measure!r}: decision must be one of {DECISIONS}")
        if "decision" not in data.columns:
            raise ValueError(f"{claim.name}: {claim.source} has no decision column")
        return float((data["decision"] == argument).sum())
    if kind not in AGGREGATES or not argument:
        raise ValueError(f"{claim.name}: unknown measure {claim.measure!r}")
    try:
        column = data[argument] if argument in data.columns else data.eval(argument, engine="python")
    except Exception as error:
        raise ValueError(f"{claim.name}: {argument!r} on {claim.source}: {error}") from error
    if kind == "value":
        if len(data) != 1:
            raise ValueError(f"{claim.name}: value: needs exactly one row, {claim.where!r} selects {len(data)}")
        value = column.iloc[0]
        return value if isinstance(value, str) else float(value)
    column = pd.to_numeric(column, errors="coerce").dropna()
    if column.empty:
        raise ValueError(f"{claim.name}: {claim.where!r} selects no numeric {argument!r} in {claim.source}")
    return float({"sum": column.sum, "min": column.min, "max": column.max, "median": column.median}[kind]())


def check(claim, readme):
    """None if CLAIM holds (README text has it, its figure is in its text and
    the data give that figure), else a message naming the example, the claim
    and both values."""
    if not readme_has(readme, claim.text):
        return f"{claim.name}: the text {claim.text!r} is not in {claim.example}/README.md"
    if not any(form in claim.text for form in written_forms(claim.expected)):
        return f"{claim.name}: the expected {claim.expected!r} is not written in its text {claim.text!r}"
    try:
        got = measure(claim)
    except ValueError as error:
        return str(error)
    where = f" where {claim.where}" if claim.where else ""
    if isinstance(got, str) or not is_number(claim.expected):
        if str(got) != claim.expected:
            return (f"{claim.name}: README says {claim.expected!r}, {claim.source} gives {got!r} "
                    f"({claim.measure}{where})")
        return None
    expected = float(claim.expected)
    if math.isnan(got) or abs(got - expected) > tolerance(claim.expected) * (1 + 1e-9):
        return (f"{claim.name}: README says {claim.expected}, {claim.source} gives {got:.6g} "
                f"({claim.measure}{where})")
    return None

"""What in a write-up needs a claim, and whether its claims.csv has one.

Every number a write-up's prose states, and every verdict word
(example_claims.VERDICTS: violated, holds, open, removes, ...), must be
covered by a claim of its own: a claim covers one place, where its text
is in the README and its expected figure or word is written in that text;
two equal numbers of one sentence need two claims. A count of decisions
(`count_decision:holds`) also covers the verdict word of its text that
says that decision ("28 hold"). A range ("1.27–1.50×", "−0.6 to 6.0 µs")
is claimed by min: and max: of one column over one selection (or one
match: of a log, its min( and max( over the values it finds), never by one
endpoint of one cell.

A count of one decision in a table's column (summary.csv's n_vio_tests)
covers that decision's word as well, and so does a per-group count
(`min:sum(decision == 'violated') per library`: "violated in every
library").

What needs no claim is example_claims.ALLOWED: commands, settings and file
names (code, links), dates and times of day, versions, deployments (1×4),
names (2-core, 3-D, MPI-4, overlap-07, rank 0, Variant 1), references to
sections and issues, equality (above 1), headings; verdict words in table
headers and as terms (the legend "violated/holds/open", *open*).
"""
import re
from dataclasses import dataclass

from example_claims import VERDICTS, WORD, find_written, is_number, number_spans, occurrences, prose, squeeze


def _squeezed_offsets(text):
    """For each character of squeeze(TEXT), its offset in TEXT."""
    offsets, space = [], False
    for i, char in enumerate(text):
        if char.isspace():
            if offsets and not space:
                offsets.append(i)
            space = True
        else:
            offsets.append(i)
            space = False
    if offsets and text[offsets[-1]].isspace():
        offsets.pop()
    return offsets


@dataclass(frozen=True)
class Place:
    start: int   # offsets in the README
    end: int
    kind: str    # "number" or "word"


# Columns that count the tests of one decision.
DECISION_COLUMNS = {"violated": frozenset({"violated"}), "n_vio_tests": frozenset({"violated"}),
                    "holds": frozenset({"holds"}), "n_holds_tests": frozenset({"holds"}),
                    "open": frozenset({"open"}), "n_open_tests": frozenset({"open"}),
                    "decided": frozenset({"violated", "holds"}), "decided_pct": frozenset({"violated", "holds"}),
                    "open_first_look": frozenset({"open"})}


def _decisions(claim):
    """The decisions a claim checks, for the verdict words it may cover."""
    if claim.kind == "count_decision":
        return frozenset({"violated", "holds"}) if claim.argument == "decided" else frozenset({claim.argument})
    counted = re.fullmatch(r"sum\(decision(?:_\w+)? == '(violated|holds|open)'\) per .*", claim.argument)
    if counted:  # min:sum(decision == 'violated') per library: "violated in every library"
        return frozenset({counted.group(1)})
    if claim.kind in ("value", "sum", "all", "min", "max") and claim.argument in DECISION_COLUMNS:
        return DECISION_COLUMNS[claim.argument]  # a table's count of one decision (summary.csv's n_vio_tests)
    if claim.expected in VERDICTS:
        return frozenset(VERDICTS[claim.expected])
    return None


def candidates(readme, claims):
    """{claim id: [Place, ...]}: where each claim could cover, in README
    offsets (its text's one place in the README, its expected there, and
    for a count of decisions the words that say that decision)."""
    offsets = _squeezed_offsets(readme)
    flat = squeeze(readme)
    claimable = things_to_claim(readme)
    found = {}
    for claim in claims:
        at = occurrences(readme, claim.text)
        if len(at) != 1 or not claim.expected:
            continue
        text = flat[at[0]:at[0] + len(squeeze(claim.text))]
        places = []
        kind = "number" if is_number(claim.expected) else "word"
        for s, e in find_written(claim.expected, text):
            places.append(Place(offsets[at[0] + s], offsets[at[0] + e - 1] + 1, kind))
        decisions = _decisions(claim)
        if decisions is not None and kind == "number":
            for m in WORD.finditer(text):
                if frozenset(VERDICTS[m.group()]) == decisions:
                    places.append(Place(offsets[at[0] + m.start()], offsets[at[0] + m.end() - 1] + 1, "word"))
        # a place counts where it holds something to claim (not "4" of "1×4")
        found[claim.id] = [p for p in places if any(p.start <= t.start and t.end <= p.end and t.kind == p.kind
                                                    for t in claimable)]
    return found


def _match(places_of, kind):
    """A largest matching of places of KIND to claims, each claim at one
    place: {Place: claim id}."""
    owner = {}

    def augment(claim_id, seen):
        for place in places_of[claim_id]:
            if place.kind != kind or place in seen:
                continue
            seen.add(place)
            if place not in owner or augment(owner[place], seen):
                owner[place] = claim_id
                return True
        return False

    for claim_id in places_of:
        augment(claim_id, set())
    return owner


def things_to_claim(readme):
    """Every number and verdict word of the README's prose: [Place]."""
    places = [Place(s, e, "number") for s, e in number_spans(prose(readme, "number"))]
    places += [Place(m.start(), m.end(), "word") for m in WORD.finditer(prose(readme, "word"))]
    return sorted(places, key=lambda p: p.start)


def _line(readme, offset):
    return readme.count("\n", 0, offset) + 1


def _context(readme, place):
    start = readme.rfind("\n", 0, place.start) + 1
    end = readme.find("\n", place.end)
    line = readme[start:end if end >= 0 else None]
    at = place.start - start
    return f"{line[max(0, at - 50):at]}[{readme[place.start:place.end]}]{line[at + place.end - place.start:][:30]}"


def unclaimed(readme, claims):
    """The README's numbers and verdict words no claim covers, each as
    'line N: ...[number]...'."""
    places_of = candidates(readme, claims)
    covered = {**_match(places_of, "number"), **_match(places_of, "word")}
    spans = [(p.start, p.end, p.kind) for p in covered]
    problems = []
    for place in things_to_claim(readme):
        if not any(s <= place.start and place.end <= e and k == place.kind for s, e, k in spans):
            what = "number" if place.kind == "number" else "verdict word"
            problems.append(f"line {_line(readme, place.start)}: {what} without a claim: {_context(readme, place)}")
    return problems


RANGE = re.compile(r"[×x]?(?:–|\s+–\s+|-|\s+to\s+)")


def ranges(readme):
    """Every range of the prose: two numbers joined by an en dash, a
    hyphen or "to" ("1.27–1.50", "−0.6 to 6.0"): [(Place, Place)]."""
    text = prose(readme, "number")
    spans = number_spans(text)
    found = []
    for (s1, e1), (s2, e2) in zip(spans, spans[1:]):
        joint = text[e1:s2]
        if RANGE.fullmatch(joint):
            found.append((Place(s1, e1, "number"), Place(s2, e2, "number")))
    return found


def _bounds(low, high):
    """Whether claims LOW and HIGH are the minimum and the maximum of one
    thing over one selection: min:X and max:X with one source and where
    (or min:X_low and max:X_high); one row's own bounds (value:ratio_ci_low
    and value:ratio_ci_high, value:degree_min and value:degree_max); or one
    match: of a text whose groups they take min( and max( of."""
    same = (low.source, low.where) == (high.source, high.where)
    paired = high.argument in (low.argument, low.argument.replace("low", "high"), low.argument.replace("min", "max"))
    if (low.kind, high.kind) == ("min", "max"):  # over a selection: X, or the lows' least and the highs' largest
        return same and paired
    if (low.kind, high.kind) == ("value", "value"):  # one row's own bounds: an interval, a degree's min and max
        return same and high.argument != low.argument and paired
    if low.kind == high.kind == "match" and (low.source, low.argument) == (high.source, high.argument):
        return low.where.startswith("min(") and high.where == "max(" + low.where[4:]
    return False


def unbounded_ranges(readme, claims):
    """The ranges not claimed by min: and max: of one column over one
    selection, each as 'line N: ...'."""
    places_of = candidates(readme, claims)
    by_id = {c.id: c for c in claims}

    def claims_at(place):
        return [by_id[i] for i, places in places_of.items()
                if any(p.start <= place.start and place.end <= p.end for p in places)]

    problems = []
    for low, high in ranges(readme):
        lows, highs = claims_at(low), claims_at(high)
        if not lows or not highs:
            continue  # unclaimed: unclaimed() says so
        if any(_bounds(a, b) for a in lows for b in highs):
            continue
        shown = readme[low.start:high.end]
        problems.append(f"line {_line(readme, low.start)}: the range {shown!r} is claimed by "
                        f"{', '.join(f'{a.id} ({a.measure})' for a in lows)} and "
                        f"{', '.join(f'{b.id} ({b.measure})' for b in highs)}: claim it by min: and max: of one "
                        "column over the selection the sentence names")
    return problems

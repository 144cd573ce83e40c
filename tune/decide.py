"""What a look of the race decides, from the analyzer's tests.csv (pure
functions; the statistics are the analyzer's: docs/tuning.md).

Each look has two analyses of the race's archive. The first compares every
remaining candidate with the default on the tuned operation's cells; its
ratios order them: the best is the one whose cells' median times over the
default's have the smallest geometric mean (the default's is 1). The
second compares every other remaining candidate with the best, `c <= best`
on every cell, with the analyzer's Holm adjustment over all these tests
(the race's correction across candidates and cells) at the look's p
threshold:

  slower       some cell's test is violated: c is decided slower there
  ahead        some cell's ratio is below 1: c measured faster than the best there
  holds        every cell's test holds: c is not slower than the best by
               the hold ratio or more anywhere

A candidate leaves when it is decided slower somewhere and measured faster
nowhere (it cannot be the one setting that serves every cell best). The
race stops when one candidate is left, when every other one left holds
against the best (they are alike within the hold ratio: any of them
will do, the best is taken), or when the budget cannot pay another round.
"""
import csv
import math


def read_tests(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def sides(row):
    """(set of side a, set of side b) of a tests.csv row of a param_set guideline."""
    a, _, b = row["guideline"].partition(" <= ")
    return a.split(",", 1)[0].strip(), b.split(",", 1)[0].strip()


def ratios_to_default(tests):
    """{candidate: geometric mean of its cells' ratio over the default}
    (the default: 1), from the analysis of `c <= default` lines."""
    logs = {"default": [0.0]}
    for row in tests:
        a, b = sides(row)
        if b == "default" and row["ratio"] not in ("", "NA"):
            logs.setdefault(a, []).append(math.log(float(row["ratio"])))
    return {name: math.exp(sum(v) / len(v)) for name, v in logs.items()}


def best_of(ratios, alive):
    """The remaining candidate with the smallest ratio (ties: the first alive)."""
    known = [name for name in alive if name in ratios]
    return min(known, key=lambda name: (ratios[name], alive.index(name))) if known else alive[0]


def verdicts(tests, alive, best):
    """{candidate: {"slower": cells, "ahead": cells, "holds": cells, "tests": n,
    "method": the tests' methods, "pairs": their fewest units, "alike": bool}}
    for every remaining candidate but the best, from the look's `c <= best`
    tests (method `launches` where the race's launches were interleaved:
    its units are the pairs of launches of one slot)."""
    found = {name: {"slower": 0, "ahead": 0, "holds": 0, "tests": 0} for name in alive if name != best}
    methods, pairs = {name: set() for name in found}, {name: [] for name in found}
    for row in tests:
        a, b = sides(row)
        if b != best or a not in found:
            continue
        entry = found[a]
        entry["tests"] += 1
        entry["slower"] += row["decision"] == "violated"
        entry["holds"] += row["decision"] == "holds"
        entry["ahead"] += row["ratio"] not in ("", "NA") and float(row["ratio"]) < 1
        methods[a].add(row.get("method") or "")
        if row.get("pairs") not in (None, "", "NA"):
            pairs[a].append(int(float(row["pairs"])))
    for name, entry in found.items():
        entry["alike"] = entry["tests"] > 0 and entry["holds"] == entry["tests"]
        entry["method"] = "+".join(sorted(m for m in methods[name] if m))
        entry["pairs"] = min(pairs[name]) if pairs[name] else None
    return found


def leaving(found):
    """The candidates that leave at this look: decided slower somewhere, ahead nowhere."""
    return [name for name, entry in found.items() if entry["slower"] and not entry["ahead"]]


def stop_reason(alive, found, runs_next, budget):
    """Why the race stops after this look, or "" to go on."""
    if len(alive) == 1:
        return "one candidate left"
    if found and all(entry["alike"] for entry in found.values()):
        return "every candidate left holds against the best (within the hold ratio)"
    if runs_next > budget:
        return "the budget is spent"
    return ""

#!/usr/bin/env python3
"""Copies what docs/examples/tune shows from the folder reproduce.sh wrote,
and sums each case up in cases.csv, the machine's load at each step in
steps.csv (from OUT/steps.log) and, given the cases' tunes decided again
with `nbhbench tune --relook`, each of those in relooked.csv (the
write-up's claims read them).

usage: docs/examples/tune/collect.py OUT [RELOOKED]

RELOOKED: a folder of the cases' tunes (NBH_TUNES; a copy of OUT/tunes,
or tunes measured earlier) on which `nbhbench tune --relook NAME` ran;
what the replay wrote is copied to relooked/NAME.
"""
import csv
import json
import pathlib
import re
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
EXAMPLES = HERE.parent
sys.path.insert(0, str(EXAMPLES.parent.parent))
from tune import race  # noqa: E402  (the repository's, for what a first look needs)

# case: (tune name, source analysis, the published sweep and its set that healed, or "" for none)
CASES = {
    "mpich-gl8-1x2": ("mpich-gl8", "mpich-coll-sweep", "alltoall_pairwise"),
    "openmpi-gl7-1x4": ("openmpi-gl7", "openmpi-allgather-sweep", ""),
    "openmpi-gl8-1x16": ("openmpi-gl8", "openmpi-alltoall-sweep", "linear_sync"),
    "mpich-gl8-1x2-full": ("mpich-gl8", "mpich-coll-sweep", "alltoall_pairwise"),
}
STAMP = re.compile(r"^== (\S+) load (\S+) (\S+) (\S+): (.*)$")


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write(path, rows):
    if rows:
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)


def copy(source, target):
    if source.is_dir():
        shutil.copytree(source, target, dirs_exist_ok=True)
    elif source.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def sweep_runs(sweep, deployment):
    return sum(1 for path in (EXAMPLES / sweep / "provenance").glob("*/runs.csv")
               for row in read(path) if row["deployment"] == deployment)


def race_tests(folder, looks):
    """The race's tests against the best at every look (looks/N/race/tests.csv), with their look."""
    rows = []
    for look in looks:
        path = folder / str(look) / "race" / "tests.csv"
        if path.is_file():
            rows += [dict(r, look=look) for r in read(path)]
    return rows


def numbers(rows, column):
    return [float(r[column]) for r in rows if r.get(column) not in (None, "", "NA")]


def race_summary(tests):
    """What the race's comparisons with the best were and how near they came."""
    return {"race_method": "+".join(sorted({r["method"] for r in tests})) or "none",
            "race_tests": len(tests), "race_violated": sum(r["decision"] == "violated" for r in tests),
            "race_holds": sum(r["decision"] == "holds" for r in tests),
            "min_p": min(numbers(tests, "p_value"), default=""),
            "min_p_adjusted": min(numbers(tests, "p_adjusted"), default=""),
            "min_pairs": int(min(numbers(tests, "pairs"), default=0)) or "",
            "max_pairs": int(max(numbers(tests, "pairs"), default=0)) or ""}


def confirmation(confirm, deployment):
    at = next((e for e in confirm.get("table", []) if e["deployment"] == deployment), {})
    return {"confirm_fix": confirm.get("fix", ""),
            "confirm_summary": confirm.get("summary", confirm.get("skipped", "")),
            "confirm_cells": at.get("cells", ""), "confirm_healed": at.get("healed", ""),
            "default_violated": at.get("default", {}).get("violated", ""),
            "winner_violated": at.get("winner", {}).get("violated", ""),
            "winner_holds": at.get("winner", {}).get("holds", "")}


def collect(out):
    rows = []
    for name, (analysis, sweep, healed_by) in CASES.items():
        tune = out / "tunes" / name
        if not (tune / "tune.json").is_file():
            continue
        target = HERE / name
        if target.exists():
            shutil.rmtree(target)   # no file of an earlier run stays beside this one's
        for item in ("report.md", "race.svg", "race.csv", "confirmation.csv", "tune.json", "deploy"):
            copy(tune / item, target / item)
        for look in sorted((tune / "looks").iterdir()):
            for item in ("order.conf", "race.conf", "order/tests.csv", "race/tests.csv", "race/analysis.json"):
                copy(look / item, target / "looks" / look.name / item)
        for item in ("tests.csv", "summary.csv", "report.md", "analysis.json"):
            copy(tune / "confirm" / item, target / "confirm" / item)
            copy(out / "analyses" / analysis / item, target / "source" / item)
        plan = json.loads((tune / "tune.json").read_text())
        race_, target_ = plan["race"], plan["target"]
        source = [r for r in read(out / "analyses" / analysis / "tests.csv") if r["tag"] == target_["tag"]]
        published = sweep_runs(sweep, target_["deployment"])
        spent = race_["looks"][-1]["runs"]
        need = race.first_look(plan)
        rows.append({
            "case": name, "library": target_["library"], "guideline": target_["tag"],
            "deployment": target_["deployment"], "source_tests": len(source),
            "source_violated": sum(r["decision"] == "violated" for r in source),
            "race_cells": len(target_["cells"]), "candidates": len(plan["candidates"]),
            "first": plan["first"], "looks": len(race_["looks"]), "race_runs": spent, "budget": plan["budget"],
            "left": len(race_["alive"]), "dropped": len(plan["candidates"]) - len(race_["alive"]),
            "stop": race_["stopped"], "winner": race_["winner"],
            "winner_ratio": race_["looks"][-1]["ratios"].get(race_["winner"]),
            "sweep": sweep, "sweep_runs": published, "race_share": round(spent / published, 3),
            "sweep_healed_by": healed_by or "none", "p_look": plan["p_look"],
            # What the first look needs of the launch-paired test (tune/race.py first_look).
            "holm_first": need["holm_first"], "first_t": need["t"], "first_spreads": need["spreads"],
            **race_summary(race_tests(tune / "looks", [r["look"] for r in race_["looks"]])),
            **confirmation(plan.get("confirm", {}), target_["deployment"]),
        })
    write(HERE / "cases.csv", rows)
    return rows


def steps(out):
    """steps.csv: reproduce.sh's stamps (time, load averages, step)."""
    log = out / "steps.log"
    if not log.is_file():
        return []
    rows = [{"at": m.group(1), "load1": float(m.group(2)), "load5": float(m.group(3)), "load15": float(m.group(4)),
             "step": m.group(5)} for m in map(STAMP.match, log.read_text().splitlines()) if m]
    write(HERE / "steps.csv", rows)
    return rows


def relooked(tunes):
    """relooked.csv and relooked/NAME: each tune of TUNES whose race `tune
    --relook` decided again: its race as measured and as made again."""
    rows = []
    for name in CASES:
        tune = tunes / name
        if not (tune / "relook.csv").is_file():
            continue
        target = HERE / "relooked" / name
        if target.exists():
            shutil.rmtree(target)
        plan = json.loads((tune / "tune.json").read_text())
        found = plan["relook"]
        for item in ("relook.csv", "relook/confirmation.csv", "relook/confirm/tests.csv"):
            copy(tune / item, target / item)
        measured = [r["look"] for r in plan["race"]["looks"]]
        again = [r["look"] for r in found["looks"]]
        for look in again:
            for item in ("order/tests.csv", "race/tests.csv"):
                copy(tune / "relook" / str(look) / item, target / "relook" / str(look) / item)
        before = race_summary(race_tests(tune / "looks", measured))
        after = race_summary(race_tests(tune / "relook", again))
        left = [n for n in found["looks"][-1]["alive"] if n not in found["looks"][-1]["leaving"]]
        rows.append({
            "case": name, "candidates": len(plan["candidates"]), "looks": len(found["looks"]),
            "race_runs": found["looks"][-1]["runs"], "left": len(left), "dropped": len(plan["candidates"]) - len(left),
            "stop": found["stopped"], "winner": found["winner"], "measured_winner": plan["race"]["winner"],
            "relook_commit": found.get("git_commit", ""),
            **{f"measured_{k}": v for k, v in before.items()}, **after,
            **confirmation(found.get("confirm", {}), plan["target"]["deployment"]),
        })
    write(HERE / "relooked.csv", rows)
    return rows


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    for row in collect(pathlib.Path(sys.argv[1])):
        print(row["case"], row["race_runs"], "of", row["sweep_runs"], row["winner"], row["confirm_summary"])
    steps(pathlib.Path(sys.argv[1]))
    if len(sys.argv) == 3:
        for row in relooked(pathlib.Path(sys.argv[2])):
            print("relooked", row["case"], row["winner"], row["stop"], row["confirm_summary"])

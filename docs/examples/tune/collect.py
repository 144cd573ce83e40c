#!/usr/bin/env python3
"""Copies what docs/examples/tune shows from the folder reproduce.sh wrote,
and sums each case up in cases.csv (the write-up's claims read it).

usage: docs/examples/tune/collect.py OUT
"""
import csv
import json
import math
import pathlib
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
EXAMPLES = HERE.parent
# case: (tune name, source analysis, the published sweep and its set that healed, or "" for none)
CASES = {
    "mpich-gl8-1x2": ("mpich-gl8", "mpich-coll-sweep", "alltoall_pairwise"),
    "openmpi-gl7-1x4": ("openmpi-gl7", "openmpi-allgather-sweep", ""),
    "openmpi-gl8-1x16": ("openmpi-gl8", "openmpi-alltoall-sweep", "linear_sync"),
    "mpich-gl8-1x2-full": ("mpich-gl8", "mpich-coll-sweep", "alltoall_pairwise"),
}


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def copy(source, target):
    if source.is_dir():
        shutil.copytree(source, target, dirs_exist_ok=True)
    elif source.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def sweep_runs(sweep, deployment):
    return sum(1 for path in (EXAMPLES / sweep / "provenance").glob("*/runs.csv")
               for row in read(path) if row["deployment"] == deployment)


def floor(threshold):
    """Runs a side the exact one-sided rank-sum test needs to reach THRESHOLD at all."""
    return next(n for n in range(2, 60) if 1 / math.comb(2 * n, n) <= threshold)


def collect(out):
    rows = []
    for name, (analysis, sweep, healed_by) in CASES.items():
        tune = out / "tunes" / name
        if not (tune / "tune.json").is_file():
            continue
        target = HERE / name
        for item in ("report.md", "race.svg", "race.csv", "confirmation.csv", "tune.json", "deploy"):
            copy(tune / item, target / item)
        for look in sorted((tune / "looks").iterdir()):
            for item in ("order.conf", "race.conf", "order/tests.csv", "race/tests.csv", "race/analysis.json"):
                copy(look / item, target / "looks" / look.name / item)
        for item in ("tests.csv", "summary.csv", "report.md", "analysis.json"):
            copy(tune / "confirm" / item, target / "confirm" / item)
            copy(out / "analyses" / analysis / item, target / "source" / item)
        plan = json.loads((tune / "tune.json").read_text())
        race, target_ = plan["race"], plan["target"]
        source = [r for r in read(out / "analyses" / analysis / "tests.csv") if r["tag"] == target_["tag"]]
        confirm = plan.get("confirm", {})
        at = next((e for e in confirm.get("table", []) if e["deployment"] == target_["deployment"]), {})
        published = sweep_runs(sweep, target_["deployment"])
        spent = race["looks"][-1]["runs"]
        rows.append({
            "case": name, "library": target_["library"], "guideline": target_["tag"],
            "deployment": target_["deployment"], "source_tests": len(source),
            "source_violated": sum(r["decision"] == "violated" for r in source),
            "race_cells": len(target_["cells"]), "candidates": len(plan["candidates"]),
            "looks": len(race["looks"]), "race_runs": spent, "budget": plan["budget"],
            "left": len(race["alive"]), "stop": race["stopped"], "winner": race["winner"],
            "winner_ratio": race["looks"][-1]["ratios"].get(race["winner"]),
            "sweep": sweep, "sweep_runs": published, "race_share": round(spent / published, 3),
            "sweep_healed_by": healed_by or "none",
            "confirm_fix": confirm.get("fix", ""), "confirm_summary": confirm.get("summary", confirm.get("skipped", "")),
            "confirm_cells": at.get("cells", ""), "confirm_healed": at.get("healed", ""),
            # The floor of the exact rank-sum of run medians: 1 / C(2n, n) with n runs a side
            # must reach Holm's first threshold, the look's p over its tests.
            "holm_first": plan["p_look"] / ((len(plan["candidates"]) - 1) * len(target_["cells"])),
            "runs_needed": floor(plan["p_look"] / ((len(plan["candidates"]) - 1) * len(target_["cells"]))),
            "default_violated": at.get("default", {}).get("violated", ""),
            "winner_violated": at.get("winner", {}).get("violated", ""),
        })
    if rows:
        with open(HERE / "cases.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    return rows


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for row in collect(pathlib.Path(sys.argv[1])):
        print(row["case"], row["race_runs"], "of", row["sweep_runs"], row["winner"], row["confirm_summary"])

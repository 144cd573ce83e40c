"""The confirmation of `nbhbench tune` (docs/tuning.md): the race's winner
measured again, on fresh launches, against the default (two parameter
sets, interleaved), on every deployment of the source campaign, with the
cells of every guideline of the source assessment that touches the tuned
operations. From the analyzer's tests.csv:

  heals      the race's cells: the guideline's test under the winner holds
             (the violation is gone, not only no longer significant)
  costs      a cell where `winner <= default` is violated (the winner is
             decided slower), or a guideline test violated under the
             winner whose twin under the default is not

The winner is reported as a fix only where it heals every race cell and
costs nothing on any deployment; otherwise the table says where it costs.
"""
import csv
import pathlib

from gen import registry, whole_files
from gen.workspace import now_utc
from tune import campaigns
from tune.space import Candidate
from tune.target import parse_assessment

# What tells one test of tests.csv from another, apart from its parameter
# set: the guideline's set and relation, the context, the registry's
# parameters (registry/parameters.csv, one list for every part) and the
# A/A twin. Everything else is a statistic, whichever test made it.
TEST_IDENTITY = ("set", "tag", "relation", "library", "deployment", "nprocs", "twin",
                 *(row["name"] for row in registry.read_table("parameters")))


def generate(tune):
    plan = tune.state
    winner = next(c for c in plan["candidates"] if c["name"] == plan["race"]["winner"])
    sets = parse_assessment(plan["target"]["assessment"], "the source assessment")
    text, measured = campaigns.confirmation_assessment(sets, plan["target"]["ops"], winner["name"], plan["varied"])
    default = {"name": "default", "parameters": {}, "source": "default"}
    campaigns.write_campaign(pathlib.Path(plan["target"]["campaign"]), tune.campaign("confirm"),
                             [Candidate(**default), Candidate(**winner)], text,
                             f"nbhbench tune {tune.name}: the confirmation of {winner['name']}")
    items = [f"deployments={','.join(plan['confirm_deployments'])}", f"nrun={plan['confirm_runs']}",
             f"op={','.join(measured)}", *plan["set"], *plan["confirm_set"]]
    args = ["generate", tune.campaign("confirm"), "--env", plan["target"]["env"]]
    for item in items:
        args += ["--set", item]
    tune.nbhbench(*args)
    plan["confirm"] = {"generated": now_utc(), "winner": winner["name"], "ops": measured}
    tune.save()


def run_confirmation(tune):
    plan = tune.state
    if plan["race"]["winner"] == "default":
        plan["confirm"] = {"skipped": "the race kept the default: no setting to confirm"}
        tune.save()
        return plan["confirm"]
    if "confirm" not in plan:
        generate(tune)
    confirm = plan["confirm"]
    if "table" in confirm:
        return confirm
    print(f"tune {tune.name}: confirmation of {confirm['winner']} against the default on "
          f"{', '.join(plan['confirm_deployments'])}", flush=True)
    tune.nbhbench("submit", tune.workspace("confirm").path, "--wait", "--resume")
    archive = tune.nbhbench("archive", tune.workspace("confirm").path, echo=False).strip().splitlines()[-1]
    out = tune.path / "confirm"
    tune.nbhbench("analyze", archive, "--assess", tune.campaign("confirm") / "assessment.conf", "--out", out,
                  "--max-plots", "2", "--v-thres", plan["v_thres"], "--hold-ratio", plan["hold_ratio"], echo=False)
    with open(out / "tests.csv", newline="", encoding="utf-8") as f:
        tests = list(csv.DictReader(f))
    confirm.update(archive=archive, analysis=str(out),
                   **verdict(tests, plan["target"]["tag"], confirm["winner"], plan["target"]["deployment"],
                             plan["target"]["cells"], plan["confirm_deployments"]))
    tune.save()
    return confirm


def twin_key(row):
    """ROW's test, whatever its parameter set: the same key under the default and the winner."""
    return tuple((k, row[k]) for k in TEST_IDENTITY if k in row)


def matches(row, cell):
    """Whether tests.csv ROW is the test of CELL (its parameters; tests.csv
    leaves the compared parameter, and those that do not apply, empty)."""
    return all(row.get(k, "") in ("", v) for k, v in cell.items() if k != "op")


def verdict(tests, tag, winner, deployment, cells, deployments):
    """The confirmation's table: per deployment the guideline's tests under
    the default and the winner, what the winner heals and what it costs."""
    by_key = {(row["set"], twin_key(row), row["param_set"]): row for row in tests}
    table = []
    for where in deployments:
        mine = [row for row in tests if row["deployment"] == where]
        guideline = {name: [row for row in mine if row["tag"] == tag and row["param_set"] == name]
                     for name in ("default", winner)}
        counts = {name: {d: sum(row["decision"] == d for row in rows) for d in ("violated", "holds", "open")}
                  for name, rows in guideline.items()}
        slower = [row for row in mine if row["set"] == "cost" and row["decision"] == "violated"]
        new = [row for row in mine if row["set"] != "cost" and row["param_set"] == winner
               and row["decision"] == "violated"
               and by_key.get((row["set"], twin_key(row), "default"), {}).get("decision") != "violated"]
        entry = {"deployment": where, "default": counts["default"], "winner": counts[winner],
                 "slower_cells": len(slower), "new_violations": len(new),
                 "slower": [describe(row) for row in slower][:10], "new": [describe(row) for row in new][:10]}
        if where == deployment:
            raced = [next((row for row in guideline[winner] if matches(row, cell)), None) for cell in cells]
            entry["cells"] = len(cells)
            entry["healed"] = sum(1 for row in raced if row is not None and row["decision"] == "holds")
            entry["still_violated"] = sum(1 for row in raced if row is not None and row["decision"] == "violated")
        table.append(entry)
    raced = next(e for e in table if e["deployment"] == deployment) if deployment in deployments else None
    costs = [e for e in table if e["slower_cells"] or e["new_violations"]]
    fix = bool(raced and raced["healed"] == raced["cells"] and not costs)
    if fix:
        summary = f"a fix: heals {raced['healed']} of {raced['cells']} cells at {deployment}, costs nothing decided"
    elif raced is None:
        summary = f"not confirmed at {deployment} (not among the confirmation's deployments)"
    else:
        parts = [f"heals {raced['healed']} of {raced['cells']} cells at {deployment}"]
        parts += [f"at {e['deployment']}: {e['slower_cells']} cells slower, {e['new_violations']} new violations"
                  for e in costs]
        summary = "not a fix: " + "; ".join(parts)
    return {"table": table, "fix": fix, "summary": summary, "at": now_utc()}


def describe(row):
    cell = ", ".join(f"{k}={row[k]}" for k in ("op", "msize", "order", "reorder") if row.get(k))
    return f"{row['tag'] or row['set']} {row['guideline']} [{cell}] ratio {float(row['ratio']):.3f}" \
        if row.get("ratio") not in (None, "", "NA") else f"{row['guideline']} [{cell}]"


def write_table(path, confirm):
    """confirmation.csv: the table as CSV."""
    rows = [{"deployment": e["deployment"],
             **{f"default_{d}": e["default"][d] for d in ("violated", "holds", "open")},
             **{f"winner_{d}": e["winner"][d] for d in ("violated", "holds", "open")},
             "cells": e.get("cells", ""), "healed": e.get("healed", ""),
             "slower_cells": e["slower_cells"], "new_violations": e["new_violations"]} for e in confirm["table"]]
    whole_files.write_csv(path, list(rows[0]), rows)

"""What `nbhbench tune` is to heal (docs/tuning.md): a guideline, its cells,
the library and environment, and the campaign its experiments come from.

Two ways in:
  from an analysis (a folder `nbhbench analyze` wrote): the guideline's
    violated tests in tests.csv, at one library and deployment; the
    campaign and environment of the analysed archive (archives.csv), or
    --campaign and --env where that archive is gone;
  from a campaign: a guideline of its assessment.conf and the cells the
    user names (--cells KEY=V,V: levels as generate --set keeps them).

Either way the cells become `generate --set` items, so the race and the
confirmation are ordinary campaigns of the source campaign's experiments.
"""
import csv
import dataclasses
import json
import os
import pathlib
import re

from gen.errors import NbhError, display_path
from gen.settings import read_settings
from gen.workspace import campaign_source
from gen import registry

RELATIONS = ("<=", "⪯", "~", "≈")
# tests.csv columns that are not experiment parameters (docs/analyze.md).
NOT_PARAMETERS = {"id", "nrep", "seed", "blocks", "first_round", "warmup", "twin", "twin_of"}


@dataclasses.dataclass
class GuidelineSet:
    """One [set] of an assessment file: its keys and its guideline lines."""
    name: str
    keys: dict
    lines: list          # (tag, a items, relation, b items, text)

    def text(self, lines=None):
        body = [f"[{self.name}]"] + [f"{k} = {v}" for k, v in self.keys.items()]
        return "\n".join(body + [line[4] for line in (self.lines if lines is None else lines)]) + "\n"


def parse_assessment(text, where):
    """The guideline sets of an assessment file's TEXT (docs/assessment.md),
    enough to find a guideline and copy sets; the analyzer checks the rest."""
    sets, current = [], None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            current = GuidelineSet(line[1:-1].strip(), {}, [])
            sets.append(current)
            continue
        if current is None:
            raise NbhError(f"tune: {where}:{number}: a line before the first [set]")
        relation = next((r for r in RELATIONS if f" {r} " in f" {line} "), None)
        if relation is None and "=" in line:
            key, _, value = line.partition("=")
            current.keys[key.strip()] = value.strip()
            continue
        if relation is None:
            raise NbhError(f"tune: {where}:{number}: neither a setting nor a guideline: {line}")
        tag, rest = "", line
        match = re.match(r"([A-Za-z][A-Za-z0-9]*):\s*(.*)$", line)
        if match and " " not in match.group(1):
            tag, rest = match.group(1), match.group(2)
        a, _, b = rest.partition(f" {relation} ")
        current.lines.append((tag, [x.strip() for x in a.split(",")], relation,
                              [x.strip() for x in b.split(",")], line))
    return sets


def side_ops(items, parameter):
    """The operations a side names: its op=X items, or its plain items where
    the set's parameter is op."""
    ops = [x.split("=", 1)[1] for x in items if x.startswith("op=")]
    return ops + ([x for x in items if "=" not in x] if parameter == "op" else [])


def side_fixed(items, parameter):
    """{parameter: level} a side fixes (plain items are levels of PARAMETER)."""
    fixed = {}
    for item in items:
        key, equals, value = item.partition("=")
        fixed[key if equals else parameter] = value if equals else key
    return fixed


@dataclasses.dataclass
class Target:
    campaign: pathlib.Path        # the source campaign's directory
    env: str                      # its environment (a name under env/ or a file)
    library: str
    tag: str
    guideline: GuidelineSet       # the guideline's set, holding only its line(s)
    assessment: list              # every set of the source assessment
    ops: list                     # the operations tuned: side a's
    deployment: str
    race_set: list                # generate --set items of the race's experiments
    cells: list                   # [{parameter: value}] of the cells (for the report)
    deployments: list             # the source campaign's deployments (confirmation)
    origin: str                   # where it came from, in words
    settings: dict = dataclasses.field(default_factory=dict)   # nrep, blocks, ... of the source

    def as_json(self):
        return {"campaign": str(self.campaign), "env": self.env, "library": self.library, "tag": self.tag,
                "guideline": self.guideline.text(), "assessment": "".join(s.text() for s in self.assessment),
                "ops": self.ops, "deployment": self.deployment, "race_set": self.race_set, "cells": self.cells,
                "deployments": self.deployments, "origin": self.origin, "settings": self.settings}


def find_guideline(sets, tag, where):
    """The set holding guideline TAG, narrowed to TAG's lines."""
    for s in sets:
        lines = [line for line in s.lines if line[0] == tag]
        if lines and s.keys.get("parameter") not in ("param_set", "library"):
            return GuidelineSet(s.name, s.keys, lines)
    tags = sorted({line[0] for s in sets for line in s.lines if line[0]})
    raise NbhError(f"tune: {where} has no guideline {tag} (it has: {', '.join(tags) or 'none tagged'})")


def set_items(cells):
    """generate --set items keeping every level the CELLS have, parameter by parameter."""
    levels = {}
    for cell in cells:
        for key, value in cell.items():
            if value != "" and key not in NOT_PARAMETERS:
                levels.setdefault(key, [])
                if value not in levels[key]:
                    levels[key].append(value)
    return [f"{key}={','.join(values)}" for key, values in levels.items()]


def from_analysis(folder, tag, library=None, deployment=None, campaign=None, env=None):
    folder = pathlib.Path(folder)
    tests_path = folder / "tests.csv"
    meta_path = folder / "analysis.json"
    if not tests_path.is_file() or not meta_path.is_file():
        raise NbhError(f"tune: {display_path(folder)} is not an analysis (no tests.csv and analysis.json: "
                       "give a folder nbhbench analyze wrote, or a campaign with --env)")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    sets = parse_assessment(meta.get("assessment", ""), f"{display_path(meta_path)} (assessment)")
    guideline = find_guideline(sets, tag, f"the assessment of {display_path(folder)}")
    with open(tests_path, newline="", encoding="utf-8") as f:
        tests = [row for row in csv.DictReader(f) if row["tag"] == tag]
    violated = [row for row in tests if row["decision"] == "violated"]
    reference = [row for row in violated if row["param_set"] in ("default", "")] or violated
    where = {k: v for k, v in (("library", library), ("deployment", deployment)) if v}
    chosen = [row for row in reference if all(row[k] == v for k, v in where.items())]
    if not chosen:
        scope = " ".join(f"{k} {v}" for k, v in where.items())
        raise NbhError(f"tune: guideline {tag} has no violated test to heal in {display_path(tests_path)}"
                       f"{f' at {scope}' if scope else ''} ({len(tests)} tests: "
                       f"{sum(r['decision'] == 'holds' for r in tests)} hold, "
                       f"{sum(r['decision'] == 'open' for r in tests)} open)")
    for key in ("library", "deployment"):
        found = sorted({row[key] for row in chosen})
        if len(found) > 1:
            raise NbhError(f"tune: guideline {tag} is violated under several {key}s ({', '.join(found)}); "
                           f"choose one with --{key}")
    library, deployment = chosen[0]["library"], chosen[0]["deployment"]
    source, settings, deployments, env = source_of(folder, chosen[0], campaign, env)
    parameters = [c for c in registry_parameters() if c in chosen[0]]
    a_fixed = side_fixed(guideline.lines[0][1], guideline.keys.get("parameter", ""))
    cells = []
    for row in chosen:
        cell = {c: row[c] for c in parameters if row[c] != ""}
        cell.update({k: v for k, v in a_fixed.items() if k in parameters})
        cells.append(cell)
    ops = sorted({cell["op"] for cell in cells if "op" in cell})
    return Target(source, env, library, tag, guideline, sets, ops, deployment, set_items(cells), cells,
                  deployments, f"{len(chosen)} violated tests of {tag} in {display_path(tests_path)}", settings)


def registry_parameters():
    return [row["name"] for row in registry.read_table("parameters") if row["name"] not in NOT_PARAMETERS]


def source_of(folder, row, campaign, env):
    """The campaign directory, settings, deployments and environment of the
    archive an analysis read (archives.csv), or of --campaign and --env."""
    archives = folder / "archives.csv"
    meta = None
    if archives.is_file():
        with open(archives, newline="", encoding="utf-8") as f:
            for entry in csv.DictReader(f):
                path = pathlib.Path(entry.get("directory", ""))
                if (path / "archive.json").is_file():
                    candidate = json.loads((path / "archive.json").read_text(encoding="utf-8"))
                    if candidate.get("library") == row["library"]:
                        meta = (path, candidate)
                        break
    if campaign:
        source = campaign_source(campaign)
    elif meta:
        source = meta[0] / "campaign"
    else:
        raise NbhError(f"tune: the archive {display_path(folder)} analysed for {row['library']} is gone "
                       "(archives.csv); name its campaign with --campaign and its environment with --env")
    if env is None:
        if not meta:
            raise NbhError("tune: no environment: give --env (the archive that tells it is gone)")
        env = meta[1]["env"]
        if not os.path.isfile(pathlib.Path("env") / env):
            env = str(meta[0] / "env" / env)
    settings = dict(meta[1]["settings"]) if meta else {}
    # How the source was measured, for the race and the confirmation to
    # measure alike: its repetitions and rounds, and what --set launch_env
    # gave its ranks (a PMPI tool, a preload).
    settings["carry"] = [f"{key}={settings[key]}" for key in ("nrep", "blocks", "warmup", "time_limit")
                         if settings.get(key) not in (None, "")] + \
        [item for item in (meta[1].get("set", []) if meta else []) if item.startswith("launch_env=")]
    # The levels the source kept (--set msize=..., order=...): the
    # confirmation measures the same kind of cells.
    design = registry.load().design_parameters
    settings["levels"] = [item for item in (meta[1].get("set", []) if meta else [])
                          if item.partition("=")[0] in design and item.partition("=")[0] != "op"]
    deployments = settings.get("deployments") or []
    deployments = [f"{d[0]}x{d[1]}" if isinstance(d, list) else str(d) for d in deployments] or [row["deployment"]]
    return source, settings, deployments, env


def from_campaign(argument, tag, env, deployment, cells_items):
    source = campaign_source(argument)
    path = source / "assessment.conf"
    if not path.is_file():
        raise NbhError(f"tune: {display_path(source)} has no assessment.conf: name a campaign with one")
    sets = parse_assessment(path.read_text(encoding="utf-8"), display_path(path))
    guideline = find_guideline(sets, tag, display_path(path))
    parameter = guideline.keys.get("parameter", "")
    tag_line = guideline.lines[0]
    ops = side_ops(tag_line[1], parameter)
    if not ops:
        raise NbhError(f"tune: {tag}'s first side ({','.join(tag_line[1])}) names no operation: name it in "
                       "--cells op=NAME")
    fixed = side_fixed(tag_line[1], parameter)
    items = [f"{k}={v}" for k, v in fixed.items()]
    for item in cells_items:
        key = item.partition("=")[0]
        items = [i for i in items if i.partition("=")[0] != key] + [item]
    cells = [dict(item.split("=", 1) for item in items)]
    settings = read_settings(source / "campaign.conf")
    deployments = [f"{n}x{p}" for n, p in settings.deployments]
    return Target(source, env, "", tag, guideline, sets, ops, deployment, items, cells, deployments,
                  f"guideline {tag} of {display_path(path)}, cells {' '.join(cells_items) or '(all)'}",
                  {"nrep": settings.nrep})

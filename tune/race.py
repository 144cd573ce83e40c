"""The race of `nbhbench tune` (docs/tuning.md): the candidates as the
parameter sets of one campaign, run in interleaved slots (one launch of
each remaining candidate per slot, in a random order), looked at after
each round with the analyzer, the losers dropped (tune/decide.py), the
next round only for those left, until one is left, all left are alike, or
the budget is spent. It is campaigns underneath: its workspace, archives
and analyses are ordinary ones (NBH_WORK=tunes/NAME/work, ...), so status,
archive and analyze work on it, and an interrupted race goes on where it
stopped (tune --resume NAME).

    Tune(path)                the tune's folder and its record tune.json
    Tune.nbhbench(...)        a command of nbhbench, in the tune's folders
    run_race(tune)            rounds and looks until the race stops
"""
import json
import os
import pathlib
import subprocess
import sys

from gen import power, rounds, whole_files
from gen.envfile import read_environment
from gen.errors import NbhError
from gen.registry import ROOT
from gen.workspace import Workspace, now_utc
from tune import campaigns, decide
from tune.space import Candidate

RECORD = "tune.json"


def tunes_root():
    return pathlib.Path(os.environ.get("NBH_TUNES") or ROOT / "tunes").absolute()


class Tune:
    """A tune's folder: tune.json (the plan and what happened), campaigns/
    (the race's and the confirmation's definitions), work/ and archives/
    (their workspaces and archives), looks/N/ (each look's analyses),
    confirm/ (the confirmation's analysis), deploy/ (the files to install),
    report.md and race.svg."""

    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.state = json.loads((self.path / RECORD).read_text(encoding="utf-8")) if (self.path / RECORD).is_file() else {}

    name = property(lambda self: self.path.name)
    work = property(lambda self: self.path / "work")
    archives = property(lambda self: self.path / "archives")

    def save(self):
        whole_files.write_json(self.path / RECORD, self.state)

    def campaign(self, part):
        return self.path / "campaigns" / f"{self.name}-{part}"

    def workspace(self, part):
        return Workspace(self.work / f"{self.name}-{part}")

    def nbhbench(self, *args, echo=True):
        """./nbhbench ARGS with this tune's work and archive folders; its
        output passed on (ECHO) and returned; a failure is an NbhError
        naming the command and its last line."""
        env = dict(os.environ, NBH_WORK=str(self.work), NBH_ARCHIVES=str(self.archives))
        process = subprocess.Popen([str(ROOT / "nbhbench"), *map(str, args)], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, env=env, stdin=subprocess.DEVNULL)
        lines = []
        for line in process.stdout:
            lines.append(line)
            if echo:
                print(f"  {line.rstrip()}", flush=True)
        error = process.stderr.read()
        process.wait()
        if process.returncode != 0:
            said = [line for line in error.splitlines() if line.strip()] or [lines[-1].strip() if lines else ""]
            raise NbhError(f"tune: nbhbench {args[0]} {args[1] if len(args) > 1 else ''} failed "
                           f"(exit {process.returncode}): {said[-1]}; go on with: nbhbench tune --resume {self.name}",
                           1)
        if error.strip() and echo:
            for line in error.strip().splitlines()[-5:]:
                print(f"  {line}", file=sys.stderr, flush=True)
        return "".join(lines)


def looks_at_most(plan):
    """The most looks the race can make: the first round, then a round of
    `step` runs of at least two candidates as long as the budget lasts."""
    k, first, step, budget = len(plan["candidates"]), plan["first"], plan["step"], plan["budget"]
    return 1 + max(budget - k * first, 0) // (2 * step)


def generate_race(tune):
    plan = tune.state
    alive = [c for c in plan["candidates"]]
    source = pathlib.Path(plan["target"]["campaign"])
    names = [c["name"] for c in alive]
    campaigns.write_campaign(source, tune.campaign("race"), [Candidate(**c) for c in alive],
                             campaigns.against_default(plan["target"]["ops"], names, plan["varied"]),
                             f"nbhbench tune {tune.name}: the race of {len(alive)} candidates")
    items = [f"deployments={plan['target']['deployment']}", f"nrun={plan['first']}",
             *plan["target"]["race_set"], *plan["set"]]
    args = ["generate", tune.campaign("race"), "--env", plan["target"]["env"]]
    for item in items:
        args += ["--set", item]
    tune.nbhbench(*args)
    plan["race"] = {"generated": now_utc(), "round": 1, "looks": [], "alive": [c["name"] for c in alive],
                    "state": "round 1"}
    tune.save()


def runs_planned(workspace):
    return len(workspace.runs())


def look(tune, number):
    """Archive the race, order the candidates against the default, then the
    race's comparisons with the best; returns the look's record."""
    plan, race = tune.state, tune.state["race"]
    folder = tune.path / "looks" / str(number)
    whole_files.make_directory(folder, exist_ok=True)
    archive = tune.nbhbench("archive", tune.workspace("race").path, echo=False).strip().splitlines()[-1]
    record = {"look": number, "at": now_utc(), "archive": archive, "runs": runs_planned(tune.workspace("race"))}
    record.update(decide_look(tune, archive, race["alive"], folder))
    return record


def decide_look(tune, archive, alive, folder):
    """A look's two analyses of ARCHIVE in FOLDER (order/: the candidates
    ALIVE against the default; race/: the others against the best, Holm at
    the look's p threshold) and what they decide: the alive, the best, the
    ratios, each candidate's verdict and who leaves. Also what `tune
    --relook` makes again, with the analyzer of today, on a finished race's
    archives."""
    plan = tune.state
    ops, varied = plan["target"]["ops"], plan["varied"]
    order_conf = folder / "order.conf"
    whole_files.write_text(order_conf, campaigns.against_default(ops, alive, varied))
    tune.nbhbench("analyze", archive, "--assess", order_conf, "--out", folder / "order", "--no-plots",
                  "--v-thres", plan["v_thres"], "--hold-ratio", plan["hold_ratio"], echo=False)
    ratios = decide.ratios_to_default(decide.read_tests(folder / "order" / "tests.csv"))
    best = decide.best_of(ratios, alive)
    record = {"alive": list(alive), "best": best, "ratios": {k: ratios.get(k) for k in alive},
              "p_look": plan["p_look"], "verdicts": {}, "leaving": []}
    if len(alive) > 1:
        race_conf = folder / "race.conf"
        whole_files.write_text(race_conf, campaigns.race_assessment(ops, alive, best, varied))
        tune.nbhbench("analyze", archive, "--assess", race_conf, "--out", folder / "race", "--no-plots",
                      "--adjust", "holm", "--p-thres", plan["p_look"], "--v-thres", plan["v_thres"],
                      "--hold-ratio", plan["hold_ratio"], echo=False)
        found = decide.verdicts(decide.read_tests(folder / "race" / "tests.csv"), alive, best)
        record["verdicts"] = found
        record["leaving"] = decide.leaving(found)
    return record


def next_round(tune, alive):
    """Writes the race's next round: `step` more runs of each candidate left
    (gen.rounds: interleaved slots, numbered on); returns their count."""
    plan, race = tune.state, tune.state["race"]
    workspace = tune.workspace("race")
    info = workspace.info()
    env = read_environment(str(workspace.env / info["env"]))
    ids = [int(e["id"]) for e in workspace.experiments()]
    deployment = plan["target"]["deployment"]
    number = race["round"] + 1
    new = rounds.round_runs(workspace.runs(), {(deployment, name): set(ids) for name in alive}, plan["step"],
                            plan["budget"], info["settings"]["seed"], number)
    rounds.write_round(workspace, info, env, new, ids)
    race["round"] = number
    return len(new)


def run_race(tune):
    """Rounds and looks until the race stops; resumable at every step."""
    plan = tune.state
    if "race" not in plan:
        generate_race(tune)
    race = plan["race"]
    while not race.get("stopped"):
        print(f"tune {tune.name}: race round {race['round']}: {len(race['alive'])} candidates "
              f"({', '.join(race['alive'])})", flush=True)
        tune.nbhbench("submit", tune.workspace("race").path, "--wait", "--resume")
        number = len(race["looks"]) + 1
        record = look(tune, number)
        alive = [name for name in race["alive"] if name not in record["leaving"]]
        runs_next = record["runs"] + plan["step"] * len(alive)
        reason = decide.stop_reason(alive, {k: v for k, v in record["verdicts"].items() if k in alive},
                                    runs_next, plan["budget"])
        if not reason and number >= looks_at_most(plan):
            reason = "the last planned look"
        record["stop"] = reason
        race["looks"].append(record)
        race["alive"] = alive
        print(look_line(record, alive), flush=True)
        if reason:
            race.update(stopped=reason, winner=decide.best_of(record["ratios"], alive), state=f"stopped: {reason}")
        else:
            next_round(tune, alive)
            race["state"] = f"round {race['round']}"
        tune.save()
    return race


def look_line(record, alive):
    gone = f"; leaving: {', '.join(record['leaving'])}" if record["leaving"] else ""
    stop = f"; stop: {record['stop']}" if record.get("stop") else ""
    ratio = record["ratios"].get(record["best"]) or 1
    return (f"tune: look {record['look']} after {record['runs']} runs: best {record['best']} "
            f"({ratio:.3g} x the default){gone}; {len(alive)} left{stop}")


def first_look(plan):
    """What the first look needs to drop a candidate (docs/tuning.md): its
    tests (every candidate but the best against the best, on every race
    cell), Holm's first threshold (the look's p over them), and, each test
    over `first` pairs of launches (first - 1 degrees of freedom), t and
    how many times the spread of the pairs' log ratios their mean must
    reach (t / sqrt(first)); the `first` that brings that to
    power.WEAK_SPREADS."""
    tests = (len(plan["candidates"]) - 1) * max(len(plan["target"]["cells"]), 1)
    threshold = plan["p_look"] / tests
    t = power.t_quantile(threshold, plan["first"] - 1)
    return {"tests": tests, "holm_first": threshold, "t": t, "spreads": t / plan["first"] ** 0.5,
            "first_for_weak": power.runs_for_spreads(threshold)}


def first_look_line(plan):
    need = first_look(plan)
    line = (f"first look: {need['tests']} tests, Holm's first threshold {need['holm_first']:.2g}; each over "
            f"{plan['first']} pairs of launches ({plan['first'] - 1} degrees of freedom, t = {need['t']:.3g}): "
            f"a candidate leaves only where its pairs' mean log ratio to the best is {need['spreads']:.3g} times "
            "their spread or more")
    if need["spreads"] > power.WEAK_SPREADS:
        line += f" (--first {need['first_for_weak']}: {power.WEAK_SPREADS:g} times)"
    return line


def p_look(alpha, looks):
    """The race's p threshold at each look: ALPHA shared by LOOKS (Bonferroni over looks)."""
    return alpha / max(looks, 1)


def sweep_runs(plan):
    """What the full sweep of the same candidates would run: each of them
    the sweep's runs (--sweep-runs; default: the source's nrun)."""
    return len(plan["candidates"]) * plan["sweep_nrun"]


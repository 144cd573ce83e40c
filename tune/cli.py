"""`nbhbench tune` (libexec/nbhbench-tune; docs/tuning.md): from a violated
guideline to a library setting a site can install. Every mistake is one
line before anything runs: an unknown library parameter, a guideline with
no violation to heal, a budget too small for one look."""
import math
import pathlib
import re
import shutil

from gen.cli import Parser
from gen.envfile import read_environment
from gen.errors import NbhError, display_path
from gen.registry import ROOT
from gen.workspace import build_root, now_utc
from tune import confirm, deploy, race, relook, report, space, target
from tune.race import Tune, tunes_root

NAME = re.compile(r"[A-Za-z0-9_.+-]+$")


def parser():
    p = Parser("tune")
    p.add_argument("source", nargs="?", help="an analysis folder, or a campaign")
    p.add_argument("--guideline", metavar="TAG")
    p.add_argument("--library")
    p.add_argument("--deployment")
    p.add_argument("--env")
    p.add_argument("--campaign")
    p.add_argument("--cells", nargs="+", action="extend", default=[], metavar="KEY=V,V")
    p.add_argument("--param", nargs="+", action="extend", default=[], metavar="NAME=V,V")
    p.add_argument("--set", action="append", default=[], dest="set_items", metavar="KEY=VALUE")
    p.add_argument("--confirm-set", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--confirm-deployments")
    p.add_argument("--budget", type=int)
    p.add_argument("--first", type=int, default=5)
    p.add_argument("--step", type=int, default=2)
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--v-thres", type=float, default=1.03)
    p.add_argument("--hold-ratio", type=float, default=1.05)
    p.add_argument("--confirm-runs", type=int, default=7)
    p.add_argument("--sweep-runs", type=int)
    p.add_argument("--candidates", metavar="NAME,NAME")
    p.add_argument("--name")
    p.add_argument("--list", action="store_true")
    p.add_argument("--no-confirm", action="store_true")
    p.add_argument("--resume", metavar="NAME")
    p.add_argument("--relook", metavar="NAME")
    return p


def pairs(items, option):
    """[(name, [values])] of NAME=V,V items."""
    found = []
    for item in items:
        name, equals, values = item.partition("=")
        if not equals or not name or not values:
            raise NbhError(f"tune: {option} {item}: not NAME=VALUE[,VALUE...]")
        found.append((name, [v for v in values.split(",") if v]))
    return found


def target_of(args):
    if not args.source:
        raise NbhError("tune: no SOURCE given: an analysis folder or a campaign (see: nbhbench tune --help)")
    if not args.guideline:
        raise NbhError("tune: no --guideline TAG given (the guideline to heal, e.g. GL8)")
    if (pathlib.Path(args.source) / "tests.csv").is_file():
        if args.cells:
            raise NbhError("tune: --cells names the cells of a campaign; an analysis gives its violated ones")
        return target.from_analysis(args.source, args.guideline, args.library, args.deployment, args.campaign,
                                    args.env)
    if not args.env or not args.deployment:
        raise NbhError("tune: a campaign needs --env ENV and --deployment NxP (or give an analysis folder)")
    return target.from_campaign(args.source, args.guideline, args.env, args.deployment, args.cells)


def plan_of(args):
    """The tune's plan (tune.json), every input checked; nothing has run."""
    goal = target_of(args)
    env = read_environment(goal.env)
    goal.library = goal.library or env.library
    if goal.library != env.library:
        raise NbhError(f"tune: the violation is {goal.library}'s, but environment {env.name} runs {env.library}")
    for name, value in (("--first", args.first), ("--confirm-runs", args.confirm_runs)):
        if value < 2:
            raise NbhError(f"tune: {name} {value}: at least 2 runs (one pair of launches leaves the test across "
                           "launches no degree of freedom)")
    if args.step < 1:
        raise NbhError(f"tune: --step {args.step}: at least 1 run per round")
    if not 0 < args.alpha < 1 or args.v_thres < 1 or args.hold_ratio < args.v_thres:
        raise NbhError("tune: --alpha within (0, 1), --v-thres >= 1 and --hold-ratio >= --v-thres")
    if not re.fullmatch(r"[1-9][0-9]*x[1-9][0-9]*", goal.deployment):
        raise NbhError(f"tune: --deployment {goal.deployment}: not NODESxPROCESSES (e.g. 1x2)")
    info = {"build": str(build_root()), "root": str(ROOT)}
    cvars = space.list_cvars(env, info)
    candidates, left_out = space.space(env.library, goal.ops, cvars, env, pairs(args.param, "--param"))
    if args.candidates:
        wanted = args.candidates.split(",")
        names = [c.name for c in candidates]
        unknown = [w for w in wanted if w not in names]
        if unknown:
            raise NbhError(f"tune: --candidates {unknown[0]}: no such candidate (nbhbench tune ... --list "
                           f"shows them: {', '.join(names)})")
        candidates = [c for c in candidates if c.name in wanted or c.name == "default"]
    if len(candidates) < 2:
        raise NbhError(f"tune: {env.library} has no parameter to tune for {', '.join(goal.ops)} "
                       "(registry/tuning.csv; or name one with --param NAME=V,V)")
    k = len(candidates)
    sweep_nrun = args.sweep_runs or int(goal.settings.get("nrun") or 10)
    budget = args.budget if args.budget is not None else math.ceil(k * sweep_nrun / 2)
    if budget < k * args.first:
        raise NbhError(f"tune: --budget {budget} is too small for one look: the first round runs each of the "
                       f"{k} candidates {args.first} times ({k * args.first} runs; or fewer candidates, "
                       "or --first)")
    # --set deployments=...: the campaign's deployments (the confirmation's);
    # the race runs at the guideline's.
    given = [item.partition("=")[2].split(",") for item in args.set_items if item.startswith("deployments=")]
    set_items = goal.settings.get("carry", []) + [item for item in args.set_items if not item.startswith("deployments=")]
    confirm_deployments = (args.confirm_deployments.split(",") if args.confirm_deployments
                           else given[-1] if given else goal.deployments)
    name = args.name or f"{goal.tag}-{goal.library}-{goal.deployment}"
    if not NAME.match(name):
        raise NbhError(f"tune: --name {name}: letters, digits and . _ + - only")
    plan = {"format": 1, "name": name, "created": now_utc(), "target": goal.as_json(),
            "candidates": [vars(c) for c in candidates], "left_out": left_out,
            "cvars": {c["parameter"]: cvars.get(c["parameter"], {}).get("choices", "") for c in map(vars, candidates)
                      if c["parameter"]},
            "defaults_in_force": {c.parameter: cvars[c.parameter]["value"] for c in candidates
                                  if c.parameter in cvars},
            "varied": goal.guideline.keys.get("varied", "msize"), "first": args.first, "step": args.step,
            "budget": budget, "sweep_nrun": sweep_nrun, "alpha": args.alpha, "v_thres": args.v_thres,
            "hold_ratio": args.hold_ratio, "confirm_runs": args.confirm_runs,
            "confirm_deployments": confirm_deployments, "set": set_items,
            "confirm_set": goal.settings.get("levels", []) + args.confirm_set,
            "no_confirm": args.no_confirm}
    plan["looks_at_most"] = race.looks_at_most(plan)
    plan["p_look"] = race.p_look(args.alpha, plan["looks_at_most"])
    return plan


def listing(plan):
    """--list: the space and the plan, before anything runs."""
    t = plan["target"]
    lines = [f"tune {plan['name']}: guideline {t['tag']} under {t['library']} at {t['deployment']} "
             f"({t['origin']})",
             f"  tuned: {', '.join(t['ops'])}; race cells: {' '.join(t['race_set'])}",
             f"  {len(plan['candidates'])} candidates:"]
    width = max(len(c["name"]) for c in plan["candidates"])
    for c in plan["candidates"]:
        params = " ".join(f"{k}={v}" for k, v in c["parameters"].items()) or "(the library's defaults)"
        lines.append(f"    {c['name']:<{width}}  {params}  [{c['source']}]")
    for parameter, value in plan["defaults_in_force"].items():
        lines.append(f"  in force by default (MPI_T): {parameter}={value}")
    for parameter, value, why in plan["left_out"]:
        lines.append(f"  left out: {parameter}{'=' + value if value else ''}: {why}")
    k = len(plan["candidates"])
    lines += [f"  race: {plan['first']} runs each first, then {plan['step']} more of each left per round; "
              f"budget {plan['budget']} runs (the full sweep: {k * plan['sweep_nrun']}); at most "
              f"{plan['looks_at_most']} looks at p <= {plan['p_look']:.3g} each (alpha {plan['alpha']}), Holm "
              f"over the candidates and cells",
              f"  {race.first_look_line(plan)}",
              f"  confirmation: {plan['confirm_runs']} runs each of the winner and the default on "
              f"{', '.join(plan['confirm_deployments'])}" + (" (skipped: --no-confirm)" if plan["no_confirm"] else "")]
    return "\n".join(lines)


def finish(tune):
    plan = tune.state
    deployed = []
    winner = plan["race"].get("winner")
    if winner and winner != "default":
        chosen = next(c for c in plan["candidates"] if c["name"] == winner)
        cells = [int(c["msize"]) for c in plan["target"]["cells"] if str(c.get("msize", "")).isdigit()]
        nprocs = math.prod(int(x) for x in plan["target"]["deployment"].split("x"))
        verdict = plan.get("confirm", {}).get("summary", "not confirmed")
        deployed = deploy.write(tune.path / "deploy", plan["target"]["library"], chosen["parameters"],
                                f"nbhbench tune {plan['name']}: {winner} for {plan['target']['tag']} "
                                f"({verdict})", nprocs=nprocs, from_bytes=min(cells) if cells else 0,
                                choices=plan.get("cvars", {}))
    if "table" in plan.get("confirm", {}):
        confirm.write_table(tune.path / "confirmation.csv", plan["confirm"])
    plan["deployed"] = deployed
    tune.save()
    return report.write(tune, deployed)


def command(argv):
    args = parser().parse_args(argv)
    if args.relook:
        tune = Tune(tunes_root() / args.relook)
        if not tune.state:
            raise NbhError(f"tune: no tune {args.relook} to look at again ({display_path(tune.path)} has no "
                           f"{race.RECORD})")
        print("\n".join(relook.lines(tune, relook.relook(tune))))
        print(report.write(tune, tune.state.get("deployed", [])))
        return 0
    if args.resume:
        tune = Tune(tunes_root() / args.resume)
        if not tune.state:
            raise NbhError(f"tune: no tune {args.resume} to go on with ({display_path(tune.path)} has no "
                           f"{race.RECORD})")
    else:
        plan = plan_of(args)
        if args.list:
            print(listing(plan))
            return 0
        tune = Tune(tunes_root() / plan["name"])
        if (tune.path / race.RECORD).is_file():
            raise NbhError(f"tune: {display_path(tune.path)} holds a tune already: go on with "
                           f"nbhbench tune --resume {plan['name']}, or give another --name")
        if tune.path.exists():
            shutil.rmtree(tune.path)
        tune.path.mkdir(parents=True)
        tune.state = plan
        tune.save()
        print(listing(plan), flush=True)
    try:
        race.run_race(tune)
        if not tune.state.get("no_confirm"):
            confirm.run_confirmation(tune)
    except KeyboardInterrupt:
        raise NbhError(f"tune: interrupted; what finished is kept; go on with: nbhbench tune --resume {tune.name}",
                       130) from None
    path = finish(tune)
    summary = tune.state.get("confirm", {}).get("summary") or tune.state.get("confirm", {}).get("skipped", "")
    print(f"tune {tune.name}: winner {tune.state['race']['winner']} ({tune.state['race']['stopped']})"
          f"{f'; {summary}' if summary else ''}")
    print(path)
    return 0

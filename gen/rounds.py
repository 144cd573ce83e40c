"""Adaptive campaigns (SPEC 7.5): rounds of runs until every test is decided.

A campaign with `adaptive = yes` (or `nbhbench submit --adaptive`) runs its
first round, the nrun runs `generate` wrote, then looks: the analyzer
assesses what finished (workflow/adaptive.py) and names the experiments
that some undecided ("open") test still needs. Each further round is an
ordinary set of runs holding only those experiments, nrun_step more per
deployment and parameter set that needs any, until no test is open or a
deployment and set would exceed nrun_max runs:

    round 1   runs r001 .. r<nrun>             every experiment (generate)
    round 2   runs r<nrun+1> .. r<nrun+step>   only what open tests need
    ...

Repeated looks would find more false violations than one: each test's
looks spend the p threshold, and the error of the ratio's interval that
decides "holds", by Lan-DeMets error spending on the information the test
has at each look (its runs / nrun_max; registry/analysis.csv look_rule,
O'Brien-Fleming-type, and hold_rule, Pocock-type), so that over all its
looks a test is falsely violated with probability at most p_thres. The
analyzer computes each look's boundaries (analyze/assess/decisions.R,
spending.R); this module plans the looks and writes the rounds. Round r
brings every deployment and set that needs runs to nrun + (r - 1) x
nrun_step runs (at most nrun_max), whatever the rounds before it gave it,
and no round follows the last planned look, so a campaign never looks more
often than it planned:

    looks_planned(nrun, step, nrun_max)   how many looks at most
    spending(rule, alpha, t)              the error a rule spends by information t
    plan(settings)                        the record adaptive.json starts from
    round_runs(runs, needed, ...)         the runs of the next round (pure)
    write_round(workspace, ...)           their inputs, job scripts and runs.csv rows
"""
import math
from statistics import NormalDist

from gen import registry, runs as runplan, whole_files
from gen.errors import NbhError, display_path
from gen.jobscript import attempt_job_script

# The workspace's record of an adaptive campaign (docs/workflow.md).
RECORD = "adaptive.json"
RULES = ("obrien-fleming", "pocock")


def check_assessment_file(campaign, where):
    """An adaptive campaign looks with its assessment: it must have one."""
    if not (campaign / "assessment.conf").is_file():
        raise NbhError(f"adaptive = yes ({where}) needs the campaign's assessment, but {display_path(campaign)} has "
                       "no assessment.conf: the rounds run until every test it names is decided (docs/assessment.md)")


def looks_planned(nrun, step, nrun_max):
    """The looks an adaptive campaign makes at most: after its first round of
    NRUN runs and after each round of STEP more, up to NRUN_MAX."""
    return 1 + math.ceil(max(nrun_max - nrun, 0) / step)


def spending(rule, alpha, t):
    """The one-sided error that RULE's Lan-DeMets spending function has spent
    of ALPHA by information fraction T: the first look's nominal p (the
    analyzer's analyze/assess/spending.R computes the later looks')."""
    if rule not in RULES:
        raise NbhError(f"registry/analysis.csv look_rule: unknown rule '{rule}' (known: {', '.join(RULES)})")
    t = min(t, 1.0)
    if rule == "obrien-fleming":  # 2 (1 - Phi(z / sqrt(t))), as erfc: exact however small
        return math.erfc(NormalDist().inv_cdf(1 - alpha / 2) / math.sqrt(t) / math.sqrt(2))
    return alpha * math.log(1 + (math.e - 1) * t)


def plan(settings):
    """What adaptive.json starts from: the rules, the planned looks and the
    first look's thresholds, from the resolved settings (campaign.json)."""
    analysis = registry.load().analysis
    nrun = int(settings["nrun"])
    if not settings.get("nrun_max"):
        raise NbhError("an adaptive campaign needs nrun_max, the most runs per deployment and parameter set "
                       "(campaign.conf nrun_max = N, or generate --set nrun_max=N)")
    nrun_max = int(settings["nrun_max"])
    step = int(settings.get("nrun_step") or nrun)
    looks = looks_planned(nrun, step, nrun_max)
    p_thres, ci_level = float(analysis["p_thres"]), float(analysis["ci_level"])
    rule, hold_rule = analysis["look_rule"], analysis["hold_rule"]
    first = nrun / nrun_max
    return {"format": 2, "rule": rule, "hold_rule": hold_rule, "looks_planned": looks, "nrun": nrun,
            "nrun_step": step, "nrun_max": nrun_max, "hold_ratio": settings.get("hold_ratio"),
            "p_thres": p_thres, "v_thres": float(analysis["v_thres"]), "ci_level": ci_level,
            "p_first": spending(rule, p_thres, first),
            "ci_level_first": 1 - 2 * spending(hold_rule, (1 - ci_level) / 2, first),
            "looks": [], "state": "round 1"}


def describe(record):
    """One line on an adaptive campaign's plan (generate, status)."""
    return (f"adaptive: the first round of {record['nrun']} runs, then rounds of {record['nrun_step']} of only the "
            f"experiments open tests need, up to {record['nrun_max']} runs per deployment and set: at most "
            f"{record['looks_planned']} looks; {rule_text(record)}")


def rule_text(record):
    """How the looks spend the errors, in words (a record of an older
    nbhbench, format 1, shared p_thres by Bonferroni)."""
    if "p_first" not in record:
        return f"looks by the rule '{record['rule']}' of an older nbhbench"
    return (f"each test's looks spend p_thres {record['p_thres']:g} by {record['rule']} spending on its runs / "
            f"nrun_max (the first look at p <= {record['p_first']:.3g}) and the intervals' "
            f"{100 * (1 - record['ci_level']) / 2:g} % by {record['hold_rule']} spending")


def context_of(run):
    return run["deployment"], run["param_set"]


def round_runs(runs, needed, step, nrun_max, campaign_seed, round_number):
    """The runs of round ROUND_NUMBER: each deployment and parameter set (in
    the order of RUNS, the campaign's) with experiments in NEEDED
    ({(deployment, param_set): ids}) gets the runs that bring it to the
    round's planned count, nrun + (ROUND_NUMBER - 1) x STEP (nrun: its runs
    of round 1) and at most NRUN_MAX: STEP more when it had every round
    before, more when it sat some out; none after the last planned look
    (looks_planned), so that no campaign looks more often than it planned,
    whatever its rounds needed. They are numbered on from its last run, with their
    seeds; run number outermost and interleaved as in gen.runs.plan_runs (a
    slot holds the sets of a deployment that need a run). Each new run's
    "ids" are the experiments it holds."""
    last, first_run, first_round = {}, {}, {}
    for run in runs:
        key = context_of(run)
        last[key] = max(last.get(key, 0), int(run["run"]))
        first_run.setdefault(key, run)
        if int(run.get("round") or 1) == 1:
            first_round[key] = first_round.get(key, 0) + 1
    nrun = {key: first_round.get(key, last[key]) for key in last}
    planned = {key: min(nrun[key] + (round_number - 1) * step, nrun_max) for key in last
               if round_number <= looks_planned(nrun[key], step, nrun_max)}
    count = {key: planned[key] - last[key] for key in planned if needed.get(key) and last[key] < planned[key]}
    # Interleaved as gen.runs.plan_runs: a slot per deployment and k, its
    # sets' launches in a random order, slots numbered on from the last.
    interleave = next((run.get("interleave") for run in runs if run.get("interleave")), "")
    slot = max((int(run["slot"]) for run in runs if str(run.get("slot") or "").isdigit()), default=0) + 1
    deployments = list(dict.fromkeys(deployment for deployment, _ in first_run))
    new = []
    for k in range(max(count.values(), default=0)):
        for deployment in deployments:
            block = [key for key in first_run if key[0] == deployment and k < count.get(key, 0)]
            if not block:
                continue
            for at in runplan.block_order(campaign_seed, deployment, f"round{round_number}.{k + 1}", len(block)):
                key = block[at]
                template = first_run[key]
                number = last[key] + k + 1
                nodes, ppn = int(template["nodes"]), int(template["ppn"])
                param_set = key[1]
                new.append({"run_id": runplan.run_id(nodes, ppn, param_set, number), "deployment": deployment,
                            "nodes": nodes, "ppn": ppn, "nprocs": nodes * ppn, "run": number,
                            "param_set": param_set,
                            "seed": runplan.run_seed(campaign_seed, deployment, param_set, number),
                            "round": round_number, "interleave": interleave if len(block) > 1 else "",
                            "slot": slot if len(block) > 1 else "", "ids": sorted(needed[key])})
            slot += 1
    return new


def runs_left(runs, nrun_max):
    """Runs the budget still allows: per deployment and set, nrun_max less those planned."""
    planned = {}
    for run in runs:
        planned[context_of(run)] = planned.get(context_of(run), 0) + 1
    return sum(max(nrun_max - n, 0) for n in planned.values())


def input_lines(path):
    """The header (without seed) and {id: line without its seed} of a run's input."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    columns = lines[0].split(",")
    if columns[-1] != "seed" or "id" not in columns:
        raise NbhError(f"{path}: not a run input written by generate (its header ends without seed)")
    at = columns.index("id")
    body = {int(line.split(",")[at]): line.rsplit(",", 1)[0] for line in lines[1:]}
    return columns[:-1], body


def write_round(workspace, info, env, new_runs, order):
    """Writes the inputs and job scripts of NEW_RUNS (round_runs) into
    WORKSPACE and appends them to runs.csv (written whole, last: a round
    is planned once its runs are in runs.csv). A run's input holds its
    experiments (ORDER: the ids of experiments.csv, in its order) shuffled
    with the run's seed, each line as the deployment's first run has it
    (graph experiments name the graph file of their process count)."""
    runs = workspace.runs()
    first = {}
    for run in runs:
        first.setdefault(context_of(run), run["run_id"])
    position = {ident: k for k, ident in enumerate(order)}
    for run in new_runs:
        columns, body = input_lines(workspace.input(first[context_of(run)], 1))
        missing = [i for i in run["ids"] if i not in body]
        if missing:
            raise NbhError(f"round {run['round']}: experiment {missing[0]} is not in the inputs of "
                           f"{run['deployment']} {run['param_set']}")
        lines = [body[i] for i in sorted(run["ids"], key=position.__getitem__)]
        comment = (f"nbhbench input: campaign {workspace.name}, run {run['run_id']} (adaptive round "
                   f"{run['round']}: the {len(lines)} experiments open tests need), seed {run['seed']} "
                   "(experiments shuffled with numpy PCG64(seed))")
        whole_files.write_text(workspace.input(run["run_id"], 1),
                               runplan.input_text(columns, lines, run["seed"], comment))
        whole_files.write_text(workspace.job(run["run_id"], 1), attempt_job_script(workspace, info, env, run, 1),
                               mode=0o755)
    columns = list(runs[0]) + [c for c in ("round", "interleave", "slot") if c not in runs[0]]
    rows = [dict(run, round=run.get("round") or 1) for run in runs]
    rows += [dict({k: v for k, v in run.items() if k != "ids"}, experiments_total=len(run["ids"]))
             for run in new_runs]
    whole_files.write_csv(workspace.path / "runs.csv", columns, rows)

"""The campaigns a tune runs (docs/tuning.md): the race (the candidates as
parameter sets, only the tuned operation's cells) and the confirmation
(the default and the winner on every deployment, with the cells of every
guideline of the tuned operations). Each is the source campaign's
definition with its parameter sets replaced; its experiments are chosen
with generate --set, so they keep their ids and parameters."""
import re
import shutil

from gen import whole_files

# campaign.conf keys a tune's campaigns do not take from the source.
DROPPED_KEYS = ("adaptive", "nrun_max", "nrun_step", "hold_ratio")


def conf_without_sets(text):
    """campaign.conf TEXT without its [param_set] sections and adaptive keys."""
    kept, in_set = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            in_set = stripped.startswith("[param_set")
            continue
        key = stripped.split("=", 1)[0].strip()
        if in_set or ("=" in stripped and key in DROPPED_KEYS):
            continue
        kept.append(line)
    return "\n".join(kept).rstrip() + "\n"


def set_sections(candidates):
    lines = []
    for candidate in candidates:
        lines += ["", f"[param_set {candidate.name}]"] + [f"{k} = {v}" for k, v in candidate.parameters.items()]
    return "\n".join(lines) + "\n"


def write_campaign(source, target, candidates, assessment, comment):
    """A copy of the campaign directory SOURCE at TARGET with CANDIDATES as
    its parameter sets and ASSESSMENT as its assessment.conf."""
    if target.exists():
        whole_files.remove_tree(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "assessment.conf"))
    conf = conf_without_sets((source / "campaign.conf").read_text(encoding="utf-8"))
    whole_files.write_text(target / "campaign.conf", f"# {comment}\n" + conf + set_sections(candidates))
    whole_files.write_text(target / "assessment.conf", assessment)


def race_lines(ops, first, second, relation="<="):
    """Guideline lines comparing set FIRST with set SECOND on each op of OPS."""
    return [f"{first},op={op} {relation} {second},op={op}" for op in ops]


def race_assessment(ops, names, best, varied):
    """The look's comparisons of every other remaining candidate with the
    best: `c <= best` violated says c is slower than the best there; holding,
    that it is not slower by the hold ratio or more."""
    lines = [line for name in names if name != best for line in race_lines(ops, name, best)]
    return (f"# nbhbench tune: the race's look, every candidate against the best ({best})\n"
            f"[race]\nparameter = param_set\nvaried = {varied}\n" + "\n".join(lines) + "\n")


def against_default(ops, names, varied):
    """Every candidate against the default (what orders them: the ratios)."""
    lines = [line for name in names if name != "default" for line in race_lines(ops, name, "default")]
    return (f"# nbhbench tune: every candidate against the default\n"
            f"[against default]\nparameter = param_set\nvaried = {varied}\n" + "\n".join(lines) + "\n")


def levels_named(line, parameter):
    """The op levels a guideline line names (plain items where the set's parameter is op, and op=X)."""
    _, a, _, b, _ = line
    return {x.split("=", 1)[1] for x in a + b if x.startswith("op=")} | \
        ({x for x in a + b if "=" not in x} if parameter == "op" else set())


def confirmation_assessment(sets, ops, winner, varied):
    """The source assessment's guidelines that touch the tuned operations
    (within each set: param_set is a grouping parameter), and the cost:
    the winner against the default on every cell measured."""
    kept, measured = [], set(ops)
    for s in sets:
        parameter = s.keys.get("parameter", "")
        if parameter in ("param_set", "library"):
            continue
        lines = [line for line in s.lines if levels_named(line, parameter) & set(ops)
                 or (parameter != "op" and not levels_named(line, parameter))]
        if lines:
            kept.append(s.text(lines))
            for line in lines:
                measured |= levels_named(line, parameter)
    cost = (f"[cost]\nparameter = param_set\nvaried = {varied}\n"
            f"{winner} <= default\n")
    return "# nbhbench tune: the confirmation\n" + "\n".join(kept) + "\n" + cost, sorted(measured)


def safe_name(text):
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", text)

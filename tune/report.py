"""The report of `nbhbench tune` (tunes/NAME/report.md, race.svg): the
race as a picture (each candidate a bar over the looks, ending where it
left), the runs it spent against the full sweep's, the confirmation table
and the deployable files. It prints what tune.json holds; it computes
nothing new."""
from gen import whole_files
from tune import race as race_module

BAR, GAP, LEFT, TOP = 22, 8, 230, 40


def race_svg(plan):
    """The race as SVG: a row per candidate, a column per look; a filled
    cell where the candidate was in the race at that look, its ratio to the
    default written in it, the best's cell marked, a cross where it left."""
    looks = plan["race"]["looks"]
    names = [c["name"] for c in plan["candidates"]]
    width = LEFT + 110 * max(len(looks), 1) + 20
    height = TOP + (BAR + GAP) * len(names) + 40
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             'font-family="sans-serif" font-size="12">',
             f'<text x="10" y="20" font-size="14">race of {len(names)} candidates: runs after each look, '
             'each candidate\'s time over the default\'s (geometric mean of its cells)</text>']
    for j, record in enumerate(looks):
        x = LEFT + 110 * j
        parts.append(f'<text x="{x + 5}" y="{TOP - 5}">look {record["look"]} ({record["runs"]} runs)</text>')
    for i, name in enumerate(names):
        y = TOP + (BAR + GAP) * i
        winner = plan["race"].get("winner") == name
        weight = ' font-weight="bold"' if winner else ""
        parts.append(f'<text x="10" y="{y + 15}"{weight}>{name}</text>')
        for j, record in enumerate(looks):
            if name not in record["alive"]:
                continue
            x = LEFT + 110 * j
            ratio = record["ratios"].get(name)
            best = record["best"] == name
            leaving = name in record["leaving"]
            fill = "#2b8cbe" if best else ("#e34a33" if leaving else "#a6bddb")
            parts.append(f'<rect x="{x}" y="{y}" width="104" height="{BAR}" fill="{fill}"/>')
            label = f"{ratio:.3g}" if ratio else "-"
            parts.append(f'<text x="{x + 6}" y="{y + 15}">{label}{" best" if best else ""}'
                         f'{" leaves" if leaving else ""}</text>')
    legend_y = height - 15
    parts.append(f'<text x="10" y="{legend_y}">dark blue: the best at that look; red: decided slower than the best '
                 'there, leaves; light: still in the race</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def comparisons(looks):
    """What the race's comparisons with the best were (tests.csv `method`):
    paired by launch where its launches were interleaved."""
    verdicts = [v for r in looks for v in r["verdicts"].values()]
    methods = {v.get("method", "") for v in verdicts} - {""}
    if not verdicts:
        return "No comparison with the best was made."
    if not methods:
        return ("tune.json does not record how the comparisons with the best were made (a tune before it "
                "did: `method` in looks/N/race/tests.csv says).")
    if methods == {"launches"}:
        return ("The comparisons with the best paired each candidate's launches with the best's by slot "
                "(tests.csv `method` launches: the log ratio of the two run medians of each slot, a t test over "
                "the pairs, pairs - 1 degrees of freedom).")
    return (f"The comparisons with the best were {', '.join(sorted(methods))} (tests.csv `method`), not only paired "
            "by launch: an `unpaired` one is the exact rank-sum of run medians, whose p is at least 1 / C(2n, n) "
            "with n runs a side.")


def markdown(plan, deployed):
    race, target = plan["race"], plan["target"]
    looks = race["looks"]
    spent = looks[-1]["runs"] if looks else 0
    sweep = len(plan["candidates"]) * plan["sweep_nrun"]
    lines = [f"# nbhbench tune {plan['name']}", "",
             f"Guideline **{target['tag']}** ({target['guideline'].strip().splitlines()[-1]}) under "
             f"{target['library']} at {target['deployment']}: {target['origin']}.", "",
             f"Race cells (generate --set): `{' '.join(target['race_set'])}`; tuned operation(s): "
             f"{', '.join(target['ops'])}.", "",
             "## Candidates", "", "| candidate | parameters | from | left at look |", "|---|---|---|---|"]
    left_at = {name: r["look"] for r in looks for name in r["leaving"]}
    for c in plan["candidates"]:
        params = ", ".join(f"`{k}={v}`" for k, v in c["parameters"].items()) or "(the library's defaults)"
        lines.append(f"| {c['name']} | {params} | {c['source']} | {left_at.get(c['name'], '')} |")
    if plan.get("left_out"):
        lines += ["", "Left out of the space: " + "; ".join(f"`{p}{'=' + v if v else ''}` ({why})"
                                                          for p, v, why in plan["left_out"]) + "."]
    lines += ["", "## The race", "", "![the race](race.svg)", "",
              f"Each look: every candidate against the default (ratios, geometric mean over the cells), then "
              f"every other candidate against the best (`c <= best` on every cell), Holm-adjusted over all those "
              f"tests, at p ≤ "
              f"{plan['p_look']:.3g} (α = {plan['alpha']} over at most {plan['looks_at_most']} looks), "
              f"ratio threshold {plan['v_thres']}, hold ratio {plan['hold_ratio']}.", "",
              f"{comparisons(looks)} The {race_module.first_look_line(plan)}.", "",
              "| look | runs | candidates | best | ratio of the best | leaving |", "|---|---|---|---|---|---|"]
    for r in looks:
        lines.append(f"| {r['look']} | {r['runs']} | {len(r['alive'])} | {r['best']} | "
                     f"{(r['ratios'].get(r['best']) or 1):.3g} | {', '.join(r['leaving']) or '-'} |")
    decided = any(r["leaving"] for r in looks)
    lines += ["", f"**Stopped**: {race.get('stopped', 'not yet')}. **Winner**: {race.get('winner', '-')}"
              + ("." if decided or len(plan["candidates"]) < 2 else
                 ": the race decided nothing (no candidate left); the winner is the best by its ratio, "
                 "not shown faster than the others, and the confirmation decides."), "",
              f"**Runs**: {spent} in the race against {sweep} for the full sweep of the same "
              f"{len(plan['candidates'])} candidates at {plan['sweep_nrun']} runs each "
              f"({100 * spent / sweep:.0f} %)." if sweep else ""]
    confirm = plan.get("confirm", {})
    lines += ["", "## Confirmation", ""]
    if confirm.get("skipped"):
        lines.append(confirm["skipped"] + ".")
    elif "table" in confirm:
        lines += [f"{confirm['winner']} against the default, {plan['confirm_runs']} fresh runs each, "
                  f"interleaved; analysis: `confirm/`.", "",
                  f"| deployment | {target['tag']} default (violated/holds/open) | {target['tag']} {confirm['winner']} | "
                  "race cells healed | cells slower than the default | new violations |", "|---|---|---|---|---|---|"]
        for e in confirm["table"]:
            d, w = e["default"], e["winner"]
            healed = f"{e['healed']} of {e['cells']}" if "cells" in e else "-"
            lines.append(f"| {e['deployment']} | {d['violated']}/{d['holds']}/{d['open']} | "
                         f"{w['violated']}/{w['holds']}/{w['open']} | {healed} | {e['slower_cells']} | "
                         f"{e['new_violations']} |")
        lines += ["", f"**Verdict**: {confirm['summary']}."]
        for e in confirm["table"]:
            for text in e["slower"] + e["new"]:
                lines.append(f"- {e['deployment']}: {text}")
    else:
        lines.append("not yet run.")
    lines += relooked(plan)
    if deployed:
        lines += ["", "## Deployable files", "", "In `deploy/`:", ""]
        lines += [f"- `{name}`: {what}" for name, what in deployed]
    return "\n".join(lines) + "\n"


def look_rows(record):
    """race.csv's rows of one look: a row per candidate in the race at that
    look; `method` and `pairs` are those of its tests against the best
    (tests.csv: `launches`, its launches paired by slot with the best's)."""
    rows = []
    for name in record["alive"]:
        verdict = record["verdicts"].get(name, {})
        rows.append({"look": record["look"], "runs": record["runs"], "candidate": name,
                     "ratio_to_default": record["ratios"].get(name), "best": int(record["best"] == name),
                     "tests": verdict.get("tests", ""), "method": verdict.get("method", ""),
                     "pairs": verdict.get("pairs", ""), "slower": verdict.get("slower", ""),
                     "holds": verdict.get("holds", ""), "leaves": int(name in record["leaving"]),
                     "p_look": record["p_look"]})
    return rows


def relooked(plan):
    """The race decided again by `tune --relook` (tune/relook.py), if it was."""
    found = plan.get("relook")
    if not found:
        return []
    lines = ["", "## The race decided again", "",
             f"`nbhbench tune --relook` at {found['at']} (code {found.get('git_commit', 'unknown')}): the looks "
             "made again with the analyzer of that code on the archives they had, each later look with the "
             "candidates the replay kept (`relook/`, `relook.csv`). No run was made. "
             + comparisons(found["looks"]), "",
             "| look | runs | candidates | best (measured) | ratio of the best | leaving (measured) |",
             "|---|---|---|---|---|---|"]
    for r in found["looks"]:
        lines.append(f"| {r['look']} | {r['runs']} | {len(r['alive'])} | {r['best']} ({r['measured']['best']}) | "
                     f"{(r['ratios'].get(r['best']) or 1):.3g} | {', '.join(r['leaving']) or '-'} "
                     f"({', '.join(r['measured']['leaving']) or '-'}) |")
    lines += ["", f"**Stopped**: {found['stopped']}. **Winner**: {found['winner']}."]
    if "confirm" in found:
        lines += ["", "The confirmation analysed again: "
                  + (found["confirm"].get("summary") or found["confirm"].get("skipped")) + "."]
    return lines


def race_rows(plan):
    """race.csv: a row per look and candidate in the race at that look."""
    return [row for record in plan["race"]["looks"] for row in look_rows(record)]


def write(tune, deployed):
    rows = race_rows(tune.state)
    if rows:
        whole_files.write_csv(tune.path / "race.csv", list(rows[0]), rows)
    whole_files.write_text(tune.path / "race.svg", race_svg(tune.state))
    whole_files.write_text(tune.path / "report.md", markdown(tune.state, deployed))
    return tune.path / "report.md"

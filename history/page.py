"""The history page (history.html; docs/history.md#the-history-page): one
self-contained file (style, script and pictures inline, no network), like
the analysis's report.html:

  - the entries, in order, with their archives and releases;
  - the verdict map over time: a row per guideline and context (campaign,
    library, parameter set, deployment), in the guidelines' order, a
    column per entry, each cell the entry's violated tests / tests,
    coloured by the share violated;
  - the offline change points of every cell (cell_changes.py);
  - a trend chart per cell (inline SVG): the median of its run medians per
    entry of its library (x: the entries that measured that library), the
    middle half of its run medians as a band, its y range from its
    medians (not its wildest runs), its change points in red.

Everything is written as HTML, so the page reads the same without
JavaScript; page.js adds the filters (a text box, a select per context
column, "only cells that changed"), which keep the map's rows and the
charts that match and say how many; "only cells that changed" narrows the
charts and the change table, not the map."""
import html
import math
import re
from pathlib import Path

from history import series
from history.cell_changes import ALPHA, MIN_RATIO, cell_text, change_line, context_text, find_changes, same_in_history
from history.database import shown
from history.departure import sorted_quantile
from history.keys import distribution, library_family

HERE = Path(__file__).resolve().parent
FILTERS = ("campaign", "library", "param_set", "deployment", "op")
WIDTH, HEIGHT, PAD = 360, 150, 40


def esc(text):
    return html.escape(str(text), quote=True)


def natural(text):
    """A sort key that puts GL4 before GL10."""
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", str(text))]


def share_colour(violated, tests):
    """White (none violated) to red (all)."""
    if not tests:
        return "#e6e6e6"
    s = violated / tests
    return f"rgb(255,{round(255 - 170 * s)},{round(255 - 190 * s)})"


def verdict_rows(db, order):
    """{(guideline, campaign, library, distribution, param_set, deployment): {position: (violated, tests, holds)}},
    in the guidelines' and contexts' order."""
    position = {e.id: i for i, e in enumerate(order)}
    rows = {}
    for entry, tag, guideline, campaign, library, distribution, param_set, deployment, tests, violated, holds in \
            db.query("SELECT entry_id, tag, guideline, campaign, library, distribution, param_set, deployment, tests, "
                     "violated, holds FROM verdict_counts"):
        key = (f"{tag}: {guideline}" if tag else guideline, campaign or "", library or "", distribution or "",
               param_set or "", deployment or "")
        rows.setdefault(key, {})[position[entry]] = (int(violated), int(tests), int(holds))
    return dict(sorted(rows.items(), key=lambda kv: [natural(x) for x in kv[0]]))


def verdict_map(db, order):
    rows = verdict_rows(db, order)
    head = "".join(f"<th title=\"{esc(e.created)}\">{i + 1}</th>" for i, e in enumerate(order))
    body = []
    for (guideline, campaign, library, distribution, param_set, deployment), values in rows.items():
        cells = []
        for i in range(len(order)):
            if i in values:
                v, t, h = values[i]
                cells.append(f"<td style=\"background:{share_colour(v, t)}\" title=\"entry {i + 1}: {v} violated, "
                             f"{h} hold, {t - v - h} open of {t} tests\">{v}/{t}</td>")
            else:
                cells.append("<td class=\"none\"></td>")
        context = context_text({"campaign": campaign, "library": library, "distribution": distribution,
                                "param_set": param_set, "deployment": deployment})
        body.append(f"<tr data-campaign=\"{esc(campaign)}\" data-library=\"{esc(library)}\" "
                    f"data-param_set=\"{esc(param_set)}\" data-deployment=\"{esc(deployment)}\" "
                    f"data-text=\"{esc(guideline + ' ' + context)}\">"
                    f"<th>{esc(guideline)}</th><td class=\"context\">{esc(context)}</td>{''.join(cells)}</tr>")
    return ("<div class=\"table\"><table class=\"verdicts\"><thead><tr><th>guideline</th><th>context</th>"
            f"{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>", len(rows))


def chart_range(points):
    """(low, high) of a chart's log axis: its medians', padded (the runs'
    band is drawn within it, cut at its edges: a wild run does not squash
    the medians)."""
    values = [p[1] for p in points if p[1] and p[1] > 0]
    low, high = math.log(min(values)), math.log(max(values))
    pad = max(0.15 * (high - low), 0.03)
    return low - pad, high + pad


def svg_chart(points, changes, positions, labels):
    """POINTS: (position, median, run quartile 1, run quartile 3) of the
    cell's entries; CHANGES: (position, ratio, p); POSITIONS: the number of
    x positions (its library's entries); LABELS: their tick labels."""
    low, high = chart_range(points)
    span = high - low

    def x(i):
        return PAD + (WIDTH - PAD - 10) * (i / max(positions - 1, 1))

    def y(v):
        return HEIGHT - 18 - (HEIGHT - 28) * (min(max(math.log(v), low), high) - low) / span

    parts = [f"<svg viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" role=\"img\">",
             f"<line x1=\"{PAD}\" y1=\"{HEIGHT - 18}\" x2=\"{WIDTH - 8}\" y2=\"{HEIGHT - 18}\" class=\"axis\"/>"]
    for value in (math.exp(high), math.exp((high + low) / 2), math.exp(low)):
        parts.append(f"<text x=\"{PAD - 3}\" y=\"{y(value) + 3:.1f}\" class=\"tick\" text-anchor=\"end\">"
                     f"{value:.3g}</text>")
    band = [p for p in points if p[2] and p[3]]
    if band:
        outline = [f"{x(p[0]):.1f},{y(p[3]):.1f}" for p in band] + [f"{x(p[0]):.1f},{y(p[2]):.1f}"
                                                                     for p in reversed(band)]
        parts.append(f"<polygon points=\"{' '.join(outline)}\" class=\"band\"/>")
    for position, ratio, p in changes:
        parts.append(f"<line x1=\"{x(position - 0.5):.1f}\" y1=\"6\" x2=\"{x(position - 0.5):.1f}\" "
                     f"y2=\"{HEIGHT - 18}\" class=\"change\"><title>change: {ratio:.3f}x, p = {p:.3g}</title></line>")
    path = " ".join(f"{'M' if k == 0 else 'L'}{x(p[0]):.1f},{y(p[1]):.1f}" for k, p in enumerate(points))
    parts.append(f"<path d=\"{path}\" class=\"median\"/>")
    for position, median, q1, q3 in points:
        parts.append(f"<circle cx=\"{x(position):.1f}\" cy=\"{y(median):.1f}\" r=\"2.4\" class=\"point\">"
                     f"<title>entry {labels[position]}: {median:.4g} us (runs' middle half {q1:.4g}-{q3:.4g})"
                     f"</title></circle>")
    step = max(1, math.ceil(positions / 12))
    for i in range(0, positions, step):
        parts.append(f"<text x=\"{x(i):.1f}\" y=\"{HEIGHT - 5}\" class=\"tick\" text-anchor=\"middle\">"
                     f"{labels[i]}</text>")
    parts.append("</svg>")
    return "".join(parts)


def quartiles(values):
    """(quartile 1, quartile 3) of VALUES, as np.percentile(values, [25, 75])
    computes them, without its cost per call: the page draws a band for
    every entry of 2000 cells."""
    x = sorted(values)
    return sorted_quantile(x, 0.25), sorted_quantile(x, 0.75)


def library_positions(order):
    """{(library family, distribution): {entry id: x position}}: each
    library's entries in ORDER, so that a chart has no empty places for
    other libraries' entries."""
    out = {}
    for e in order:
        for library in {(library_family(a["library"]), distribution(a["library"])) for a in e.archives}:
            positions = out.setdefault(library, {})
            positions[e.id] = len(positions)
    return out


def cell_charts(db, order, changes, max_cells):
    cells = series.read_cells(db)
    changed = {}
    for c in changes:
        changed.setdefault(c["cell_id"], []).append(c)
    chosen = sorted(cells, key=lambda c: (c not in changed, natural(cells[c][0])))[:max_cells]
    same = same_in_history(db)
    results = series.cell_results(db, chosen)
    number = {e.id: i + 1 for i, e in enumerate(order)}
    by_library = library_positions(order)
    figures = []
    for cell_id in chosen:
        key, params = cells[cell_id]
        positions = by_library.get((params.get("library", ""), params.get("distribution", "system")), {})
        points = []
        for e, r in results.get(cell_id, {}).items():
            if e in positions:
                runs = r["run_medians"]
                q1, q3 = quartiles(runs) if runs else (None, None)
                points.append((positions[e], r["median_us"], q1, q3))
        points.sort()
        if not points:
            continue
        labels = {p: number[e] for e, p in positions.items()}
        marks = [(positions[c["begins_entry"]], c["ratio"], c["p"]) for c in changed.get(cell_id, [])
                 if c["begins_entry"] in positions]
        attributes = " ".join(f"data-{f}=\"{esc(params.get(f, ''))}\"" for f in FILTERS)
        caption = esc(f"{context_text(params)} {cell_text(params, same)}")
        notes = "".join(f"<br><span class=\"change-note\">{esc(change_line(c).split(': ', 2)[-1])}</span>"
                        for c in changed.get(cell_id, []))
        figures.append(f"<figure class=\"cell\" {attributes} data-changed=\"{'yes' if cell_id in changed else 'no'}\" "
                       f"data-text=\"{esc(key)}\">{svg_chart(points, marks, len(positions), labels)}"
                       f"<figcaption>{caption}{notes}</figcaption></figure>")
    return figures, len(cells)


def options(db, column):
    return sorted({r[0] for r in db.query(f"SELECT DISTINCT {column} FROM cells") if r[0]}, key=natural)


def filters_html(db):
    selects = []
    for f in FILTERS:
        values = "".join(f"<option value=\"{esc(v)}\">{esc(v)}</option>" for v in options(db, f))
        selects.append(f"<label>{f} <select data-filter=\"{f}\"><option value=\"\">all</option>{values}"
                       "</select></label>")
    return ("<div class=\"filters\" id=\"filters\"><label>text <input type=\"search\" data-filter=\"text\" "
            "placeholder=\"filter\"></label>" + "".join(selects) +
            "<label><input type=\"checkbox\" data-filter=\"changed\"> only cells that changed</label>"
            "<span class=\"count\" id=\"count\"></span></div>")


def entries_table(order):
    rows = "".join(
        f"<tr><td>{i + 1}</td><td>{e.id}</td><td>{esc(e.created)}</td>"
        f"<td>{esc('; '.join(a['release'] for a in e.archives))}</td>"
        f"<td>{esc(' '.join(a['name'] for a in e.archives))}</td></tr>" for i, e in enumerate(order))
    return ("<div class=\"table\"><table class=\"entries\"><thead><tr><th>#</th><th>entry</th><th>date</th>"
            f"<th>releases</th><th>archives</th></tr></thead><tbody>{rows}</tbody></table></div>")


def interval(c):
    low, high = c["ratio_low"], c["ratio_high"]
    return "" if low != low or high != high else f"{low:.3g}-{high:.3g}"


def changes_table(changes, order):
    position = {e.id: i for i, e in enumerate(order)}
    rows = "".join(
        f"<tr data-campaign=\"{esc(c['campaign'])}\" data-library=\"{esc(c['library'])}\" "
        f"data-param_set=\"{esc(c['param_set'])}\" data-deployment=\"{esc(c['deployment'])}\" "
        f"data-op=\"{esc(c['op'])}\" data-changed=\"yes\" data-text=\"{esc(c['key'])}\">"
        f"<td>{esc(context_text(c))}</td><td class=\"cell\">{esc(c['cell'])}</td>"
        f"<td>{position[c['begins_entry']] + 1}</td><td>{esc(c['begins_release'])}</td><td>{esc(c['kind'])}</td>"
        f"<td>{c['ratio']:.3f}</td><td>{interval(c)}</td><td>{esc(c['direction'])}</td>"
        f"<td>{c['p']:.2g}</td><td>{c['p_adjusted']:.2g}</td></tr>" for c in changes)
    return ("<div class=\"table\"><table class=\"changes\"><thead><tr><th>context</th><th>cell</th>"
            "<th>from #</th><th>release</th><th>kind</th><th>ratio</th><th>95 % interval</th><th>direction</th>"
            f"<th>p</th><th>adjusted p</th></tr></thead><tbody>{rows}</tbody></table></div>")


def write_page(db, out, by="date", alpha=ALPHA, min_ratio=MIN_RATIO, max_cells=2000, found=None, common=True):
    """Writes the page of DB to OUT, from one snapshot of the history (the
    caller's, when it reads in one; FOUND: the change points of every
    cell, when the caller searched them in that snapshot; COMMON false:
    searched without the entries' common shift, find_changes)."""
    with db.reading():
        entries = series.read_entries(db)
        order = series.ordered(entries, by)
        vmap, map_rows = verdict_map(db, order)
        if found is None:
            found = find_changes(db, by, alpha=alpha, min_ratio=min_ratio, entries=entries, common=common)
        figures, cell_count = cell_charts(db, order, found.rows, max_cells)
        filters = filters_html(db)
    style = (HERE / "page.css").read_text(encoding="utf-8")
    script = (HERE / "page.js").read_text(encoding="utf-8")
    left_out = cell_count - len(figures)
    body = [
        "<h1>nbhbench history</h1>",
        f"<ul class=\"facts\"><li>database: <code>{esc(shown(db.location))}</code></li>"
        f"<li>{len(order)} entries, ordered by {esc(by)}; {cell_count} cells, {map_rows} guideline rows</li>"
        f"<li>change points (circular binary segmentation of each cell's levels, steps and bumps; a false "
        f"discovery rate of {alpha} across the {found.searched} series searched, size at least {min_ratio}x"
        + ("" if common else "; the entries' common shift left in") + "): "
        f"{len(found.rows)} in {found.chosen} cells; {found.too_few} cells have too few entries to search</li></ul>",
        filters,
        "<h2 id=\"entries\">Entries</h2>", entries_table(order),
        "<h2 id=\"verdict-map\">Verdict map over time</h2>",
        "<p>Per guideline and context, each entry's violated tests / tests; the colour is the share violated "
        "(white: none; grey: not measured in that entry). Columns are the entries above, in order.</p>", vmap,
        "<h2 id=\"changes\">Change points</h2>",
        changes_table(found.rows, order) if found.rows else "<p>None.</p>",
        "<h2 id=\"cells\">Trend per cell</h2>",
        "<p>The median of the cell's run medians per entry (µs, log scale; x: the entries of its library, numbered "
        "as above), the middle half of its run medians as a grey band; a red dashed line where a change point "
        "begins. Cells that changed come first"
        + (f"; {left_out} cells are left out (--max-cells)" if left_out else "") + ".</p>",
        f"<div class=\"cells\">{''.join(figures)}</div>",
    ]
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>nbhbench history</title><style>\n{style}</style></head><body><main>\n" + "\n".join(body) +
            f"\n</main><script>\n{script}</script></body></html>\n")
    out.write_text(page, encoding="utf-8")
    return out

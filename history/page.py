"""The history page (history.html; docs/history.md#the-history-page): one
self-contained file (style, script and pictures inline, no network), like
the analysis's report.html:

  - the entries, in order, with their archives and releases;
  - the verdict map over time: a row per guideline and context (library,
    parameter set, deployment), a column per entry, each cell the entry's
    violated tests / tests, coloured by the share violated;
  - the change points of every cell (E-Divisive with a permutation test, changes.py);
  - a trend chart per cell (inline SVG): the median of its run medians per
    entry, the range of its run medians, its change points in red.

Everything is written as HTML, so the page reads the same without
JavaScript; page.js adds the filters (a text box, a select per context
column, "only cells that changed"), which keep the map's rows and the
charts that match and say how many."""
import html
import math
from pathlib import Path

from history import series
from history.cell_changes import cell_text, change_line, find_changes, same_everywhere
from history.changes import ALPHA, MIN_RATIO
from history.database import shown

HERE = Path(__file__).resolve().parent
FILTERS = ("library", "param_set", "deployment", "op")
WIDTH, HEIGHT, PAD = 360, 150, 34


def esc(text):
    return html.escape(str(text), quote=True)


def entry_order(db, by):
    return series.ordered(series.read_entries(db), by)


def share_colour(violated, tests):
    """White (none violated) to red (all)."""
    if not tests:
        return "#e6e6e6"
    s = violated / tests
    return f"rgb(255,{round(255 - 170 * s)},{round(255 - 190 * s)})"


def verdict_rows(db, order):
    position = {e.id: i for i, e in enumerate(order)}
    rows = {}
    for tag, guideline, library, param_set, deployment, entry, tests, violated, holds in db.query(
            "SELECT t.tag, t.guideline, t.library, t.param_set, t.deployment, r.entry_id, COUNT(*), "
            "SUM(CASE WHEN r.decision = 'violated' THEN 1 ELSE 0 END), "
            "SUM(CASE WHEN r.decision = 'holds' THEN 1 ELSE 0 END) "
            "FROM test_results r JOIN tests t ON t.id = r.test_id "
            "GROUP BY t.tag, t.guideline, t.library, t.param_set, t.deployment, r.entry_id"):
        key = (f"{tag}: {guideline}" if tag else guideline, library or "", param_set or "", deployment or "")
        rows.setdefault(key, {})[position[entry]] = (int(violated), int(tests), int(holds))
    return rows


def verdict_map(db, order):
    rows = verdict_rows(db, order)
    head = "".join(f"<th title=\"{esc(e.created)}\">{i + 1}</th>" for i, e in enumerate(order))
    body = []
    for (guideline, library, param_set, deployment), values in rows.items():
        cells = []
        for i in range(len(order)):
            if i in values:
                v, t, h = values[i]
                cells.append(f"<td style=\"background:{share_colour(v, t)}\" title=\"entry {i + 1}: {v} violated, "
                             f"{h} hold, {t - v - h} open of {t} tests\">{v}/{t}</td>")
            else:
                cells.append("<td class=\"none\"></td>")
        context = " ".join(x for x in (library, param_set, deployment) if x)
        body.append(f"<tr data-library=\"{esc(library)}\" data-param_set=\"{esc(param_set)}\" "
                    f"data-deployment=\"{esc(deployment)}\" data-text=\"{esc(guideline + ' ' + context)}\">"
                    f"<th>{esc(guideline)}</th><td class=\"context\">{esc(context)}</td>{''.join(cells)}</tr>")
    return ("<div class=\"table\"><table class=\"verdicts\"><thead><tr><th>guideline</th><th>context</th>"
            f"{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>", len(rows))


def svg_chart(points, changes, entries):
    """POINTS: (position, median, smallest, largest run median); CHANGES:
    (position, ratio, p); ENTRIES: the number of positions."""
    values = [v for p in points for v in p[1:] if v and v > 0]
    low, high = math.log(min(values)), math.log(max(values))
    if high - low < 1e-9:
        low, high = low - 0.05, high + 0.05
    span = high - low

    def x(i):
        return PAD + (WIDTH - PAD - 8) * (i / max(entries - 1, 1))

    def y(v):
        return HEIGHT - 18 - (HEIGHT - 30) * (math.log(v) - low) / span

    parts = [f"<svg viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" role=\"img\">",
             f"<line x1=\"{PAD}\" y1=\"{HEIGHT - 18}\" x2=\"{WIDTH - 8}\" y2=\"{HEIGHT - 18}\" class=\"axis\"/>"]
    for value in (math.exp(high), math.exp(low)):
        parts.append(f"<text x=\"{PAD - 3}\" y=\"{y(value) + 3:.1f}\" class=\"tick\" text-anchor=\"end\">"
                     f"{value:.3g}</text>")
    for position, ratio, p in changes:
        parts.append(f"<line x1=\"{x(position - 0.5):.1f}\" y1=\"8\" x2=\"{x(position - 0.5):.1f}\" "
                     f"y2=\"{HEIGHT - 18}\" class=\"change\"><title>change: {ratio:.3f}x, p = {p:.3g}</title></line>")
    for position, median, smallest, largest in points:
        if smallest and largest:
            parts.append(f"<line x1=\"{x(position):.1f}\" y1=\"{y(smallest):.1f}\" x2=\"{x(position):.1f}\" "
                         f"y2=\"{y(largest):.1f}\" class=\"range\"/>")
    path = " ".join(f"{'M' if k == 0 else 'L'}{x(p[0]):.1f},{y(p[1]):.1f}" for k, p in enumerate(points))
    parts.append(f"<path d=\"{path}\" class=\"median\"/>")
    for position, median, smallest, largest in points:
        parts.append(f"<circle cx=\"{x(position):.1f}\" cy=\"{y(median):.1f}\" r=\"2.6\" class=\"point\">"
                     f"<title>entry {position + 1}: {median:.4g} us</title></circle>")
    for i in range(entries):
        parts.append(f"<text x=\"{x(i):.1f}\" y=\"{HEIGHT - 5}\" class=\"tick\" text-anchor=\"middle\">{i + 1}</text>")
    parts.append("</svg>")
    return "".join(parts)


def cell_charts(db, order, by, alpha, min_ratio, max_cells):
    cells = series.read_cells(db)
    changes = find_changes(db, by, alpha=alpha, min_ratio=min_ratio)
    changed = {}
    for c in changes:
        changed.setdefault(c["cell_id"], []).append(c)
    chosen = sorted(cells, key=lambda c: (c not in changed, cells[c][0]))[:max_cells]
    same = same_everywhere(cells)
    results = series.cell_results(db, chosen)
    position = {e.id: i for i, e in enumerate(order)}
    figures = []
    for cell_id in chosen:
        key, params = cells[cell_id]
        points = sorted((position[e], r["median_us"], min(r["run_medians"], default=None),
                         max(r["run_medians"], default=None)) for e, r in results.get(cell_id, {}).items())
        if not points:
            continue
        marks = [(position[c["begins_entry"]], c["ratio"], c["p"]) for c in changed.get(cell_id, [])]
        attributes = " ".join(f"data-{f}=\"{esc(params.get(f, ''))}\"" for f in FILTERS)
        context = " ".join(params.get(f, "") for f in FILTERS if params.get(f))
        caption = esc(f"{context} {cell_text(params, same)}")
        notes = "".join(f"<br><span class=\"change-note\">{esc(change_line(c).split(': ', 1)[1])}</span>"
                        for c in changed.get(cell_id, []))
        figures.append(f"<figure class=\"cell\" {attributes} data-changed=\"{'yes' if cell_id in changed else 'no'}\" "
                       f"data-text=\"{esc(key)}\">{svg_chart(points, marks, len(order))}"
                       f"<figcaption>{caption}{notes}</figcaption></figure>")
    return figures, changes, len(cells)


def options(db, column):
    return sorted({r[0] for r in db.query(f"SELECT DISTINCT {column} FROM cells") if r[0]})


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


def changes_table(changes, order):
    position = {e.id: i for i, e in enumerate(order)}
    rows = "".join(
        f"<tr data-library=\"{esc(c['library'])}\" data-param_set=\"{esc(c['param_set'])}\" "
        f"data-deployment=\"{esc(c['deployment'])}\" data-op=\"{esc(c['op'])}\" data-changed=\"yes\" "
        f"data-text=\"{esc(c['key'])}\"><td>{esc(' '.join(c[f] for f in FILTERS if c[f]))}"
        f"</td><td>{esc(c['cell'])}</td><td>{position[c['begins_entry']] + 1}</td><td>{esc(c['begins_release'])}</td>"
        f"<td>{c['ratio']:.3f}</td><td>{esc(c['direction'])}</td><td>{c['p']:.3g}</td></tr>" for c in changes)
    return ("<div class=\"table\"><table class=\"changes\"><thead><tr><th>context</th><th>cell</th>"
            "<th>from #</th><th>release</th><th>ratio</th><th>direction</th><th>p</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></div>")


def write_page(db, out, by="date", alpha=ALPHA, min_ratio=MIN_RATIO, max_cells=2000):
    order = entry_order(db, by)
    vmap, map_rows = verdict_map(db, order)
    figures, changes, cell_count = cell_charts(db, order, by, alpha, min_ratio, max_cells)
    style = (HERE / "page.css").read_text(encoding="utf-8")
    script = (HERE / "page.js").read_text(encoding="utf-8")
    left_out = cell_count - len(figures)
    body = [
        "<h1>nbhbench history</h1>",
        f"<ul class=\"facts\"><li>database: <code>{esc(shown(db.location))}</code></li>"
        f"<li>{len(order)} entries, ordered by {esc(by)}; {cell_count} cells, {map_rows} guideline rows</li>"
        f"<li>change points: E-Divisive on the entries' run medians, permutation p &lt;= {alpha}, size &gt;= "
        f"{min_ratio}x and above the run spread: {len(changes)} found</li></ul>",
        filters_html(db),
        "<h2 id=\"entries\">Entries</h2>", entries_table(order),
        "<h2 id=\"verdict-map\">Verdict map over time</h2>",
        "<p>Per guideline and context, each entry's violated tests / tests; the colour is the share violated "
        "(white: none; grey: not measured in that entry). Columns are the entries above, in order.</p>", vmap,
        "<h2 id=\"changes\">Change points</h2>",
        changes_table(changes, order) if changes else "<p>None.</p>",
        "<h2 id=\"cells\">Trend per cell</h2>",
        "<p>The median of the cell's run medians per entry (µs, log scale), the range of its run medians as a bar; "
        "a red dashed line where a change point begins. Cells that changed come first"
        + (f"; {left_out} cells are left out (--max-cells)" if left_out else "") + ".</p>",
        f"<div class=\"cells\">{''.join(figures)}</div>",
    ]
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>nbhbench history</title><style>\n{style}</style></head><body><main>\n" + "\n".join(body) +
            f"\n</main><script>\n{script}</script></body></html>\n")
    out.write_text(page, encoding="utf-8")
    return out


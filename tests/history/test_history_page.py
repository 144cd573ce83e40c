"""The history page in a real browser (headless Chromium driven by
selenium): self-contained (nothing loaded from elsewhere), the verdict
map over time as the history holds it, in the guidelines' order, a chart
per cell whose y range is its medians' (not its wildest runs') and whose
x positions are its library's entries, filters that keep exactly the
rows and charts of a library, an operation, or the cells that changed
(the map stays), tables that fit a 1400-pixel window; without JavaScript
every row and chart is shown."""
import json
import re
import shutil
import sqlite3

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from headless_chromium import chromium
from history.page import natural
from history_testing import nbhbench, seal

SHOWN = """return Array.from(document.querySelectorAll(arguments[0])).filter(e => !e.hidden)
  .map(e => e.dataset.text);"""


@pytest.fixture(scope="module")
def page(sqlite_history, tmp_path_factory):
    out = tmp_path_factory.mktemp("page") / "history.html"
    done = nbhbench("history", "page", "--db", sqlite_history, "--out", out)
    assert done.stdout.strip() == str(out)
    with sqlite3.connect(sqlite_history) as c:
        cells = dict(c.execute("SELECT key, op FROM cells").fetchall())
        verdicts = c.execute("SELECT t.tag, r.entry_id, SUM(r.decision = 'violated'), COUNT(*) FROM test_results r "
                             "JOIN tests t ON t.id = r.test_id GROUP BY t.tag, r.entry_id "
                             "ORDER BY t.tag, r.entry_id").fetchall()
    return out, cells, verdicts


def test_the_page_is_self_contained(page):
    text = page[0].read_text()
    assert "http://" not in text and "https://" not in text and "<link" not in text and " src=" not in text


def test_the_verdict_map_in_order_and_a_chart_per_cell(page):
    out, cells, verdicts = page
    with chromium() as browser:
        browser.get(out.as_uri())
        rows = browser.execute_script("""
            return Array.from(document.querySelectorAll('table.verdicts tbody tr'), r =>
              [r.cells[0].textContent, Array.from(r.cells).slice(2).map(c => c.textContent)]);""")
        expected = {}
        for tag, entry, violated, tests in verdicts:
            expected.setdefault(tag, [""] * 10)[entry - 1] = f"{violated}/{tests}"
        assert {name.split(":")[0]: values for name, values in rows} == expected
        assert [name.split(":")[0] for name, _ in rows] == sorted(expected, key=natural)   # GL4 before GL11
        assert sorted(browser.execute_script(SHOWN, "figure.cell")) == sorted(cells)
        assert browser.execute_script("return document.querySelectorAll('figure.cell svg circle').length") == \
            10 * len(cells)
        assert browser.find_element(By.ID, "count").text == f"{len(cells)} of {len(cells)} cells"
        # The planted cell comes first, with its change point drawn.
        first = browser.find_element(By.CSS_SELECTOR, "figure.cell")
        assert first.get_attribute("data-changed") == "yes" and "msize=1024" in first.get_attribute("data-text")
        assert len(first.find_elements(By.CSS_SELECTOR, "line.change")) == 1


def test_the_filters_keep_what_they_name_and_changed_only_keeps_the_map(page):
    out, cells, verdicts = page
    with chromium() as browser:
        browser.get(out.as_uri())
        Select(browser.find_element(By.CSS_SELECTOR, "select[data-filter=op]")).select_by_value("neighbor_alltoall")
        shown = browser.execute_script(SHOWN, "figure.cell")
        assert sorted(shown) == sorted(k for k, op in cells.items() if op == "neighbor_alltoall")
        assert browser.find_element(By.ID, "count").text == f"{len(shown)} of {len(cells)} cells"
        Select(browser.find_element(By.CSS_SELECTOR, "select[data-filter=op]")).select_by_value("")
        browser.find_element(By.CSS_SELECTOR, "input[data-filter=changed]").click()
        changed = browser.execute_script(SHOWN, "figure.cell")
        assert len(changed) == 1 and "op=neighbor_allgather" in changed[0] and "msize=1024" in changed[0]
        assert len(browser.execute_script(SHOWN, "table.changes tbody tr")) == 1
        # The verdict map's rows are guidelines, not cells: "only cells that changed" leaves them.
        assert len(browser.execute_script(SHOWN, "table.verdicts tbody tr")) == len({v[0] for v in verdicts})
        browser.find_element(By.CSS_SELECTOR, "input[data-filter=changed]").click()
        box = browser.find_element(By.CSS_SELECTOR, "input[data-filter=text]")
        box.send_keys("GL11")
        assert [r.split(" ")[0] for r in browser.execute_script(SHOWN, "table.verdicts tbody tr")] == ["GL11:"]
        Select(browser.find_element(By.CSS_SELECTOR, "select[data-filter=library]")).select_by_value("openmpi")
        assert len(browser.execute_script(SHOWN, "table.verdicts tbody tr")) == 1


def test_without_javascript_everything_is_shown(page):
    out, cells, _ = page
    with chromium(javascript=False) as browser:
        browser.get(out.as_uri())
        assert len(browser.execute_script(SHOWN, "figure.cell")) == len(cells)


def test_a_chart_s_y_range_is_its_medians_with_the_runs_as_a_band(sqlite_history, tmp_path):
    # One run of one entry 1000x slower: the chart's range stays that of the medians.
    db = tmp_path / "h.db"
    shutil.copy(sqlite_history, db)
    with sqlite3.connect(db) as c:
        cell, medians = c.execute("SELECT r.cell_id, r.run_medians_us FROM cell_results r JOIN cells k ON "
                                  "k.id = r.cell_id WHERE r.entry_id = 3 AND k.op = 'neighbor_alltoall' "
                                  "ORDER BY k.key LIMIT 1").fetchone()
        runs = json.loads(medians)
        runs[0] *= 1000
        c.execute("UPDATE cell_results SET run_medians_us = ? WHERE cell_id = ? AND entry_id = 3",
                  (json.dumps(runs), cell))
        key, = c.execute("SELECT key FROM cells WHERE id = ?", (cell,)).fetchone()
        medians = [m for (m,) in c.execute("SELECT median_us FROM cell_results WHERE cell_id = ?", (cell,))]
    out = tmp_path / "page.html"
    nbhbench("history", "page", "--db", db, "--out", out)
    html = out.read_text()
    figure = html[html.index(f'data-text="{key}"'):]
    figure = figure[:figure.index("</figure>")]
    ticks = [float(x) for x in re.findall(r'class="tick" text-anchor="end">([^<]+)</text>', figure)]
    assert max(ticks) < 2 * max(medians) and min(ticks) > 0.5 * min(medians)
    assert "<polygon" in figure and 'class="band"' in figure


def test_a_chart_s_x_positions_are_its_library_s_entries(series_archives, series_analyses, tmp_path):
    # Five entries of Open MPI, then three of MPICH: each chart has its library's entries alone.
    db = tmp_path / "h.db"
    nbhbench("history", "add", "--db", db, *series_analyses[:5])
    other = []
    for i, archive in enumerate(series_archives[5:8]):
        copy = tmp_path / f"mpich-{i}"
        shutil.copytree(archive, copy)
        info = json.loads((copy / "archive.json").read_text())
        info["library"] = "mpich"
        (copy / "archive.json").write_text(json.dumps(info))
        runs = (copy / "runs.csv").read_text().splitlines()
        runs = [runs[0]] + [r.replace(",openmpi,", ",mpich,") for r in runs[1:]]
        (copy / "runs.csv").write_text("\n".join(runs) + "\n")
        seal(copy, info["created"], f"MPICH Version: 4.{i}.0")
        other.append(copy)
    nbhbench("history", "add", "--db", db, *other)
    out = tmp_path / "page.html"
    nbhbench("history", "page", "--db", db, "--out", out)
    with chromium() as browser:
        browser.get(out.as_uri())
        counts = browser.execute_script("""
            return Array.from(document.querySelectorAll('figure.cell'), f =>
              [f.dataset.library, f.querySelectorAll('circle').length,
               Math.max(...Array.from(f.querySelectorAll('circle'), c => +c.getAttribute('cx')))]);""")
    assert {(library, n) for library, n, _ in counts} == {("openmpi", 5), ("mpich", 3)}
    assert len({right for _, _, right in counts}) == 1   # every chart spans its width


def test_the_tables_fit_a_1400_pixel_window(page, tmp_path):
    out, _, _ = page
    with chromium(width=1400, height=1000) as browser:
        browser.get(out.as_uri())
        widths = browser.execute_script("""
            return Array.from(document.querySelectorAll('table.changes, table.entries'), t =>
              [t.className, t.parentElement.scrollWidth, t.parentElement.clientWidth]);""")
        assert widths and all(scroll <= client for _, scroll, client in widths), widths
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 1400
        browser.save_screenshot(str(tmp_path / "page.png"))
    assert (tmp_path / "page.png").stat().st_size > 0

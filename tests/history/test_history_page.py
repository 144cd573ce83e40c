"""The history page in a real browser (headless Chromium driven by
selenium): self-contained (nothing loaded from elsewhere), the verdict
map over time as the history holds it, a chart per cell, and filters that
keep exactly the rows and charts of a library, an operation, or the cells
that changed; without JavaScript every row and chart is shown."""
import sqlite3

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from headless_chromium import chromium
from history_testing import nbhbench

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


def test_the_verdict_map_and_a_chart_per_cell(page):
    out, cells, verdicts = page
    with chromium() as browser:
        browser.get(out.as_uri())
        rows = browser.execute_script("""
            return Array.from(document.querySelectorAll('table.verdicts tbody tr'), r =>
              [r.cells[0].textContent, Array.from(r.cells).slice(2).map(c => c.textContent)]);""")
        expected = {}
        for tag, entry, violated, tests in verdicts:
            expected.setdefault(tag, [""] * 8)[entry - 1] = f"{violated}/{tests}"
        assert {name.split(":")[0]: values for name, values in rows} == expected
        assert sorted(browser.execute_script(SHOWN, "figure.cell")) == sorted(cells)
        assert browser.execute_script("return document.querySelectorAll('figure.cell svg circle').length") == \
            8 * len(cells)
        assert browser.find_element(By.ID, "count").text == f"{len(cells)} of {len(cells)} cells"
        # The planted cell comes first, with its change point drawn.
        first = browser.find_element(By.CSS_SELECTOR, "figure.cell")
        assert first.get_attribute("data-changed") == "yes" and "msize=1024" in first.get_attribute("data-text")
        assert len(first.find_elements(By.CSS_SELECTOR, "line.change")) == 1


def test_the_filters_keep_what_they_name(page):
    out, cells, _ = page
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

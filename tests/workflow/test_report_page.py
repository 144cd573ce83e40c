"""report.html in a real browser (headless Chromium driven by selenium):
the report of a real analysis, both libraries' progress-shim archives
(real MPI runs, measured once a session and shared with
test_end_to_end_progress.py), must load every image, resolve every link
inside the page, open with the verdict map, and filter and sort its
violations table as violations.csv says; without JavaScript it still shows
every row. Archive values that hold markup (a library, parameter set,
campaign, graph or folder name with quotes and tags) show as text in every
place they reach, alt="..." included, and run no script."""
import json
import os
import subprocess

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from headless_chromium import chromium
from workflow_testing import ROOT, Bench, read_csv

LIBRARIES = ("openmpi", "mpich")
VARIED = "msize"   # of every guideline of campaigns/progress-shim/assessment.conf

# The violations table's shown rows as cell texts (the rows a filter hides left out).
SHOWN_ROWS = """
return Array.from(document.querySelector('table[data-explore="violations"]').tBodies[0].rows)
  .filter(r => !r.hidden).map(r => Array.from(r.cells, c => c.textContent.trim()));"""


@pytest.fixture(scope="module")
def analysis(progress_archive, tmp_path_factory):
    """The report of both libraries' archives analysed together, and
    violations.csv. The thresholds make every test whose side a is the
    slower a violation, so that the violations table has rows of several
    guidelines and both libraries whatever the machine's load did to the
    measurements (what they show is test_end_to_end_progress.py's)."""
    out = tmp_path_factory.mktemp("report-page") / "analysis"
    Bench(out.parent).ok("analyze", *(progress_archive(library) for library in LIBRARIES), "--out", out,
                         "--p-thres", "1", "--v-thres", "1", timeout=300)
    violations = read_csv(out / "violations.csv")
    assert len(violations) <= 50, "the report shows them all"
    assert len({(v["tag"], v["guideline"]) for v in violations}) >= 2 and {v["library"] for v in violations} == \
        set(LIBRARIES), "rows of several guidelines and both libraries to filter"
    return out, violations


def shown(row, columns):
    """(guideline, context, level, ratio) of a row of the page's violations table."""
    return tuple(row[columns.index(name)] for name in ("guideline", "context", "level", "ratio"))


def expected(v):
    """The same of a row of violations.csv, as the report writes it."""
    guideline = f"{v['tag']}: {v['guideline']}" if v["tag"] else v["guideline"]
    context = " ".join(x for x in (v["library"], v["param_set"], v["deployment"]) if x)
    return guideline, context, f"{VARIED}={v[VARIED]}", f"{float(v['ratio']):.3f}"


def test_the_report_in_a_browser(analysis):
    out, violations = analysis
    with chromium() as browser:
        browser.get((out / "report.html").as_uri())
        images = browser.execute_script(
            "return Array.from(document.images, i => [i.alt.slice(0, 60), i.complete, i.naturalWidth]);")
        assert len(images) >= 4, "the verdict map, overview, focus and overlap plots"
        assert all(complete and width > 0 for _, complete, width in images), images
        links = browser.execute_script("""
            return Array.from(document.querySelectorAll('a[href^="#"]'), a => a.getAttribute('href'))
              .filter(h => !document.getElementById(decodeURIComponent(h.slice(1))));""")
        assert links == [], "links to no element of the page"
        count = browser.execute_script("return document.querySelectorAll('nav#contents a[href^=\"#\"]').length;")
        assert count == len(browser.find_elements(By.CSS_SELECTOR, "h2[id], h3[id]")), "every section in the contents"

        # The verdict map first: before the contents and the first section.
        first = browser.execute_script("""
            const map = document.querySelector('figure#verdict-map img');
            const later = e => map.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING;
            return map && map.naturalWidth > 0 && map.alt.startsWith('Verdict map: ') &&
                   later(document.getElementById('contents')) && later(document.querySelector('h2'));""")
        assert first

        table = browser.find_element(By.CSS_SELECTOR, 'table[data-explore="violations"]')
        columns = browser.execute_script("return Array.from(arguments[0].tHead.rows[0].cells, c => c.textContent);",
                                         table)
        every = sorted(expected(v) for v in violations)
        assert sorted(shown(r, columns) for r in browser.execute_script(SHOWN_ROWS)) == every
        # Filtered by each guideline, and by each context: exactly violations.csv's rows of it.
        for index, column in enumerate(("guideline", "context")):
            select = Select(browser.find_element(By.CSS_SELECTOR, f'div.filters select[data-column="{column}"]'))
            values = [o.get_attribute("value") for o in select.options if o.get_attribute("value")]
            assert set(values) == {e[index] for e in every}
            for value in values:
                select.select_by_value(value)
                rows = sorted(shown(r, columns) for r in browser.execute_script(SHOWN_ROWS))
                assert rows == [e for e in every if e[index] == value], value
            select.select_by_value("")

        # A click on a header sorts by it, numbers as numbers; a second click reverses.
        for name in ("ratio", "p"):
            header = table.find_element(By.XPATH, f"./thead/tr/th[normalize-space(text())='{name}']")
            header.click()
            values = [float(r[columns.index(name)]) for r in browser.execute_script(SHOWN_ROWS)]
            assert values == sorted(values) and header.get_attribute("aria-sort") == "ascending"
            header.click()
            values = [float(r[columns.index(name)]) for r in browser.execute_script(SHOWN_ROWS)]
            assert values == sorted(values, reverse=True)
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []


def test_without_javascript_every_row_is_there(analysis):
    out, violations = analysis
    with chromium(javascript=False) as browser:
        browser.get((out / "report.html").as_uri())
        assert browser.find_elements(By.CSS_SELECTOR, "div.filters, th.sortable") == []
        rows = browser.find_elements(By.CSS_SELECTOR, 'table[data-explore="violations"] tbody tr')
        assert len(rows) == len(violations) and all(r.is_displayed() for r in rows)
        assert browser.find_element(By.CSS_SELECTOR, "figure#verdict-map img").get_property("naturalWidth") > 0


# --- archive values that hold HTML: shown as text, never run ---------------

# An archive made by tests/analyze/synthetic_archive.R with a placeholder in
# each field that reaches the page; hostile() puts markup in their place.
PLAIN_ARCHIVE = r"""
source(file.path(Sys.getenv("NBH_ROOT"), "tests", "analyze", "synthetic_archive.R"))
dir <- commandArgs(TRUE)[1]
write_synthetic_archive(dir, synthetic_experiments("small", nrep = 10L), deployments = "1x4", nrun = 8L,
  library = "LIBRARYX", param_sets = list(default = character(), SETX = c(coll_tuned_use_dynamic_rules = "VALUEX")),
  campaign = "CAMPAIGNX", inputs = FALSE,
  planted = list(list(where = list(op = "neighbor_allgather", msize = 1024), factor = 1.5)))
g <- file.path(dir, "inputs", "graphs")
dir.create(g, recursive = TRUE)
writeLines(c("source,dest,count", "0,1,3", "1,0,3", "1,2,5", "2,1,5", "3,2,1"), file.path(g, "k.p4.s1.csv"))
writeLines(c(paste(GRAPH_COLUMNS, collapse = ","), "GRAPHX,k.p4.s1.csv,4,PARTITIONX,1,64,352,5,0,1.25,2,0,4.25,8,7"),
           file.path(g, "k.p4.s1.about.csv"))
"""
GRAPH_COLUMNS = ("graph", "file", "p", "partition", "partition_seed", "rows", "nonzeros", "edges", "degree_min",
                 "degree_mean", "degree_max", "entries_min", "entries_mean", "entries_max", "edge_cut")
# placeholder -> the field it stands for; each reaches the page (headings,
# tables, lists, figure captions and their alt="..." attributes)
FIELDS = {"ARCHIVEX": "archive", "LIBRARYX": "library", "SETX": "set", "VALUEX": "value", "CAMPAIGNX": "campaign",
          "GRAPHX": "graph", "PARTITIONX": "partition", "synthetic-node": "host"}


def hostile(field):
    """Markup that runs script wherever it is not escaped: it ends a quoted
    attribute (either quote), opens tags with handlers, and holds an entity
    (without its ';', which separates hosts)."""
    mark = f"window.nbhPwned='{field}'"
    return f"""{field}" onload="{mark}" x='<img src=x onerror={mark}><svg onload={mark}>&amp"""


def hostile_archive(folder):
    """A synthetic archive whose library, parameter set and value, campaign,
    hosts, graph and partition, and folder name hold hostile()."""
    plain = folder / "ARCHIVEX"
    subprocess.run(["Rscript", "--vanilla", "-e", PLAIN_ARCHIVE.replace("GRAPH_COLUMNS", "c(%s)" % ", ".join(
                    f'"{c}"' for c in GRAPH_COLUMNS)), str(plain)],
                   check=True, capture_output=True, timeout=120, env=dict(os.environ, NBH_ROOT=str(ROOT)))

    def swap(text):
        for placeholder, field in FIELDS.items():
            text = text.replace(placeholder, hostile(field))
        return text

    def swap_json(value):
        if isinstance(value, str):
            return swap(value)
        if isinstance(value, list):
            return [swap_json(v) for v in value]
        return {swap(k): swap_json(v) for k, v in value.items()} if isinstance(value, dict) else value

    for path in plain.rglob("*"):
        if path.suffix == ".json":
            path.write_text(json.dumps(swap_json(json.loads(path.read_text()))))
        elif path.suffix in (".csv", ".conf"):
            path.write_text(swap(path.read_text()))  # no value holds a comma: no CSV quoting needed
    archive = folder / swap("archive-ARCHIVEX")
    plain.rename(archive)
    return archive


def test_archive_values_that_hold_markup_show_as_text_and_run_nothing(tmp_path):
    archive = hostile_archive(tmp_path)
    out = tmp_path / "analysis"
    Bench(tmp_path).ok("analyze", archive, "--out", out, timeout=300)
    with chromium() as browser:
        browser.get((out / "report.html").as_uri())
        WebDriverWait(browser, 30).until(lambda b: b.execute_script(
            "return document.readyState === 'complete' && Array.from(document.images).every(i => i.complete);"))
        page = browser.execute_script("""
            return {ran: window.nbhPwned === undefined ? null : String(window.nbhPwned),
                    injected: document.querySelectorAll('[onload], [onerror], svg, img:not(figure > img)').length,
                    images: document.images.length, figures: document.querySelectorAll('figure').length,
                    captions: Array.from(document.querySelectorAll('figure'),
                                         f => [f.querySelector('img').alt, f.querySelector('figcaption').textContent]),
                    text: document.body.textContent};""")
    assert page["ran"] is None, f"script from the archive's {page['ran']} ran"
    assert page["injected"] == 0 and page["images"] == page["figures"] >= 4
    assert all(alt == caption for alt, caption in page["captions"]), "alt is the caption, whole"
    for field in FIELDS.values():
        assert hostile(field) in page["text"] or any(hostile(field) in alt for alt, _ in page["captions"]), \
            f"the archive's {field} as text"
    assert any(hostile("library") in alt for alt, _ in page["captions"]), "a value inside alt=\"...\""


def sweep_archive(path, sets):
    """A synthetic archive of the nbhcoll guidelines (GL9's side is one long
    word: topology=vneum,radius=1,order=FMAJ,...) under several parameter
    sets, sealed with a manifest as `nbhbench archive` seals one."""
    subprocess.run(["Rscript", "--vanilla", "-e", 'source("tests/analyze/synthetic_archive.R"); a <- commandArgs(TRUE); '
                    'write_synthetic_archive(a[1], synthetic_experiments("small", nrep = 10L), deployments = "1x4", '
                    'nrun = 6L, param_sets = strsplit(a[2], ",")[[1]], run_sd = 0.05, seed = 3L)', str(path),
                    ",".join(sets)], check=True, capture_output=True, cwd=ROOT, timeout=300,
                   env=dict(os.environ, NBH_ROOT=str(ROOT)))
    files = sorted(p for p in path.rglob("*") if p.is_file())
    sums = subprocess.run(["sha256sum", *(str(p.relative_to(path)) for p in files)], cwd=path, check=True,
                          capture_output=True, text=True).stdout
    (path / "MANIFEST.sha256").write_text(sums)
    return path


def test_a_sweep_s_report_fits_1400_pixels_and_says_a_changed_archive_first(tmp_path):
    """At 1400 pixels every column of the closest calls is in view (a side
    without spaces held its column as wide as itself, and ratio, p and
    "short of" needed a scroll), and an archive whose files differ from its
    manifest is said before the verdict, not only in Provenance."""
    archive = sweep_archive(tmp_path / "sweep", ["default", "intermediate256", "linear_sync"])
    log = next((archive / "logs").iterdir())
    log.write_text(log.read_text() + "changed after archiving\n")
    out = tmp_path / "analysis"
    Bench(tmp_path).ok("analyze", archive, "--out", out, "--max-plots", "1", timeout=600)
    with chromium(width=1400, height=1000) as browser:
        browser.get((out / "report.html").as_uri())
        WebDriverWait(browser, 30).until(lambda b: b.execute_script("return document.readyState === 'complete';"))
        page = browser.execute_script("""
            const table = document.querySelector('table[data-explore="closest"]');
            const box = table.parentElement.getBoundingClientRect();
            const heads = Array.from(table.tHead.rows[0].cells);
            const paragraphs = Array.from(document.querySelectorAll('main > p'));
            const verdict = document.getElementById('verdict');
            return {overflow: table.parentElement.scrollWidth - table.parentElement.clientWidth,
                    outside: heads.filter(h => h.getBoundingClientRect().right > box.right + 1).map(h => h.textContent),
                    last: heads[heads.length - 1].textContent.trim(),
                    changed: paragraphs.filter(p => p.textContent.startsWith('Archive changed after archiving.'))
                                       .map(p => [p.textContent,
                                                  !!(p.compareDocumentPosition(verdict) & Node.DOCUMENT_POSITION_FOLLOWING)])};""")
    assert page["last"].startswith("short of") and page["outside"] == [] and page["overflow"] <= 1, page
    assert len(page["changed"]) == 1 and page["changed"][0][1], "said once, before the verdict"
    assert page["changed"][0][0].startswith(f"Archive changed after archiving. sweep: 1 of ") and \
        f"do not match MANIFEST.sha256: logs/{log.name}" in page["changed"][0][0], page["changed"]

"""Every write-up under docs/examples says only what the files beside it
say: each claim of its claims.csv is in the README as written and is what
the data give (example_claims.py says the format), every number and
verdict word of its prose has a claim, and every range is the minimum and
maximum of the population it names (write_up_coverage.py). The checker is
itself tested on small hand-made examples, where the answer is known; each
rule with the wrong sentence the checker before it let pass."""
import pathlib

import pytest

from example_claims import check, find_claims, number_spans, read_claims, tolerance, written_forms
from write_up_coverage import unbounded_ranges, unclaimed

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
CLAIMS = find_claims(EXAMPLES)
# Every write-up (a folder under docs/examples with a README.md, and the
# index docs/examples/README.md itself: ".") has its claims checked; one
# without a claims.csv fails.
WRITE_UPS = ["."] + sorted(p.parent.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.glob("*/README.md"))


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.name for c in CLAIMS])
def test_the_claim_is_what_the_data_say(claim):
    readme = (claim.folder / "README.md").read_text()
    problem = check(claim, readme)
    assert problem is None, problem


@pytest.mark.parametrize("example", WRITE_UPS)
def test_the_write_up_has_claims(example):
    assert (EXAMPLES / example / "claims.csv").is_file(), f"{example}: no claims.csv"
    assert any(c.example == example for c in CLAIMS), f"{example}: claims.csv has no rows"


@pytest.mark.parametrize("example", WRITE_UPS)
def test_every_number_and_verdict_word_of_the_write_up_is_claimed(example):
    readme = (EXAMPLES / example / "README.md").read_text()
    problems = unclaimed(readme, [c for c in CLAIMS if c.example == example])
    assert not problems, f"{example}/README.md: {len(problems)} without a claim:\n" + "\n".join(problems)


@pytest.mark.parametrize("example", WRITE_UPS)
def test_every_range_of_the_write_up_is_a_minimum_and_a_maximum(example):
    readme = (EXAMPLES / example / "README.md").read_text()
    problems = unbounded_ranges(readme, [c for c in CLAIMS if c.example == example])
    assert not problems, f"{example}/README.md:\n" + "\n".join(problems)


# --- the checker itself --------------------------------------------------

def example(tmp_path, readme, claims, tables):
    """The checks of CLAIMS (claims.csv rows) on README and TABLES (file
    name: text): {id: problem or None}, and the write-up's unclaimed places
    and unbounded ranges."""
    folder = tmp_path / "examples" / "demo"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(readme)
    for name, text in tables.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    (folder / "claims.csv").write_text("id,text,source,where,measure,expected\n" + claims)
    found = find_claims(tmp_path / "examples")
    return {c.id: check(c, readme) for c in found}, unclaimed(readme, found), unbounded_ranges(readme, found)


def old_rule_passes(expected, text):
    """The rule before issue 35: the expected figure anywhere in the text."""
    return expected in text


TESTS = """guideline,library,decision,ratio,median_a_us,msize
AR2,openmpi,holds,0.98,10,64
AR2,openmpi,holds,1.01,20,1024
AR2,mpich,open,1.20,30,64
AR1,mpich,violated,1.337,40,64
"""


def test_agreeing_claims_pass(tmp_path):
    readme = ("AR2: 2 hold, 1\nopen, 0 violated; the violation is 1.34× (0.04 ms).\n"
              "| AR2 | openmpi | 2 |\nAR1 in mpich\n")
    claims = ("holds,\"AR2: 2 hold, 1 open\",tests.csv,guideline == 'AR2',count_decision:holds,2\n"
              "open,\"1 open, 0 violated\",tests.csv,guideline == 'AR2',count_decision:open,1\n"
              "vio,\"0 violated\",tests.csv,guideline == 'AR2',count_decision:violated,0\n"
              "ratio,is 1.34×,tests.csv,decision == 'violated',value:ratio,1.34\n"
              "ms,(0.04 ms),tests.csv,guideline == 'AR1',max:median_a_us / 1000,0.04\n"
              "row,| AR2 | openmpi | 2 |,tests.csv,library == 'openmpi',count,2\n"
              "word,AR1 in mpich,tests.csv,guideline == 'AR1',value:library,mpich\n"
              "violation,the violation is,tests.csv,guideline == 'AR1',all:decision,violation\n")
    checks, places, ranges = example(tmp_path, readme, claims, {"tests.csv": TESTS})
    assert checks == {k: None for k in ("holds", "open", "vio", "ratio", "ms", "row", "word", "violation")}
    assert places == [] and ranges == []


def test_a_count_that_disagrees_names_example_claim_and_both_values(tmp_path):
    checks, _, _ = example(tmp_path, "AR2: 3 hold\n",
                           "holds,AR2: 3 hold,tests.csv,guideline == 'AR2',count_decision:holds,3\n",
                           {"tests.csv": TESTS})
    assert checks["holds"] == ("demo:holds: README says 3, tests.csv gives 2 "
                               "(count_decision:holds where guideline == 'AR2')")


# Rule 1: a figure is matched as a whole number.

def test_a_figure_inside_a_larger_number_is_not_written(tmp_path):
    assert old_rule_passes("2", "in 12 tests") and old_rule_passes("0", "at 10, 30 or 108")
    checks, _, _ = example(tmp_path, "AR2 holds in 12 tests; at 10, 30 or 108 B\n",
                           "two,in 12 tests,tests.csv,guideline == 'AR2' and library == 'openmpi',count,2\n"
                           "zero,\"at 10, 30 or 108 B\",tests.csv,decision == 'violated' and library == 'openmpi',count,0\n",
                           {"tests.csv": TESTS})
    assert "the expected '2' is not written in its text" in checks["two"]
    assert "the expected '0' is not written in its text" in checks["zero"]


def test_whole_numbers_keep_signs_decimals_and_exponents():
    def numbers(text):
        return [text[s:e] for s, e in number_spans(text)]
    assert numbers("in 12 tests, GL7, 4bee9d1, r001, the 99th, v4.1.4") == ["12"]
    assert numbers("256-5792 B, (−0.6 to 6.0 µs), -3") == ["256", "5792", "−0.6", "6.0", "-3"]
    assert numbers("p 5.4·10⁻⁶, 2.7e-5, 2⁻¹⁴, 13 490, 1.08×, 2.1x") == ["5.4·10⁻⁶", "2.7e-5", "2⁻¹⁴", "13 490",
                                                                       "1.08", "2.1"]
    # a number in groups of thousands is one number: "038" is not in "15 038"
    assert numbers("15 038–15 931 µs") == ["15 038", "15 931"]


# Rule 2: every number of a write-up's prose has a claim of its own.

def test_a_number_without_a_claim_fails_the_write_up(tmp_path):
    readme = "AR2: 2 hold, 1 open.\n"
    claim = "holds,\"AR2: 2 hold, 1 open\",tests.csv,guideline == 'AR2',count_decision:holds,2\n"
    checks, places, _ = example(tmp_path, readme, claim, {"tests.csv": TESTS})
    assert checks["holds"] is None  # the old check: the sentence's one claim passes, "1 open" unchecked
    assert [p.split(": ", 2)[1:] for p in places] == [["number without a claim", "AR2: 2 hold, [1] open."],
                                                      ["verdict word without a claim", "AR2: 2 hold, 1 [open]."]]


def test_two_equal_numbers_need_two_claims(tmp_path):
    readme = "| AR2 | 0/2/0 |\n"
    claims = ("vio,| AR2 | 0/2/0 |,tests.csv,guideline == 'AR2',count_decision:violated,0\n"
              "holds,| AR2 | 0/2/0 |,tests.csv,guideline == 'AR2',count_decision:holds,2\n")
    _, places, _ = example(tmp_path, readme, claims, {"tests.csv": TESTS})
    assert len(places) == 1 and "number without a claim: | AR2 | 0/2/[0] |" in places[0]


def test_commands_dates_versions_and_names_need_no_claim(tmp_path):
    readme = ("Open MPI 4.1.4, Intel MPI 2021.19 and MPICH 5 at 1×4 on 2026-11-26/27 02:26–02:28 (02:26:12 UTC),\n"
              "issue 26, §7.6, a 2-core VM, 3-D, MPI-4, [overlap-07](plots/overlap-07.png), `--set nrun=7`,\n"
              "run_1x2.csv\n```\n./nbhbench generate demo --set nrun=3\n```\nbut 7 runs\n")
    _, places, _ = example(tmp_path, readme, "", {})
    assert places == ["line 7: number without a claim: but [7] runs"]


def test_the_text_of_a_claim_names_one_place(tmp_path):
    checks, _, _ = example(tmp_path, "AR2: 2 hold.\nAR1: 2 hold.\n",
                           "twice,2 hold,tests.csv,guideline == 'AR2',count_decision:holds,2\n", {"tests.csv": TESTS})
    assert "is in demo/README.md 2 times" in checks["twice"]


# Rule 3: a range is the minimum and the maximum of the population the
# sentence names.

def test_a_range_claimed_on_pinned_cells_fails(tmp_path):
    readme = "The ratios are 0.98–1.20.\n"
    # The old way: each end a value: of one cell; both pass, and the sentence
    # is wrong (the population's largest ratio is 1.337).
    pinned = ("low,are 0.98–1.20,tests.csv,msize == 64 and library == 'openmpi',value:ratio,0.98\n"
              "high,are 0.98–1.20,tests.csv,library == 'mpich' and guideline == 'AR2',value:ratio,1.20\n")
    checks, places, ranges = example(tmp_path, readme, pinned, {"tests.csv": TESTS})
    assert checks == {"low": None, "high": None} and places == []
    assert len(ranges) == 1 and "the range '0.98–1.20' is claimed by low (value:ratio) and high (value:ratio)" in ranges[0]
    bounded = ("low,are 0.98–1.20,tests.csv,,min:ratio,0.98\n"
               "high,are 0.98–1.20,tests.csv,,max:ratio,1.20\n")
    checks, _, ranges = example(tmp_path, readme, bounded, {"tests.csv": TESTS})
    assert ranges == [] and checks["low"] is None
    assert checks["high"] == "demo:high: README says 1.20, tests.csv gives 1.337 (max:ratio)"


def test_an_interval_is_one_row_s_bounds(tmp_path):
    tests = "guideline,ratio,ci_low,ci_high\nAR1,1.2,1.1,1.3\nAR2,1.5,1.4,1.6\n"
    readme = "AR1: 1.2 (1.1–1.3)\n"
    good = ("r,AR1: 1.2,tests.csv,guideline == 'AR1',value:ratio,1.2\n"
            "lo,(1.1–1.3),tests.csv,guideline == 'AR1',value:ci_low,1.1\n"
            "hi,(1.1–1.3),tests.csv,guideline == 'AR1',value:ci_high,1.3\n")
    checks, places, ranges = example(tmp_path, readme, good, {"tests.csv": tests})
    assert set(checks.values()) == {None} and places == [] and ranges == []
    # the bounds of two different rows are no interval
    bad = good.replace("hi,(1.1–1.3),tests.csv,guideline == 'AR1'", "hi,(1.1–1.3),tests.csv,ci_high < 1.5")
    checks, _, ranges = example(tmp_path, readme, bad, {"tests.csv": tests})
    assert set(checks.values()) == {None} and len(ranges) == 1


def test_a_range_s_ends_must_share_their_selection(tmp_path):
    readme = "from 0.98 to 1.34\n"
    claims = ("low,from 0.98 to 1.34,tests.csv,library == 'openmpi',min:ratio,0.98\n"
              "high,from 0.98 to 1.34,tests.csv,library == 'mpich',max:ratio,1.34\n")
    checks, _, ranges = example(tmp_path, readme, claims, {"tests.csv": TESTS})
    assert checks == {"low": None, "high": None} and len(ranges) == 1


# Rule 4: verdict and recommendation words follow the decisions.

def test_a_verdict_word_without_a_claim_fails_the_write_up(tmp_path):
    readme = ("## What removes GL8\n\n| set | violated | hold |\n|---|---|---|\n\n"
              "Each test is violated, holds or open; *open* means neither.\nThe set removes the violations; AR1 holds.\n")
    _, places, _ = example(tmp_path, readme, "", {})
    assert [p.split(": ", 1)[1] for p in places] == [
        "verdict word without a claim: The set [removes] the violations; AR1 holds.",
        "verdict word without a claim: The set removes the violations; AR1 [holds]."]


def test_removes_and_holds_need_every_test_decided_holds(tmp_path):
    # "removes" said of two tests of which one holds and one is open: the
    # old check had no claim on the word, so the sentence passed.
    readme = "Under the set AR2 removes the 2 violations, and AR1 holds.\n"
    claims = ("removes,AR2 removes the,tests.csv,guideline == 'AR2' and msize == 64,all:decision,removes\n"
              "n,the 2 violations,tests.csv,guideline == 'AR2' and msize == 64,count,2\n"
              "violations,2 violations,tests.csv,guideline == 'AR1',all:decision,violation\n"
              "holds,AR1 holds,tests.csv,guideline == 'AR1',all:decision,holds\n")
    checks, places, _ = example(tmp_path, readme, claims, {"tests.csv": TESTS})
    assert checks["removes"] == ("demo:removes: README says 'removes', tests.csv gives holds, open "
                                 "(all:decision where guideline == 'AR2' and msize == 64)")
    assert checks["holds"] == ("demo:holds: README says 'holds', tests.csv gives violated "
                               "(all:decision where guideline == 'AR1')")
    assert checks["n"] is None and places == []


def test_a_count_of_decisions_covers_the_word_that_says_it(tmp_path):
    readme = "AR2: 2 hold and 1 violated.\n"
    claims = ("holds,AR2: 2 hold,tests.csv,guideline == 'AR2',count_decision:holds,2\n"
              "vio,1 violated,tests.csv,guideline == 'AR2',count_decision:open,1\n")
    checks, places, _ = example(tmp_path, readme, claims, {"tests.csv": TESTS})
    # the count is right, but it counts open tests: the word it stands beside is not claimed
    assert checks == {"holds": None, "vio": None}
    assert places == ["line 1: verdict word without a claim: AR2: 2 hold and 1 [violated]."]


def test_a_table_s_decision_count_covers_its_word(tmp_path):
    summary = "guideline,n_vio_tests,n_holds_tests,n_tests\nAR2,1,2,4\n"
    readme = "AR2: 1 violated, 2 hold of 4.\n"
    claims = ("v,1 violated,summary.csv,,value:n_vio_tests,1\n"
              "h,2 hold,summary.csv,,value:n_holds_tests,2\n"
              "n,of 4,summary.csv,,value:n_tests,4\n")
    checks, places, _ = example(tmp_path, readme, claims, {"summary.csv": summary})
    assert set(checks.values()) == {None} and places == []
    # a count that is not of that decision does not cover the word
    claims = claims.replace("h,2 hold,summary.csv,,value:n_holds_tests,2", "h,2 hold,summary.csv,,value:n_tests / 2,2")
    _, places, _ = example(tmp_path, readme, claims, {"summary.csv": summary})
    assert places == ["line 1: verdict word without a claim: AR2: 1 violated, 2 [hold] of 4."]


def test_a_flipped_recommendation_fails(tmp_path):
    tests = ("guideline,dim,decision\nDT2 subarray <= hand,2,holds\nDT2 subarray <= hand,2,open\n"
             "DT2 subarray <= hand,3,violated\nDT2 subarray <= hand,4,holds\nDT2 subarray <= hand,4,open\n"
             "DT2 subarray <= hand,4,open\n")
    claims = ("d2,subarray in 2-D,tests.csv,dim == 2,prefer:subarray|pack by hand,subarray\n"
              "d3,pack by hand in 3-D,tests.csv,dim == 3,prefer:subarray|pack by hand,pack by hand\n"
              "d4,in 4-D the data cannot decide,tests.csv,dim == 4,prefer:subarray|pack by hand|cannot decide,cannot decide\n")
    readme = "Use subarray in 2-D, pack by hand in 3-D; in 4-D the data cannot decide.\n"
    checks, _, _ = example(tmp_path, readme, claims, {"tests.csv": tests})
    assert checks == {"d2": None, "d3": None, "d4": None}
    # the old check had no claim on the words: the flipped sentence passed
    flipped = claims.replace("subarray in 2-D", "pack by hand in 2-D").replace(
        ",subarray\n", ",pack by hand\n").replace("pack by hand in 3-D", "subarray in 3-D").replace(
        "3,prefer:subarray|pack by hand,pack by hand", "3,prefer:subarray|pack by hand,subarray").replace(
        "in 4-D the data cannot decide,tests.csv,dim == 4,prefer:subarray|pack by hand|cannot decide,cannot decide",
        "in 4-D: subarray,tests.csv,dim == 4,prefer:subarray|pack by hand|cannot decide,subarray")
    readme = "Use pack by hand in 2-D, subarray in 3-D; in 4-D: subarray.\n"
    checks, _, _ = example(tmp_path, readme, flipped, {"tests.csv": tests})
    assert checks["d2"] == ("demo:d2: README says 'pack by hand', tests.csv gives 'subarray' "
                            "(prefer:subarray|pack by hand where dim == 2)")
    assert "README says 'subarray', tests.csv gives 'pack by hand'" in checks["d3"]
    # 1 of 3 holding is too few to recommend subarray
    assert "README says 'subarray', tests.csv gives 'cannot decide'" in checks["d4"]


# The figures themselves.

def test_a_ratio_is_compared_at_the_precision_it_is_written_with(tmp_path):
    readme = "1.34× and 1.3× and 1.33×\n"
    claims = ("two,1.34×,tests.csv,decision == 'violated',value:ratio,1.34\n"
              "one,1.3×,tests.csv,decision == 'violated',value:ratio,1.3\n"
              "off,1.33×,tests.csv,decision == 'violated',value:ratio,1.33\n")
    checks, _, _ = example(tmp_path, readme, claims, {"tests.csv": TESTS})
    assert checks["two"] is None and checks["one"] is None
    assert "README says 1.33, tests.csv gives 1.337" in checks["off"]
    assert tolerance("1.33") == pytest.approx(0.005) and tolerance("55") == 0.5
    assert tolerance("2.7e-5") == pytest.approx(0.05e-5)


def test_a_text_the_readme_lacks_fails(tmp_path):
    checks, _, _ = example(tmp_path, "AR2: 2 hold\n", "gone,AR2: 2 holds,tests.csv,,count_decision:holds,2\n",
                           {"tests.csv": TESTS})
    assert checks["gone"] == "demo:gone: the text 'AR2: 2 holds' is not in demo/README.md"


def test_a_figure_its_own_text_does_not_write_fails(tmp_path):
    checks, _, _ = example(tmp_path, "AR2: 2 hold\n", "drift,AR2: 2 hold,tests.csv,guideline == 'AR2',count,3\n",
                           {"tests.csv": TESTS})
    assert "the expected '3' is not written in its text" in checks["drift"]


def test_value_needs_exactly_one_row_and_words_compare_exactly(tmp_path):
    readme = "openmpi holds and mpich\n"
    claims = ("many,openmpi holds,tests.csv,library == 'openmpi',value:decision,holds\n"
              "word,and mpich,tests.csv,guideline == 'AR1',value:library,mpich\n"
              "wrong,openmpi holds,tests.csv,guideline == 'AR1',value:decision,holds\n")
    checks, _, _ = example(tmp_path, readme, claims, {"tests.csv": TESTS})
    assert "value: needs exactly one row" in checks["many"]
    assert checks["word"] is None
    assert checks["wrong"] == ("demo:wrong: README says 'holds', tests.csv gives violated "
                               "(value:decision where guideline == 'AR1')")


def test_all_needs_one_value(tmp_path):
    readme = "at 64 B, of openmpi\n"
    claims = ("mixed,at 64 B,tests.csv,library == 'openmpi',all:msize,64\n"
              "one,of openmpi,tests.csv,guideline == 'AR2' and msize == 1024,all:library,openmpi\n")
    checks, _, _ = example(tmp_path, readme, claims, {"tests.csv": TESTS})
    assert "all: the rows where library == 'openmpi' differ in 'msize' (1024, 64)" in checks["mixed"]
    assert checks["one"] is None


def test_sources_in_subfolders_and_median_sum_min_max(tmp_path):
    readme = "median 25, sum 100, 10 to 40\n"
    claims = ("med,median 25,demo/fixed/tests.csv,,median:median_a_us,25\n"
              "sum,sum 100,demo/fixed/tests.csv,,sum:median_a_us,100\n"
              "lo,10 to 40,demo/fixed/tests.csv,,min:median_a_us,10\n"
              "hi,10 to 40,demo/fixed/tests.csv,,max:median_a_us,40\n")
    checks, places, ranges = example(tmp_path, readme, claims, {"demo/fixed/tests.csv": TESTS})
    assert checks == {"med": None, "sum": None, "lo": None, "hi": None} and places == [] and ranges == []


def test_a_range_of_group_medians(tmp_path):
    readme = "the median ratio per library is 1.2–1.34\n"
    claims = ("lo,is 1.2–1.34,tests.csv,,min:median(ratio) per library,1.2\n"
              "hi,is 1.2–1.34,tests.csv,,max:median(ratio) per library,1.34\n")
    checks, places, ranges = example(tmp_path, readme, claims, {"tests.csv": TESTS})
    # openmpi: median of 0.98, 1.01 = 0.995; mpich: median of 1.20, 1.337 = 1.2685
    assert checks["lo"] == "demo:lo: README says 1.2, tests.csv gives 0.995 (min:median(ratio) per library)"
    assert checks["hi"] == "demo:hi: README says 1.34, tests.csv gives 1.2685 (max:median(ratio) per library)"
    assert places == [] and ranges == []


def test_json_glob_text_and_arithmetic_sources(tmp_path):
    readme = "nrep 50 and 4 to 10 runs a side; load 6.57; p ≥ 1/3432 or 2⁻¹⁴\n"
    claims = ("nrep,nrep 50,a/archive.json,,value:settings.nrep,50\n"
              "lo,4 to 10 runs,*/archive.json,,min:settings.nrun,4\n"
              "hi,4 to 10 runs,*/archive.json,,max:settings.nrun,10\n"
              "load,load 6.57,log.txt,,match:locked 02:26:12 load ([\\d.]+),6.57\n"
              "one,p ≥ 1/3432,,,calc:1,1\n"
              "c,p ≥ 1/3432,,,\"calc:comb(14, 7)\",3432\n"
              "pow,or 2⁻¹⁴,,,calc:2 ** -14,2^-14\n"
              "list,p ≥ 1,*/archive.json#checks,verdict == 'in force',count,1\n")
    tables = {"a/archive.json": '{"settings": {"nrep": 50, "nrun": 10}, "checks": [{"verdict": "in force"}, {"verdict": "no"}]}',
              "b/archive.json": '{"settings": {"nrep": 30, "nrun": 4}}',
              "log.txt": "locked 02:23:37 load 3.07 1.42\nlocked 02:26:12 load 6.57 4.33\n"}
    checks, places, ranges = example(tmp_path, readme, claims, tables)
    assert checks == dict.fromkeys(["nrep", "lo", "hi", "load", "one", "c", "pow", "list"]) and places == [] and ranges == []
    checks, _, _ = example(tmp_path, "took 2.6 min\n", "t,took 2.6 min,log.txt,(g3 * 60 + g4 - g1 * 60 - g2) / 60,"
                           "match:locked 02:(\\d+):(\\d+)(?:.*\\n)*?locked 02:(\\d+):(\\d+),2.6\n", tables)
    assert checks["t"] is None
    checks, _, _ = example(tmp_path, "load 6.75\n", "load,load 6.75,log.txt,,match:load ([\\d.]+),6.75\n", tables)
    assert checks["load"] == "demo:load: README says 6.75, log.txt gives 3.07 (match:load ([\\d.]+))"


def test_a_sqlite_table_source(tmp_path):
    import sqlite3
    folder = tmp_path / "examples" / "demo"
    folder.mkdir(parents=True)
    with sqlite3.connect(folder / "history.db") as db:
        db.execute("CREATE TABLE entries (id INTEGER, hold_ratio REAL)")
        db.executemany("INSERT INTO entries VALUES (?, ?)", [(1, 1.03), (2, 1.03)])
    checks, _, _ = example(tmp_path, "15 entries at 1.03\n",
                           "n,15 entries,history.db#entries,,count,15\nh,at 1.03,history.db#entries,,all:hold_ratio,1.03\n", {})
    assert checks["n"] == "demo:n: README says 15, history.db#entries gives 2 (count)" and checks["h"] is None


def test_a_missing_source_an_empty_selection_and_an_unknown_measure_fail(tmp_path):
    readme = "x 1\n"
    claims = ("nofile,x 1,absent.csv,,count,1\n"
              "empty,x 1,tests.csv,guideline == 'GL4',max:ratio,1\n"
              "unknown,x 1,tests.csv,,mean:ratio,1\n"
              "badword,x 1,tests.csv,,count_decision:hold,1\n"
              "calcsource,x 1,tests.csv,,calc:1,1\n")
    checks, _, _ = example(tmp_path, readme, claims, {"tests.csv": TESTS})
    assert "source absent.csv does not exist" in checks["nofile"]
    assert "selects no numeric 'ratio'" in checks["empty"]
    assert "unknown measure 'mean:ratio'" in checks["unknown"]
    assert "decision must be one of" in checks["badword"]
    assert "calc: takes no source" in checks["calcsource"]


def test_written_forms_cover_the_readmes_typography():
    assert "13 490" in written_forms("13490") and "−2.4" in written_forms("-2.4")
    assert "5.4·10⁻⁶" in written_forms("5.4e-6") and "2⁻¹⁴" in written_forms("2^-14") and "10⁶" in written_forms("1e6")


def test_a_malformed_claims_file_is_refused(tmp_path):
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "claims.csv").write_text("id,text,source,measure,expected\n")
    with pytest.raises(ValueError, match="columns"):
        read_claims(folder / "claims.csv", tmp_path)
    (folder / "claims.csv").write_text("id,text,source,where,measure,expected\na,t,s,,count,1\na,t,s,,count,1\n")
    with pytest.raises(ValueError, match="repeated"):
        read_claims(folder / "claims.csv", tmp_path)

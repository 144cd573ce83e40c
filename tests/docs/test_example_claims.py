"""Every claims.csv under docs/examples holds: each number, range and
verdict its README states is in the README as written and is what the
tables beside it give (example_claims.py says the format). The checker is
itself tested on small hand-made examples, where the answer is known."""
import pathlib

import pytest

from example_claims import check, find_claims, read_claims, tolerance, written_forms

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
CLAIMS = find_claims(EXAMPLES)
# Every write-up (a folder under docs/examples with a README.md) has its
# claims checked; one without a claims.csv fails.
WITH_CLAIMS = sorted(p.parent.relative_to(EXAMPLES).as_posix()
                     for p in EXAMPLES.glob("*/README.md"))


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.name for c in CLAIMS])
def test_the_claim_is_what_the_data_say(claim):
    readme = (claim.folder / "README.md").read_text()
    problem = check(claim, readme)
    assert problem is None, problem


@pytest.mark.parametrize("example", WITH_CLAIMS)
def test_the_write_up_has_claims(example):
    assert (EXAMPLES / example / "claims.csv").is_file(), f"{example}: no claims.csv"
    assert any(c.example == example for c in CLAIMS), f"{example}: claims.csv has no rows"


# --- the checker itself --------------------------------------------------

def example(tmp_path, readme, claims, tables):
    folder = tmp_path / "examples" / "demo"
    folder.mkdir(parents=True)
    (folder / "README.md").write_text(readme)
    for name, text in tables.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    (folder / "claims.csv").write_text("id,text,source,where,measure,expected\n" + claims)
    found = find_claims(tmp_path / "examples")
    return {c.id: check(c, readme) for c in found}


TESTS = """guideline,library,decision,ratio,median_a_us
AR2,openmpi,holds,0.98,10
AR2,openmpi,holds,1.01,20
AR2,mpich,open,1.20,30
AR1,mpich,violated,1.337,40
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
              "word,AR1 in mpich,tests.csv,guideline == 'AR1',value:library,mpich\n")
    assert example(tmp_path, readme, claims, {"tests.csv": TESTS}) == {k: None for k in
                                                                      ("holds", "open", "vio", "ratio", "ms", "row", "word")}


def test_a_count_that_disagrees_names_example_claim_and_both_values(tmp_path):
    problems = example(tmp_path, "AR2: 3 hold\n", "holds,AR2: 3 hold,tests.csv,guideline == 'AR2',count_decision:holds,3\n",
                       {"tests.csv": TESTS})
    assert problems["holds"] == ("demo:holds: README says 3, tests.csv gives 2 "
                                 "(count_decision:holds where guideline == 'AR2')")


def test_a_ratio_is_compared_at_the_precision_it_is_written_with(tmp_path):
    readme = "1.34× and 1.3× and 1.33×\n"
    claims = ("two,1.34×,tests.csv,decision == 'violated',value:ratio,1.34\n"
              "one,1.3×,tests.csv,decision == 'violated',value:ratio,1.3\n"
              "off,1.33×,tests.csv,decision == 'violated',value:ratio,1.33\n")
    problems = example(tmp_path, readme, claims, {"tests.csv": TESTS})
    assert problems["two"] is None and problems["one"] is None
    assert "README says 1.33, tests.csv gives 1.337" in problems["off"]
    assert tolerance("1.33") == pytest.approx(0.005) and tolerance("55") == 0.5
    assert tolerance("2.7e-5") == pytest.approx(0.05e-5)


def test_a_text_the_readme_lacks_fails(tmp_path):
    problems = example(tmp_path, "AR2: 2 hold\n", "gone,AR2: 2 holds,tests.csv,,count_decision:holds,2\n",
                       {"tests.csv": TESTS})
    assert problems["gone"] == "demo:gone: the text 'AR2: 2 holds' is not in demo/README.md"


def test_a_figure_its_own_text_does_not_write_fails(tmp_path):
    problems = example(tmp_path, "AR2: 2 hold\n", "drift,AR2: 2 hold,tests.csv,guideline == 'AR2',count,3\n",
                       {"tests.csv": TESTS})
    assert "the expected '3' is not written in its text" in problems["drift"]


def test_value_needs_exactly_one_row_and_words_compare_exactly(tmp_path):
    readme = "openmpi holds and mpich\n"
    claims = ("many,openmpi holds,tests.csv,library == 'openmpi',value:decision,holds\n"
              "word,and mpich,tests.csv,guideline == 'AR1',value:library,mpich\n"
              "wrong,openmpi holds,tests.csv,guideline == 'AR1',value:decision,holds\n")
    problems = example(tmp_path, readme, claims, {"tests.csv": TESTS})
    assert "value: needs exactly one row" in problems["many"]
    assert problems["word"] is None
    assert problems["wrong"] == ("demo:wrong: README says 'holds', tests.csv gives 'violated' "
                                 "(value:decision where guideline == 'AR1')")


def test_sources_in_subfolders_and_median_sum_min_max(tmp_path):
    readme = "median 25, sum 100, 10 to 40\n"
    claims = ("med,median 25,demo/fixed/tests.csv,,median:median_a_us,25\n"
              "sum,sum 100,demo/fixed/tests.csv,,sum:median_a_us,100\n"
              "lo,10 to 40,demo/fixed/tests.csv,,min:median_a_us,10\n"
              "hi,10 to 40,demo/fixed/tests.csv,,max:median_a_us,40\n")
    problems = example(tmp_path, readme, claims, {"demo/fixed/tests.csv": TESTS})
    assert problems == {"med": None, "sum": None, "lo": None, "hi": None}


def test_a_missing_source_an_empty_selection_and_an_unknown_measure_fail(tmp_path):
    readme = "x 1\n"
    claims = ("nofile,x 1,absent.csv,,count,1\n"
              "empty,x 1,tests.csv,guideline == 'GL4',max:ratio,1\n"
              "unknown,x 1,tests.csv,,mean:ratio,1\n"
              "badword,x 1,tests.csv,,count_decision:hold,1\n")
    problems = example(tmp_path, readme, claims, {"tests.csv": TESTS})
    assert "source absent.csv does not exist" in problems["nofile"]
    assert "selects no numeric 'ratio'" in problems["empty"]
    assert "unknown measure 'mean:ratio'" in problems["unknown"]
    assert "decision must be one of" in problems["badword"]


def test_written_forms_cover_the_readmes_typography():
    assert "13 490" in written_forms("13490") and "−2.4" in written_forms("-2.4")
    assert "5.4·10⁻⁶" in written_forms("5.4e-6")


def test_a_malformed_claims_file_is_refused(tmp_path):
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "claims.csv").write_text("id,text,source,measure,expected\n")
    with pytest.raises(ValueError, match="columns"):
        read_claims(folder / "claims.csv", tmp_path)
    (folder / "claims.csv").write_text("id,text,source,where,measure,expected\na,t,s,,count,1\na,t,s,,count,1\n")
    with pytest.raises(ValueError, match="repeated"):
        read_claims(folder / "claims.csv", tmp_path)

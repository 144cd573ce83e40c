"""The archive's row check (workflow/result_rows.py, docs/archive.md
"Checked rows"): the busy work's time is checked as the operation's is,
by the fast path (pandas) and the line-by-line one alike."""
import pytest

from workflow.result_rows import HEADER, check_results

NREP = {1: 2, 2: 2}
GOOD = ["1,0,1.0e-05,0", "1,1,1.1e-05,0", "2,0,2.0e-05,2.0e-06", "2,1,2.1e-05,2.1e-06"]


def checked(tmp_path, lines):
    path = tmp_path / "r.results.csv"
    path.write_text("\n".join([HEADER, *lines]) + "\n")
    return check_results(str(path), NREP)


def test_a_clean_file_is_taken_whole(tmp_path):
    result = checked(tmp_path, GOOD)
    assert result.complete == [1, 2] and result.rejected == []


@pytest.mark.parametrize("damage", ["NaN", "nan", "abc", "-2e-06", "inf", "1e400", ""])
@pytest.mark.parametrize("column", ["seconds", "work_seconds"])
def test_a_time_that_is_no_time_is_malformed_in_either_column(tmp_path, column, damage):
    fields = GOOD[3].split(",")
    fields[2 if column == "seconds" else 3] = damage
    result = checked(tmp_path, GOOD[:3] + [",".join(fields)])
    [bad] = result.malformed
    assert bad.line == 5
    assert bad.reason.startswith(f"{column} ") or bad.reason == f"not {HEADER}", bad.reason
    assert result.complete == [1]


def test_no_busy_work_is_zero_not_damage(tmp_path):
    assert checked(tmp_path, [line.rsplit(",", 1)[0] + ",0" for line in GOOD]).rejected == []

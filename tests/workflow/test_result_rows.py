"""The archive's row check (workflow/result_rows.py, docs/archive.md
"Checked rows"): the busy work's time is checked as the operation's is,
by the fast path (pandas) and the line-by-line one alike; with rounds, an
experiment is complete once every round of it is whole, and a whole round
of an unfinished one is kept for a resumed attempt to complete."""
import pytest

from workflow.result_rows import HEADER, UNROUNDED_HEADER, Expected, check_results

NREP = Expected({1: 2, 2: 2}, {1: 1, 2: 1})
GOOD = ["1,0,1.0e-05,0", "1,1,1.1e-05,0", "2,0,2.0e-05,2.0e-06", "2,1,2.1e-05,2.1e-06"]


def checked(tmp_path, lines, header=UNROUNDED_HEADER, expected=NREP, kept=None):
    path = tmp_path / "r.results.csv"
    path.write_text("\n".join([header, *lines]) + "\n")
    return check_results(str(path), expected, kept)


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
    assert bad.reason.startswith(f"{column} ") or bad.reason == f"not {UNROUNDED_HEADER}", bad.reason
    assert result.complete == [1]


def test_no_busy_work_is_zero_not_damage(tmp_path):
    assert checked(tmp_path, [line.rsplit(",", 1)[0] + ",0" for line in GOOD]).rejected == []


# Experiment 1: nrep 5 in 2 rounds (3, 2 rows); experiment 2: nrep 4 in 2 rounds (2, 2).
ROUNDS = Expected({1: 5, 2: 4}, {1: 2, 2: 2})
ROUNDED = ["1,0,1,1.0e-05,0", "1,1,1,1.0e-05,0", "1,2,1,1.0e-05,0", "2,0,1,2.0e-05,0", "2,1,1,2.0e-05,0",
           "2,2,2,2.0e-05,0", "2,3,2,2.0e-05,0", "1,3,2,1.0e-05,0", "1,4,2,1.0e-05,0"]


def test_rounds_whole_and_complete(tmp_path):
    result = checked(tmp_path, ROUNDED, HEADER, ROUNDS)
    assert result.complete == [1, 2] and result.rejected == []
    assert {i: sorted(r) for i, r in result.rounds.items()} == {1: [1, 2], 2: [1, 2]}


def test_a_cut_round_is_cut_off_and_the_whole_rounds_are_kept_for_a_resume(tmp_path):
    result = checked(tmp_path, ROUNDED[:-1], HEADER, ROUNDS)   # experiment 1's round 2 lost its last row
    assert result.complete == [2]
    assert {r.text for r in result.rejected} == {"1,3,2,1.0e-05,0"}
    assert not any(r.malformed for r in result.rejected)
    assert result.rounds[1] == {1: ROUNDED[:3]}, "round 1 of experiment 1 is whole: a resume measures only round 2"


def test_a_round_outside_blocks_is_malformed(tmp_path):
    result = checked(tmp_path, ROUNDED + ["2,3,3,2.0e-05,0"], HEADER, ROUNDS)
    assert [r.reason for r in result.malformed] == ["round 3 is outside 1..2 (blocks 2)"]


def test_a_clock_round_that_kept_fewer_repetitions_is_whole_as_the_kernel_says(tmp_path):
    short = [line for line in ROUNDED if line != "1,2,1,1.0e-05,0"]
    assert checked(tmp_path, short, HEADER, ROUNDS).complete == [2], "without the kernel's count it is cut off"
    result = checked(tmp_path, short, HEADER, ROUNDS, kept={(1, 1): 2})
    assert result.complete == [1, 2] and result.rejected == []

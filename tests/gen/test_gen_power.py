"""gen/power.py: whether nrun runs a side can reach the p threshold."""
from gen import power


def test_smallest_p_is_one_over_the_central_binomial_coefficient():
    assert power.smallest_p(6, 6) == 1 / 924 and power.smallest_p(7, 7) == 1 / 3432
    assert power.runs_needed(0.001) == 7 and power.runs_needed(0.05) == 3


def test_a_warning_at_6_runs_none_at_7_or_8():
    text = power.warning(6, 0.001)
    assert text.startswith("nrun=6 cannot show a violation: the one-sided rank-sum test of 6 against 6 run medians "
                           "gives at best p = 1/C(12,6) = 0.00108, above the p threshold 0.001")
    assert text.endswith("use nrun >= 7")
    assert power.warning(7, 0.001) is None and power.warning(8, 0.001) is None
    assert power.warning(3, 0.05) is None and power.warning(2, 0.05)


def test_the_threshold_is_the_analysis_default_of_the_registry():
    assert "0.001" in power.warning(6) and power.warning(8) is None


def test_paired_units_are_runs_times_rounds_and_need_2_to_the_minus_n():
    assert power.units_needed(0.001) == 10 and power.units_needed(0.05) == 5
    assert power.paired_warning(10, 1, 0.001) is None and power.paired_warning(2, 5, 0.001) is None
    text = power.paired_warning(3, 3, 0.001)
    assert text.startswith("nrun=3 x blocks=3 cannot show a violation: the paired signed-rank test of 9 rounds "
                           "gives at best p = 2^-9 = 0.00195, above 0.001")
    assert text.endswith("use nrun x blocks >= 10")
    # An adaptive campaign's first round: its first look's nominal p (error spending).
    text = power.paired_warning(2, 5, 0.001, first=1e-6)
    assert "cannot show a violation in the first round" in text and "above 1e-06, the first look's share" in text
    assert text.endswith("use nrun x blocks >= 20")
    assert power.paired_warning(4, 5, 0.001, first=1e-6) is None
    assert "first look's share" in power.warning(10, 0.001, first=1e-6)

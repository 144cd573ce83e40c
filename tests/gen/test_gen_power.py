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


def test_t_quantiles_are_students():
    # R: qt(0.999, c(1, 2, 9, 29)), 1 - pt(3, 5)
    for df, t in ((1, 318.3088), (2, 22.32712), (9, 4.296806), (29, 3.396229)):
        assert abs(power.t_quantile(0.001, df) - t) < 1e-3 * t
    assert abs(power.t_upper(3, 5) - 0.01504962) < 1e-7


def test_the_two_level_test_needs_runs_not_rounds():
    # One run: no test across launches, whatever its rounds.
    text = power.paired_warning(1, 10, 0.001)
    assert text.startswith("nrun=1 cannot show a violation: the two-level test compares launches")
    assert "10 rounds of one run cannot show what another launch gives" in text
    # Three runs: t = 22.3 with 2 degrees of freedom, 12.9 spreads.
    text = power.paired_warning(3, 10, 0.001)
    assert text.startswith("nrun=3 can show a violation only where the runs agree closely: the two-level test "
                           "over 3 runs (2 degrees of freedom, t = 22.3 at p = 0.001) needs their mean log ratio "
                           "12.9 times the spread")
    assert "use nrun >= 6" in text
    # Rounds do not change it; runs do.
    assert power.paired_warning(6, 1, 0.001) is None and power.paired_warning(10, 7, 0.001) is None
    # An adaptive campaign's first round: its first look's nominal p (error spending).
    text = power.paired_warning(6, 5, 0.001, first=1e-6)
    assert "in the first round (its look's share 1e-06 of the p threshold 0.001" in text
    assert text.endswith("use nrun >= 11 (nbhbench plan ANALYSIS says what more runs or rounds would give)")
    assert power.paired_warning(11, 5, 0.001, first=1e-6) is None
    assert "first look's share" in power.warning(10, 0.001, first=1e-6)

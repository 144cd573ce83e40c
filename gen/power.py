"""Whether a campaign's runs can show a violation at all (SPEC 7.4, "Power";
analyze/assess/power.R says the same in R). With n run medians a side, the exact
one-sided rank-sum test gives at best p = 1 / C(2n, n): 6 runs give
1/924 = 0.00108, above the analysis's p threshold of 0.001, so no ratio,
however large, could ever count as a violation."""
import math

from gen import registry


def smallest_p(n_a, n_b):
    """The smallest p-value of the one-sided rank-sum test with n_a and n_b values."""
    return 1 / math.comb(n_a + n_b, n_a)


def runs_needed(p_thres):
    """The fewest runs a side with which the test can reach p_thres."""
    n = 1
    while smallest_p(n, n) > p_thres:
        n += 1
    return n


def warning(nrun, p_thres=None, looks=1):
    """One line if NRUN runs a side cannot reach the p threshold (registry/analysis.csv), else None.
    An adaptive campaign's first round must reach the threshold of one of its LOOKS (gen/rounds.py)."""
    if p_thres is None:
        p_thres = float(registry.load().analysis["p_thres"])
    threshold = p_thres / looks
    best = smallest_p(nrun, nrun)
    if best <= threshold:
        return None
    need = runs_needed(threshold)
    if looks > 1:
        return (f"nrun={nrun} cannot show a violation in the first round: the one-sided rank-sum test of {nrun} "
                f"against {nrun} run medians gives at best p = 1/C({2 * nrun},{nrun}) = {best:.3g}, above "
                f"{threshold:.3g}, the p threshold {p_thres:g} spent over the {looks} planned looks (Bonferroni, "
                f"registry/analysis.csv look_rule); the first round can only find tests that hold; use nrun >= {need}")
    return (f"nrun={nrun} cannot show a violation: the one-sided rank-sum test of {nrun} against {nrun} run "
            f"medians gives at best p = 1/C({2 * nrun},{nrun}) = {best:.3g}, above the p threshold {p_thres:g} "
            f"(registry/analysis.csv, analyze --p-thres); analyze would mark every guideline 'cannot detect'; "
            f"use nrun >= {need}")

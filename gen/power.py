"""Whether a campaign's runs can show a violation at all (SPEC 7.4, "Power";
analyze/assess/power.R says the same in R). The default paired test (SPEC
7.6) compares the two sides round by round: with n = nrun x blocks units
the exact signed-rank test gives at best p = 2^-n, so 10 units reach 0.001
(paired_warning). With n run medians a side, the exact one-sided rank-sum
test of the study gives at best p = 1 / C(2n, n): 6 runs give 1/924 =
0.00108, above the analysis's p threshold of 0.001, so no ratio, however
large, could ever count as a violation (warning)."""
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


def warning(nrun, p_thres=None, first=None):
    """One line if NRUN runs a side cannot reach the p threshold (registry/analysis.csv), else None.
    An adaptive campaign's first round must reach FIRST, its first look's nominal p (gen/rounds.py plan)."""
    if p_thres is None:
        p_thres = float(registry.load().analysis["p_thres"])
    threshold = p_thres if first is None else first
    best = smallest_p(nrun, nrun)
    if best <= threshold:
        return None
    need = runs_needed(threshold)
    if first is not None:
        return (f"nrun={nrun} cannot show a violation in the first round: the one-sided rank-sum test of {nrun} "
                f"against {nrun} run medians gives at best p = 1/C({2 * nrun},{nrun}) = {best:.3g}, above "
                f"{threshold:.3g}, the first look's share of the p threshold {p_thres:g} (error spending, "
                f"registry/analysis.csv look_rule); the first round can only find tests that hold; use nrun >= {need}")
    return (f"nrun={nrun} cannot show a violation: the one-sided rank-sum test of {nrun} against {nrun} run "
            f"medians gives at best p = 1/C({2 * nrun},{nrun}) = {best:.3g}, above the p threshold {p_thres:g} "
            f"(registry/analysis.csv, analyze --p-thres); analyze would mark every guideline 'cannot detect'; "
            f"use nrun >= {need}")


def units_needed(p_thres):
    """The fewest paired units (rounds of runs) with which 2^-n reaches p_thres."""
    return math.ceil(-math.log2(p_thres) - 1e-12)


def paired_warning(nrun, blocks, p_thres=None, first=None):
    """One line if NRUN runs of BLOCKS rounds cannot reach the p threshold with
    the paired test, else None (an adaptive campaign's first round: FIRST,
    its first look's nominal p)."""
    if p_thres is None:
        p_thres = float(registry.load().analysis["p_thres"])
    threshold = p_thres if first is None else first
    units = nrun * blocks
    if 0.5 ** units <= threshold:
        return None
    need = units_needed(threshold)
    tested = (f"the paired signed-rank test of {units} round{'' if units == 1 else 's'} gives at best "
              f"p = 2^-{units} = {0.5 ** units:.3g}, above {threshold:.3g}")
    if first is None:
        return (f"nrun={nrun} x blocks={blocks} cannot show a violation: {tested} (registry/analysis.csv, "
                f"analyze --p-thres); use nrun x blocks >= {need}")
    return (f"nrun={nrun} x blocks={blocks} cannot show a violation in the first round: {tested}, the first look's "
            f"share of the p threshold {p_thres:g} (error spending, registry/analysis.csv look_rule); the first round "
            f"can only find tests that hold; use nrun x blocks >= {need}")

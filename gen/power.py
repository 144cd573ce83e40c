"""Whether a campaign's runs can show a violation at all (SPEC 7.4, "Power";
analyze/assess/power.R says the same in R). The default paired test (SPEC
7.6) is the two-level test: each run's estimate from its rounds, a t test
over the runs (the unit that repeats), so it needs two runs, and with few
its runs must agree closely (paired_warning). With n run medians a side, the exact one-sided rank-sum
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


def _beta_fraction(a, b, x):
    """The continued fraction of the regularized incomplete beta function (Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h


def t_upper(t, df):
    """P(T > t) for Student's t with DF degrees of freedom, t >= 0."""
    x = df / (df + t * t)
    a, b = df / 2, 0.5
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        incomplete = front * _beta_fraction(a, b, x) / a
    else:
        incomplete = 1 - front * _beta_fraction(b, a, 1 - x) / b
    return incomplete / 2


def t_quantile(p, df):
    """The t with P(T > t) = p (0 < p < 0.5), by bisection."""
    low, high = 0.0, 1.0
    while t_upper(high, df) > p:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        if t_upper(middle, df) > p:
            low = middle
        else:
            high = middle
    return high


# A violation must stand out from the runs' spread by this many standard
# deviations of one run's estimate at most for the campaign to be worth it.
WEAK_SPREADS = 3.0


def effect_in_spreads(nrun, p_thres):
    """How many standard deviations of a run's estimate the mean of NRUN runs
    must lie above 0 for the two-level test to reach P_THRES: t / sqrt(n)."""
    return t_quantile(p_thres, nrun - 1) / math.sqrt(nrun)


def runs_for_spreads(p_thres, spreads=WEAK_SPREADS):
    """The fewest runs with effect_in_spreads <= SPREADS."""
    n = 2
    while effect_in_spreads(n, p_thres) > spreads:
        n += 1
    return n


def paired_warning(nrun, blocks, p_thres=None, first=None):
    """One line if NRUN runs (of BLOCKS rounds) cannot show a violation with
    the two-level test (the run is the unit that repeats: a t test over the
    runs, nrun - 1 degrees of freedom), or only one that stands out by more
    than WEAK_SPREADS times the runs' spread; else None (an adaptive
    campaign's first round: FIRST, its first look's nominal p). The rounds
    sharpen each run's estimate; they cannot replace launches."""
    if p_thres is None:
        p_thres = float(registry.load().analysis["p_thres"])
    threshold = p_thres if first is None else first
    where = ("" if first is None else
             f" in the first round (its look's share {threshold:.3g} of the p threshold {p_thres:g}, error spending, "
             f"registry/analysis.csv look_rule)")
    if nrun < 2:
        return (f"nrun={nrun} cannot show a violation{where}: the two-level test compares launches (the run is the "
                f"unit that repeats; {blocks} round{'' if blocks == 1 else 's'} of one run cannot show what another "
                f"launch gives) and needs nrun >= 2, with one degree of freedom; use nrun >= "
                f"{runs_for_spreads(threshold)}")
    spreads = effect_in_spreads(nrun, threshold)
    if spreads <= WEAK_SPREADS:
        return None
    t = t_quantile(threshold, nrun - 1)
    return (f"nrun={nrun} can show a violation{where} only where the runs agree closely: the two-level test over "
            f"{nrun} runs ({nrun - 1} degree{'' if nrun == 2 else 's'} of freedom, t = {t:.3g} at p = {threshold:.3g}) "
            f"needs their mean log ratio {spreads:.3g} times the spread of one run's estimate above 0; use nrun >= "
            f"{runs_for_spreads(threshold)} (nbhbench plan ANALYSIS says what more runs or rounds would give)")

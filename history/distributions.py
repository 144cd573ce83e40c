"""The few distribution functions the history's tests need, in NumPy
(the project does not depend on SciPy): Student's t (tail probability
and quantile), through the regularised incomplete beta function, and the
digamma and trigamma functions of the empirical-Bayes variance prior
(departure.py). Each works on arrays, elementwise. The tests check them
against R's pt, qt, digamma and trigamma (tests/history/test_history_distributions.py)."""
import math

import numpy as np

_LGAMMA = np.frompyfunc(math.lgamma, 1, 1)
_ERFC = np.frompyfunc(math.erfc, 1, 1)
NORMAL_DF = 1e5     # above: Student's t is the normal to better than 1e-5 in the tails used


def lgamma(x):
    return np.asarray(_LGAMMA(np.asarray(x, dtype=float)), dtype=float)


def _beta_fraction(a, b, x, iterations=300):
    """The continued fraction of the incomplete beta (modified Lentz),
    for x < (a + 1) / (a + b + 2), where it converges quickly."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = np.where(np.abs(d) < tiny, tiny, d)
    d = 1.0 / d
    h = d.copy()
    for m in range(1, iterations + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        h = h * d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        step = d * c
        h = h * step
        if np.all(np.abs(step - 1.0) < 3e-16):
            break
    return h


def incomplete_beta(a, b, x):
    """The regularised incomplete beta I_x(a, b), elementwise."""
    a, b, x = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float), np.asarray(x, float))
    out = np.where(x <= 0, 0.0, 1.0)
    inside = (x > 0) & (x < 1)
    if not inside.any():
        return out
    a, b, x = a[inside], b[inside], x[inside]
    front = np.exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * np.log(x) + b * np.log1p(-x))
    direct = x < (a + 1) / (a + b + 2)
    value = np.empty_like(x)
    value[direct] = front[direct] * _beta_fraction(a[direct], b[direct], x[direct]) / a[direct]
    flip = ~direct
    value[flip] = 1 - front[flip] * _beta_fraction(b[flip], a[flip], 1 - x[flip]) / b[flip]
    out[inside] = value
    return out


def t_tail(t, df):
    """P(T >= t) of Student's t with DF degrees of freedom (one-sided upper tail)."""
    t, df = np.broadcast_arrays(np.asarray(t, float), np.asarray(df, float))
    half = np.empty(t.shape)
    normal = df > NORMAL_DF
    half[~normal] = 0.5 * incomplete_beta(df[~normal] / 2, 0.5, df[~normal] / (df[~normal] + t[~normal] ** 2))
    half[normal] = 0.5 * np.asarray(_ERFC(np.abs(t[normal]) / math.sqrt(2)), dtype=float)
    return np.where(t >= 0, half, 1 - half)


def t_two_sided(t, df):
    """P(|T| >= |t|)."""
    t = np.asarray(t, float)
    return np.minimum(1.0, 2 * t_tail(np.abs(t), df))


def normal_quantile(p):
    """The z with P(Z <= z) = P: Acklam's rational approximation (relative
    error below 1.2e-9), elementwise."""
    p = np.asarray(p, dtype=float)
    a = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
         -3.066479806614716e+01, 2.506628277459239e+00)
    b = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
         -1.328068155288572e+01)
    c = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
         4.374664141464968e+00, 2.938163982698783e+00)
    d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00)
    out = np.empty_like(p)
    low, high = p < 0.02425, p > 1 - 0.02425
    mid = ~(low | high)
    q = p[mid] - 0.5
    r = q * q
    out[mid] = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / \
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    for mask, sign, tail in ((low, 1, p), (high, -1, 1 - p)):
        q = np.sqrt(-2 * np.log(tail[mask]))
        out[mask] = sign * (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    return out


def t_density(t, df):
    return np.exp(lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * np.log(df * math.pi)
                  - (df + 1) / 2 * np.log1p(t * t / df))


def t_quantile(p, df):
    """The t with P(T <= t) = P (0 < P < 1): Newton's method on t_tail from
    the Cornish-Fisher expansion of the normal quantile."""
    p, df = np.broadcast_arrays(np.asarray(p, float), np.asarray(df, float))
    z = normal_quantile(p)
    t = z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
    for _ in range(30):
        step = (1 - t_tail(t, df) - p) / t_density(t, df)
        t = t - step
        if np.all(np.abs(step) <= 1e-12 * np.maximum(1, np.abs(t))):
            break
    return t


def digamma(x):
    """psi(x) for x > 0: the recurrence up to x >= 10, then the asymptotic series."""
    x = np.array(x, dtype=float)
    out = np.zeros_like(x)
    while np.any(x < 10):
        small = x < 10
        out[small] -= 1 / x[small]
        x[small] += 1
    inv = 1 / x
    inv2 = inv * inv
    return out + np.log(x) - 0.5 * inv - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (
        1 / 240 - inv2 / 132))))


def trigamma(x):
    """psi'(x) for x > 0, as digamma."""
    x = np.array(x, dtype=float)
    out = np.zeros_like(x)
    while np.any(x < 10):
        small = x < 10
        out[small] += 1 / (x[small] * x[small])
        x[small] += 1
    inv = 1 / x
    inv2 = inv * inv
    return out + inv + inv2 / 2 + inv * inv2 * (1 / 6 - inv2 * (1 / 30 - inv2 * (1 / 42 - inv2 / 30)))


def trigamma_inverse(y):
    """The x > 0 with trigamma(x) = Y (Y > 0): Newton's method as limma's
    trigammaInverse (Smyth 2004)."""
    y = float(y)
    if y > 1e7:
        return 1 / math.sqrt(y)
    if y < 1e-6:
        return 1 / y
    x = 0.5 + 1 / y
    for _ in range(50):
        tri = float(trigamma(x))
        step = tri * (1 - tri / y) / float(_tetragamma(x))
        x += step
        if -step / x < 1e-8:
            break
    return x


def _tetragamma(x):
    """psi''(x), for trigamma_inverse's Newton steps."""
    x = float(x)
    out = 0.0
    while x < 10:
        out -= 2 / x ** 3
        x += 1
    inv = 1 / x
    inv2 = inv * inv
    return out - inv2 - inv * inv2 - inv2 * inv2 * (0.5 - inv2 * (1 / 6 - inv2 * (1 / 6 - inv2 * 3 / 10)))

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


def t_quantile(p, df):
    """The t with P(T <= t) = P (0 < P < 1), by bisection on t_tail, once
    per distinct (P, DF)."""
    p, df = np.broadcast_arrays(np.asarray(p, float), np.asarray(df, float))
    pairs, inverse = np.unique(np.stack([p.ravel(), df.ravel()]), axis=1, return_inverse=True)
    q, d = pairs
    low = np.full(q.shape, -1e4)
    high = np.full(q.shape, 1e4)
    for _ in range(100):
        mid = (low + high) / 2
        below = 1 - t_tail(mid, d) < q
        low = np.where(below, mid, low)
        high = np.where(below, high, mid)
        if np.all(high - low < 1e-10 * np.maximum(1, np.abs(mid))):
            break
    return ((low + high) / 2)[inverse.ravel()].reshape(p.shape)


def digamma(x):
    """psi(x) for x > 0: the recurrence up to x >= 6, then the asymptotic series."""
    x = np.array(x, dtype=float)
    out = np.zeros_like(x)
    while np.any(x < 6):
        small = x < 6
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
    while np.any(x < 6):
        small = x < 6
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
    while x < 6:
        out -= 2 / x ** 3
        x += 1
    inv = 1 / x
    inv2 = inv * inv
    return out - inv2 - inv * inv2 - inv2 * inv2 * (0.5 - inv2 * (1 / 6 - inv2 * (1 / 6 - inv2 * 3 / 10)))

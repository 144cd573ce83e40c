"""history/distributions.py against R's own pt, qt, qnorm, digamma and
trigamma (R is the project's analyzer: its values are the reference)."""
import subprocess

import numpy as np
import pytest

from history.distributions import digamma, normal_quantile, t_quantile, t_tail, t_two_sided, trigamma, trigamma_inverse

T = [0.0, 0.3, 1.0, 2.5, -1.7, 4.0, 12.0, 40.0]
DF = [1, 2, 3.5, 4, 9, 30, 200, 5000]
P = [0.001, 0.025, 0.3, 0.5, 0.9, 0.975, 0.999, 0.99999]
X = [0.05, 0.5, 1.0, 2.5, 6.0, 7.5, 40.0]


def r_values(expression):
    done = subprocess.run(["Rscript", "--vanilla", "-e", f"cat(sprintf('%.17g', {expression}), sep='\\n')"],
                          capture_output=True, text=True, check=True)
    return np.array([float(x) for x in done.stdout.split()])


def r_vector(values):
    return "c(" + ",".join(repr(float(v)) for v in values) + ")"


def test_the_t_tail_is_r_s_pt():
    t, df = np.meshgrid(T, DF)
    expected = r_values(f"pt({r_vector(t.ravel())}, {r_vector(df.ravel())}, lower.tail = FALSE)")
    assert t_tail(t.ravel(), df.ravel()) == pytest.approx(expected, rel=1e-9, abs=1e-300)
    both = r_values(f"pmin(1, 2 * pt(-abs({r_vector(t.ravel())}), {r_vector(df.ravel())}))")
    assert t_two_sided(-t.ravel(), df.ravel()) == pytest.approx(both, rel=1e-9, abs=1e-300)


def test_the_t_quantile_is_r_s_qt():
    p, df = np.meshgrid(P, DF)
    expected = r_values(f"qt({r_vector(p.ravel())}, {r_vector(df.ravel())})")
    assert t_quantile(p.ravel(), df.ravel()) == pytest.approx(expected, rel=1e-7, abs=1e-9)
    assert normal_quantile(P) == pytest.approx(r_values(f"qnorm({r_vector(P)})"), rel=2e-9)


def test_digamma_and_trigamma_are_r_s():
    assert digamma(X) == pytest.approx(r_values(f"digamma({r_vector(X)})"), rel=1e-10)
    assert trigamma(X) == pytest.approx(r_values(f"trigamma({r_vector(X)})"), rel=1e-10)
    for y in (0.01, 0.3, 2.0, 50.0):
        assert float(trigamma(trigamma_inverse(y))) == pytest.approx(y, rel=1e-7)

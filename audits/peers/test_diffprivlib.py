"""Regression audits of IBM diffprivlib's mechanisms at the privacy they claim.

Each mechanism privatises a counting query (sensitivity 1) on the pair D = (1, 0, 1, 0),
D' = (1, 1, 1, 0), whose counts differ by the sensitivity: the worst case for these additive mechanisms.
diffprivlib's ``randomise`` is scalar, so sampling loops over calls (the library's API, not ours);
``random_state`` is seeded from the audit's generator, so a failing audit reproduces from its seed.
The exact pair epsilon is what the mechanism's documented distribution gives (closed forms of
:mod:`dpverify.calculus.mechanisms`): claimed >= exact >= certified must hold.
"""
import numpy as np
import pytest

diffprivlib = pytest.importorskip("diffprivlib", reason="needs the peers extra: pip install -e '.[peers]'")
from diffprivlib import mechanisms as dpl  # noqa: E402

from dpverify.calculus.mechanisms.exponential import discrete_epsilon, exponential_log_probabilities  # noqa: E402
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon  # noqa: E402

D, D2 = np.array([1, 0, 1, 0]), np.array([1, 1, 1, 0])

# Default budget: 20,000 samples per side (the peers' samplers are slow); --dp-samples overrides it.
pytestmark = pytest.mark.dp_audit(samples=20_000)


def wrap(make, value_of=lambda d: float(d.sum())):
    """mechanism(dataset, n, rng): n calls of a fresh, seeded diffprivlib mechanism on the query value."""

    def mechanism(dataset, n, rng):
        mech = make(random_state=int(rng.integers(2**31)))
        v = value_of(np.asarray(dataset))
        return np.array([mech.randomise(v) for _ in range(n)], dtype=float)

    return mechanism


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_laplace(dp_auditor, epsilon):
    make = lambda **kw: dpl.Laplace(epsilon=epsilon, sensitivity=1.0, **kw)  # noqa: E731
    dp_auditor(wrap(make), D, D2, epsilon=epsilon, exact_epsilon=epsilon, name=f"diffprivlib.Laplace(eps={epsilon})")


def test_gaussian_classic(dp_auditor):
    make = lambda **kw: dpl.Gaussian(epsilon=0.5, delta=1e-5, sensitivity=1.0, **kw)  # noqa: E731
    exact = gaussian_epsilon(1e-5, 1.0 / make()._scale)
    dp_auditor(wrap(make), D, D2, epsilon=0.5, delta=1e-5, exact_epsilon=exact, name="diffprivlib.Gaussian")


def test_gaussian_analytic(dp_auditor):
    make = lambda **kw: dpl.GaussianAnalytic(epsilon=1.0, delta=1e-5, sensitivity=1.0, **kw)  # noqa: E731
    exact = gaussian_epsilon(1e-5, 1.0 / make()._scale)
    dp_auditor(wrap(make), D, D2, epsilon=1.0, delta=1e-5, exact_epsilon=exact, name="diffprivlib.GaussianAnalytic")


def test_geometric(dp_auditor):
    make = lambda **kw: dpl.Geometric(epsilon=1.0, sensitivity=1, **kw)  # noqa: E731
    # two-sided geometric with ratio e^-eps: neighbouring counts give exactly eps
    dp_auditor(wrap(make, lambda d: int(d.sum())), D, D2, epsilon=1.0, exact_epsilon=1.0, name="diffprivlib.Geometric")


def test_exponential(dp_auditor):
    def utility(d):
        return np.bincount(d, minlength=2).astype(float)

    def mechanism(dataset, n, rng):
        mech = dpl.Exponential(epsilon=1.0, sensitivity=1.0, utility=list(utility(np.asarray(dataset))),
                               random_state=int(rng.integers(2**31)))
        return np.array([mech.randomise() for _ in range(n)], dtype=float)

    exact = discrete_epsilon(exponential_log_probabilities(utility(D), 1.0, 1.0),
                             exponential_log_probabilities(utility(D2), 1.0, 1.0))
    dp_auditor(mechanism, D, D2, epsilon=1.0, exact_epsilon=exact, name="diffprivlib.Exponential")

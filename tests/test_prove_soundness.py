"""Soundness of the prover, judged by the independent checker (issue 35): whatever the prover answers must carry a
certificate that ``dpverify.prove.checker`` accepts, and true statements must be proved.

The scenarios are built to sit where a prover bug shows (``mutation/prover.py`` breaks the prover six ways and
each is caught here):

- ``tiny_negative``: ``erf(1) + erfc(1) + x^2 >= 1 + 2^-150 + x^2`` is false by 2^-150 everywhere: no enclosure at 96
  bits can decide it, so a correct prover is undecided; one that rounds inward, or reads an enclosure's upper end
  as its lower end, "proves" it and the checker (at 128 bits, its own arithmetic) rejects the certificate;
- ``narrow_negative``: ``|x - c| >= 10^-9`` on [0, 1], false only within 10^-9 of c = 1/2 - 2^-12, just left of
  the first split point: a correct prover refutes it; one that drops part of a box when it splits, skips leaves or
  takes a midpoint for an enclosure "proves" it, and the checker, rebuilding the boxes from the split points and
  re-enclosing each leaf, rejects it;
- ``tight_edge``: ``2 q eps >= log(1 + q (e^eps - 1))`` (true, tight along q = 0 and eps = 0): proved only through
  the monotone lemma, whose derivative signs and faces the checker re-derives with sympy;
- ``widened_gaussian``: the classic Gaussian calibration on eps in [0, 20] (false): refuted, and the refutation's
  box re-checked.
"""
from __future__ import annotations

import sympy as sp

from dpverify.prove import Proof, Refutation, Undecided, certificate, check_certificate, make_problem, prove
from dpverify.prove.comparators import gaussian_delta
from dpverify.prove.search import Limits

X = sp.Symbol("x", nonnegative=True)
EPS, DELTA, SENS = sp.symbols("epsilon delta sensitivity", positive=True)
Q = sp.Symbol("q", nonnegative=True)


def _checked(result):
    """The result's certificate must pass the independent checker (an undecided result has none)."""
    if isinstance(result, Undecided):
        return result
    report = check_certificate(certificate(result))
    assert report.valid, f"the checker rejected the prover's {result.outcome} certificate: {report.errors}"
    return result


def test_tiny_negative_is_not_proved():
    problem = make_problem("test.tiny_negative", claimed=sp.erf(1) + sp.erfc(1) + X**2,
                           comparator=1 + sp.Rational(1, 2**150) + X**2, hypotheses=[("x_at_most_one", X <= 1)])
    result = _checked(prove(problem, limits=Limits(max_boxes=2000)))
    assert not isinstance(result, Proof)


def test_narrow_negative_is_refuted():
    c = sp.Rational(1, 2) - sp.Rational(1, 2**12)
    problem = make_problem("test.narrow_negative", claimed=sp.Abs(X - c), comparator=sp.Rational(1, 10**9),
                           hypotheses=[("x_at_most_one", X <= 1)])
    result = _checked(prove(problem, limits=Limits(max_boxes=20000, probes=0)))
    assert isinstance(result, Refutation)
    assert abs(result.witness["x"] - (sp.Rational(1, 2) - sp.Rational(1, 2**12))) < sp.Rational(1, 10**9)


def test_tight_edge_is_proved_with_a_valid_certificate():
    problem = make_problem("test.tight_edge", claimed=2 * Q * EPS, comparator=sp.log(1 + Q * (sp.exp(EPS) - 1)),
                           hypotheses=[("q_at_most_one", Q <= 1), ("eps_at_most_one", EPS <= 1)])
    result = _checked(prove(problem))
    assert isinstance(result, Proof)


def test_widened_gaussian_is_refuted_with_a_valid_certificate():
    sigma = SENS * sp.sqrt(2 * sp.log(sp.Rational(5, 4) / DELTA)) / EPS
    problem = make_problem("test.widened_gaussian", claimed=DELTA, comparator=gaussian_delta(EPS, SENS / sigma),
                           hypotheses=[("eps", EPS < 20), ("delta", DELTA < 1)],
                           declared={"delta": (sp.Rational(1, 10**300), None, "test")}, scales={"delta": "log"})
    result = _checked(prove(problem))
    assert isinstance(result, Refutation)
    gaussian = make_problem("test.gaussian", claimed=DELTA, comparator=gaussian_delta(EPS, SENS / sigma),
                            hypotheses=[("eps", EPS < 1), ("delta", DELTA < 1)],
                            declared={"delta": (sp.Rational(1, 10**300), None, "test")}, scales={"delta": "log"})
    assert isinstance(_checked(prove(gaussian)), Proof)

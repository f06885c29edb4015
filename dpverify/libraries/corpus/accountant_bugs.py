"""Reported bugs of privacy accountants and auditors (dp_accounting, jax_privacy's auditor), each a corpus case
(:mod:`dpverify.libraries.corpus`).
"""
from __future__ import annotations

import math
import re
import sys

import numpy as np
from scipy.stats import norm

from dpverify.audit.bounds import clopper_pearson_upper
from dpverify.audit.curve import curve_audit, epsilon_assuming_gaussian
from dpverify.calculus.loss_masses import LossMasses
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.libraries.corpus.model import CorpusCase, installed_version as _version


# -- dp_accounting (google/differential-privacy #378) ---------------------------------------------------------------

def _dp_accounting_378(noise_multiplier: float = 2.0, delta: float = 1e-5) -> dict:
    """google/differential-privacy#378: ``GaussianDpEvent.noise_multiplier`` is ``s / C`` (C the per-record norm
    bound); under ``REPLACE_ONE`` two neighbouring sums differ by up to 2C, yet the RDP accountant uses the noise
    multiplier as if the sensitivity were C. The exact epsilon of the Gaussian mechanism at sensitivity 2C (mu =
    2 / noise_multiplier, dpverify's :func:`~dpverify.calculus.mechanisms.gaussian.gaussian_epsilon`) is a floor
    that no valid accountant may go below."""
    import dp_accounting as dpa
    from dp_accounting import pld, rdp

    replace = dpa.NeighboringRelation.REPLACE_ONE
    event = dpa.GaussianDpEvent(noise_multiplier)
    acc = rdp.RdpAccountant(neighboring_relation=replace)
    acc.compose(event)
    got = float(acc.get_epsilon(delta))
    p = pld.PLDAccountant(neighboring_relation=replace)
    p.compose(event)
    pld_eps = float(p.get_epsilon(delta))
    exact = gaussian_epsilon(delta, 2.0 / noise_multiplier)
    under = got < exact * (1 - 1e-6)
    return {"status": "reproduced" if under else "fixed", "version": _version("dp-accounting"),
            "rdp_epsilon": got, "pld_epsilon": pld_eps, "exact_epsilon": exact, "delta": delta,
            "detail": (f"GaussianDpEvent({noise_multiplier:g}) under REPLACE_ONE at delta {delta:g}: RdpAccountant "
                       f"{got:.4g}, PLDAccountant {pld_eps:.4g}, exact epsilon of the Gaussian mechanism at "
                       f"sensitivity 2C {exact:.4g}" + ("; the RDP accountant is below the exact epsilon" if under
                                                         else ""))}



# -- jax_privacy PR #270 (re-implementation) -----------------------------------------------------------------------

def _gdp_estimators(null_seed: int = 0, n: int = 1000, delta: float = 1e-5) -> dict:
    """The estimator before PR #270 (absolute value of the forward mu over every threshold), the fixed one (both
    directions, each mu guarded at 0) and dpverify's curve_audit, on identical score distributions."""
    rng = np.random.default_rng(null_seed)
    s0, s1 = rng.normal(size=n), rng.normal(size=n)  # null: the same law on both sides
    thresholds = np.quantile(np.r_[s0, s1], np.linspace(0.01, 0.99, 99))
    alpha = 0.05 / (2 * thresholds.size)  # one Bonferroni budget over every threshold's two rates

    def rates(pos, neg):
        fp = np.array([np.count_nonzero(neg >= t) for t in thresholds])  # negatives called positive
        fn = np.array([np.count_nonzero(pos < t) for t in thresholds])  # positives missed
        return clopper_pearson_upper(fp, neg.size, alpha), clopper_pearson_upper(fn, pos.size, alpha)

    fpr, fnr = rates(s0, s1)
    forward = norm.isf(fpr) - norm.ppf(fnr)
    buggy_mu = float(np.max(np.abs(forward)))  # the shortcut: a negative mu read as reverse evidence
    rfpr, rfnr = rates(s1, s0)
    reverse = norm.isf(rfpr) - norm.ppf(rfnr)
    fixed_mu = max(float(np.max(forward)), float(np.max(reverse)), 0.0)
    half = n // 2
    cert = curve_audit(s0[:half], s1[:half], s0[half:], s1[half:], alpha=0.05)
    eps = {k: (epsilon_assuming_gaussian(mu, delta) if mu > 0 else 0.0)
           for k, mu in (("before PR #270", buggy_mu), ("after PR #270", fixed_mu),
                         ("dpverify curve_audit", cert.mu_lower))}
    return {"mu": {"before PR #270": buggy_mu, "after PR #270": fixed_mu, "dpverify curve_audit": cert.mu_lower},
            "epsilon": eps, "delta": delta, "n": n}


def _jax_270() -> dict:
    """jax_privacy PR #270 (re-implementation): the GDP estimator before the PR (the absolute value of the forward
    mu over every threshold), the fixed one (both directions, each mu guarded at 0) and dpverify's
    :func:`~dpverify.audit.curve.curve_audit`, on identical score distributions (:func:`_gdp_estimators`). "ok" when
    the estimator before the PR reports epsilon above 0.5 and both the fixed one and dpverify's report 0."""
    r = _gdp_estimators()
    e = r["epsilon"]
    ok = e["before PR #270"] > 0.5 and e["after PR #270"] == 0.0 and e["dpverify curve_audit"] == 0.0
    return {"status": "ok" if ok else "failed", **r,
            "detail": (f"null scores ({r['n']} per side, seed 0), epsilon at delta {r['delta']:g} assuming a "
                       "Gaussian curve: " + ", ".join(f"{k} {v:.3g}" for k, v in e.items()))}


# -- dp_accounting: asymmetric PLD from two probability mass functions (fixed in 0.5.0) -----------------------------

def _loss_masses(p: dict[int, float], q: dict[int, float]) -> LossMasses:
    """The pair (P, Q) of finite-support laws as the calculus's :class:`~dpverify.calculus.loss_masses.LossMasses`
    (one cell per outcome; an outcome outside a side's support has mass 0 there)."""
    support = sorted(set(p) | set(q))
    pm = np.array([p.get(x, 0.0) for x in support])
    qm = np.array([q.get(x, 0.0) for x in support])
    with np.errstate(divide="ignore"):
        losses = np.log(pm) - np.log(qm)
    return LossMasses(losses, pm, qm, basis="outcomes")


def _hockey_stick(p: dict[int, float], q: dict[int, float], epsilon: float) -> float:
    """``sum_x max(0, p(x) - e^epsilon q(x))``: the exact delta of the pair (P, Q) at ``epsilon``."""
    return _loss_masses(p, q).delta(epsilon)


def _exact_epsilon(p: dict[int, float], q: dict[int, float], delta: float) -> float:
    """The smallest epsilon >= 0 with both directions' hockey-stick divergence at most ``delta``
    (:meth:`~dpverify.calculus.loss_masses.LossMasses.epsilon`)."""
    return _loss_masses(p, q).epsilon(delta)


def _dp_accounting_asymmetric(delta: float = 1e-6) -> dict:
    """google/differential-privacy commit 0e99a6f ("Fix asymmetric PLD creation in DP Accounting", 2024-10-28,
    first released in dp-accounting 0.5.0): ``privacy_loss_distribution.from_two_probability_mass_functions(...,
    symmetric=False)`` built the ADD direction's probability mass function and passed it to
    ``PrivacyLossDistribution.create_from_rounded_probability`` without ``symmetric=False``; with that default (True)
    the constructor refuses an ADD part ("Details about privacy loss distribution with respect to ADD adjacency
    cannot be specified when symmetric..."), so an asymmetric pair could not be accounted at all through this entry
    point (0.4.x raises; 0.5.0 builds both directions). A caller falling back to the symmetric PLD of the same two
    PMFs gets only the REMOVE direction, below the pair's epsilon whenever the ADD direction leaks more.

    Neighbouring datasets: the two output laws themselves, P = (0.9, 0.1) ("upper", the REMOVE side) and Q = (0.5, 0.5)
    ("lower"): the REMOVE direction's largest privacy loss is log 1.8 = 0.588, the ADD direction's log 5 = 1.609. The
    check builds the PLD with ``symmetric=False`` (pessimistic, discretisation 1e-4) and reads
    ``get_epsilon_for_delta(1e-6)``; the exact epsilon of the pair (both hockey-stick divergences,
    :class:`~dpverify.calculus.loss_masses.LossMasses`) is 1.609.
    "reproduced" when the build raises or the PLD's epsilon is more than 1e-3 below the exact one. Source:
    dp_accounting/pld/privacy_loss_distribution.py ``from_two_probability_mass_functions`` (0.4.4: the last
    ``return`` without ``symmetric=False``; the ``ValueError`` in ``create_from_rounded_probability``)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    upper, lower = {0: 0.9, 1: 0.1}, {0: 0.5, 1: 0.5}
    exact = _exact_epsilon(upper, lower, delta)
    try:
        built = pld.from_two_probability_mass_functions(
            {k: float(np.log(v)) for k, v in lower.items()}, {k: float(np.log(v)) for k, v in upper.items()},
            pessimistic_estimate=True, value_discretization_interval=1e-4, symmetric=False)
        got: float | str = float(built.get_epsilon_for_delta(delta))
    except ValueError as exc:  # 0.4.x: the ADD part is refused
        got = f"ValueError: {str(exc)[:90]}"
    bad = isinstance(got, str) or got < exact - 1e-3
    shown = got if isinstance(got, str) else f"{got:.4g}"
    return {"status": "reproduced" if bad else "fixed", "version": _version("dp-accounting"), "pld_epsilon": got,
            "exact_epsilon": exact, "remove_epsilon": float(np.log(1.8)), "add_epsilon": float(np.log(5.0)),
            "delta": delta,
            "detail": (f"from_two_probability_mass_functions(Q=(0.5, 0.5), P=(0.9, 0.1), symmetric=False): "
                       f"epsilon {shown} at delta {delta:g}; the exact epsilon of the pair is {exact:.4g} (ADD "
                       f"direction log 5; REMOVE direction only: log 1.8 = {np.log(1.8):.4g})")}


# -- tensorflow_privacy: compute_dp_sgd_privacy ignores the doubled sensitivity of microbatching (0.8.9) ------------

def _tf_privacy_epsilon(n: int, batch_size: int, noise_multiplier: float, epochs: float, delta: float) -> float:
    """The Poisson-sampling epsilon tensorflow_privacy reports for a DP-SGD run with its default microbatching:
    ``compute_dp_sgd_privacy_statement`` (0.8.9 on; the line "Epsilon assuming Poisson sampling") where it exists,
    else ``compute_dp_sgd_privacy`` (its only report before). Imported without TensorFlow
    (``sys.skip_tf_privacy_import``, which tensorflow_privacy/__init__.py honours)."""
    sys.skip_tf_privacy_import = True  # type: ignore[attr-defined]  # tensorflow_privacy's own switch
    from tensorflow_privacy.privacy.analysis import compute_dp_sgd_privacy_lib as tfp_lib

    if hasattr(tfp_lib, "compute_dp_sgd_privacy_statement"):
        text = tfp_lib.compute_dp_sgd_privacy_statement(number_of_examples=n, batch_size=batch_size,
                                                        num_epochs=epochs, noise_multiplier=noise_multiplier,
                                                        delta=delta)
        found = re.search(r"Epsilon assuming Poisson sampling[^:]*:\s*([0-9.eE+-]+|inf)", text)
        if found is None:
            raise ValueError(f"no Poisson-sampling epsilon in tensorflow_privacy's statement: {text[:200]!r}")
        return float(found.group(1))
    eps, _order = tfp_lib.compute_dp_sgd_privacy(n=n, batch_size=batch_size, noise_multiplier=noise_multiplier,
                                                 epochs=epochs, delta=delta)
    return float(eps)


def _tf_privacy_microbatching(n: int = 60_000, batch_size: int = 256, noise_multiplier: float = 1.1,
                              epochs: float = 60, delta: float = 1e-5) -> dict:
    """tensorflow/privacy (commit d5d60e2, "Adds compute_dp_sgd_privacy_statement for accurate privacy accounting
    report", first released in 0.8.9; issue #620 quotes the deprecation): ``compute_dp_sgd_privacy`` computed epsilon
    for a Poisson-subsampled Gaussian of noise multiplier ``sigma`` at sensitivity C, but TF Privacy's DP optimizers
    clip per *microbatch* (the default), and with add/remove neighbours a microbatch's clipped mean can move by 2C:
    the noise multiplier relative to the sensitivity is ``sigma / 2``. The old report therefore under-stated epsilon
    (its MNIST tutorial setting: 2.6 instead of about 16 at delta 1e-5).

    Neighbouring datasets: add/remove one example of the training set, with microbatching (sensitivity 2C). The check
    reads tensorflow_privacy's Poisson epsilon for 60,000 examples, batch 256, sigma 1.1, 60 epochs, delta 1e-5
    (:func:`_tf_privacy_epsilon`), and compares it with a *lower* bound on the true epsilon: dp_accounting's
    optimistic PLD (``pessimistic_estimate=False``) of the Poisson-subsampled Gaussian at sigma / 2, self-composed
    over ``ceil(epochs n / batch_size)`` steps. "reproduced" when the report is below that floor. Source:
    tensorflow_privacy/privacy/analysis/compute_dp_sgd_privacy_lib.py ``compute_dp_sgd_privacy`` (0.8.8)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    reported = _tf_privacy_epsilon(n, batch_size, noise_multiplier, epochs, delta)
    q = batch_size / n
    steps = int(math.ceil(epochs * n / batch_size))
    step = pld.from_gaussian_mechanism(standard_deviation=noise_multiplier / 2, sensitivity=1.0,
                                       pessimistic_estimate=False, sampling_prob=q,
                                       value_discretization_interval=1e-3, use_connect_dots=False)
    floor = float(step.self_compose(steps).get_epsilon_for_delta(delta))
    bad = reported < floor
    return {"status": "reproduced" if bad else "fixed", "version": _version("tensorflow-privacy"),
            "reported_epsilon": reported, "floor_epsilon": floor, "delta": delta, "steps": steps,
            "detail": (f"{n} examples, batch {batch_size}, sigma {noise_multiplier:g}, {epochs:g} epochs, "
                       "microbatching: "
                       f"tensorflow_privacy reports epsilon {reported:.4g} (Poisson sampling) at delta {delta:g}; "
                       f"the optimistic PLD of the subsampled Gaussian at sensitivity 2C gives at least {floor:.4g}")}


CASES: tuple[CorpusCase, ...] = (
    CorpusCase("dp_accounting#378", "dp_accounting",
               "RDP accountant: Gaussian sensitivity not doubled under REPLACE_ONE (epsilon below the exact one)",
               ("https://github.com/google/differential-privacy/issues/378",
                "https://github.com/google/differential-privacy/pull/464"),
               "issue open; fix PR #464 open (unreleased): no fixed version to install", "library",
               _dp_accounting_378, affected=">=0.1", fixed_in=None, method="exact", distribution="dp-accounting",
               datasets="REPLACE_ONE neighbours of a Gaussian sum (one record replaced: the sum moves by up to 2C)",
               releases=("0.4.4", "0.6.0")),
    CorpusCase("jax_privacy-pr270", "jax_privacy",
               "GDP estimator reads a negative mu as evidence: epsilon ~ 3.5 on null scores",
               ("https://github.com/google-deepmind/jax_privacy/pull/270",),
               "PR #270 closed; jax_privacy is not installed here: re-implemented from the PR", "re-implementation",
               _jax_270, method="statistical",
               datasets="null scores: 1,000 draws per side from the same N(0, 1) (no privacy loss at all)"),
    CorpusCase("dp_accounting-0e99a6f", "dp_accounting",
               "from_two_probability_mass_functions(symmetric=False) cannot build the ADD direction (raises)",
               ("https://github.com/google/differential-privacy/commit/0e99a6ff2af75168a22f82548375102fa1a48c8e",),
               "fixed by commit 0e99a6f (2024-10-28, 'Fix asymmetric PLD creation in DP Accounting'), released in "
               "dp-accounting 0.5.0", "library", _dp_accounting_asymmetric,
               affected=">=0.1,<0.5.0", fixed_in="0.5.0", method="exact", distribution="dp-accounting",
               datasets="the output laws P = (0.9, 0.1) (REMOVE side) and Q = (0.5, 0.5)", releases=("0.4.4", "0.5.0")),
    CorpusCase("tensorflow_privacy-d5d60e2", "tensorflow_privacy",
               "compute_dp_sgd_privacy ignores the doubled sensitivity of microbatching: epsilon 2.6 instead of > 7",
               ("https://github.com/tensorflow/privacy/commit/d5d60e2eacb91bb8c6d139fb8817a624f8da01da",
                "https://github.com/tensorflow/privacy/issues/620"),
               "fixed by commit d5d60e2 (2023-03-23, compute_dp_sgd_privacy_statement with used_microbatching=True), "
               "first released in tensorflow-privacy 0.8.9 (measured; the repository has no v0.8.9 tag); "
               "compute_dp_sgd_privacy itself is only deprecated",
               "library", _tf_privacy_microbatching, affected="<0.8.9", fixed_in="0.8.9", method="exact",
               distribution="tensorflow-privacy",
               datasets="add/remove one training example with microbatching (sensitivity 2C)",
               releases=("0.8.8", "0.8.9")),
)

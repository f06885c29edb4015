"""The audits whose numbers are pinned in ``tests/golden/audit_results.json`` (issue 22, section 3).

Each case runs one audit and returns its result; :func:`numbers` turns the result into a canonical form in which every
float is its ``repr`` (so a comparison is bit-exact and distinguishes -0.0, inf and nan) and every integer an int.
Together the cases walk every branch of the auditor's core: scalar, discrete and vector outputs; every ``test=``;
``auto`` with a log density, with a white-box statistic and with neither; implementation mode (with and without a
floating-point violation); several candidates; one and two worker processes; a small chunk size with capped fit and
threshold samples (the streamed selection); an accountant, an exact epsilon and a pair privacy loss given or read from
the mechanism (budget ceiling, the privacy-loss event); the progress calls.

The file was written from the code before the auditor was restructured into stages
(``tests/golden/make_golden.py``); ``tests/test_audit_golden.py`` reruns every case and compares.
Budgets are small (a few thousand samples) so that the whole comparison takes well under a minute.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from dpverify.audit import audit
from dpverify.audit.known_bad import RandomizedResponse, ReportNoisyMax, gaussian_query, laplace_query
from dpverify.calculus.accounting.pld import gaussian_pld
from dpverify.calculus.guarantees import Conversion
from dpverify.calculus.mechanism_description import PairPrivacyLoss

D0, D1 = np.array([0.0]), np.array([1.0])
Q0, Q1 = np.array([1.0, 1.0, 1.0]), np.array([0.0, 2.0, 2.0])  # report-noisy-max answer vectors
STREAM = dict(chunk_size=700, fit_cap=500, threshold_sample=400)


def plain_laplace(dataset, n, rng):
    """A black box (no density, no exact epsilon): auto fits the threshold statistic only."""
    return np.asarray(dataset, dtype=float)[0] + rng.laplace(0.0, 1.0, n)


def gaussian_path(dataset, n, rng):
    """A 4-step random walk with drift dataset[0]: vector outputs."""
    return np.cumsum(float(dataset[0]) + rng.normal(size=(n, 4)), axis=1)


def last_coordinate(outputs):
    """A user's statistic (``test=`` a callable)."""
    return np.asarray(outputs, dtype=float).reshape(outputs.shape[0], -1)[:, -1]


def canonical(x: Any) -> Any:
    """``x`` with floats as ``"f:" + repr`` and numpy scalars as Python ones (exact, JSON-safe)."""
    if x is None or isinstance(x, bool):
        return x
    if isinstance(x, str):
        return str(x.value) if hasattr(x, "value") else str(x)  # a str-valued Enum compares by its value
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return "f:" + repr(float(x))
    if isinstance(x, dict):
        return {str(k): canonical(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [canonical(v) for v in x]
    if isinstance(x, np.ndarray):
        return canonical(x.tolist())
    raise TypeError(f"cannot canonicalise {type(x).__name__}: {x!r}")


def numbers(result) -> dict:
    """Every number of ``result.to_dict()`` except the wall time, canonical."""
    out = result.to_dict()
    out.pop("wall_time")
    return canonical(out)


def _suite_audit(case_id: str, samples: int, **kwargs: Any):
    """A case of the sampler suite audited against its sampler's claim (as ``dpverify.interfaces.suite.run_case``
    does, without catching errors)."""
    from dpverify.interfaces import suite

    case = suite.get_case(case_id)
    sampler = case.build()
    claim = sampler.guarantee()
    return audit(sampler, case.dataset(), case.neighbour(), epsilon=claim.epsilon, delta=claim.delta,
                 samples=samples, seed=3, test=case.test, **kwargs)


def _standard_audit(name: str, samples: int, **kwargs: Any):
    from dpverify.audit.standard import registry

    case = registry.get(name)
    return audit(case.mechanism, case.dataset, case.neighbour, epsilon=case.epsilon_claimed, delta=case.delta,
                 samples=samples, seed=5, **kwargs)


def _with_progress(**kwargs: Any) -> tuple:
    calls: list = []
    result = audit(plain_laplace, D0, D1, epsilon=1.0, samples=3_000, seed=2,
                   progress=lambda done, total: calls.append((done, total)), **STREAM, **kwargs)
    return result, calls


#: name -> a function returning an AuditResult (or ``(AuditResult, extra)`` with extra numbers to pin)
CASES: dict[str, Callable[[], Any]] = {
    # scalar continuous outputs
    "laplace_auto_log_density": lambda: audit(laplace_query(1.0, noise_factor=0.5), D0, D1, epsilon=1.0,
                                              samples=6_000, seed=1),
    "laplace_auto_black_box": lambda: audit(plain_laplace, D0, D1, epsilon=1.0, samples=6_000, seed=1),
    "laplace_threshold": lambda: audit(laplace_query(1.0), D0, D1, epsilon=1.0, samples=6_000, seed=4,
                                       test="threshold"),
    "laplace_likelihood_ratio_delta": lambda: audit(laplace_query(1.0), D0, D1, epsilon=0.5, delta=1e-3,
                                                    samples=6_000, seed=4, test="likelihood_ratio"),
    "laplace_callable": lambda: audit(plain_laplace, D0, D1, epsilon=1.0, samples=4_000, seed=6,
                                      test=last_coordinate),
    "laplace_candidates_2": lambda: audit(plain_laplace, D0, D1, epsilon=1.0, samples=6_000, seed=7, candidates=2),
    "laplace_options": lambda: audit(laplace_query(1.0), D0, D1, epsilon=2.0, samples=5_000, seed=8,
                                     confidence=0.9, selection_fraction=0.3, power_factor=4.0,
                                     adjacency="replace"),
    "laplace_accountant_and_exact_given": lambda: audit(
        plain_laplace, D0, D1, epsilon=1.0, delta=1e-5, samples=4_000, seed=9, exact_epsilon=1.0,
        accountant=Conversion(1.25, 1e-5, None, "given accountant")),
    "laplace_exact_infinite": lambda: audit(plain_laplace, D0, D1, epsilon=1.0, samples=4_000, seed=9,
                                            exact_epsilon=math.inf),
    "laplace_claim_above_saturation": lambda: audit(plain_laplace, D0, D1, epsilon=20.0, samples=1_000, seed=9),
    "laplace_exact_far_below_claim": lambda: audit(plain_laplace, D0, D1, epsilon=3.0, samples=4_000, seed=9,
                                                   exact_epsilon=1.0),
    "gaussian_privacy_loss_given": lambda: audit(
        gaussian_query(1.0, 1e-5, drop_log_factor=True), D0, D1, epsilon=1.0, delta=1e-5, samples=6_000, seed=10,
        privacy_loss=PairPrivacyLoss(gaussian_pld(1.0), "given: N(1, 1) vs N(0, 1)", exact=True)),
    "gaussian_privacy_loss_upper_bound": lambda: audit(
        gaussian_query(0.5, 1e-5), D0, D1, epsilon=0.5, delta=1e-5, samples=6_000, seed=10,
        privacy_loss=PairPrivacyLoss(gaussian_pld(0.5), "given: an upper bound", exact=False)),
    "laplace_streamed": lambda: audit(plain_laplace, D0, D1, epsilon=1.0, samples=3_000, seed=2, **STREAM),
    "laplace_streamed_progress": lambda: _with_progress(),
    "laplace_streamed_workers_2": lambda: audit(plain_laplace, D0, D1, epsilon=1.0, samples=3_000, seed=2, workers=2,
                                                **STREAM),
    # discrete outputs
    "noisy_max_auto": lambda: audit(ReportNoisyMax(1.0), Q0, Q1, epsilon=1.0, samples=6_000, seed=11),
    "noisy_max_events": lambda: audit(ReportNoisyMax(1.0), Q0, Q1, epsilon=0.5, samples=6_000, seed=11,
                                      test="events"),
    "noisy_max_implementation_integer": lambda: audit(ReportNoisyMax(1.0), Q0, Q1, epsilon=1.0, samples=4_000,
                                                      seed=12, mode="implementation"),
    "randomized_response_auto_delta": lambda: audit(RandomizedResponse(1.0), np.array([0]), np.array([1]),
                                                    epsilon=1.0, delta=1e-3, samples=6_000, seed=13),
    # vector outputs
    "noisy_max_value_auto": lambda: audit(ReportNoisyMax(1.0, release_value=True), Q0, Q1, epsilon=1.0,
                                          samples=4_000, seed=14),
    "path_auto": lambda: audit(gaussian_path, D0, D1, epsilon=2.0, samples=4_000, seed=15),
    "path_threshold": lambda: audit(gaussian_path, D0, D1, epsilon=2.0, samples=4_000, seed=15, test="threshold"),
    "path_classifier": lambda: audit(gaussian_path, D0, D1, epsilon=2.0, samples=4_000, seed=15, test="classifier"),
    "path_boosting": lambda: audit(gaussian_path, D0, D1, epsilon=2.0, samples=3_000, seed=15, test="boosting"),
    "path_additive": lambda: audit(gaussian_path, D0, D1, epsilon=2.0, samples=4_000, seed=15, test="additive"),
    "path_streamed_workers_1": lambda: audit(gaussian_path, D0, D1, epsilon=2.0, samples=3_000, seed=16, **STREAM),
    "path_streamed_workers_2": lambda: audit(gaussian_path, D0, D1, epsilon=2.0, samples=3_000, seed=16, workers=2,
                                             **STREAM),
    # implementation mode: the naive float Laplace (Mironov 2012) gives a floating-point violation and its note
    "laplace_implementation_float_leak": lambda: audit(laplace_query(0.1), np.array([1.0]), np.array([2.0]),
                                                       epsilon=0.1, samples=6_000, seed=0, mode="implementation"),
    "path_implementation": lambda: audit(gaussian_path, D0, D1, epsilon=2.0, samples=3_000, seed=17,
                                         mode="implementation"),
    # samplers: auto with a log density (ULA on a Gaussian target), with a white-box path statistic (DP-SGLD path on
    # a gradient canary); accountant, exact epsilon and pair privacy loss read from the sampler
    "ula_final": lambda: _suite_audit("ula_final", 3_000),
    "ula_path": lambda: _suite_audit("ula_path", 2_000),
    "ula_final_implementation": lambda: _suite_audit("ula_final", 2_000, mode="implementation"),
    "dp_sgld_path": lambda: _suite_audit("dp_sgld_path", 2_000),
    "dp_sgld_path_candidates_2": lambda: _suite_audit("dp_sgld_path", 2_000, candidates=2),
    "dp_sgld_wang": lambda: _suite_audit("dp_sgld_wang", 1_000),
    "noisy_sgd_path": lambda: _suite_audit("noisy_sgd_path", 2_000),
    "dp_sgld_li_final": lambda: _suite_audit("dp_sgld_li", 1_000),
    # the standard benchmark suite: tabulated densities, values with flags, local mechanisms
    "standard_svt3": lambda: _standard_audit("svt3", 4_000),
    "standard_svt1": lambda: _standard_audit("svt1", 4_000),
    "standard_rappor": lambda: _standard_audit("rappor", 4_000),
    "standard_prefix_sum": lambda: _standard_audit("prefix_sum", 4_000),
}


#: Keys ``AuditResult.to_dict()`` gained after the file was recorded, and what each must hold for these cases: every
#: case uses the shorthand epsilon=/delta=, so the claim is ``ApproxDP(epsilon_claimed, delta)``; every case runs on
#: the numpy backend, on the CPU (issue 26: the backend and device every audit row records); every case is a fixed
#: audit, which uses its whole budget, names no stopping rule and has no rounds (issue 38: sequential audits).
ADDED_KEYS = {"claim": lambda r: {"type": "ApproxDP", "epsilon": r["epsilon_claimed"], "delta": r["delta"]},
              "backend": lambda r: "numpy", "device": lambda r: "cpu", "samples_used": lambda r: r["samples"],
              "stopping_rule": lambda r: "", "looks": lambda r: []}


def differences(found: dict, expected: dict) -> dict:
    """What differs between the canonical numbers ``found`` now and ``expected`` from the file: ``{field: (expected,
    found)}`` (empty when the audit is unchanged). The keys of :data:`ADDED_KEYS` are checked against their rule
    instead of the file."""
    found_result = dict(found["result"])
    moved = {}
    for key, rule in ADDED_KEYS.items():
        if key not in expected["result"]:
            value = found_result.pop(key, None)
            if value != rule(found_result):
                moved[key] = (rule(found_result), value)
    expected_result = expected["result"]
    for key in sorted(set(found_result) | set(expected_result)):
        if found_result.get(key, "<missing>") != expected_result.get(key, "<missing>"):
            moved[key] = (expected_result.get(key, "<missing>"), found_result.get(key, "<missing>"))
    if found.get("extra") != expected.get("extra"):
        moved["extra"] = (expected.get("extra"), found.get("extra"))
    return moved


def run(name: str) -> dict:
    """The canonical numbers of case ``name`` (the result's, plus any extra numbers the case returns)."""
    found = CASES[name]()
    if isinstance(found, tuple):
        result, extra = found
        return {"result": numbers(result), "extra": canonical(extra)}
    return {"result": numbers(found)}

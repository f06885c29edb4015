"""The audit suite: one audit case per reference sampler, on the worst adjacent pair known for it.

A case names a sampler (``dpverify samplers list``), its parameters, an adjacent pair and the
budgets. Its claim is never typed here: it is the sampler's ``guarantee()``, i.e. the catalogue
theorem evaluated at the case's parameters (hypotheses checked). ``run_case`` audits the sampler
against that claim with :func:`dpverify.audit.audit`.

Used by ``audits/`` (one pytest module per sampler), ``dpverify audit`` and ``dpverify verify``.
Pairs are the worst known: for the one-dimensional mechanisms (baselines, conjugate OPS) they are
the pair maximising the exact epsilon found by :mod:`dpverify.audit.search` or by the closed form
(documented per case); for the iterative samplers a pair whose differing record sits at the edge
of the data domain (the sensitivity-attaining replacement the proofs use).
"""
from __future__ import annotations

import fnmatch
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

__all__ = ["BUDGETS", "AuditCase", "CaseResult", "cases", "get_case", "run_case", "select"]

#: Samples per side for each named budget.
BUDGETS: dict[str, int] = {"quick": 20_000, "standard": 200_000, "thorough": 2_000_000}


@dataclass(frozen=True)
class AuditCase:
    """One audit of one sampler on one adjacent pair.

    ``dataset``/``neighbour`` are zero-argument callables (so the suite imports cheaply and each case
    builds its data on demand). ``budget_scale`` multiplies the named budgets for expensive samplers
    (iterative chains), so that the quick suite stays within its time limit.
    """

    id: str
    sampler: str
    params: dict
    dataset: Callable[[], Any]
    neighbour: Callable[[], Any]
    pair: str
    test: str = "auto"
    budget_scale: float = 1.0

    def samples(self, budget: str | int) -> int:
        if isinstance(budget, (int, np.integer)):
            return int(budget)
        if budget not in BUDGETS:
            raise ValueError(f"budget must be one of {sorted(BUDGETS)} or a sample count; got {budget!r}")
        return max(1_000, int(BUDGETS[budget] * self.budget_scale))

    def build(self, **overrides: Any):
        from dpverify.samplers import registry

        params = {k: v.build() if isinstance(v, _LazyModel) else v for k, v in {**self.params, **overrides}.items()}
        return registry.make(self.sampler, **params)


@dataclass
class CaseResult:
    """An audit of a case: the sampler's claim, the audit result and the seed that reproduces it."""

    case: str
    sampler: str
    params: dict
    pair: str
    claim: dict
    audit: Any
    seconds: float
    error: str | None = None

    @property
    def verdict(self) -> str:
        if self.error:
            return "error"
        return self.audit.verdict

    def to_dict(self) -> dict:
        return {
            "case": self.case,
            "sampler": self.sampler,
            "params": self.params,
            "pair": self.pair,
            "claim": self.claim,
            "audit": None if self.audit is None else self.audit.to_dict(),
            "verdict": self.verdict,
            "seconds": self.seconds,
            "error": self.error,
        }


class _LazyModel:
    """A model built on first use, so that importing the suite stays cheap; prints as its constructor call."""

    def __init__(self, factory: Callable, **kwargs: Any) -> None:
        self.factory, self.kwargs = factory, kwargs

    def build(self):
        return self.factory(**self.kwargs)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"{self.factory.__name__.lstrip('_')}({args})"


def _bits(*values: int) -> Callable[[], np.ndarray]:
    return lambda: np.array(values)


_CASES: list[AuditCase] = []


def _case(**kwargs: Any) -> None:
    _CASES.append(AuditCase(**kwargs))


# --- baselines: counting query, replace one 0 by a 1 changes the count by the sensitivity 1 ---------------
_case(id="laplace_mechanism", sampler="laplace_mechanism", params={"epsilon": 1.0},
      dataset=_bits(1, 0, 1, 0), neighbour=_bits(1, 1, 1, 0), pair="count query, one 0 -> 1 (distance = sensitivity)")
_case(id="gaussian_mechanism", sampler="gaussian_mechanism", params={"epsilon": 0.5, "delta": 1e-5},
      dataset=_bits(1, 0, 1, 0), neighbour=_bits(1, 1, 1, 0), pair="count query, one 0 -> 1 (distance = sensitivity)")
_case(id="analytic_gaussian_mechanism", sampler="analytic_gaussian_mechanism", params={"epsilon": 1.0, "delta": 1e-5},
      dataset=_bits(1, 0, 1, 0), neighbour=_bits(1, 1, 1, 0), pair="count query, one 0 -> 1 (distance = sensitivity)")
_case(id="exponential_mechanism", sampler="exponential_mechanism", params={"epsilon": 1.0, "K": 2},
      dataset=_bits(0, 0, 1, 1), neighbour=_bits(0, 0, 0, 1),
      pair="two categories tied, one record moves: both utilities change by 1 in opposite directions")

# --- one posterior sample (Wang et al. 2015, Alg. 1), tempered to eps = 1 ------------------------------------
# Pair: the largest exact pair epsilon over all replace-one pairs with N <= 8 (search in the closing note of
# issue 3/4): seven ones and a zero -> eight ones, exact 0.2825.
_case(id="ops_beta_bernoulli", sampler="ops_beta_bernoulli", params={"a0": 0.05, "epsilon": 1.0},
      dataset=_bits(1, 1, 1, 1, 1, 1, 1, 0), neighbour=_bits(1, 1, 1, 1, 1, 1, 1, 1),
      pair="N = 8: the zero becomes a one (largest exact epsilon for N <= 8)")
_case(id="ops_gaussian_mean", sampler="ops_gaussian_mean", params={"epsilon": 1.0},
      dataset=lambda: np.full(10, -1.0), neighbour=lambda: np.array([1.0] + [-1.0] * 9),
      pair="N = 10 at -R, one record moves to +R (largest change of the sufficient statistic)")
_case(id="ops_dirichlet_categorical", sampler="ops_dirichlet_categorical", params={"epsilon": 1.0},
      dataset=_bits(0, 0, 0, 0), neighbour=_bits(2, 0, 0, 0),
      pair="K = 3, N = 4 in category 0, one record moves to category 2")
# --- Foulds et al. 2016 ---------------------------------------------------------------------------------------
_case(id="laplace_posterior_beta_bernoulli", sampler="laplace_posterior_beta_bernoulli", params={"epsilon": 1.0},
      dataset=_bits(0, 0, 0, 0), neighbour=_bits(1, 0, 0, 0),
      pair="N = 4: one zero becomes a one (both counts change: L1 distance 2 = the sensitivity)")
_case(id="private_gibbs", sampler="private_gibbs", params={"epsilon": 1.0, "T": 5, "M": 5},
      dataset=lambda: np.zeros((6, 5), dtype=int), neighbour=lambda: np.vstack([np.ones((1, 5), int), np.zeros((5, 5), int)]),
      pair="N = 6 records of M = 5 emissions, one all-zero record becomes all-one (all M terms change)",
      budget_scale=0.5)
# --- Bertazzi et al. 2025, eq. 7 ------------------------------------------------------------------------------
_case(id="noisy_mc_estimator", sampler="noisy_mc_estimator", params={"epsilon": 1.0, "N": 20, "n_steps": 200},
      dataset=lambda: np.zeros(20, dtype=int), neighbour=lambda: np.array([1] + [0] * 19),
      pair="N = 20 zeros, one becomes a one", budget_scale=0.5)

# --- SG-MCMC on Bayesian logistic regression (Wang et al. 2015; Li et al. 2019) -------------------------------
# Pair: N records (x, y) = ((R, 0, ...), +1); the neighbour flips the first label, so the signed feature
# z = y x moves from +R e1 to -R e1 and that record's gradient changes by 2L, the sensitivity the proofs use.


def _logistic_records(N: int, dim: int = 2, flip_first: bool = False) -> Callable[[], np.ndarray]:
    def build() -> np.ndarray:
        X = np.zeros((N, dim + 1))
        X[:, 0], X[:, -1] = 1.0, 1.0
        if flip_first:
            X[0, -1] = -1.0
        return X

    return build


def _logistic(**kwargs: Any):
    from dpverify.models.logistic import LogisticRegression

    return LogisticRegression(**kwargs)


def _gaussian_target(**kwargs: Any):
    from dpverify.models.targets import GaussianTarget

    return GaussianTarget(**kwargs)


def _points(N: int, dim: int = 2, move_first: bool = False) -> Callable[[], np.ndarray]:
    def build() -> np.ndarray:
        X = np.zeros((N, dim))
        X[:, 0] = -1.0
        if move_first:
            X[0, 0] = 1.0
        return X

    return build


_LOGISTIC_PAIR = "records ((R, 0), +1); the neighbour flips the first label (gradient change 2L)"
_case(id="dp_sgld_wang", sampler="dp_sgld_wang",
      params={"model": _LazyModel(_logistic, dim=2), "N": 20, "tau": 2, "T": 20, "epsilon": 1.0, "delta": 1e-5,
              "step_size": 1e-4},
      dataset=_logistic_records(20), neighbour=_logistic_records(20, flip_first=True), pair=_LOGISTIC_PAIR,
      budget_scale=0.5)
_case(id="dp_sgld_li", sampler="dp_sgld_li",
      # Theorem 4's hypotheses i)-iii) and Lemma 2's lambda range hold here (N = 10^4, q = 0.01, T = 1000 steps)
      params={"model": _LazyModel(_logistic, dim=2), "N": 10_000, "tau": 100, "T": 1000, "epsilon": 1.0,
              "delta": 1e-5, "step_size": 0.05},
      dataset=_logistic_records(10_000), neighbour=_logistic_records(10_000, flip_first=True), pair=_LOGISTIC_PAIR,
      budget_scale=0.1)
_case(id="hybrid_ops_sgld", sampler="hybrid_ops_sgld",
      params={"model": _LazyModel(_logistic, dim=2, R=1.0, theta_radius=4.0), "N": 100, "tau": 10, "T": 20,
              "epsilon": 1.0, "delta": 1e-5, "step_size": 1e-7, "ops_steps": 200},
      dataset=_logistic_records(100), neighbour=_logistic_records(100, flip_first=True), pair=_LOGISTIC_PAIR,
      budget_scale=0.1)
_case(id="ops_mcmc_logistic", sampler="ops_mcmc_logistic",
      params={"model": _LazyModel(_logistic, dim=2, R=1.0, theta_radius=4.0), "N": 100, "epsilon": 1.0,
              "n_steps": 600},
      dataset=_logistic_records(100), neighbour=_logistic_records(100, flip_first=True), pair=_LOGISTIC_PAIR,
      budget_scale=0.1)
# step sizes below the privacy conditions of eqs. 4.2 / 4.3 at N = 200, T = 10, tau = 20, eps = 1, delta = 1e-5
# (h_max = 6.8e-7 for A - B_hat = 0.9, eta_max = 7.5e-7 for a = 1; the samplers re-check through the catalogue)
_case(id="dp_sghmc", sampler="dp_sghmc",
      params={"model": _LazyModel(_logistic, dim=2), "N": 200, "tau": 20, "T": 10, "epsilon": 1.0, "delta": 1e-5,
              "h": 5e-7, "A": 1.0, "B_hat": 0.1},
      dataset=_logistic_records(200), neighbour=_logistic_records(200, flip_first=True), pair=_LOGISTIC_PAIR,
      budget_scale=0.5)
_case(id="dp_sgnht", sampler="dp_sgnht",
      params={"model": _LazyModel(_logistic, dim=2), "N": 200, "tau": 20, "T": 10, "epsilon": 1.0, "delta": 1e-5,
              "eta": 5e-7, "a": 1.0},
      dataset=_logistic_records(200), neighbour=_logistic_records(200, flip_first=True), pair=_LOGISTIC_PAIR,
      budget_scale=0.5)
_case(id="dp_sgfs", sampler="dp_sgfs",
      params={"model": _LazyModel(_logistic, dim=3, R=1.0), "N": 500, "tau": 20, "T": 4, "epsilon": 1.0,
              "delta": 1e-5, "step_size": 1e-3},
      dataset=_logistic_records(500, dim=3), neighbour=_logistic_records(500, dim=3, flip_first=True),
      pair=_LOGISTIC_PAIR, budget_scale=0.25)
# --- ULA and noisy SGD on a Gaussian target (Bertazzi et al. 2025, eqs. 25 and 31) ------------------------------
_POINTS_PAIR = "N = 20 points at -R e1; the neighbour moves the first to +R e1 (gradient change 2R)"
for _id, _extra in (("ula_final", {}), ("ula_path", {}),
                    ("noisy_sgd_final", {"batch_size": 5}), ("noisy_sgd_path", {"batch_size": 5})):
    _case(id=_id, sampler=_id,
          params={"model": _LazyModel(_gaussian_target, dim=2, R=1.0), "N": 20, "step_size": 0.05, "n_steps": 30,
                  **_extra},
          dataset=_points(20), neighbour=_points(20, move_first=True), pair=_POINTS_PAIR,
          budget_scale=0.5)


def cases() -> list[AuditCase]:
    """Every case of the suite, in catalogue order."""
    return list(_CASES)


def get_case(case_id: str) -> AuditCase:
    for c in _CASES:
        if c.id == case_id:
            return c
    raise KeyError(f"no audit case {case_id!r}; cases are {[c.id for c in _CASES]}")


def select(pattern: str | None) -> list[AuditCase]:
    """Cases whose id matches the glob ``pattern`` (or contains it as a substring)."""
    if not pattern:
        return cases()
    return [c for c in _CASES if fnmatch.fnmatch(c.id, pattern) or pattern in c.id]


def run_case(
    case: AuditCase | str,
    *,
    budget: str | int = "quick",
    seed: int = 0,
    confidence: float = 0.95,
    params: dict | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
) -> CaseResult:
    """Audit ``case`` against its sampler's claim (or an explicit ``epsilon``/``delta``).

    Errors while building or sampling are captured in the result (``verdict == "error"``), never lost.
    """
    from dpverify.audit import audit

    case = get_case(case) if isinstance(case, str) else case
    start = time.perf_counter()
    merged = {**case.params, **(params or {})}
    try:
        sampler = case.build(**(params or {}))
        claim = sampler.guarantee()
        result = audit(
            sampler,
            case.dataset(),
            case.neighbour(),
            epsilon=claim.epsilon if epsilon is None else epsilon,
            delta=claim.delta if delta is None else delta,
            samples=case.samples(budget),
            confidence=confidence,
            seed=seed,
            test=case.test,
        )
        return CaseResult(case.id, case.sampler, _printable(merged), case.pair, claim.to_dict(), result,
                          time.perf_counter() - start)
    except Exception as exc:  # reported as an error row, never a lost result
        return CaseResult(case.id, case.sampler, _printable(merged), case.pair, {}, None, time.perf_counter() - start,
                          error=f"{type(exc).__name__}: {exc}")


def _printable(params: dict) -> dict:
    """Parameters for reports: numbers and strings as they are, models as their constructor call."""
    return {k: v if isinstance(v, (bool, int, float, str, type(None))) else repr(v) for k, v in params.items()}

"""The audit suite: one audit case per reference sampler on the worst adjacent pair known for it, plus average-case
and known-bad cases for the gradient samplers.

A case names a sampler (``dpverify samplers list``), its parameters, an adjacent pair and the budgets. Its claim is
never typed here: it is the sampler's ``guarantee()``, i.e. the catalogue theorem evaluated at the case's
parameters (hypotheses checked), or for ``claim="accountant"`` samplers the accountant's epsilon of the declared
run. ``run_case`` audits the sampler against that claim with :func:`dpverify.audit.audit`; the result also carries
the accountant's epsilon of the run and the budget ceiling (the samplers' ``account`` and ``pair_privacy_loss``).

Pairs:

- one-dimensional mechanisms (baselines, conjugate OPS): the pair maximising the exact epsilon found by
  :mod:`dpverify.audit.search` or by the closed form (documented per case);
- gradient samplers: a gradient canary (:mod:`dpverify.models.canary`) -- the differing record's gradient differs
  from its counterpart's by a constant vector, the other records cancel or vanish -- so that every step sees its
  mechanism description's dominating pair: the pair's privacy loss is known (exact for path releases) and path
  releases are audited with the white-box likelihood ratio; ``*_average`` cases audit the same samplers on natural
  data (``average_case=True``);
- known-bad cases (``known_bad=True``): implementations that declare a correct mechanism and implement a defect
  (:mod:`dpverify.samplers.broken`); they pass when the audit finds the violation.
"""
from __future__ import annotations

import difflib
import fnmatch
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

__all__ = ["BUDGETS", "AuditCase", "CaseResult", "cases", "cases_of", "case_settings", "get_case", "run_case", "select"]

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
    #: a deliberately broken implementation: the audit passes when it finds the violation
    known_bad: bool = False
    #: natural data instead of the worst known pair
    average_case: bool = False

    def samples(self, budget: str | int) -> int:
        if isinstance(budget, (int, np.integer)):
            return int(budget)
        if budget not in BUDGETS:
            raise ValueError(f"budget must be one of {sorted(BUDGETS)} or a sample count; got {budget!r}")
        return max(1_000, int(BUDGETS[budget] * self.budget_scale))

    def build(self, **overrides: Any):
        from dpverify.samplers import registry

        params = {k: v.build() if isinstance(v, _LazyModel) else v for k, v in {**self.params, **overrides}.items()}
        if isinstance(params.get("theta0"), tuple):
            params["theta0"] = np.array(params["theta0"])
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

    known_bad: bool = False

    @property
    def verdict(self) -> str:
        if self.error:
            return "error"
        return self.audit.verdict

    @property
    def passed(self) -> bool:
        """A known-bad case passes when its violation is found; every other case when none is found."""
        if self.error:
            return False
        return (self.verdict == "violation") == self.known_bad

    def to_dict(self) -> dict:
        return {
            "case": self.case,
            "sampler": self.sampler,
            "params": self.params,
            "pair": self.pair,
            "claim": self.claim,
            "audit": None if self.audit is None else self.audit.to_dict(),
            "verdict": self.verdict,
            "known_bad": self.known_bad,
            "passed": self.passed,
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

# --- gradient samplers: gradient canaries (dpverify.models.canary) -------------------------------------------------
# Every gradient sampler is audited on a canary pair: the differing record's gradient differs from its counterpart's
# by the same vector at every theta, and the other records are copies of the counterpart (fixed-size or full batches)
# or null records (Poisson batches), so each step sees exactly its description's dominating pair: the pair's PLD is
# known (budget ceiling) and path releases are audited with the exact white-box likelihood ratio.


def _logistic(**kwargs: Any):
    from dpverify.models.logistic import LogisticRegression

    return LogisticRegression(**kwargs)


def _gaussian_target(**kwargs: Any):
    from dpverify.models.targets import GaussianTarget

    return GaussianTarget(**kwargs)


def _canary(factory: Callable, model_kwargs: dict, N: int, kind: str, side: int) -> Callable[[], np.ndarray]:
    def build() -> np.ndarray:
        from dpverify.models.canary import model_canary_pair

        return model_canary_pair(factory(**model_kwargs), N, kind=kind)[side]

    return build


def _natural(factory: Callable, model_kwargs: dict, N: int, seed: int, side: int) -> Callable[[], np.ndarray]:
    """Natural data (logistic: features uniform in the ball, labels from the model; Gaussian target: points uniform
    in the ball); the neighbour replaces the first record by a fresh draw."""

    def build() -> np.ndarray:
        rng = np.random.default_rng(seed)
        model = factory(**model_kwargs)
        if factory is _logistic:
            from dpverify.models.logistic import make_logistic_dataset

            X = make_logistic_dataset(N + 1, model.dim, rng, R=model.R)
        else:
            u = rng.standard_normal((N + 1, model.dim))
            u /= np.linalg.norm(u, axis=1, keepdims=True)
            X = model.R * u * rng.random((N + 1, 1)) ** (1.0 / model.dim)
        data = X[:N].copy()
        if side:
            data[0] = X[N]
        return data

    return build


def _gradient_case(case_id: str, sampler: str, factory: Callable, model_kwargs: dict, params: dict, N: int,
                   kind: str = "replace", budget_scale: float = 1.0, average_scale: float | None = None,
                   **extra: Any) -> None:
    model = _LazyModel(factory, **model_kwargs)
    what = {"replace": "the canary record vs N copies of its counterpart (fixed-size or full batches)",
            "null": "the canary record among null records vs N null records (Poisson batches, add/remove)"}[kind]
    _case(id=case_id, sampler=sampler, params={"model": model, "N": N, **params},
          dataset=_canary(factory, model_kwargs, N, kind, 0), neighbour=_canary(factory, model_kwargs, N, kind, 1),
          pair=f"gradient canary: {what}", budget_scale=budget_scale, **extra)
    if average_scale is not None:
        _case(id=f"{case_id}_average", sampler=sampler, params={"model": model, "N": N, **params},
              dataset=_natural(factory, model_kwargs, N, 7, 0), neighbour=_natural(factory, model_kwargs, N, 7, 1),
              pair="average case: natural data, the first record replaced by a fresh draw",
              budget_scale=average_scale, average_case=True)


_LOGISTIC = {"dim": 2}
_gradient_case("dp_sgld_wang", "dp_sgld_wang", _logistic, _LOGISTIC,
               {"tau": 2, "T": 20, "epsilon": 1.0, "delta": 1e-5, "step_size": 1e-4}, 20,
               budget_scale=0.5, average_scale=0.25)
# Theorem 4's hypotheses i)-iii) and Lemma 2's lambda range hold here: N = 1000, q = 0.015, T = 200 steps, clip
# L = 1, eta = 0.0225 (Lemma 2's sigma^2 = q^2 N/(eta L^2) = 10: sigma^2 log(1/(q sigma)) = 30.5 >= the 23.5 needed,
# q < 1/(16 sigma), T < sigma^2/(48 q^2)). R = 4 so that the canary's clipped gradient is L e1 wherever
# 4 sigmoid(-4 theta_1) >= 1 (theta_1 <= 0.27; the chain's theta_1 stays within 0.07 sd of 0 over its 200 steps).
_gradient_case("dp_sgld_li", "dp_sgld_li", _logistic, {"dim": 2, "R": 4.0},
               {"tau": 15, "T": 200, "epsilon": 1.0, "delta": 1e-5, "step_size": 0.0225, "L": 1.0}, 1000,
               kind="null", budget_scale=0.5)
_gradient_case("hybrid_ops_sgld", "hybrid_ops_sgld", _logistic, {"dim": 2, "R": 1.0, "theta_radius": 4.0},
               {"tau": 10, "T": 20, "epsilon": 1.0, "delta": 1e-5, "step_size": 1e-7, "ops_steps": 200}, 100,
               budget_scale=0.1)
_case(id="ops_mcmc_logistic", sampler="ops_mcmc_logistic",
      params={"model": _LazyModel(_logistic, dim=2, R=1.0, theta_radius=4.0), "N": 100, "epsilon": 1.0,
              "n_steps": 600},
      dataset=_canary(_logistic, {"dim": 2, "R": 1.0, "theta_radius": 4.0}, 100, "replace", 0),
      neighbour=_canary(_logistic, {"dim": 2, "R": 1.0, "theta_radius": 4.0}, 100, "replace", 1),
      pair="N = 100 copies of ((R, 0), -1); the dataset flips the first label", budget_scale=0.1)
# step sizes below the privacy conditions of eqs. 4.2 / 4.3 at N = 200, T = 10, tau = 20, eps = 1, delta = 1e-5
# (h_max = 6.8e-7 for A - B_hat = 0.9, eta_max = 7.5e-7 for a = 1; the samplers re-check through the catalogue)
_gradient_case("dp_sghmc", "dp_sghmc", _logistic, _LOGISTIC,
               {"tau": 20, "T": 10, "epsilon": 1.0, "delta": 1e-5, "h": 5e-7, "A": 1.0, "B_hat": 0.1}, 200,
               budget_scale=0.5)
_gradient_case("dp_sgnht", "dp_sgnht", _logistic, _LOGISTIC,
               {"tau": 20, "T": 10, "epsilon": 1.0, "delta": 1e-5, "eta": 5e-7, "a": 1.0}, 200, budget_scale=0.5)
_gradient_case("dp_sgfs", "dp_sgfs", _logistic, {"dim": 3, "R": 1.0},
               {"tau": 20, "T": 4, "epsilon": 1.0, "delta": 1e-5, "step_size": 1e-3}, 500, budget_scale=0.25)
# --- ULA and noisy SGD on a Gaussian target (Bertazzi et al. 2025, eqs. 25 and 31): canary +R e1 vs -R e1 ------------
for _id, _extra in (("ula_final", {}), ("ula_path", {}),
                    ("noisy_sgd_final", {"batch_size": 5}), ("noisy_sgd_path", {"batch_size": 5})):
    _gradient_case(_id, _id, _gaussian_target, {"dim": 2, "R": 1.0}, {"step_size": 0.05, "n_steps": 30, **_extra},
                   20, budget_scale=0.5, average_scale=0.5 if _id in ("ula_final", "noisy_sgd_path") else None)

# --- DP-SGLD as practitioners run it, and its known-bad implementations --------------------------------------------
# Li et al. 2019's Alg. 1 released as a path, claiming the PLD accountant's epsilon of the declared run at
# delta = 1e-3 (a privacy profile holds at every delta; at 10^4-10^5 samples the audit has most power near 1e-3).
# N = 100, q = 0.1, T = 50, clip L = 1, eta = 0.444: noise sd sqrt(eta/N) = 0.0667, sensitivity eta L/tau = 0.0444,
# so mu = 0.667 per step (noise multiplier 1.5). R = 4 and theta0 = (-2, 0): the canary stays clipped (needs
# theta_1 <= 0.27; the chain's theta_1 spread over 50 steps is 0.47, its drift at most 0.22).
_SGLD_PATH = {"tau": 10, "T": 50, "delta": 1e-3, "step_size": 0.444, "L": 1.0, "theta0": (-2.0, 0.0)}
_SGLD_MODEL = {"dim": 2, "R": 4.0, "prior_variance": 100.0}
_gradient_case("dp_sgld_path", "dp_sgld_li", _logistic, _SGLD_MODEL,
               {**_SGLD_PATH, "epsilon": None, "release": "path", "claim": "accountant"}, 100, kind="null")
for _defect in ("no_noise", "half_noise", "no_clip", "double_rate", "sum_not_mean"):
    _gradient_case(f"dp_sgld_broken_{_defect}", "dp_sgld_broken", _logistic, _SGLD_MODEL,
                   {**_SGLD_PATH, "defect": _defect}, 100, kind="null", known_bad=True)
# Wang et al.'s DP-SGLD without its privacy noise (plain SGLD, noise variance eta), at a step size where that noise
# is far below Alg. 2's (eta = 1e-2: privacy variance 550 vs 0.01): the claim of Theorem 4 is then violated.
_gradient_case("dp_sgld_wang_no_privacy_noise", "dp_sgld_wang", _logistic, _LOGISTIC,
               {"tau": 2, "T": 20, "epsilon": 1.0, "delta": 1e-5, "step_size": 1e-2, "privacy_noise": False,
                "release": "path"}, 20, known_bad=True, budget_scale=0.5)


def cases() -> list[AuditCase]:
    """Every case of the suite, in catalogue order."""
    return list(_CASES)


def cases_of(sampler_id: str) -> list[AuditCase]:
    """The cases that audit the sampler ``sampler_id`` (a sampler can have several: ``dp_sgld_li`` has
    ``dp_sgld_li`` and ``dp_sgld_path``)."""
    return [c for c in _CASES if c.sampler == sampler_id]


def get_case(case_id: str) -> AuditCase:
    """The case ``case_id``; a ``KeyError`` otherwise that names the cases of a sampler with that ID, or the closest
    case IDs."""

    for c in _CASES:
        if c.id == case_id:
            return c
    of_sampler = cases_of(case_id)
    if of_sampler:
        raise KeyError(f"no audit case {case_id!r}: {case_id} is a sampler; its audit cases are "
                       f"{', '.join(c.id for c in of_sampler)} (`dpverify samplers show {case_id}`)")
    close = difflib.get_close_matches(case_id, [c.id for c in _CASES], n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}?" if close else "the cases are " + ", ".join(c.id for c in _CASES)
    raise KeyError(f"no audit case {case_id!r}; {hint} (each sampler lists its cases: `dpverify samplers show ID`)")


def case_settings(case: AuditCase, overrides: dict | None = None) -> str:
    """The case's parameters as one line (``N=100, tau=10, defect='double_rate', ...``; models as their constructor
    call), with ``overrides`` (``--param``) applied."""
    merged = {**case.params, **(overrides or {})}
    return ", ".join(f"{k}={v!r}" for k, v in merged.items())


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
    progress: Callable[[int, int], None] | None = None,
    mode: str = "mathematical",
    workers: int = 1,
    client: Any = None,
) -> CaseResult:
    """Audit ``case`` against its sampler's claim (or an explicit ``epsilon``/``delta``).

    ``mode`` ("mathematical" or "implementation", :data:`dpverify.audit.core.MODES`), ``workers`` (processes that
    draw and count the samples) and ``client`` (a ``dask.distributed.Client`` whose cluster draws and counts them,
    :mod:`dpverify.audit.distributed`) are passed to :func:`dpverify.audit.audit`; the numbers depend on none of them.

    The audit result also carries the sampler's accountant epsilon and, on canary pairs, the budget ceiling
    (from the sampler's ``account`` and ``pair_privacy_loss``). ``progress(done, total)`` is passed to
    :func:`dpverify.audit.audit`. Errors while building or sampling are captured in the result
    (``verdict == "error"``), never lost.
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
            progress=progress,
            mode=mode,
            workers=workers,
            client=client,
        )
        return CaseResult(case.id, case.sampler, _printable(merged), case.pair, claim.to_dict(), result,
                          time.perf_counter() - start, known_bad=case.known_bad)
    except Exception as exc:  # reported as an error row, never a lost result
        return CaseResult(case.id, case.sampler, _printable(merged), case.pair, {}, None, time.perf_counter() - start,
                          error=f"{type(exc).__name__}: {exc}", known_bad=case.known_bad)


def _printable(params: dict) -> dict:
    """Parameters for reports: numbers and strings as they are, models as their constructor call."""
    return {k: v if isinstance(v, (bool, int, float, str, type(None))) else
            list(v) if isinstance(v, tuple) else repr(v) for k, v in params.items()}

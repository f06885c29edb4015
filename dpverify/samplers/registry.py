"""The sampler registry: ``dpverify samplers list`` prints one row per entry.

Sampler modules register their classes with :func:`register`; :func:`all_samplers` imports
every module in :data:`SAMPLER_MODULES` first. :func:`parameters` describes a sampler's constructor
parameters (name, type, default, allowed range) for ``dpverify samplers show ID`` and for the error of
:func:`make` on an unknown name. Types and defaults come from the constructor's signature
(:func:`inspect.signature`); the allowed ranges from :data:`PARAMETER_RANGES`, which restates the checks the
constructors make (``check_real``/``check_positive_int`` calls and the ``ValueError`` branches of each sampler
module) and the conditions of the theorems they cite (a test keeps it complete).
"""
from __future__ import annotations

import difflib
import importlib
import inspect
from dataclasses import dataclass
from typing import Any

from dpverify.samplers.base import OUTPUT_KINDS, Sampler

__all__ = ["SAMPLER_MODULES", "PARAMETER_RANGES", "Parameter", "register", "get", "all_samplers", "make",
           "parameters"]

#: Modules that define samplers (each registers its classes on import).
SAMPLER_MODULES: tuple[str, ...] = (
    "baselines",
    "ops",
    "ops_mcmc",
    "sgld",
    "sghmc",
    "sgnht",
    "sgfs",
    "hybrid",
    "ula",
    "foulds",
    "mc_estimator",
    "rdp_posterior",
    "penalty",
    "barker",
    "gibbs_posterior",
    "shifted_interpolation",
    "negative_results",
    "broken",
)

#: Allowed values of each constructor parameter, by name (``"*"``) or by ``(sampler ID, name)`` where a name means
#: different things in different samplers. The sampler's constructor is the authority (it raises a ``ValueError``
#: naming the parameter); this table only makes the ranges discoverable before a run.
PARAMETER_RANGES: dict[str | tuple[str, str], str] = {
    "epsilon": "> 0: the target epsilon the sampler is calibrated for",
    "delta": "in (0, 1): the target delta",
    "unguaranteed": "true/false: build even if a hypothesis of the theorem fails (the claim is then marked "
                    "unguaranteed)",
    "model": "a model object of dpverify.models (set by the audit case; not settable with --param)",
    "theta0": "none or a length-d vector: the data-independent start of every chain (default 0)",
    "N": "integer >= 1: number of records (the dataset must have exactly N)",
    "tau": "integer in [1, N]: mini-batch size",
    ("dp_sgld_li", "tau"): "real in (0, N]: expected Poisson batch size (sampling rate q = tau / N)",
    "T": "> 0: number of passes over the data (iterations floor(N T / tau) >= 1)",
    ("dp_sgld_li", "T"): "integer >= 1: number of iterations",
    ("private_gibbs", "T"): "integer >= 1: number of Gibbs sweeps",
    "step_size": "> 0: step size (a schedule of positive values where the sampler accepts one)",
    ("ops_mcmc_logistic", "step_size"): "none (adapted) or > 0: proposal step size",
    "schedule": "'fixed' or 'decreasing' (Li et al. 2019, Thms 4 and 3); 'explicit' when step_size is a vector",
    "L": "none (the model's Lipschitz constant) or > 0: clipping level of the per-record gradients",
    "half_drift": "true/false: the variant whose drift uses half the gradient (an audit variant)",
    "release": "'final' (last iterate) or 'path' (every iterate)",
    ("laplace_posterior_beta_bernoulli", "release"): "'sample' (one posterior draw) or 'mean' (the posterior mean)",
    "claim": "'theorem' (the paper's bound) or 'accountant' (the PLD accountant's epsilon of the run at delta)",
    "defect": "one of no_noise, half_noise, no_clip, double_rate, sum_not_mean (a known-bad DP-SGLD)",
    "privacy_noise": "true/false: false drops the privacy noise (plain SGLD, a deliberately broken variant)",
    "h": "> 0: step size (eq. 4.2's privacy condition bounds it from above)",
    "A": "> B_hat: friction of SGHMC",
    "B_hat": ">= 0 and < A: estimated gradient-noise term of SGHMC",
    "eta": "> 0: step size (eq. 4.3's privacy condition bounds it from above)",
    "a": "> 0: diffusion constant of SGNHT",
    "ops_steps": "integer >= 8: Metropolis steps of the OPS phase",
    "n_steps": "integer >= 1: number of steps",
    ("ops_mcmc_logistic", "n_steps"): "integer >= 8: Metropolis steps per chain",
    ("noisy_mc_estimator", "n_steps"): "integer >= 1: number of Monte Carlo draws averaged",
    "batch_size": "integer in [1, N]: mini-batch size",
    "beta": "> 0: inverse temperature (noise std sqrt(2 step_size / beta))",
    "burn_in": "none (n_steps // 2) or integer >= 0 leaving at least 8 draws",
    "init_scale": "> 0: standard deviation of the chains' random start",
    "diagnostic_chains": "integer >= 2: chains used for the R-hat diagnostic",
    "query": "'count' or 'mean': the released query of records in [lower, upper]",
    "lower": "real: smallest record value",
    "upper": "real > lower: largest record value",
    "K": "integer >= 2: number of categories",
    "calibration": "'wang2015' or 'foulds2016': how the tempering is set from epsilon",
    ("noisy_mc_estimator", "calibration"): "'prop37' or 'prop310' (Bertazzi et al. 2025)",
    "a0": "in (0, 0.5): truncation of the parameter space [a0, 1 - a0]",
    ("ops_dirichlet_categorical", "a0"): "in (0, 1/K): truncation of the simplex",
    ("laplace_posterior_beta_bernoulli", "a0"): "none or in (0, 0.5]: truncation of the parameter space",
    "alpha": "> 0 (a number, or one value per category): Dirichlet prior concentration",
    "alpha0": "> 0: first Beta prior parameter",
    "beta0": "> 0: second Beta prior parameter",
    "sigma": "> 0: known noise standard deviation of the records",
    "R": "> 0: bound on |x| of the records",
    "Theta": "> 0: bound on |theta| of the truncated parameter space",
    "mu0": "real: prior mean",
    "tau0": "> 0: prior standard deviation",
    "projection": "'simplex' or 'nonnegative': how noisy sufficient statistics are projected",
    "M": "integer >= 1: emissions per record",
    "scan": "'sequence' or 'random' (random needs Q)",
    "Q": "none or integer in [1, N]: latent variables updated per iteration (scan='random')",
    "test_function": "'mean' or 'cdf'",
    "threshold": "in [a0, 1 - a0]: threshold of the 'cdf' test function",
    "delta_bar": "in (0, 1): the delta of Proposition 3.10's calibration",
    "r": "in (0, 1]: weight of the data's counts in the posterior (Geumlek et al.'s Diffuse Posterior; 1: the posterior)",
    "order": "none or > 1: the Rényi order of the calibration target",
    "rdp_epsilon": "none or > 0: the RDP epsilon at `order` the calibration aims for",
    ("rdp_posterior_beta_bernoulli", "calibration"): "'none', 'diffuse' (solve for r) or 'concentrated' (scale the prior)",
    ("rdp_posterior_dirichlet_categorical", "calibration"): "'none', 'diffuse' (solve for r) or 'concentrated' (scale "
                                                           "the prior)",
    ("rdp_posterior_beta_bernoulli", "N"): "none or integer >= 1: the dataset size `account` assumes",
    ("rdp_posterior_dirichlet_categorical", "N"): "none or integer >= 1: the dataset size `account` assumes",
    # --- DP-penalty and DP-HMC (samplers/penalty.py) ----------------------------------------------------------------
    ("dp_penalty", "tau"): "> 0: noise scale of the log-likelihood ratio (noise std tau sqrt(N) 2 b d)",
    ("dp_hmc", "tau"): "> 0: noise scale of the log-likelihood ratio (noise std tau sqrt(N) 2 b d)",
    "tau_g": "> 0: noise scale of DP-HMC's gradients (noise std 2 tau_g sqrt(N) L)",
    "ratio_clip": "> 0: clip bound b of a per-record log-likelihood ratio per unit proposal distance",
    "prop_sd": "> 0: standard deviation of the random-walk proposal",
    ("dp_hmc", "step_size"): "> 0: leapfrog step size",
    "n_leapfrog": "integer in [1, 1000]: leapfrog steps per DP-HMC iteration",
    ("dp_penalty", "n_steps"): "integer in [1, 100000]: penalty steps",
    ("dp_hmc", "n_steps"): "integer in [1, 100000]: DP-HMC iterations",
    ("dp_penalty", "release"): "'path' (the transcript: proposals, noisy ratios, accept flags) or 'final'",
    ("dp_hmc", "release"): "'path' (the transcript: momenta, noisy gradients, noisy ratios, accept flags) or 'final'",
    "misuse": "'none' or 'no_ll_noise' (the authors' option that drops the ratio's noise: voids the bound)",
    # --- DP MCMC with the Barker test (samplers/barker.py) ----------------------------------------------------------
    ("dp_barker", "N"): "integer >= batch_size: number of records (the dataset must have exactly N)",
    ("dp_barker", "batch_size"): "integer in [20, N] for a guaranteed claim (b > 5 alpha at alpha >= 3): batch size",
    ("dp_barker", "T"): "integer >= 1: number of Barker iterations",
    ("dp_barker", "step"): "> 0: proposal standard deviation (gaussian) or step length per coordinate (rademacher)",
    ("dp_barker", "proposal"): "'gaussian' (the paper's random walk) or 'rademacher' (fixed step length)",
    ("dp_barker", "temperature"): "> 0: temperature tau_T of the log-likelihood (N tau_T scales the batch mean)",
    ("dp_barker", "clip"): "none (sqrt(b) / (N temperature), the largest the bound allows) or > 0 (<= that bound "
                           "for a guaranteed claim): clip of the per-record log-likelihood ratios",
    ("dp_barker", "sigma2"): "in (1, pi^2/3): variance of the normal part of the Barker test (the paper: 2)",
    ("dp_barker", "release"): "'final', 'path' or 'statistics' (white-box: [Z_t, xi_t] per iteration)",
    ("dp_barker", "max_alpha"): "integer >= 4: orders 3 <= alpha < min(max_alpha, b // 5) are searched",
    # --- the Gibbs posterior and the regularised exponential mechanism (samplers/gibbs_posterior.py) ----------------
    ("gibbs_posterior", "epsilon"): "> 0 (<= 1 for claim='theorem'): the target epsilon beta is calibrated for",
    ("gibbs_posterior", "R"): "> 0: bound on |x| of the records (the linear loss's Lipschitz constant L)",
    ("gibbs_posterior", "m"): "> 0: precision of the prior N(0, I/m) (its strong log-concavity)",
    ("gibbs_posterior", "beta"): "none (beta_max(epsilon, delta) of Minami et al.) or > 0: inverse temperature",
    ("gibbs_posterior", "dim"): "integer >= 1: dimension of theta and of the records",
    ("gibbs_posterior", "claim"): "'theorem' (Minami et al.'s condition on beta) or 'concentration' (the proof's "
                                  "epsilon = a^2/2 + a sqrt(2 log(1/delta)))",
    ("gibbs_posterior_regularized_em", "k"): "> 0: inverse temperature k of exp(-k (F + mu |x|^2 / 2))",
    ("gibbs_posterior_regularized_em", "mu"): "> 0: coefficient of the l2 regulariser (strong convexity)",
    ("gibbs_posterior_regularized_em", "R"): "> 0: bound on |x| of the records (each loss's Lipschitz constant G)",
    ("gibbs_posterior_regularized_em", "dim"): "integer >= 1: dimension of theta and of the records",
    ("gibbs_posterior_regularized_em", "delta"): "in (0, 1): the delta at which the GDP claim is read as "
                                                 "(epsilon, delta)",
    ("gibbs_posterior_ula", "epsilon"): "> 0 (<= 1 for claim='theorem'): the Gibbs posterior's target epsilon (beta "
                                        "is calibrated for it); the claim keeps it",
    ("gibbs_posterior_ula", "delta"): "in (0, 1): the Gibbs posterior's delta; the claim's is delta + (1 + e^epsilon) "
                                      "gamma (must stay < 1)",
    ("gibbs_posterior_ula", "R"): "> 0: bound on |x| of the (1-d) records (the linear loss's Lipschitz constant L)",
    ("gibbs_posterior_ula", "m"): "> 0: precision of the prior N(0, 1/m) (the potential's curvature)",
    ("gibbs_posterior_ula", "beta"): "none (beta_max(epsilon, delta) of Minami et al.) or > 0: inverse temperature",
    ("gibbs_posterior_ula", "step_size"): "in (0, 2/m): ULA's step h (stable exactly there); the TV to the Gibbs "
                                          "posterior grows like 0.12 h m",
    ("gibbs_posterior_ula", "n_steps"): "integer >= 1: number K of ULA steps (the K-th state is released)",
    ("gibbs_posterior_ula", "theta0"): "none (0) or a real: the data-independent start of every chain",
    ("gibbs_posterior_ula", "claim"): "'theorem' (Minami et al.'s condition on beta) or 'concentration' (the proof's "
                                      "epsilon), transferred through the TV",
    ("gibbs_posterior_ula", "unguaranteed"): "true/false: build even if a hypothesis fails or the transferred delta "
                                             "is >= 1 (the claim is then marked unguaranteed; delta capped at 1)",
    # --- noisy GD's last iterate (samplers/shifted_interpolation.py) ------------------------------------------------
    ("noisy_gd_last_iterate", "sigma"): "> 0: standard deviation of the Gaussian noise added to the gradient (each step "
                                        "moves by eta times it)",
    ("noisy_gd_last_iterate", "step_size"): "> 0 and <= 2/(M + m) with eta m < 1 (the theorem's hypotheses; M, m the "
                                            "extreme curvatures of the mean loss)",
    # --- the published negative results, must-fail (samplers/negative_results.py) -----------------------------------
    ("sgld_interim", "prior_precision"): "> 0: prior precision m of the 1-d regression (the posterior's privacy grows "
                                         "with it)",
    ("sgld_interim", "step_size"): "in (0, 1 / (prior_precision + 1)): SGLD step size (every dataset needs step_size "
                                   "(m + sum x^2) < 1)",
    ("sgld_interim", "n_steps"): "integer >= 1: SGLD steps before the state is released (the interim region)",
    ("sgld_interim", "theta0"): "real: the chain's start R (the interim privacy loss grows like R^2)",
    ("sgld_interim", "delta"): "in (0, 1): delta of the naive claim",
    ("sgld_interim", "unguaranteed"): "true (the default): the claim is naive; false is refused",
    ("dp_sgd_nonconvex_last_iterate", "q"): "in (0, 1): Poisson sampling rate",
    ("dp_sgd_nonconvex_last_iterate", "noise_multiplier"): "> 0: noise standard deviation per step (clip 1, step 1)",
    ("dp_sgd_nonconvex_last_iterate", "n_steps"): "integer >= 2: DP-SGD steps",
    ("dp_sgd_nonconvex_last_iterate", "threshold"): "> 0: where the double-well regulariser latches",
    ("dp_sgd_nonconvex_last_iterate", "delta"): "in (0, 1): delta of the naive claim",
    ("dp_sgd_nonconvex_last_iterate", "unguaranteed"): "true (the default): the claim is naive; false is refused",
    ("dp_sgd_crafted_gradient_last_iterate", "noise_multiplier"): "> 0: noise standard deviation per step (clip 1)",
    ("dp_sgd_crafted_gradient_last_iterate", "n_steps"): "integer >= 1: full-batch DP-SGD steps",
    ("dp_sgd_crafted_gradient_last_iterate", "claimed_steps"): "integer in [1, n_steps]: the naive claim counts only "
                                                               "the last claimed_steps updates",
    ("dp_sgd_crafted_gradient_last_iterate", "delta"): "in (0, 1): delta of the naive claim",
    ("dp_sgd_crafted_gradient_last_iterate", "unguaranteed"): "true (the default): the claim is naive; false is "
                                                              "refused",
    ("dp_sgd_crafted_gradient_last_iterate", "sampling_rate"): "in (0, 1]: Poisson sampling rate q of each record "
                                                               "per step; 1 (the default) is full batch",
}


@dataclass(frozen=True)
class Parameter:
    """One constructor parameter of a sampler: ``name``, ``type`` (the annotation, or the default's type),
    ``default`` (:data:`REQUIRED` if none) and ``range`` (from :data:`PARAMETER_RANGES`)."""

    name: str
    type: str
    default: Any
    range: str

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def to_dict(self) -> dict:
        return {"name": self.name, "type": self.type, "required": self.required,
                "default": None if self.required else self.default, "range": self.range}


class _Required:
    def __repr__(self) -> str:
        return "(required)"


#: The default of a parameter that has none.
REQUIRED: Any = _Required()

_REGISTRY: dict[str, type[Sampler]] = {}
_loaded = False


def register(cls: type[Sampler]) -> type[Sampler]:
    """Class decorator: add a sampler class under its ``id``."""
    for attr in ("id", "theorems", "output"):
        if not hasattr(cls, attr):
            raise TypeError(f"sampler class {cls.__name__} must define {attr!r}")
    if cls.output not in OUTPUT_KINDS:
        raise ValueError(f"{cls.__name__}.output must be one of {OUTPUT_KINDS}; got {cls.output!r}")
    if cls.id in _REGISTRY and _REGISTRY[cls.id] is not cls:
        raise ValueError(f"sampler ID {cls.id!r} is already registered")
    _REGISTRY[cls.id] = cls
    return cls


def _load() -> None:
    global _loaded
    if _loaded:
        return
    for name in SAMPLER_MODULES:
        module = f"dpverify.samplers.{name}"
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:  # module not written yet
            if exc.name != module:
                raise
    _loaded = True


def all_samplers() -> list[type[Sampler]]:
    _load()
    return list(_REGISTRY.values())


def get(sampler_id: str) -> type[Sampler]:
    _load()
    try:
        return _REGISTRY[sampler_id]
    except KeyError:
        close = difflib.get_close_matches(sampler_id, list(_REGISTRY), n=3, cutoff=0.4)
        hint = f"; did you mean {', '.join(close)}?" if close else "; see `dpverify samplers list`"
        raise KeyError(f"no sampler with ID {sampler_id!r}{hint}") from None


def parameters(sampler_id: str) -> list[Parameter]:
    """The constructor parameters of a sampler, in signature order (see :class:`Parameter`)."""
    cls = get(sampler_id)
    out = []
    for p in inspect.signature(cls).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.annotation is not p.empty:
            typ = p.annotation if isinstance(p.annotation, str) else getattr(p.annotation, "__name__", str(p.annotation))
        elif p.default is not p.empty and p.default is not None:
            typ = type(p.default).__name__
        else:
            typ = "any"
        rng = PARAMETER_RANGES.get((cls.id, p.name), PARAMETER_RANGES.get(p.name, ""))
        out.append(Parameter(p.name, typ, REQUIRED if p.default is p.empty else p.default, rng))
    return out


def make(sampler_id: str, **params) -> Sampler:
    """Build a sampler by ID with its parameters.

    An unknown parameter name, or a missing required one, is a ``ValueError`` naming it and listing the sampler's
    parameters (instead of Python's ``TypeError`` about the constructor's keyword arguments).
    """
    cls = get(sampler_id)
    known = parameters(sampler_id)
    takes_kwargs = any(p.kind == p.VAR_KEYWORD for p in inspect.signature(cls).parameters.values())
    names = [p.name for p in known]
    unknown = sorted(set(params) - set(names))
    if unknown and not takes_kwargs:
        hints = []
        for name in unknown:
            close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
            if close:
                hints.append(f"{name!r} -> {close[0]!r}?")
        raise ValueError(
            f"unknown parameter(s) {', '.join(map(repr, unknown))} for sampler {sampler_id!r}"
            + (f" ({'; '.join(hints)})" if hints else "")
            + f"; its parameters are: {', '.join(names)} (see `dpverify samplers show {sampler_id}`)"
        )
    missing = [p.name for p in known if p.required and p.name not in params]
    if missing:
        raise ValueError(f"sampler {sampler_id!r} needs parameter(s) {', '.join(missing)}; its parameters are: "
                         f"{', '.join(names)} (see `dpverify samplers show {sampler_id}`)")
    return cls(**params)

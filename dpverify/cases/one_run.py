"""The named one-run audit cases (``dpverify one-run CASE``, notebook 08, ``benchmarks/one_run.py``), and running one
(:func:`run_one_run_case`, reached through :func:`dpverify.cases.run_case`).

Each case builds a :class:`~dpverify.audit.one_run.OneRunExperiment` for m canaries on real data that ships with
scikit-learn (no download):

- ``dp_sgld_breast_cancer`` -- DP-SGLD (Li et al. 2019, Alg. 1) Bayesian logistic regression on the standardised
  breast-cancer data (80% train split, rows scaled to norm 1), full batches, T = 1000 steps, clip L = 1, the step
  size calibrated so that the run is 0.5-GDP (accountant epsilon 1.99 at delta = 1e-5), m Dirac canaries
  (:class:`~dpverify.samplers.one_run_canaries.DPSGLDCanaryRun`);
- ``dp_sgld_breast_cancer_poisson`` -- the same with Poisson batches of rate 0.1 and noise multiplier 4 (its canary
  release is a shift mixture, not Gaussian);
- ``dp_sgld_breast_cancer_half_noise`` -- the known-bad DP-SGLD that halves its noise and claims the correct run's
  accountant (:mod:`dpverify.samplers.broken`): one run should flag it;
- ``dp_sgld_breast_cancer_input`` -- the first case with input-space canaries sharing the 30 weights (interference);
- ``gaussian_canaries`` -- the idealised experiment, each canary an independent 0.5-GDP release;
- ``opacus_digits`` -- Opacus ``make_private`` softmax regression on the digits (80% train split), sigma = 2,
  C = 1, batch 256 of N = n + m records (Poisson rate ``1 / ceil(N / 256)``), 200 steps, lr 2; white-box scores
  (``opacus_digits_loss``: black-box loss scores). Needs the ``opacus`` extra.

:func:`build_case` returns the experiment and a function of it giving the case's extra facts after a run (test
accuracy, Opacus' own accountant); :func:`run_one_run_case` builds it and audits one run
(:func:`dpverify.audit.one_run.audit_one_run`) with the options of a :class:`OneRunOptions`, returning a typed
:class:`OneRunCaseResult`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, ClassVar

from dpverify.libraries.opacus import DPSGDConfig
from dpverify.libraries.opacus_one_run import OpacusCanaryRun
from dpverify.validation import UsageError
from dpverify.audit.one_run import GaussianCanaries, OneRunExperiment, OneRunResult, audit_one_run
from dpverify.audit.one_run_bounds import CurveArgument, Method
from dpverify.models.packaged_data import breast_cancer, digits, train_test_split
from dpverify.samplers.one_run_canaries import DPSGLDCanaryRun, InputCanaryRun, calibrated_step_size
from dpverify.vocabulary import CaseKind

__all__ = ["CASES", "OneRunCase", "OneRunOptions", "OneRunCaseResult", "build_case", "case_names",
           "run_one_run_case"]

#: Seed of the train/test splits (fixed: the data, not the run).
SPLIT_SEED = 0
#: The DP-SGLD cases' full-batch run.
DP_SGLD_STEPS, DP_SGLD_MU = 1000, 0.5


@dataclass(frozen=True)
class OneRunCase:
    """A named case: ``build(m) -> (experiment, extras)`` with ``extras(experiment) -> dict`` read after the run;
    ``needs`` names the optional extra it needs ("" for none)."""

    case_kind: ClassVar[CaseKind] = CaseKind.ONE_RUN

    name: str
    summary: str
    build: Callable[[int], tuple[OneRunExperiment, Callable[[Any], dict]]]
    needs: str = ""

    @property
    def id(self) -> str:
        return self.name

    @property
    def title(self) -> str:
        return self.summary


def _breast_cancer_split():
    rows = breast_cancer(1.0)
    train, test = train_test_split(len(rows), 0.2, SPLIT_SEED)
    return rows[train], rows[test]


def _dp_sgld(m: int, kind: str):
    train, test = _breast_cancer_split()
    N = len(train) + m
    name = f"dp_sgld_breast_cancer{kind}"
    experiment: DPSGLDCanaryRun | InputCanaryRun
    if kind == "_poisson":  # noise multiplier tau / (L sqrt(eta N)) = 4 at q = 0.1: eta = q^2 N / 16
        experiment = DPSGLDCanaryRun(train, m, step_size=0.01 * N / 16, batch_rate=0.1, steps=DP_SGLD_STEPS, clip=1.0,
                                     R=1.0, name=name)
    else:
        eta = calibrated_step_size(DP_SGLD_MU, N, DP_SGLD_STEPS, 1.0)
        if kind == "_input":
            experiment = InputCanaryRun(train, m, step_size=eta, steps=DP_SGLD_STEPS, clip=1.0, R=1.0, name=name)
        else:
            experiment = DPSGLDCanaryRun(train, m, step_size=eta, defect="half_noise" if kind == "_half_noise" else None,
                                         steps=DP_SGLD_STEPS, clip=1.0, R=1.0, name=name)
    return experiment, lambda e: {"test_accuracy": e.test_accuracy(test), "train_records": len(train)}


def _opacus(m: int, score: str):
    images, labels = digits()
    features = images.reshape(len(images), -1).astype(float)
    train, test = train_test_split(len(labels), 0.2, SPLIT_SEED)
    config = DPSGDConfig(noise_multiplier=2.0, max_grad_norm=1.0, batch_size=256, steps=200, loss_reduction="mean",
                         lr=2.0)
    experiment = OpacusCanaryRun(features[train], labels[train], m, config, score=score,
                                 name="opacus_digits" + ("" if score == "whitebox" else "_loss"))

    def extras(e) -> dict:
        return {"test_accuracy": e.test_accuracy(features[test], labels[test]), "train_records": len(train),
                "epsilon_opacus": e.opacus_epsilon(1e-5), "opacus_accountant": config.accountant,
                "sample_rate": e.params.sample_rate, "config": config.describe()}

    return experiment, extras


def _gaussian(m: int):
    return GaussianCanaries(DP_SGLD_MU), lambda e: {}


CASES: dict[str, OneRunCase] = {c.name: c for c in (
    OneRunCase("dp_sgld_breast_cancer", "DP-SGLD (Li Alg. 1) logistic regression, breast cancer, full batch, "
               "Dirac canaries", lambda m: _dp_sgld(m, "")),
    OneRunCase("dp_sgld_breast_cancer_poisson", "the same with Poisson batches (rate 0.1, noise multiplier 4)",
               lambda m: _dp_sgld(m, "_poisson")),
    OneRunCase("dp_sgld_breast_cancer_half_noise", "KNOWN-BAD: half the declared noise",
               lambda m: _dp_sgld(m, "_half_noise")),
    OneRunCase("dp_sgld_breast_cancer_input", "input-space canaries sharing the weights (interference)",
               lambda m: _dp_sgld(m, "_input")),
    OneRunCase("gaussian_canaries", "idealised: each canary an independent 0.5-GDP release", _gaussian),
    OneRunCase("opacus_digits", "Opacus make_private softmax regression, digits, white-box scores",
               lambda m: _opacus(m, "whitebox"), needs="opacus"),
    OneRunCase("opacus_digits_loss", "the same with black-box (loss) scores", lambda m: _opacus(m, "loss"),
               needs="opacus"),
)}


def case_names() -> tuple[str, ...]:
    return tuple(CASES)


def build_case(name: str, m: int) -> tuple[OneRunExperiment, Callable[[Any], dict]]:
    """The experiment of case ``name`` for m canaries and its extras function (module docstring)."""
    if name not in CASES:
        raise UsageError(f"unknown one-run case {name!r}; choose one of {', '.join(CASES)}")
    return CASES[name].build(m)


@dataclass(frozen=True)
class OneRunOptions:
    """What a one-run audit of a case asks (:func:`dpverify.audit.one_run.audit_one_run`'s options): ``canaries``
    (m), the miss probability ``alpha`` in (0, 0.5), ``delta``, the ``method`` ("fdp" or "steinke"), the f-DP
    ``curve`` family (None: chosen from the release), fixed ``guesses`` ``(k_plus, k_minus)`` (None: planned),
    the claim ``epsilon`` (None: the run's accountant) and the ``seed`` of the coins and the run."""

    canaries: int = 1000
    alpha: float = 0.05
    delta: float = 1e-5
    method: Method = "fdp"
    curve: CurveArgument = None
    guesses: tuple[int, int] | None = None
    epsilon: float | None = None
    seed: int = 0

    def but(self, **changes: Any) -> OneRunOptions:
        """A copy with ``changes`` (a ``TypeError`` naming an unknown field)."""
        return replace(self, **changes)


@dataclass(frozen=True)
class OneRunCaseResult:
    """A one-run audit of a named case: the audit (:class:`~dpverify.audit.one_run.OneRunResult`) and the case's
    extra facts read after the run (test accuracy, the library's own accountant; :data:`CASES`)."""

    kind: ClassVar[CaseKind] = CaseKind.ONE_RUN

    case: str
    result: OneRunResult
    extras: dict = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        return str(self.result.verdict)

    def to_dict(self) -> dict:
        """The audit's JSON with the extras beside it (``dpverify one-run --json``)."""
        return {**self.result.to_dict(), **self.extras}


def run_one_run_case(case: OneRunCase | str, options: OneRunOptions | None = None) -> OneRunCaseResult:
    """Build ``case``'s experiment for ``options.canaries`` canaries and audit one run of it. An unknown case name is
    a :class:`~dpverify.validation.UsageError` listing the cases; a case whose optional extra is missing one naming
    the import that failed."""
    options = options or OneRunOptions()
    name = case if isinstance(case, str) else case.name
    try:
        experiment, extras = build_case(name, options.canaries)
    except ImportError as exc:  # a case whose optional extra is missing: say which, as bad input
        raise UsageError(str(exc)) from None
    result = audit_one_run(experiment, options.canaries, alpha=options.alpha, delta=options.delta,
                           method=options.method, curve=options.curve, guesses=options.guesses,
                           epsilon_claimed=options.epsilon, seed=options.seed)
    return OneRunCaseResult(name, result, extras(experiment))

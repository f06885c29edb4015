"""Stage 1 of an audit, the plan: every parameter validated once, the claim to test, the split and the budgets.

``make_plan`` turns the keyword arguments of :func:`dpverify.audit.audit` into an :class:`AuditPlan`, a frozen value
the later stages read and never check again (scipy.stats' "validate at the boundary"):

- the **claim**: a guarantee object (:mod:`dpverify.calculus.claimed`: ``ApproxDP``, ``PureDP``, their subclasses
  ``Conversion`` and ``Claim``, a privacy profile, or anything with ``epsilon_at(delta)``), or the shorthand
  ``epsilon=``/``delta=``, which builds an ``ApproxDP``; giving both is an error. The audit tests the epsilon the claim
  promises at ``delta`` (by default the claim's own delta; a trade-off curve, which names none, at
  :func:`default_delta` = 1/samples, its curve test testing the whole curve). That epsilon may be 0 (tested: any
  certificate above 0 refutes it) or ``inf`` (vacuous: inconclusive, :mod:`dpverify.audit.verdicts`);
- the **split** (:class:`~dpverify.audit.split.SplitPlan`): ``samples`` outputs per side, the first
  ``ceil(selection_fraction * samples)`` choose the test, the rest certify; chunks of at most ``chunk_size``;
- the **budgets of the selection part** (:attr:`AuditPlan.n_fit`, :attr:`~AuditPlan.n_score`,
  :attr:`~AuditPlan.held`): at most ``fit_cap`` outputs per side fit the statistics (half the selection part when
  smaller), the rest score them; at most ``threshold_sample`` of the scoring outputs fix the candidate thresholds.
  Only ``held = n_fit + min(n_score, threshold_sample)`` outputs per side are ever in memory together;
- where the chunks after the fit run: ``workers`` local processes or the Dask cluster of ``client`` (not both),
  there only on workers that have the Dask ``resources`` asked for (e.g. ``{"GPU": 1}``; only with ``client``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Union

from dpverify.calculus.claimed import Guarantee, claimed_epsilon, own_delta
from dpverify.calculus.guarantees import ApproxDP
from dpverify.calculus.tradeoff import TradeOffCurve
from dpverify.validation import check_delta, check_epsilon, check_positive_int, check_probability, check_real
from dpverify.audit.kinds import Mode, TestKind
from dpverify.audit.parallel import check_workers
from dpverify.audit.split import SplitPlan

__all__ = ["AuditPlan", "Test", "make_plan", "resolve_claim", "default_delta", "check_confidence", "MIN_CONFIDENCE"]

#: What ``audit(test=...)`` accepts: a :class:`~dpverify.audit.kinds.TestKind` or a statistic ``s(outputs) -> (n,)``.
Test = Union[TestKind, Callable[[Any], Any]]


@dataclass(frozen=True)
class AuditPlan:
    """The validated parameters of one audit (module docstring). ``epsilon`` is what ``claim`` promises at
    ``delta``: the number the certified bound is compared with."""

    claim: Guarantee
    epsilon: float
    delta: float
    samples: int
    confidence: float
    seed: int
    test: Test
    candidates: int
    power_factor: float
    mode: Mode
    workers: int
    fit_cap: int
    threshold_sample: int
    split: SplitPlan
    client: Any = None
    #: Dask worker resources each chunk task needs (``{"GPU": 1}``: only workers started with ``--resources GPU=1``
    #: run it); None: any worker (:func:`~dpverify.audit.distributed.check_resources`)
    resources: dict | None = None
    #: how the delta was chosen when the caller gave none for a trade-off-curve claim (:func:`default_delta`; the
    #: verdict's reason ends with it); "" when the delta was given or is the claim's own
    delta_note: str = ""

    @property
    def alpha(self) -> float:
        """1 - confidence: the miss probability shared by every one-sided bound of the certificate."""
        return 1.0 - self.confidence

    @property
    def n_fit(self) -> int:
        """Outputs per side that fit the statistics."""
        return min(self.split.n_selection // 2, self.fit_cap)

    @property
    def n_score(self) -> int:
        """Outputs per side that score the fitted statistics' events."""
        return self.split.n_selection - self.n_fit

    @property
    def held(self) -> int:
        """Outputs per side held in memory: the fit part and the threshold sample."""
        return self.n_fit + min(self.n_score, self.threshold_sample)


def default_delta(samples: int) -> float:
    """The delta at which the event test of a trade-off-curve claim given without ``delta=`` runs: ``1 / samples``,
    the smallest probability the budget resolves (an event that rare is seen about once per side). The curve test
    tests the whole curve whatever the delta."""
    return 1.0 / samples


def resolve_claim(claim: Guarantee | None, epsilon: float | None, delta: float | None, *,
                  samples: int | None = None) -> tuple[Guarantee, float, float]:
    """``(claim, epsilon, delta)``: the guarantee to test, the epsilon it promises at the audit's delta, that delta.

    With ``claim``: ``delta`` defaults to the claim's own delta (:func:`~dpverify.calculus.claimed.own_delta`). A
    trade-off curve (mu-GDP, an f-DP curve) names none: with ``samples`` given its event test runs at
    :func:`default_delta` (``1 / samples``) and the curve test tests the whole curve; any other claim that names no
    delta (a privacy profile) needs ``delta=``. Without ``claim``: the shorthand ``epsilon``/``delta`` (default 0) is
    ``ApproxDP(epsilon, delta)``. ``claim`` with ``epsilon`` is a ``ValueError``; neither a ``TypeError``.

    The claimed epsilon may be 0 (any certificate above 0 refutes it) or ``inf`` (a vacuous claim at this delta: no
    event test can refute it; :func:`~dpverify.audit.verdicts.verdict_reason` says so); NaN or a negative value is a
    ``ValueError``."""
    if claim is not None and epsilon is not None:
        raise ValueError("give the claim either as claim= (a guarantee object) or as epsilon=/delta=, not both")
    if claim is None:
        if epsilon is None:
            raise TypeError("audit() needs the claim to test: claim= (a guarantee such as ApproxDP(epsilon, delta)) "
                            "or epsilon= (with delta=, default 0)")
        epsilon = check_epsilon(epsilon)
        delta = check_delta(0.0 if delta is None else delta)
        return ApproxDP(epsilon, delta), epsilon, delta
    if delta is None:
        delta = own_delta(claim)
        if delta is None and samples is not None and isinstance(claim, TradeOffCurve):
            delta = default_delta(samples)
        if delta is None:
            raise ValueError(f"the claim {type(claim).__name__} names no delta of its own: give delta= (the delta at "
                             "which to test it)")
    delta = check_delta(delta)
    claimed = check_real("epsilon claimed at delta", claimed_epsilon(claim, delta), low=0.0, allow_inf=True)
    return claim, claimed, delta


#: The smallest confidence: below 2^-53, ``1 - confidence`` (the alpha every bound is computed at) rounds to 1.
MIN_CONFIDENCE = 2.0**-53


def check_confidence(confidence: Any) -> float:
    """``confidence`` in [:data:`MIN_CONFIDENCE`, 1): a probability whose ``alpha = 1 - confidence`` is a double in
    (0, 1) (a ``ValueError`` naming ``confidence`` and that range, not ``alpha``)."""
    return check_real("confidence", confidence, low=MIN_CONFIDENCE, high=1.0, high_inclusive=False)


def make_plan(*, claim: Guarantee | None, epsilon: float | None, delta: float | None, samples: int,
              confidence: float, seed: int, test: str | Callable, selection_fraction: float, chunk_size: int,
              candidates: int, power_factor: float, mode: str, workers: int, fit_cap: int, threshold_sample: int,
              client: Any = None, resources: dict | None = None) -> AuditPlan:
    """Validate every parameter (a ``ValueError``/``TypeError`` naming the first bad one) and plan the audit."""
    samples = check_positive_int(samples, "samples", minimum=4)
    derived = delta is None and epsilon is None and isinstance(claim, TradeOffCurve) and own_delta(claim) is None
    claim, epsilon, delta = resolve_claim(claim, epsilon, delta, samples=samples)
    delta_note = (f"no delta was given: the event test ran at delta = 1/samples = {delta:.3g}, the curve test on the "
                  f"whole claimed curve ({getattr(claim, 'description', claim)})") if derived else ""
    confidence = check_confidence(confidence)
    seed = check_positive_int(seed, "seed", minimum=0)
    selection_fraction = check_probability(selection_fraction, "selection_fraction", open_low=True, open_high=True)
    chunk_size = check_positive_int(chunk_size, "chunk_size")
    candidates = check_positive_int(candidates, "candidates")
    workers = check_workers(workers)
    fit_cap = check_positive_int(fit_cap, "fit_cap")
    threshold_sample = check_positive_int(threshold_sample, "threshold_sample")
    if client is not None:
        from dpverify.audit.distributed import check_client  # dask: an optional extra, imported only when used

        check_client(client)
        if workers > 1:
            raise ValueError(f"client and workers={workers} together: with a Dask client the cluster's workers draw "
                             "the chunks; leave workers at 1")
    if resources is not None:
        if client is None:
            raise ValueError(f"resources={resources!r} pins the chunk tasks to Dask workers that have them: it needs "
                             "client= (a dask.distributed.Client)")
        from dpverify.audit.distributed import check_resources

        resources = check_resources(resources)
    mode_ = Mode.parse(mode, "mode")
    if callable(test):
        test_: Test = test
    elif isinstance(test, str) and test in TestKind.values():
        test_ = TestKind(test)
    else:
        raise ValueError(f"test must be 'auto', one of {TestKind.values()[1:]}, or a callable statistic; got {test!r}")
    power_factor = check_real("power_factor", power_factor, low=1.0)
    return AuditPlan(claim=claim, epsilon=epsilon, delta=delta, samples=samples, confidence=confidence, seed=seed,
                     test=test_, candidates=candidates, power_factor=power_factor, mode=mode_, workers=workers,
                     fit_cap=fit_cap, threshold_sample=threshold_sample,
                     split=SplitPlan.make(samples, selection_fraction, chunk_size), client=client,
                     resources=resources, delta_note=delta_note)

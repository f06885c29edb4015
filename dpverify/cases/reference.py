"""What an audit case tests an implementation against: the tightest privacy its *declared* algorithm is known to have
on the audited pair (:func:`declared_reference`: the pair's exact privacy, the accountant's bound for the pair, or the
claim), and the claim checked against the pair's exact privacy without sampling (:func:`claim_check`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from dpverify.calculus.claimed import claimed_epsilon, describe_claim
from dpverify.calculus.guarantees import ApproxDP
from dpverify.calculus.mechanism_description import PairPrivacyLoss

__all__ = ["Reference", "ClaimCheck", "declared_reference", "claim_check"]


@dataclass(frozen=True)
class Reference:
    """What a case's audit tests the implementation against: the tightest privacy the *declared* algorithm is known to
    have on the audited pair (:func:`declared_reference`). ``guarantee`` is the typed guarantee (a curve, a PLD, an
    (epsilon, delta) pair), ``kind`` one of ``"exact"`` (the pair's own privacy), ``"upper bound"`` (the accountant's
    bound for the pair, e.g. the path's for a final iterate) or ``"claim"`` (the sampler's claim, nothing tighter
    known); ``epsilon`` what it promises at ``delta``; ``basis`` where it comes from."""

    guarantee: Any
    kind: str
    epsilon: float
    delta: float
    basis: str

    def to_dict(self) -> dict:
        return {"kind": self.kind, "epsilon": self.epsilon, "delta": self.delta, "basis": self.basis,
                "guarantee": describe_claim(self.guarantee)}


def declared_reference(sampler: Any, dataset: Any, neighbour: Any, claim: Any, delta: float, *,
                       privacy_loss: Any = None) -> Reference:
    """The tightest privacy the declared sampler is known to have on (dataset, neighbour) at ``delta``: the smallest
    epsilon at ``delta`` among

    - the pair's exact privacy (``sampler.pair_guarantee``: a Gaussian or Laplace curve, the exact PLD of a canary
      pair's path, final iterate or sample set), or else its exact epsilon (``sampler.exact_epsilon``);
    - the accountant's privacy-loss distribution for the pair (``sampler.pair_privacy_loss``; when it is not the
      pair's own law it is an upper bound: the mechanism's worst case, or the path for a final release);
    - the sampler's claim;

    ties going to the exact value (``privacy_loss``: the pair's privacy loss when the caller has already read it). So a loose claim is replaced by the run's own privacy -- a paper's bound is often
    20-4000 times the privacy of the run it covers (``dpverify verify`` lists the factors), and an audit against it
    only flags implementations that leak as many times more, while against the declared run's own privacy a departure
    from the declaration is a violation at the budgets of the suite (issue 21) -- and a claim *below* the exact
    value (an erratum, or a known-bad implementation's false promise) is what the audit tests, and fails
    (:func:`claim_check` also says so without sampling)."""
    from dpverify.audit.abilities import HasExactEpsilon, HasPairPrivacyLoss

    found: list[Reference] = []
    exact = sampler.pair_guarantee(dataset, neighbour)
    if exact is not None:
        found.append(Reference(exact, "exact", float(claimed_epsilon(exact, delta)), delta, _basis(exact)))
    raw_loss = privacy_loss
    if raw_loss is None and isinstance(sampler, HasPairPrivacyLoss):
        raw_loss = sampler.pair_privacy_loss(dataset, neighbour)
    # the pair's PLD with what it is; a bare set of masses (what the auditor's ceiling needs) gives no epsilon here
    loss = raw_loss if isinstance(raw_loss, PairPrivacyLoss) else None
    if loss is not None and not (exact is not None and loss.exact):
        found.append(Reference(loss.pld, "exact" if loss.exact else "upper bound", float(loss.epsilon(delta)), delta,
                               str(loss.basis)))
    if exact is None and isinstance(sampler, HasExactEpsilon):
        value = sampler.exact_epsilon(dataset, neighbour, delta)
        if value is not None and math.isfinite(value):
            found.append(Reference(ApproxDP(float(value), delta), "exact", float(value), delta,
                                   "the pair's exact epsilon (closed form or quadrature)"))
    try:
        found.append(Reference(claim, "claim", float(claimed_epsilon(claim, delta)), delta,
                               f"the sampler's claim ({getattr(claim, 'theorem', '') or type(claim).__name__})"))
    except ValueError:  # an (epsilon, delta0) claim promises nothing below its delta0
        if not found:
            raise ValueError(f"the sampler's claim {claim.epsilon:g} at delta = {claim.delta:g} says nothing at delta = "
                             f"{delta:g}, and no curve is known for this pair: audit at delta >= {claim.delta:g}, or "
                             "give an epsilon") from None
    rank = {"exact": 0, "upper bound": 1, "claim": 2}
    return min(found, key=lambda r: (r.epsilon, rank[r.kind]))


def _basis(guarantee: Any) -> str:
    return str(getattr(guarantee, "description", None) or getattr(guarantee, "basis", None) or guarantee)


@dataclass(frozen=True)
class ClaimCheck:
    """The sampler's claim against the exact privacy of the audited pair at the reference's delta, without sampling:
    ``looseness`` = claimed / exact, ``breach`` when the claim is below the exact value (an erratum, an encoding bug,
    or a known-bad implementation's false promise)."""

    claimed: float
    exact: float
    delta: float

    @property
    def looseness(self) -> float:
        return math.inf if self.exact == 0 else self.claimed / self.exact

    @property
    def breach(self) -> bool:
        return self.claimed < self.exact

    def to_dict(self) -> dict:
        return {"claimed": self.claimed, "exact": self.exact, "delta": self.delta, "looseness": self.looseness,
                "breach": self.breach}


def claim_check(claim: Any, reference: Reference) -> ClaimCheck | None:
    """The :class:`ClaimCheck` of ``claim`` against ``reference``; None when no exact value is known (the reference is
    not the pair's exact privacy) or the claim says nothing at the reference's delta."""
    if reference.kind != "exact":
        return None

    try:
        claimed = float(claimed_epsilon(claim, reference.delta))
    except ValueError:
        return None
    return ClaimCheck(claimed, reference.epsilon, reference.delta)

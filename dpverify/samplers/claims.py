"""A sampler's privacy claim through the theorem catalogue: the theorem looked up, evaluated, turned into a claim.

- :func:`catalogue_theorem` -- the catalogue item of an ID (an unknown ID is an error, never None);
- :func:`evaluate_theorem` -- that theorem evaluated at a sampler's parameters (hypotheses checked);
- :func:`claim_from` -- the :class:`~dpverify.calculus.guarantees.Claim` of an evaluation;
- :func:`evaluate_item` / :func:`claim_from_item` -- the same in the keyword form the non-gradient samplers use
  (every value a symbol of the theorem; the claim names the catalogue item).
"""
from __future__ import annotations

from typing import Any

from dpverify.calculus.guarantees import Claim

__all__ = ["catalogue_theorem", "evaluate_theorem", "claim_from", "evaluate_item", "claim_from_item"]


def catalogue_theorem(theorem_id: str):
    """The catalogue item ``theorem_id``; an unknown id is a ``LookupError`` naming it (never None: a typo must not
    switch a sampler's claim or hypothesis check off)."""
    from dpverify.theorems import registry

    try:
        return registry.get(theorem_id)
    except KeyError:
        raise LookupError(f"theorem {theorem_id!r} is not in the catalogue; a sampler's privacy claim rests on it "
                          "(see `dpverify theorems list`)") from None


def evaluate_theorem(theorem_id: str, values: dict, allow_unguaranteed: bool):
    """``Theorem.evaluate`` of catalogue item ``theorem_id`` with the entries of ``values`` it declares as symbols.

    Raises ``LookupError`` for an unknown ID, and the theorem's ``HypothesisError`` (a ``ValueError`` naming the
    failed hypothesis) unless ``allow_unguaranteed``.
    """
    thm = catalogue_theorem(theorem_id)
    kwargs = {k: v for k, v in values.items() if k in thm.symbols}
    return thm.evaluate(allow_unguaranteed=allow_unguaranteed, **kwargs)


def claim_from(evaluation, *, epsilon_key: str = "epsilon", delta_key: str = "delta", delta: float | None = None,
               force_unguaranteed: bool = False, **details: Any) -> Claim:
    """A :class:`Claim` from a theorem :class:`~dpverify.theorems.base.Evaluation`."""
    conc = evaluation.conclusion
    eps = float(conc[epsilon_key]) if epsilon_key in conc else float(evaluation.values[epsilon_key])
    if delta is None:
        delta = float(conc[delta_key]) if delta_key in conc else float(evaluation.values.get(delta_key, 0.0))
    return Claim(
        epsilon=eps,
        delta=float(delta),
        theorem=evaluation.theorem_id,
        guaranteed=bool(evaluation.guaranteed and not force_unguaranteed),
        hypotheses=dict(evaluation.hypotheses),
        details={"values": dict(evaluation.values), "conclusion": dict(conc), **details},
    )


def evaluate_item(theorem_id: str, *, unguaranteed: bool, **values: Any):
    """``registry.get(theorem_id).evaluate(**values)``.

    An unknown theorem id is a ``LookupError`` (a typo must never switch a claim off). A failed hypothesis raises
    :class:`~dpverify.theorems.base.HypothesisError` (a ValueError naming it) unless ``unguaranteed`` (then the
    evaluation carries ``guaranteed=False``).
    """
    return catalogue_theorem(theorem_id).evaluate(allow_unguaranteed=unguaranteed, **values)


def claim_from_item(evaluation, theorem_id: str, *, epsilon: float | None = None, delta: float | None = None,
                    details: dict | None = None) -> Claim:
    """A :class:`Claim` from a theorem evaluation (its ``epsilon``/``delta`` conclusions unless given), naming
    ``theorem_id``."""
    conc = evaluation.conclusion
    eps = float(conc["epsilon"]) if epsilon is None else float(epsilon)
    dlt = float(conc.get("delta", 0.0)) if delta is None else float(delta)
    return Claim(eps, dlt, theorem_id, evaluation.guaranteed, dict(evaluation.hypotheses),
                 {"values": dict(evaluation.values), "conclusion": dict(conc), **(details or {})})

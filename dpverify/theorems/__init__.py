"""The theorem catalogue: every formal item of the four source papers, encoded with sympy.

One module per paper (``wang2015``, ``li2019``, ``bertazzi2025``, ``foulds2016``), each
registering its :class:`Theorem` objects; :mod:`dpverify.theorems.registry` finds them by ID::

    from dpverify.theorems import registry
    thm = registry.get("wang2015.thm1_ops_pure_dp")
    thm.evaluate(B=0.5)            # -> Evaluation(epsilon=2.0, ...)
    print(thm.explain())
"""
from dpverify.theorems.base import (  # noqa: F401
    KINDS,
    PAPERS,
    Check,
    CheckResult,
    EmpiricalLink,
    Erratum,
    Evaluation,
    Hypothesis,
    HypothesisError,
    Source,
    Theorem,
)
from dpverify.theorems import registry  # noqa: F401

"""The theorem catalogue: every formal item of the four source papers, encoded with sympy.

The folder says where things are:

- ``wang2015/``, ``li2019/``, ``bertazzi2025/``, ``foulds2016/`` -- one package per paper; its part modules
  (one per section) build the :class:`Theorem` objects and list them in ``THEOREMS``; the package collects
  them in catalogue order in its own ``THEOREMS``;
- :mod:`~dpverify.theorems.registry` -- the one place that registers: it imports each paper package and
  registers its ``THEOREMS``; ``registry.get(id)`` finds an item by catalogue ID;
- :mod:`~dpverify.theorems.catalogue` -- the list of IDs and the kinds of check each needs;
- :mod:`~dpverify.theorems.symbols` -- the symbol table: every sympy symbol of the catalogue, with its
  assumptions and meaning stated once (delta nonnegative, epsilon positive, ``T`` three distinct entries ...);
- :mod:`~dpverify.theorems.shared` -- statements two papers make (OPS is 4B-DP, basic composition,
  approximate sampling), each one :class:`Statement` referenced by one theorem per paper;
- :mod:`~dpverify.theorems.base` -- :class:`Theorem`, :class:`Statement`, :class:`Hypothesis`, :class:`Check`,
  :class:`Evaluation` ...; :mod:`~dpverify.theorems.mutation` -- mutation testing of the conclusions.

Registration, one style for the four papers (a new item: add its ID to the catalogue, build the
:class:`Theorem` in the part module of its section with symbols from the table, append it to that module's
``THEOREMS``)::

    from dpverify.theorems import registry
    thm = registry.get("wang2015.thm1_ops_pure_dp")
    thm.evaluate(B=0.5)            # -> Evaluation(epsilon=2.0, ...)
    print(thm.explain())           # "... the same statement as foulds2016.thm3_posterior_4b ..."
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
    Statement,
    Theorem,
)
from dpverify.theorems import registry  # noqa: F401

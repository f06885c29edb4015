"""Statements that two papers of the catalogue make: each one :class:`~dpverify.theorems.base.Statement`, encoded
once here and referenced by one :class:`~dpverify.theorems.base.Theorem` per paper (``Theorem(..., shared=...)``).

Both catalogue IDs resolve through :func:`dpverify.theorems.registry.get`, each with its own paper's
:class:`~dpverify.theorems.base.Source`, title, notes, errata and checks (that paper's proof, run once under its
ID); they evaluate the same symbols, hypotheses and conclusion, and ``explain()`` of each says
"the same statement as <other ID>".

- :data:`OPS_PURE_DP` -- one posterior sample with ``|log p(x|theta)| <= B`` is 4B-DP: Wang et al. 2015,
  Theorem 1 (``wang2015.thm1_ops_pure_dp``) and Foulds et al. 2016, Theorem 3, which restates it
  (``foulds2016.thm3_posterior_4b``);
- :data:`BASIC_COMPOSITION` -- (eps1, delta1) and (eps2, delta2) compose to (eps1 + eps2, delta1 + delta2):
  Wang et al. 2015, Lemma 2 (``wang2015.lem2_composition``) and Foulds et al. 2016, Theorem 1
  (``foulds2016.thm1_composition``);
- :data:`APPROX_SAMPLING` -- an L1-delta-close sampler of an eps-DP posterior is (eps, (1 + e^eps) delta)-DP:
  Wang et al. 2015, Proposition 3 (``wang2015.prop3_approx_sampling``) and Foulds et al. 2016's restatement
  (``foulds2016.prop3_approx_sampling``), whose misplaced parenthesis stays an erratum of the Foulds item.

Statements that look alike but are *not* shared, because the papers genuinely say different things:
Li et al. 2019's quotation of Wang's DP-SGLD bound (``li2019.wang_bound_quoted``: ``T`` read as iterations, a
different constant in the logarithm) against ``wang2015.alg2_dp_sgld``; Wang's ARE ``1 + 4B/eps`` of tempered
OPS (``wang2015.supp_prop4_are_general_eps``) against Foulds' ``1 + T`` (``foulds2016.thm5_are_exponential``,
the same fact only under ``T = 4B/eps``, in other inputs); the three DP definitions (replace-one adjacency,
Li's form with explicit ratio and slack, Bertazzi's definition on posteriors with a Laplace example).
"""
from __future__ import annotations

import sympy as sp

from dpverify.theorems import symbols as sy
from dpverify.theorems.base import Hypothesis, Statement

__all__ = ["OPS_PURE_DP", "BASIC_COMPOSITION", "APPROX_SAMPLING", "STATEMENTS"]

OPS_PURE_DP = Statement(
    "ops_pure_dp",
    symbols=sy.pick("B"),
    conclusion={"epsilon": 4 * sy.B, "delta": 0},
    statement=(
        "If sup over x and theta of |log p(x|theta)| <= B, releasing one sample from the posterior p(theta|X) "
        "(with any prior) is 4B-differentially private."
    ),
)

BASIC_COMPOSITION = Statement(
    "basic_composition",
    symbols=sy.pick("epsilon_1", "epsilon_2", "delta_1", "delta_2"),
    hypotheses=[Hypothesis("total_delta_below_one", sy.delta_1 + sy.delta_2 < 1, "otherwise no guarantee")],
    conclusion={"epsilon": sy.epsilon_1 + sy.epsilon_2, "delta": sy.delta_1 + sy.delta_2},
    statement=(
        "If M1 is (eps1, delta1)-DP and M2 is (eps2, delta2)-DP then X -> (M1(X), M2(X)) is "
        "(eps1 + eps2, delta1 + delta2)-DP."
    ),
)

APPROX_SAMPLING = Statement(
    "approx_sampling",
    symbols=sy.pick("epsilon", "delta"),
    conclusion={"epsilon": sy.epsilon, "delta": (1 + sp.exp(sy.epsilon)) * sy.delta},
    statement=(
        "If sampling from P_X is epsilon-DP and A' samples from P'_X with ||P_X - P'_X||_{L1} <= delta for every X, "
        "then A' is (epsilon, (1 + e^epsilon) delta)-DP. Here `delta` is the L1 closeness and the conclusion "
        "`delta` is the DP slack."
    ),
)

#: Every shared statement, by key.
STATEMENTS: dict[str, Statement] = {s.key: s for s in (OPS_PURE_DP, BASIC_COMPOSITION, APPROX_SAMPLING)}

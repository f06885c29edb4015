"""Provable forms of the published negative results (Heller & Fetaya 2023, Annamalai 2024, Cebere et al. 2025; issue
39): none of the five items is a privacy *upper* bound that the prover could establish against a comparator, so each
form says why it is not provable here and where the item is checked instead."""
from __future__ import annotations

from dpverify.prove.forms.base import ItemForm

__all__ = ["FORMS"]

FORMS: list[ItemForm] = [
    ItemForm("heller2023.prop_posterior_private",
             not_provable="the conclusion is the exact Rényi divergence of the worst posterior pair, not a bound with "
                          "a comparator: it is derived symbolically (check renyi_integral: sympy integrates the "
                          "Gaussian), shown worst on a grid of pairs (worst_pair_on_a_grid) and pinned to quadrature"),
    ItemForm("heller2023.thm_interim_unbounded",
             not_provable="a negative result (a divergence that grows like R^2), not a privacy upper bound; its "
                          "content is the closed form of two Gaussians' Rényi divergence (law_recursion, "
                          "quadratic_in_the_start) and the must-fail audit sgld_interim"),
    ItemForm("annamalai2024.thm_nonconvex_last_iterate",
             not_provable="a lower bound on the leaked delta from one event (delta_lower = pi - e^epsilon pi'), the "
                          "opposite direction of what the prover proves; checked symbolically (event_inequality_is_"
                          "tight), against a grid computation and the path accountant, and by the must-fail audit"),
    ItemForm("cebere2025.thm_crafted_gradient_every_step",
             not_provable="an identity (the last iterate's mu equals the path's sqrt(T)/sigma), proved by sympy in "
                          "check last_iterate_equals_path; no inequality for the prover to decide"),
    ItemForm("cebere2025.thm_crafted_gradient_subsampled",
             not_provable="its conclusions are identities (the Binomial mixture's mean T q and variance T sigma^2 + T "
                          "q (1 - q), derived by sympy from the generating function in check mixture_moments_from_"
                          "the_mgf); its epsilon is exact only up to the root of a transcendental equation and its "
                          "ordering with the path (post-processing) is against the path's PLD, which has no closed "
                          "form for the prover: checked numerically (exact_below_path_on_a_grid, quadrature) and by "
                          "the must-fail audit"),
]

"""Bertazzi, Johnston, Roberts & Durmus 2025 (ICML; arXiv 2502.17150 v1 numbering): the theorem catalogue.

The text copy of this paper the project worked from lost its displayed formulas; every statement is
*reconstructed*: re-derived from the structure of the proofs (which lemma feeds which, the constants each
step produces) and checked by the derivation and numeric checks of its entry. Each carries
``Source("bertazzi2025", item, location, reconstructed=True, confidence=<tag>)`` with ``R-high`` (the
statement follows from the proof as reconstructed), ``R-med`` (a constant or the exact form of a hypothesis
is inferred) or ``UNCERTAIN`` (the wording of a hypothesis is a guess). Where a reconstruction note below
says "section 7 check k" or "7b", it refers to the numbered cross-checks and the looseness measurements of
that reconstruction, each re-run here as a check.

Eighteen entries (the ``bertazzi2025.*`` IDs of :mod:`dpverify.theorems.catalogue`), built in three helper
modules:

- :mod:`dpverify.theorems.bertazzi2025.sec23` -- Defs 2.1, 2.2; Asm. 3.1; Props 3.2, 3.4, 3.7, 3.10; Cor. 3.3;
- :mod:`dpverify.theorems.bertazzi2025.sec4` -- Lemmas 4.1, 4.2, B.1-B.3; Props 4.5 (path), 4.6 (final value);
- :mod:`dpverify.theorems.bertazzi2025.sec5` -- Thms 5.2, 5.4 (ULA final / path), 5.6, 5.7, 5.8 (noisy SGD).

Keyword names (``Theorem.evaluate``): ``epsilon``, ``delta``, ``alpha`` (Rényi order), ``K`` (gradient/drift bound of
the theorem's assumption), ``M`` (smoothness; the reconstruction's ``L``), ``m`` (strong convexity), ``L`` and ``R``
(Prop. 4.6's drift Lipschitz constant and coupling radius), ``h`` (step size), ``k`` (number of chain steps; the paper's
``n``), ``T`` (time horizon, ``T = k h``), ``beta`` (inverse temperature, default 1), ``tau`` (batch size; the
reconstruction's ``s``), ``N`` (dataset size), ``K_ell`` (per-datum gradient sensitivity), ``energy`` (Girsanov budget).
Conclusions: ``epsilon`` (at ``delta``), ``rdp`` (at ``alpha``), plus item-specific keys (``delta`` where a transfer
adds to it, ``coupling_radius``, ``final_constant``, ``tv_bound``, ``tv_lower``, ...).

The theory curves for "path vs final-state privacy of ULA" are re-exported here as plain numpy functions:
:func:`ula_path_rdp`, :func:`ula_path_epsilon`, :func:`ula_final_rdp`, :func:`ula_final_epsilon`,
:func:`ula_final_rdp_short_window`, :func:`noisy_sgd_final_rdp`, :func:`noisy_sgd_path_rdp`.
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.bertazzi2025.formulas import (  # noqa: F401  (public re-exports)
    budget_epsilon,
    budget_rdp,
    coupling_radius,
    gaussian_path_exact_rdp,
    linear_ula_exact_final_rdp,
    noisy_sgd_final_rdp,
    noisy_sgd_path_rdp,
    ula_final_constant,
    ula_final_epsilon,
    ula_final_rdp,
    ula_final_rdp_short_window,
    ula_path_epsilon,
    ula_path_rdp,
)
from dpverify.theorems.bertazzi2025.sec23 import THEOREMS as _SEC23
from dpverify.theorems.bertazzi2025.sec23 import hockey_stick, is_dp  # noqa: F401
from dpverify.theorems.bertazzi2025.sec4 import THEOREMS as _SEC4
from dpverify.theorems.bertazzi2025.sec4 import final_value_rdp_short_window, ou_exact_final_rdp  # noqa: F401
from dpverify.theorems.bertazzi2025.sec5 import THEOREMS as _SEC5
from dpverify.theorems.bertazzi2025.sec5 import affine_sgd_exact_final_rdp, affine_sgd_exact_path_rdp  # noqa: F401

__all__ = [
    "THEOREMS",
    "ula_path_rdp",
    "ula_path_epsilon",
    "ula_final_rdp",
    "ula_final_epsilon",
    "ula_final_rdp_short_window",
    "noisy_sgd_final_rdp",
    "noisy_sgd_path_rdp",
    "coupling_radius",
    "ula_final_constant",
    "budget_epsilon",
    "budget_rdp",
    "linear_ula_exact_final_rdp",
    "gaussian_path_exact_rdp",
    "ou_exact_final_rdp",
    "final_value_rdp_short_window",
    "affine_sgd_exact_final_rdp",
    "affine_sgd_exact_path_rdp",
    "hockey_stick",
    "is_dp",
]

#: Every bertazzi2025 entry, in catalogue order (the registry registers them: :mod:`dpverify.theorems.registry`).
THEOREMS = catalogue.in_order(_SEC23 + _SEC4 + _SEC5)

"""Li, Chen, Liu, Carin (AISTATS 2019), "On Connecting Stochastic Gradient MCMC and Differential Privacy":
the catalogue (every ``li2019.*`` item of :mod:`dpverify.theorems.catalogue`).

The items live in small modules, each listing its :class:`~dpverify.theorems.base.Theorem` objects in
``THEOREMS``; this package collects them in catalogue order and the registry registers them:

- :mod:`~dpverify.theorems.li2019.prelim` -- Definitions 1-3, Theorem 1, Lemma 2, Remark 1, Algorithm 1;
- :mod:`~dpverify.theorems.li2019.stepsize` -- Theorems 3 and 4 (conditions re-derived, errata);
- :mod:`~dpverify.theorems.li2019.wang` -- the quotation of Wang et al.'s bound and the MNIST example;
- :mod:`~dpverify.theorems.li2019.utility` -- Propositions 5-7, Assumptions 1-2;
- :mod:`~dpverify.theorems.li2019.experiments` -- Figures 1-2 (as data), Table 1, the logistic-regression claim;
- :mod:`~dpverify.theorems.li2019.bounds` -- the numeric step-size bounds (closed form, exact accountant, Wang).

Evaluate, e.g.::

    registry.get("li2019.thm4_fixed_stepsize").evaluate(N=60000, T=9375, L=0.3, q=128/60000,
                                                         epsilon=0.99, delta=1e-5, eta=0.3)
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.li2019 import (
    experiments,
    prelim,
    stepsize,
    utility,
    wang,
)
from dpverify.theorems.li2019.bounds import (  # noqa: F401
    delta_exact,
    epsilon_exact,
    eta_max_exact,
    eta_max_lemma2,
    eta_max_lemma2_proof,
    wang_eta_max,
)
from dpverify.theorems.li2019.experiments import (  # noqa: F401
    figure1_data,
    figure2_data,
    logreg_numbers,
    table1_numbers,
)
from dpverify.theorems.li2019.utility import prop7_omega  # noqa: F401
from dpverify.theorems.li2019.wang import example_numbers  # noqa: F401

__all__ = [
    "THEOREMS",
    "IDS",
    "figure1_data",
    "figure2_data",
    "table1_numbers",
    "logreg_numbers",
    "example_numbers",
    "eta_max_lemma2",
    "eta_max_lemma2_proof",
    "eta_max_exact",
    "delta_exact",
    "epsilon_exact",
    "wang_eta_max",
    "prop7_omega",
]

#: Every li2019 item, in catalogue order (the registry registers them: :mod:`dpverify.theorems.registry`).
THEOREMS = catalogue.in_order(prelim.THEOREMS + stepsize.THEOREMS + wang.THEOREMS + utility.THEOREMS + experiments.THEOREMS)

#: The catalogue IDs of this paper, in catalogue order.
IDS: tuple[str, ...] = tuple(t.id for t in THEOREMS)

"""Foulds, Geumlek, Welling, Chaudhuri (UAI 2016): the theorem catalogue.

"On the Theory and Practice of Privacy-Preserving Bayesian Data Analysis" (seed ``004``). Every
``foulds2016.*`` row of ``shared/papers/INDEX.md`` is a :class:`~dpverify.theorems.base.Theorem`
registered under that ID. The items live in helper modules by section:

- :mod:`dpverify.theorems.foulds2016_posterior` -- Sec. 2: eqs. 2-10, Theorems 1-3;
- :mod:`dpverify.theorems.foulds2016_expfam` -- Sec. 3: eqs. 13-17, Lemma 1, Theorems 4-5, Remark 1;
"""
from __future__ import annotations

from dpverify.theorems import foulds2016_posterior  # noqa: F401  (registers Sec. 2 items)
from dpverify.theorems import foulds2016_expfam  # noqa: F401  (registers Sec. 3 items)

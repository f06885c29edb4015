"""The standard benchmark suite of audit targets (issue 12, section 1).

``cases()`` lists every :class:`BenchmarkCase` -- Laplace, truncated geometric, NoisyHist1/2, ReportNoisyMax1-4,
SVT1-6 (Lyu, Su & Li 2017 numbering), iSVT1-4 (StatDP numbering), NumericalSVT, PrefixSum, 20 parallel Laplace,
RAPPOR and one-time RAPPOR, randomized response, the exponential mechanism, and report-noisy-max with half the
noise under two adjacencies -- each with its witness pair (DP-Sniper's), claim, exact pair epsilon (computed by
closed forms, quadrature or enumeration; :mod:`dpverify.audit.standard`), whether it is private, its adjacency
and source. ``get(name)`` returns one. ``benchmarks/suite.py`` audits them all.

Example::

    >>> from dpverify.audit.standard_suite import get
    >>> c = get("report_noisy_max3")
    >>> c.private, round(c.epsilon_exact, 3), c.epsilon_claimed
    (False, 0.25, 0.1)
"""
from dpverify.audit.standard.case import ADJACENCIES, BenchmarkCase
from dpverify.audit.standard.registry import cases, get, names

__all__ = ["BenchmarkCase", "ADJACENCIES", "cases", "get", "names"]

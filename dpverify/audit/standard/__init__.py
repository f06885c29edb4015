"""The field's standard audit targets (DP-Sniper, StatDP, Lyu et al.'s sparse vector variants), each with its
witness pair, claimed epsilon, computed exact pair epsilon and adjacency. Entry point:
:mod:`dpverify.audit.standard_suite` (``cases()``, ``get(name)``, :class:`BenchmarkCase`).

Modules: :mod:`.case` (the record), :mod:`._numerics` (log-space densities and quadrature), :mod:`.additive`
(Laplace, noisy histograms, parallel Laplace, PrefixSum), :mod:`.noisy_max` (report noisy max, exponential
mechanism), :mod:`.sparse_vector` (SVT family, NumericalSVT), :mod:`.local` (RAPPOR, GeoSample),
:mod:`.registry` (the cases).
"""
from dpverify.audit.standard.case import BenchmarkCase

__all__ = ["BenchmarkCase"]

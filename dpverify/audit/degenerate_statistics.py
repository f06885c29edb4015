"""Statistics that see a law concentrated on a lower-dimensional set: the blind spot of final releases (issue 38).

A DP-SGLD whose noise is one draw shared by all coordinates (the known-bad defect ``shared_noise``,
:mod:`dpverify.samplers.broken`) moves every coordinate by the same noise at every step. Without the differing record
its chain stays on an affine line (a difference of two coordinates is deterministic); with it, the record's gradient
moves the chain off that line. The final iterate's law on one dataset then lies on a lower-dimensional affine set
``A`` and on the other it does not: the pair's epsilon is unbounded (the event "off ``A``" has probability 0 on one
side and close to 1 on the other). When the departure has mean zero and is far below the noise -- a record pulling
the chain towards its own hyperplane from either side, as the least-squares record of the catalogue's
``dp_sgld_broken_shared_noise_final`` does -- the difference-of-means projection sees nothing (the means agree),
the logistic classifier on ``(x, x^2)`` needs coefficients far beyond its regularisation, and the additive statistic's
monotone per-coordinate terms cannot represent "in a thin slab versus on both sides of it": measured at the quick
budget (seeds 0-3), they certify 0.73-0.88 there against a claim of 1.615, while the statistic below certifies 8.19.

:func:`affine_hull_distance` -- fitted on the fit outputs of ONE side ``a`` (``x0`` of M(dataset) or ``x1`` of
M(neighbour); both sides are tried, either may be the degenerate one):

1. the mean ``m_a`` and covariance ``C_a`` of that side's fit outputs (at most :data:`COV_SAMPLES`), and the
   eigendecomposition ``C_a = U diag(lambda) U^T`` (``numpy.linalg.eigh``: symmetric, so numerically singular
   covariances are fine); the *degenerate directions* ``U_0`` are the eigenvectors with ``lambda <=``
   :data:`DEGENERATE_RTOL` ``x`` the largest eigenvalue of either side's covariance (a relative tolerance: only
   variance ratios matter, whatever the outputs' units). ``x_a`` lies (up to rounding) on the affine set ``m_a +
   span(U_0)^perp``;
2. the squared distance of an output to that set, ``r(x) = ||U_0^T (x - m_a)||^2``;
3. a *floor* below which ``r`` is rounding, not signal: the larger of :data:`FLOOR_FACTOR` times the largest ``r`` on
   side ``a``'s own fit outputs and ``(ROUNDING_RTOL ||x||)^2`` for the largest output norm of the fit outputs (a
   relative precision of 1e-12, about 4500 units in the last place of float64: a value computed in two ways, or in
   another chunk's BLAS blocking, differs by far less);
4. the statistic ``s(x) = r(x) / s_b`` where ``r(x) > floor``, else 0, with ``s_b`` the median of ``r`` over the other
   side's fit outputs above the floor (a robust scale: ``s`` is about 1 on the other side; events depend on the order
   of ``s`` only).

So ``{s > 0}`` is "off the affine hull of side ``a``": probability ~0 under side ``a``, the departing share under the
other. The statistic is offered only when it can matter (so that audits of outputs with no degenerate side keep the
candidates, hence the numbers, they had): the outputs have 2 to :data:`MAX_DIM` values, side ``a`` has more than
``2 (d + 1)`` fit outputs (fewer leave a sample covariance singular whatever the law), ``U_0`` is not empty, and at
least :data:`MIN_OFF_FRACTION` (and :data:`MIN_OFF_COUNT`) of the other side's fit outputs lie above the floor. Two
sides on the same affine set (a path's fixed starting point, a rank-deficient but correct Gaussian release) never
qualify: the other side's distances are rounding too.

:func:`support_indicator` -- the discrete analogue, "distinct support": side ``a``'s fit outputs take at most
:data:`MAX_SUPPORT_ROWS` distinct values (rows), each seen on average at least 4 times, and at least
:data:`MIN_OFF_FRACTION` of the other side's fit outputs are none of them; ``s(x) = 1`` when ``x`` is not one of side
``a``'s rows, else 0 (exact row equality, vectorised through 64-bit keys of the rows' bit patterns, confirmed row by
row). It is tried before the affine statistic of the same side (whose set it then contains), for scalar outputs too.
Outputs that are discrete on *both* sides have the outcome-frequency statistic already (:mod:`.events`) and are not
given these.

**Validity.** Everything above is computed from the fit outputs of the selection part (:mod:`dpverify.audit.select`,
:mod:`dpverify.audit.split`): the gate, the directions, the floor and the scale are fixed before any threshold is
chosen and before any estimation output is drawn, so the event ``{s >= t}`` is independent of the estimation counts
and the Clopper-Pearson certificate holds for any mechanism, whatever these statistics compute. Each one only adds a
candidate to the selection: the number of events counted on the estimation part (the Bonferroni factor) is the
audit's ``candidates`` as before.

The affine statistic is backend-generic (:func:`dpverify.backends.backend_generic`): on a device it is the same
centring, product and sum of squares there. The support indicator runs on the host (chunks are copied to it).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from dpverify.audit.statistics import Statistic, device_rows, flatten
from dpverify.backends import backend_generic, backend_of

__all__ = ["affine_hull_distance", "support_indicator", "degenerate_candidates", "degenerate_directions",
           "DEGENERATE_RTOL", "ROUNDING_RTOL", "FLOOR_FACTOR", "MIN_OFF_FRACTION", "MIN_OFF_COUNT", "MAX_DIM",
           "COV_SAMPLES", "MAX_SUPPORT_ROWS"]

#: an eigenvalue of one side's covariance at most this times the largest eigenvalue of either side's covariance is a
#: degenerate direction (a standard deviation 1e-5 of the largest; exact degeneracy computed in float64 leaves ~1e-30)
DEGENERATE_RTOL = 1e-10
#: squared distances below ``(ROUNDING_RTOL * largest output norm)^2`` are rounding (about 4500 ulps of float64)
ROUNDING_RTOL = 1e-12
#: the floor is at least this times the largest squared distance of the degenerate side's own fit outputs
FLOOR_FACTOR = 16.0
#: the other side must have at least this share of its fit outputs off the set (and at least MIN_OFF_COUNT of them)
MIN_OFF_FRACTION = 0.01
MIN_OFF_COUNT = 10
#: outputs with more values are left to the other statistics (the covariance costs O(n d^2), the eigendecomposition
#: O(d^3): the bound of the additive statistic's whitening, :data:`~dpverify.audit.vector_statistics.MAX_WHITEN_DIM`)
MAX_DIM = 256
#: fit outputs per side the covariances are computed from
COV_SAMPLES = 20_000
#: a side with at most this many distinct fit rows (each seen 4 times on average) is "discrete" for the support test
MAX_SUPPORT_ROWS = 64

_SIDES = ("dataset", "neighbour")


def _finite_pair(x0: Any, x1: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The fit outputs as ``(n, d)`` float matrices, or None when they cannot be compared (sizes differ, a side has
    fewer than 2 outputs, or a value is not finite: those outputs are left to the other statistics)."""
    f0, f1 = flatten(x0), flatten(x1)
    if f0.shape[1] != f1.shape[1] or min(f0.shape[0], f1.shape[0]) < 2:
        return None
    if not (np.all(np.isfinite(f0)) and np.all(np.isfinite(f1))):
        return None
    return f0, f1


def _oriented_pair(x0: Any, x1: Any, side: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``(fit outputs of side ``side``, of the other side)`` as ``(n, d)`` float matrices (:func:`_finite_pair`), or
    None when they cannot be compared; a ``side`` other than 0 or 1 is a ``ValueError`` naming it."""
    if side not in (0, 1):
        raise ValueError(f"side must be 0 (the fit outputs of M(dataset)) or 1 (of M(neighbour)); got {side!r}")
    pair = _finite_pair(x0, x1)
    if pair is None:
        return None
    return pair if side == 0 else (pair[1], pair[0])


def _enough_off(off: np.ndarray, min_off_fraction: float) -> bool:
    """Whether at least :data:`MIN_OFF_COUNT` and ``min_off_fraction`` of the other side's fit outputs (``off``: a
    mask over them) lie off the degenerate side's set."""
    n_off = int(np.count_nonzero(off))
    return n_off >= MIN_OFF_COUNT and n_off >= min_off_fraction * off.size


def degenerate_directions(outputs: np.ndarray, reference_variance: float, *,
                          rtol: float = DEGENERATE_RTOL) -> tuple[np.ndarray, np.ndarray]:
    """``(mean, U_0)`` of the ``(n, d)`` outputs: their mean and an orthonormal ``(d, k)`` basis of the eigenvectors of
    their covariance whose eigenvalue is at most ``rtol * reference_variance`` (``k = 0``: none). The covariance is
    decomposed by ``numpy.linalg.eigh`` (symmetric; exact zeros and rounding-level negative eigenvalues of a singular
    covariance are both "at most" the tolerance)."""
    f = np.asarray(outputs, dtype=float)
    mean = f.mean(axis=0)
    with threadpool_limits(1):
        cov = np.atleast_2d(np.cov(f, rowvar=False))
        lam, vectors = np.linalg.eigh(cov)
    return mean, vectors[:, lam <= rtol * reference_variance]


def _largest_variance(f: np.ndarray) -> float:
    with threadpool_limits(1):
        return float(np.linalg.eigvalsh(np.atleast_2d(np.cov(f, rowvar=False)))[-1])


def _distances(f: np.ndarray, mean: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """``||U_0^T (x - m)||^2`` of each row of ``f`` (host arrays)."""
    with threadpool_limits(1):
        z = (f - mean) @ basis
    return np.einsum("ij,ij->i", z, z)


def affine_hull_distance(x0: np.ndarray, x1: np.ndarray, *, side: int, rtol: float = DEGENERATE_RTOL,
                         min_off_fraction: float = MIN_OFF_FRACTION) -> Statistic | None:
    """The squared distance to the affine hull of side ``side``'s fit outputs along its degenerate directions
    (module docstring), fitted on ``x0`` (fit outputs of M(dataset)) and ``x1`` (of M(neighbour)); None when it
    cannot matter (one-value or longer than :data:`MAX_DIM` outputs, too few outputs, no degenerate direction, or too
    few outputs of the other side off the set)."""
    pair = _oriented_pair(x0, x1, side)
    if pair is None:
        return None
    fa, fb = pair
    d = fa.shape[1]
    if not 2 <= d <= MAX_DIM or fa.shape[0] <= 2 * (d + 1) or fb.shape[0] < MIN_OFF_COUNT:
        return None
    reference = max(_largest_variance(fa[:COV_SAMPLES]), _largest_variance(fb[:COV_SAMPLES]))
    if not reference > 0:  # both sides constant: their difference of means is the test
        return None
    mean, basis = degenerate_directions(fa[:COV_SAMPLES], reference, rtol=rtol)
    if basis.shape[1] == 0:
        return None
    ra, rb = _distances(fa, mean, basis), _distances(fb, mean, basis)
    largest_norm2 = max(float(np.einsum("ij,ij->i", f, f).max()) for f in (fa, fb))
    floor = max(FLOOR_FACTOR * float(ra.max()), ROUNDING_RTOL ** 2 * largest_norm2)
    off = rb > floor
    if not _enough_off(off, min_off_fraction):
        return None
    scale = float(np.median(rb[off]))

    @backend_generic
    def distance(x: Any) -> Any:
        if isinstance(x, np.ndarray) or backend_of(x).name == "numpy":
            flat = flatten(x)
            if flat.shape[1] != d:
                raise ValueError(f"outputs must have {d} values each (as fitted); got {flat.shape[1]}")
            r = _distances(flat, mean, basis)
            return np.where(r > floor, r / scale, 0.0)
        xp = backend_of(x)  # on the device: the same centring, product and sum of squares there
        z = xp.matmul(device_rows(x) - xp.asarray(mean), basis)
        r = xp.sum(z * z, axis=1)
        return xp.where(r > floor, r / scale, 0.0)

    k, other = basis.shape[1], _SIDES[1 - side]
    return Statistic(f"affine_hull:{_SIDES[side]}",
                     f"squared distance to the affine hull of M({_SIDES[side]})'s fit outputs ({k} of {d} directions "
                     f"degenerate; 0 below {floor:.3g}, scaled by its median {scale:.3g} on M({other}))", distance)


#: odd 64-bit multipliers of the row keys (fixed: a statistic must be a fixed function of one output)
_KEY_MULTIPLIERS = np.random.default_rng(0x38DE6E).integers(1, 2**63 - 1, size=MAX_DIM * 4, dtype=np.uint64) | 1


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """A uint64 key of each float64 row from its bit pattern (-0.0 read as 0.0): equal rows have equal keys (integer
    arithmetic, the same in any chunk); distinct rows collide with probability ~2^-64, and members are confirmed by
    exact comparison."""
    bits = np.ascontiguousarray(rows + 0.0, dtype=np.float64).view(np.uint64)
    d = bits.shape[1]
    mult = np.resize(_KEY_MULTIPLIERS, d)
    keys = np.zeros(bits.shape[0], dtype=np.uint64)
    for j in range(d):  # one vectorised pass per column (wrapping uint64 arithmetic)
        keys += bits[:, j] * mult[j]
    return keys


def _distinct_rows(f: np.ndarray, limit: int) -> np.ndarray | None:
    """The distinct rows of ``f`` if there are at most ``limit`` (recognised on a prefix first), else None."""
    if np.unique(f[: 4 * limit + 1], axis=0).shape[0] > limit:
        return None
    rows = np.unique(f, axis=0)
    return rows if rows.shape[0] <= limit else None


def support_indicator(x0: np.ndarray, x1: np.ndarray, *, side: int,
                      min_off_fraction: float = MIN_OFF_FRACTION) -> Statistic | None:
    """``1`` for an output that is none of side ``side``'s distinct fit rows, else ``0`` (module docstring), fitted on
    ``x0`` (fit outputs of M(dataset)) and ``x1`` (of M(neighbour)); None when side ``side`` is not discrete (more
    than :data:`MAX_SUPPORT_ROWS` distinct rows, or fewer than 4 outputs per row) or too few of the other side's fit
    outputs fall outside its rows."""
    pair = _oriented_pair(x0, x1, side)
    if pair is None:
        return None
    fa, fb = pair
    d = fa.shape[1]
    if d > MAX_DIM:
        return None
    support = _distinct_rows(fa, min(MAX_SUPPORT_ROWS, fa.shape[0] // 4))
    if support is None:
        return None
    support_keys = _row_keys(support)
    order = np.argsort(support_keys)
    support_keys, support = support_keys[order], support[order]

    def members(flat: np.ndarray) -> np.ndarray:
        keys = _row_keys(flat)
        at = np.minimum(np.searchsorted(support_keys, keys), support_keys.size - 1)
        return (support_keys[at] == keys) & np.all(support[at] == flat, axis=1)

    if not _enough_off(~members(fb), min_off_fraction):
        return None

    def outside(x: np.ndarray) -> np.ndarray:
        flat = flatten(x)
        if flat.shape[1] != d:
            raise ValueError(f"outputs must have {d} values each (as fitted); got {flat.shape[1]}")
        return (~members(flat)).astype(float)

    return Statistic(f"support:{_SIDES[side]}",
                     f"1 outside the {support.shape[0]} distinct fit outputs of M({_SIDES[side]})", outside)


def degenerate_candidates(x0: np.ndarray, x1: np.ndarray) -> list[Statistic]:
    """The statistics of this module that can matter for the fit outputs ``x0`` (of M(dataset)) and ``x1`` (of
    M(neighbour)), both sides tried: per side the support indicator, else the affine-hull distance (module
    docstring); empty when neither side is degenerate -- the usual case, which leaves an audit's candidates as they
    were."""
    found: list[Statistic] = []
    for side in (0, 1):
        stat = support_indicator(x0, x1, side=side) or affine_hull_distance(x0, x1, side=side)
        if stat is not None:
            found.append(stat)
    return found

"""Exact Rényi divergences between conjugate posteriors (beta, Dirichlet) and the exact privacy of one posterior draw.

Releasing one draw of a conjugate posterior is the mechanism of Geumlek, Song, Chaudhuri (NeurIPS 2017, "Rényi
Differential Privacy Mechanisms for Posterior Sampling") and of Ponnoprat ("Differential privacy of Dirichlet posterior
sampling", arXiv:2110.01984 v2). The posterior of a Dirichlet-categorical (beta-Bernoulli for K = 2) model is a member
of an exponential family in ``theta`` with natural parameter ``a - 1`` and log-normaliser

    C(a) = sum_k log Gamma(a_k) - log Gamma(sum_k a_k)          (log B(a, b) for the beta),

so the Rényi divergence of order ``lam`` between two posteriors is closed form (the exponential-family identity
``int p1^lam p2^(1-lam) = exp(C(lam a1 + (1 - lam) a2) - lam C(a1) - (1 - lam) C(a2))``):

    D_lam(Dir(a1) || Dir(a2)) = [C(a2 + lam (a1 - a2)) - lam C(a1) + (lam - 1) C(a2)] / (lam - 1),

finite iff every coordinate of ``a2 + lam (a1 - a2)`` is > 0 (otherwise the integral diverges at the simplex's
boundary and the divergence is ``inf``). :func:`dirichlet_renyi_divergence` evaluates it in log space with
``scipy.special.gammaln``; where the three log-normalisers are large and nearly cancel (large counts, ``lam`` near 1)
the float64 value would lose digits, so those entries are recomputed with ``mpmath`` at enough digits (an error
estimate decides which).

Adjacent datasets (replace one record) move one unit of count from category ``i`` to ``j``; with the counts weighted by
``r`` (Geumlek et al.'s "diffuse" posterior, ``r = 1`` the plain posterior) the posterior parameters move by
``r (e_j - e_i)``. Coordinates other than ``i, j`` and the total cancel from the formula, so

    D_lam(Dir(a) || Dir(a - r e_i + r e_j)) = D_lam(Beta(a_i, a_j) || Beta(a_i - r, a_j + r)),

and the worst case over adjacent datasets of size N is a maximum over the pair ``(n_i, n_j)`` of counts
(:func:`dirichlet_categorical_worst_case`; :func:`beta_bernoulli_worst_case` for K = 2). The same reduction holds for
the whole privacy-loss distribution: the likelihood ratio is a function of ``theta_j / (theta_i + theta_j)``, which is
``Beta(a_j, a_i)``, so a pair's exact (epsilon, delta) is that of two beta laws (:func:`beta_pair_epsilon`, from the
hockey-stick divergence on the intervals where the monotone log ratio exceeds epsilon).

The second-order bound (Ponnoprat, Theorem 1; the curvature bound Geumlek et al.'s analysis rests on) is
:func:`dirichlet_rdp_bound`: ``lam / 2 * Delta_2^2 * psi_1(a_min - (lam - 1) Delta_inf)``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np
from scipy import integrate, special
from scipy.optimize import brentq

from dpverify.calculus.loss_masses import LossMasses
from dpverify.validation import check_delta, check_order, check_orders, check_positive_int, check_real

__all__ = [
    "dirichlet_log_normaliser",
    "dirichlet_renyi_divergence",
    "beta_renyi_divergence",
    "dirichlet_kl_divergence",
    "beta_renyi_divergence_quadrature",
    "dirichlet_rdp_bound",
    "WorstPair",
    "beta_bernoulli_worst_case",
    "dirichlet_categorical_worst_case",
    "worst_case_rdp_curve",
    "beta_hockey_stick",
    "beta_pair_epsilon",
    "beta_pair_loss_masses",
]

#: relative accuracy asked of the float64 evaluation before an entry is recomputed with mpmath
_TARGET_RELATIVE = 1e-11
#: a bound on the rounding error of the float64 evaluation per unit of the magnitudes of its log-gamma terms (checked
#: against 60-digit mpmath on 3000 random neighbouring pairs, orders 1 + 1e-6 to 21, parameters 0.1 to 1e5: the actual
#: error never exceeded 0.7 of this estimate)
_ROUNDING = 4 * np.finfo(float).eps


def _concentration(name: str, value) -> np.ndarray:
    """``value`` as a float array of finite numbers > 0 with a last axis of length >= 2 (a Dirichlet parameter)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers > 0; got {value!r}") from None
    if arr.ndim == 0 or arr.shape[-1] < 2:
        raise ValueError(f"{name} must have a last axis of length >= 2 (one value per category); got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must contain finite numbers > 0 (Dirichlet concentrations); got {value!r}")
    return arr


def _positive(name: str, value) -> np.ndarray:
    """``value`` as a float array of finite numbers > 0 (a beta parameter)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number > 0 (or an array of them); got {value!r}") from None
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be finite and > 0 (a beta parameter); got {value!r}")
    return arr


def dirichlet_log_normaliser(concentration) -> np.ndarray:
    """``C(a) = sum_k log Gamma(a_k) - log Gamma(sum_k a_k)`` over the last axis: the log of the multivariate beta
    function, the log-normaliser of ``Dir(a)`` (``log B(a, b)`` for K = 2)."""
    a = _concentration("concentration", concentration)
    return np.sum(special.gammaln(a), axis=-1) - special.gammaln(np.sum(a, axis=-1))


def _second_difference(order: np.ndarray, mix: np.ndarray, a1: np.ndarray, a2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(value, scale)``: ``value = C(mix) - order C(a1) + (order - 1) C(a2)`` over the last axis (mix > 0; ``order``
    broadcast against the leading axes) and the sum of the magnitudes of every log-gamma term in it (what its rounding
    error is proportional to)."""
    value = np.zeros(mix.shape[:-1])
    scale = np.zeros(mix.shape[:-1])
    for weight, params in ((np.ones_like(order), mix), (-order, a1), (order - 1.0, a2)):
        each, total = special.gammaln(params), special.gammaln(np.sum(params, axis=-1))
        value = value + weight * (np.sum(each, axis=-1) - total)
        scale = scale + np.abs(weight) * (np.sum(np.abs(each), axis=-1) + np.abs(total))
    return value, scale


def _check_orders_array(order) -> np.ndarray:
    """``order`` as a float array (any shape) of Rényi orders > 1 (a ``ValueError`` naming ``order`` otherwise)."""
    arr = np.asarray(order, dtype=float) if not isinstance(order, (bool, np.bool_)) else np.asarray(order)
    if arr.ndim == 0:
        return np.asarray(check_order(order))
    return check_orders(arr.reshape(-1), "order").reshape(arr.shape)


def _mp_divergence(order: float, a1: np.ndarray, a2: np.ndarray, digits: int) -> float:
    """The divergence of one pair (1-d parameter vectors) with mpmath at ``digits`` significant digits."""
    with mpmath.workdps(digits):
        lam = mpmath.mpf(order)
        x1 = [mpmath.mpf(float(v)) for v in a1]
        x2 = [mpmath.mpf(float(v)) for v in a2]
        mix = [v2 + lam * (v1 - v2) for v1, v2 in zip(x1, x2)]

        def c(v):
            return mpmath.fsum(mpmath.loggamma(x) for x in v) - mpmath.loggamma(mpmath.fsum(v))

        return float((c(mix) - lam * c(x1) + (lam - 1) * c(x2)) / (lam - 1))


def dirichlet_renyi_divergence(order, concentration1, concentration2) -> np.ndarray:
    """``D_order(Dir(a1) || Dir(a2))`` for concentrations broadcast over leading axes (last axis: the K categories) and
    ``order`` (a number or an array of orders, broadcast against those leading axes).

    ``[C(a2 + order (a1 - a2)) - order C(a1) + (order - 1) C(a2)] / (order - 1)`` with ``C`` the log multivariate beta
    function (module docstring); ``inf`` where a coordinate of ``a2 + order (a1 - a2)`` is <= 0. Entries whose float64
    value could carry a relative error above 1e-11 (estimated from the magnitudes of the log-gamma terms) are recomputed
    with mpmath. Orders > 1 (the orders of Rényi DP); a ``ValueError`` names a bad argument.
    """
    lam = _check_orders_array(order)
    a1 = _concentration("concentration1", concentration1)
    a2 = _concentration("concentration2", concentration2)
    if a1.shape[-1] != a2.shape[-1]:
        raise ValueError(f"concentration1 and concentration2 must have the same number of categories; got "
                         f"{a1.shape[-1]} and {a2.shape[-1]}")
    lam_k = lam[..., None]
    lam_k, a1, a2 = np.broadcast_arrays(lam_k, a1, a2)
    lam = lam_k[..., 0]
    mix = a2 + lam_k * (a1 - a2)
    finite = np.all(mix > 0, axis=-1)
    safe = np.where(finite[..., None], mix, 1.0)
    value, scale = _second_difference(lam, safe, a1, a2)
    out = np.where(finite, value / (lam - 1.0), np.inf)
    err = _ROUNDING * scale / (lam - 1.0)
    same = np.all(a1 == a2, axis=-1)
    out = np.where(same, 0.0, out)
    redo = np.atleast_1d(finite & ~same & (err > _TARGET_RELATIVE * np.abs(out)))
    if redo.any():
        flat_out = np.array(out, dtype=float, ndmin=1)
        f1, f2 = a1.reshape(-1, a1.shape[-1]), a2.reshape(-1, a2.shape[-1])
        flat_lam = np.atleast_1d(lam).reshape(-1)
        ratio = np.atleast_1d(err / np.maximum(np.abs(out), 1e-300)).reshape(-1)
        for i in np.flatnonzero(redo.reshape(-1)):  # a loop over the few ill-conditioned entries only
            digits = int(min(2000, 30 + max(0.0, math.log10(max(ratio[i], 1.0)) + 16)))
            flat_out.flat[i] = _mp_divergence(float(flat_lam[i]), f1[i], f2[i], digits)
        out = flat_out.reshape(np.shape(out))
    return np.maximum(out, 0.0)  # a divergence; rounding of an exact 0 is clipped


def beta_renyi_divergence(order, a1, b1, a2, b2) -> np.ndarray:
    """``D_order(Beta(a1, b1) || Beta(a2, b2))`` (arrays broadcast): :func:`dirichlet_renyi_divergence` with K = 2,
    ``[log B(m_a, m_b) - order log B(a1, b1) + (order - 1) log B(a2, b2)] / (order - 1)``, ``m = a2 + order (a1 - a2)``
    (``inf`` when ``m_a <= 0`` or ``m_b <= 0``)."""
    p1 = np.stack(np.broadcast_arrays(_positive("a1", a1), _positive("b1", b1)), axis=-1)
    p2 = np.stack(np.broadcast_arrays(_positive("a2", a2), _positive("b2", b2)), axis=-1)
    return dirichlet_renyi_divergence(order, p1, p2)


def dirichlet_kl_divergence(concentration1, concentration2) -> np.ndarray:
    """``KL(Dir(a1) || Dir(a2)) = C(a2) - C(a1) + sum_k (a1_k - a2_k)(psi(a1_k) - psi(A1))`` (``A1 = sum_k a1_k``): the
    limit of the Rényi divergence as the order tends to 1."""
    a1 = _concentration("concentration1", concentration1)
    a2 = _concentration("concentration2", concentration2)
    digam = special.digamma(a1) - special.digamma(np.sum(a1, axis=-1))[..., None]
    c1 = np.sum(special.gammaln(a1), axis=-1) - special.gammaln(np.sum(a1, axis=-1))
    c2 = np.sum(special.gammaln(a2), axis=-1) - special.gammaln(np.sum(a2, axis=-1))
    return c2 - c1 + np.sum((a1 - a2) * digam, axis=-1)


def beta_renyi_divergence_quadrature(order: float, a1: float, b1: float, a2: float, b2: float) -> float:
    """``D_order(Beta(a1, b1) || Beta(a2, b2))`` by numerical integration, independent of the closed form: ``log of
    int p1^order p2^(1 - order) / (order - 1)`` with the two beta log densities written out (normalisers
    ``scipy.special.betaln``, never combined as in the closed form), integrated in the
    logit variable ``u`` (integrand ``exp(order lp1 + (1 - order) lp2 + log theta(1 - theta))``, smooth and with
    exponential tails) by ``scipy.integrate.quad`` on four pieces around its mode. The integral diverges (``inf``)
    when a tail exponent ``a2 + order (a1 - a2)`` or ``b2 + order (b1 - b2)`` is <= 0. For tests and catalogue checks.
    """
    lam = check_order(order)
    a1, b1, a2, b2 = (float(_positive(n, v)) for n, v in (("a1", a1), ("b1", b1), ("a2", a2), ("b2", b2)))
    ta, tb = a2 + lam * (a1 - a2), b2 + lam * (b1 - b2)  # the integrand ~ e^{ta u} (u -> -inf), e^{-tb u} (u -> inf)
    if ta <= 0 or tb <= 0:
        return math.inf

    norm1, norm2 = float(special.betaln(a1, b1)), float(special.betaln(a2, b2))

    def integrand(u: float) -> float:
        log_t, log_1mt = -math.log1p(math.exp(-u)) if u > -30 else u, -math.log1p(math.exp(u)) if u < 30 else -u
        lp1 = (a1 - 1) * log_t + (b1 - 1) * log_1mt - norm1  # the beta log densities, written out
        lp2 = (a2 - 1) * log_t + (b2 - 1) * log_1mt - norm2
        return math.exp(lam * lp1 + (1 - lam) * lp2 + log_t + log_1mt)

    mode = math.log(ta / tb)
    width = math.sqrt(1 / ta + 1 / tb)
    knots = [-math.inf, mode - 8 * width, mode, mode + 8 * width, math.inf]
    total = 0.0
    for lo, hi in zip(knots[:-1], knots[1:]):
        value, _ = integrate.quad(integrand, lo, hi, epsabs=0.0, epsrel=2e-14, limit=400)
        total += value
    return max(0.0, math.log(total) / (lam - 1))


def dirichlet_rdp_bound(order, a_min, l2_sensitivity_sq, linf_sensitivity):
    """``order / 2 * Delta_2^2 * psi_1(a_min - (order - 1) Delta_inf)`` (numpy, broadcasting; ``inf`` where the
    argument of the trigamma function ``psi_1`` is <= 0): Ponnoprat, Theorem 1 (arXiv:2110.01984 v2), the RDP of one
    draw of ``Dir(a + x)`` with every posterior concentration >= ``a_min`` when the statistic ``x`` has squared L2
    sensitivity ``Delta_2^2`` and L-infinity sensitivity ``Delta_inf``. With counts weighted by ``r``, replace-one
    adjacency gives ``Delta_2^2 = 2 r^2``, ``Delta_inf = r`` (:mod:`dpverify.theorems.geumlek2017.beta`)."""
    lam = np.asarray(order, dtype=float)
    arg = np.asarray(a_min, dtype=float) - (lam - 1.0) * np.asarray(linf_sensitivity, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = 0.5 * lam * np.asarray(l2_sensitivity_sq, dtype=float) * special.polygamma(1, np.where(arg > 0, arg, 1.0))
    return np.where(arg > 0, value, np.inf)


# ------------------------------------------------------------------------------------------- worst case over datasets
@dataclass(frozen=True)
class WorstPair:
    """The adjacent pair of datasets (as category counts) whose posteriors are furthest apart in ``D_order``:
    ``rdp = D_order(posterior(dataset) || posterior(neighbour))``; the neighbour moves one record from category
    ``moved[0]`` to ``moved[1]``."""

    order: float
    rdp: float
    dataset_counts: tuple[int, ...]
    neighbour_counts: tuple[int, ...]
    moved: tuple[int, int]


def _prior(name: str, concentration, K: int | None = None) -> np.ndarray:
    arr = _positive(name, concentration).reshape(-1)
    if K is not None:
        arr = np.broadcast_to(arr, (K,)).astype(float) if arr.size == 1 else arr
        if arr.size != K:
            raise ValueError(f"{name} must have one value, or K = {K} values; got {arr.size}")
    return arr


def _weight(r) -> float:
    return check_real("r", r, low=0.0, high=1.0, low_inclusive=False)


def beta_bernoulli_worst_case(order: float, N: int, alpha0: float, beta0: float, r: float = 1.0) -> WorstPair:
    """The worst adjacent pair for one draw of ``Beta(alpha0 + r n1, beta0 + r n0)`` over every dataset of ``N`` bits
    (``n1 + n0 = N``) and every replacement of one record, both directions, found by enumerating the ``2 N`` ordered
    pairs (exact: each divergence is closed form). Counts are ``(n1, n0)``."""
    lam = check_order(order)
    n = check_positive_int(N, "N")
    a0, b0 = float(_positive("alpha0", alpha0)), float(_positive("beta0", beta0))
    w = _weight(r)
    n1 = np.arange(n)  # dataset with n1 ones; the neighbour has n1 + 1
    a, b = a0 + w * n1, b0 + w * (n - n1)
    both = np.stack([beta_renyi_divergence(lam, a, b, a + w, b - w), beta_renyi_divergence(lam, a + w, b - w, a, b)])
    k = int(np.argmax(both))
    side, i = divmod(k, n)
    small, large = (int(i), n - int(i)), (int(i) + 1, n - int(i) - 1)
    if side == 0:
        return WorstPair(lam, float(both.flat[k]), small, large, (1, 0))  # a zero (category 1) becomes a one
    return WorstPair(lam, float(both.flat[k]), large, small, (0, 1))


def dirichlet_categorical_worst_case(order: float, N: int, concentration, r: float = 1.0) -> WorstPair:
    """The worst adjacent pair for one draw of ``Dir(a + r n)`` (``n`` the K category counts, ``sum n = N``) over every
    dataset and every replacement of one record (module docstring: the divergence depends on the two categories that
    change only, so the maximum runs over ``(i, j, n_i >= 1, n_j)`` with ``n_i + n_j = N`` for K = 2 and ``<= N``
    otherwise, the rest of the records in a third category). Exact; ``tests/test_conjugate_renyi.py`` compares it with
    brute force over all datasets."""
    lam = check_order(order)
    n = check_positive_int(N, "N")
    a = _prior("concentration", concentration)
    K = a.size
    if K < 2:
        raise ValueError(f"concentration must have K >= 2 values; got {K}")
    w = _weight(r)
    ni, nj = np.meshgrid(np.arange(1, n + 1), np.arange(0, n), indexing="ij")
    ok = (ni + nj == n) if K == 2 else (ni + nj <= n)
    ni, nj = ni[ok], nj[ok]
    best = (-1.0, 0, 0, 0, 0)
    for i in range(K):
        for j in range(K):
            if i == j:
                continue
            d = beta_renyi_divergence(lam, a[i] + w * ni, a[j] + w * nj, a[i] + w * (ni - 1), a[j] + w * (nj + 1))
            k = int(np.argmax(d))
            if d[k] > best[0]:
                best = (float(d[k]), i, j, int(ni[k]), int(nj[k]))
    value, i, j, cnt_i, cnt_j = best
    counts = np.zeros(K, dtype=int)
    counts[i], counts[j] = cnt_i, cnt_j
    if K > 2:
        counts[next(k for k in range(K) if k not in (i, j))] += n - cnt_i - cnt_j
    neighbour = counts.copy()
    neighbour[i] -= 1
    neighbour[j] += 1
    return WorstPair(lam, value, tuple(int(c) for c in counts), tuple(int(c) for c in neighbour), (i, j))


def worst_case_rdp_curve(orders, N: int, concentration, r: float = 1.0) -> np.ndarray:
    """The exact RDP curve of the mechanism: :func:`dirichlet_categorical_worst_case` at each order (``inf`` where the
    mechanism has no finite RDP of that order)."""
    arr = np.atleast_1d(np.asarray(orders, dtype=float))
    return np.array([dirichlet_categorical_worst_case(float(o), N, concentration, r).rdp for o in arr])


# ------------------------------------------------------------------------------- exact (epsilon, delta) of a beta pair
def _log_ratio_limits(da: float, db: float, c: float) -> tuple[float, float]:
    """Limits of ``L(u) = da log sigmoid(u) + db log sigmoid(-u) - c`` as ``u -> -inf`` and ``u -> +inf``."""

    def lim(coef: float) -> float:
        return -c if coef == 0 else (math.inf if coef < 0 else -math.inf)

    return lim(da), lim(db)


def _crossing(f, lo: float, hi: float, rising: bool) -> float:
    """The zero of the monotone ``f`` on ``(lo, hi)`` (ends possibly infinite; ``f`` increasing if ``rising``, with
    opposite signs at the two ends): finite bracket ends found by doubling steps outwards, then ``brentq``."""
    def below(x: float) -> bool:  # x lies on the side of the zero where f has the sign of its left end
        return (f(x) < 0) == rising

    left = lo if math.isfinite(lo) else (hi - 1.0 if math.isfinite(hi) else -1.0)
    step = 1.0
    while not math.isfinite(lo) and not below(left):
        left, step = left - step, 2 * step
    right = hi if math.isfinite(hi) else left + 1.0
    step = 1.0
    while not math.isfinite(hi) and below(right):
        right, step = right + step, 2 * step
    return float(brentq(f, left, right, xtol=1e-14, rtol=1e-14, maxiter=500))


def _beta_mass(a: float, b: float, s: float, t: float) -> float:
    """``P(s <= logit X <= t)`` for ``X ~ Beta(a, b)`` (``s, t`` may be infinite), without cancellation: lower-tail
    CDFs when the interval lies left of the mean, upper-tail ones otherwise."""
    def lower(u: float) -> float:
        return 0.0 if u == -math.inf else (1.0 if u == math.inf else float(special.betainc(a, b, special.expit(u))))

    def upper(u: float) -> float:
        return 1.0 if u == -math.inf else (0.0 if u == math.inf else float(special.betaincc(a, b, special.expit(u))))

    if s == -math.inf:
        return lower(t)
    if t == math.inf:
        return upper(s)
    if math.log(a / b) > 0.5 * (s + t):  # the mean's logit is right of the interval: the lower tail
        return max(0.0, lower(t) - lower(s))
    return max(0.0, upper(s) - upper(t))


def beta_hockey_stick(epsilon: float, a1: float, b1: float, a2: float, b2: float) -> float:
    """``delta(epsilon) = int max(0, p - e^epsilon q)`` for ``P = Beta(a1, b1)``, ``Q = Beta(a2, b2)``: the sum over the
    intervals where the log ratio ``L = log p - log q`` exceeds epsilon of ``P(I) - e^epsilon Q(I)``. ``L`` is
    ``(a1 - a2) log theta + (b1 - b2) log(1 - theta) + const``, monotone on each side of its one stationary point (none
    for adjacent posteriors, where ``a1 - a2 = b2 - b1``); the crossings by ``brentq`` in the logit variable."""
    eps = check_real("epsilon", epsilon, low=0.0)
    a1, b1, a2, b2 = (float(_positive(n, v)) for n, v in (("a1", a1), ("b1", b1), ("a2", a2), ("b2", b2)))
    da, db = a1 - a2, b1 - b2
    c = float(special.betaln(a1, b1) - special.betaln(a2, b2))

    def excess(u: float) -> float:
        return da * -np.logaddexp(0.0, -u) + db * -np.logaddexp(0.0, u) - c - eps

    knots = [-math.inf, math.inf]
    if da * db > 0:  # one stationary point, theta* = da / (da + db)
        knots.insert(1, math.log(da / db))
    lim_lo, lim_hi = _log_ratio_limits(da, db, c)
    total = 0.0
    for lo, hi in zip(knots[:-1], knots[1:]):
        g_lo = lim_lo - eps if lo == -math.inf else excess(lo)
        g_hi = lim_hi - eps if hi == math.inf else excess(hi)
        if g_lo <= 0 and g_hi <= 0:
            continue
        if g_lo > 0 and g_hi > 0:
            s, t = lo, hi
        else:
            cross = _crossing(excess, lo, hi, rising=g_hi > 0)
            s, t = (cross, hi) if g_hi > 0 else (lo, cross)
        total += _beta_mass(a1, b1, s, t) - math.exp(eps) * _beta_mass(a2, b2, s, t)
    return min(1.0, max(0.0, total))


def beta_pair_epsilon(delta: float, a1: float, b1: float, a2: float, b2: float) -> float:
    """The exact epsilon at ``delta`` of the pair ``(Beta(a1, b1), Beta(a2, b2))``: the smallest epsilon >= 0 with
    :func:`beta_hockey_stick` <= delta in both directions (``brentq``; the bracket grows until it holds; ``inf`` when
    no epsilon up to 1e4 does). At delta = 0: 0 for equal laws, else ``inf`` (the log ratio of two different beta laws
    is unbounded in one direction at least)."""
    d = check_delta(delta)
    if d == 0.0:  # the log ratio is unbounded (in one direction at least) unless the laws are equal
        return 0.0 if (a1, b1) == (a2, b2) else math.inf

    def worst(e: float) -> float:
        return max(beta_hockey_stick(e, a1, b1, a2, b2), beta_hockey_stick(e, a2, b2, a1, b1)) - d

    if worst(0.0) <= 0:
        return 0.0
    hi = 1.0
    while worst(hi) > 0:
        hi *= 2
        if hi > 1e4:
            return math.inf
    return float(brentq(worst, 0.0, hi, xtol=1e-12, rtol=1e-12))


#: probabilities at which both laws' quantiles cut the unit interval in :func:`beta_pair_loss_masses`
_CUT_PROBABILITIES = np.unique(np.concatenate([np.geomspace(1e-14, 1e-3, 400), np.linspace(1e-3, 1 - 1e-3, 3000),
                                               1.0 - np.geomspace(1e-14, 1e-3, 400)]))


def beta_pair_loss_masses(a1: float, b1: float, a2: float, b2: float) -> LossMasses:
    """The privacy-loss law of ``P = Beta(a1, b1)`` against ``Q = Beta(a2, b2)`` for two adjacent posteriors (``a1 + b1
    = a2 + b2``), as masses on cells of theta.

    The loss ``L(theta) = (a1 - a2) logit(theta) + betaln(a2, b2) - betaln(a1, b1)`` is monotone (``a1 - a2 = b2 - b1``),
    so every likelihood-ratio level set is a half-line of theta. The unit interval is cut at the quantiles of both laws
    (4,000 probabilities each, geometric in the tails down to 1e-14); each cell's P and Q masses are beta CDF
    differences (:func:`_beta_mass`), and its atom is the smaller of ``L`` at its two ends (the end cell's infinite end
    is replaced by its finite one minus 1). Then every event ``{L >= t}`` or ``{L <= t}`` of the atoms is a union of
    whole cells that *is* a level set of the true loss, with its exact masses: a ceiling from these masses is attained
    by a real event, never above the pair's own ceiling, and below it only by the cut's resolution (cells of at most
    ~3e-4 probability). A Dirichlet pair reduces to the beta pair of its two moved coordinates with the same loss law
    (the aggregation property; :meth:`dpverify.samplers.rdp_posterior._RDPPosterior.pair_privacy_loss`)."""
    a1, b1, a2, b2 = (float(_positive(n, v)) for n, v in (("a1", a1), ("b1", b1), ("a2", a2), ("b2", b2)))
    if not math.isclose(a1 + b1, a2 + b2, rel_tol=1e-12):
        raise ValueError(f"the two beta laws must be adjacent posteriors (a1 + b1 = a2 + b2); got {a1 + b1} and "
                         f"{a2 + b2}")
    slope = a1 - a2
    const = float(special.betaln(a2, b2) - special.betaln(a1, b1))
    if slope == 0.0:
        return LossMasses(np.zeros(1), np.ones(1), np.ones(1), "exact: equal laws (zero loss)")
    cuts = np.concatenate([special.betaincinv(a1, b1, _CUT_PROBABILITIES), special.betaincinv(a2, b2, _CUT_PROBABILITIES)])
    with np.errstate(divide="ignore"):
        logits = np.unique(special.logit(cuts[(cuts > 0.0) & (cuts < 1.0)]))
    edges = np.concatenate([[-math.inf], logits, [math.inf]])
    lo, hi = edges[:-1], edges[1:]
    p = np.array([_beta_mass(a1, b1, s, t) for s, t in zip(lo, hi)])
    q = np.array([_beta_mass(a2, b2, s, t) for s, t in zip(lo, hi)])
    at_lo, at_hi = slope * lo + const, slope * hi + const
    at_lo[0], at_hi[-1] = at_lo[1] - abs(slope) - 1.0 if slope > 0 else at_lo[1] + 1.0, \
        at_hi[-2] + 1.0 if slope > 0 else at_hi[-2] - abs(slope) - 1.0
    losses = np.minimum(at_lo, at_hi)
    return LossMasses(losses, p / p.sum(), q / q.sum(),
                          f"exact: Beta({a1:.6g}, {b1:.6g}) vs Beta({a2:.6g}, {b2:.6g}), loss monotone in theta, "
                          f"{losses.size} cells")

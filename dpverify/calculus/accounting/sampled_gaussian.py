"""Exact Rényi DP of the Poisson-subsampled Gaussian mechanism (SGM).

One step of the SGM adds N(0, sigma^2 I) to a sum of L2-sensitivity-1 terms over a Poisson
subsample (each record kept with probability q). For adding/removing one record its RDP at
order alpha > 1 is (Mironov, Talwar, Zhang 2019, Sec. 3; Abadi et al. 2016)::

    rdp(alpha) = log A_alpha / (alpha - 1),
    A_alpha = E_{z ~ N(0, sigma^2)} [ (1 - q + q exp((2z - 1) / (2 sigma^2)))^alpha ],

(A_alpha = exp((alpha - 1) D_alpha(mu || mu0)) with mu = (1-q) N(0, sigma^2) + q N(1, sigma^2),
mu0 = N(0, sigma^2); the reverse direction B_alpha is never larger -- checked numerically in the
tests), and rdp(alpha) = alpha / (2 sigma^2) when q = 1.

How it is computed (all in log space, one code path per kind of order):

- **integer alpha** -- the binomial expansion (MTZ 2019, Sec. 3.1)
  ``A_alpha = sum_i C(alpha, i) q^i (1-q)^(alpha-i) exp((i^2 - i) / (2 sigma^2))``, rewritten as
  ``A_alpha - 1 = sum_{i >= 2} C(alpha, i) q^i (1-q)^(alpha-i) expm1((i^2 - i) / (2 sigma^2))``
  (the i = 0, 1 terms vanish), a sum of positive terms: ``log A_alpha = log1p(A_alpha - 1)`` keeps full
  relative precision even when q is tiny and rdp ~ q^2 (the plain sum loses it all below q ~ 1e-8).
  Terms below e^-60 of the largest are skipped.
- **fractional alpha** -- the integral itself, by the trapezoidal rule in u = z/sigma on a grid of
  step <= 0.74 (``_trapezoid_step``) over ``[-9.5, max(alpha, 2)/sigma + 9.5]``, again for
  ``A_alpha - 1 = E[(1 + x)^alpha - 1 - alpha x]`` with ``x = q expm1((2z - 1)/(2 sigma^2))`` (E[x] = 0).
  The integrand is analytic in the strip |Im u| < pi sigma, where |(1 + x)^alpha| is bounded by its
  value on the real line and the Gaussian factor grows by at most e^(Im u^2 / 2), so the rule
  converges geometrically (the step is chosen for an error <= e^-36); the tests check it against mpmath
  quadrature at 30 digits and against the binomial sum at integer orders.

  *Why not the series of MTZ 2019, Sec. 3.3?* dp-accounting 0.6 (and TF-Privacy, Opacus) sum that
  series with ``|C(alpha, i)|`` (``gammaln`` drops the sign that C(alpha, i) takes for i > alpha),
  which gives an upper bound, not A_alpha: e.g. sigma = 4, q = 0.1, alpha = 1.1 gives rdp 8.416e-4
  instead of the exact 3.527e-4 (then larger than rdp(2) = 6.45e-4, violating the monotonicity of
  D_alpha in alpha). With the signs the series converges only polynomially (like i^-(alpha+2)) when
  sigma^2 log(1/q - 1)^2 is small -- dp-accounting then gives up after 1000 terms and returns inf
  (e.g. sigma = 1.1, q = 0.1, alpha = 1.1). The quadrature has neither problem.
- **fractional alpha, many sigmas** (a schedule of >= 32 distinct noise multipliers): first the
  truncated signed binomial series ``A - 1 ~ sum_{i=2}^K C(alpha, i) q^i (1-q)^(alpha-i) expm1(c_i)``
  with a certified error bound (``_log_a_frac_series``; it applies when sigma^2 log((1-q)/q)^2 is
  large, as in DP-SGD and DP-SGLD), K expm1 per sigma and one matrix product; pairs it cannot
  certify to 1e-13 go to the quadrature. The two paths agree to ~1e-12 (tested).
- **mpmath** (``mpmath.quad`` at >= 30 digits) where a float64 grid would exceed 2^21 points or the
  binomial sum 2^22 terms (orders in the millions, or alpha/sigma^2 in the millions). Tiny q needs no
  fallback: the A - 1 forms keep full relative precision in float64 (tested to q = 1e-15 against the
  closed forms at alpha = 2, 3).
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
from scipy import special

from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.validation import check_delta, check_finite_array, check_orders, check_real, check_sampling_rate

__all__ = ["rdp_sampled_gaussian", "rdp_sampled_gaussian_composed", "needs_multiprecision", "one_step_epsilon",
           "check_subsampled_orders", "MIN_SUBSAMPLED_ORDER"]

#: The smallest Rényi order of the subsampled Gaussian's RDP (q < 1; :func:`check_subsampled_orders`).
MIN_SUBSAMPLED_ORDER = 1.001
#: Terms further than this below the largest (in log space) are skipped: e^-60 ~ 1e-26.
_LOG_NEGLIGIBLE = 60.0
#: The integer-order sum is done in linear space when every exponent is below this and every weight
#: above e^_LOG_TINY (no overflow, no underflow), in log space otherwise.
_LINEAR_MAX_EXPONENT = 600.0
_LOG_TINY = -600.0
#: Largest integer order summed term by term; larger integer orders go to the quadrature.
_MAX_BINOMIAL_TERMS = 2**22
#: Largest trapezoid grid; beyond it, mpmath.
_MAX_GRID_POINTS = 2**21
#: Budget of matrix elements per vectorised block (rows = sigmas, columns = terms or grid points).
_BLOCK = 2**20
#: Half-width of the quadrature range beyond the peaks, in standard deviations: phi(9.5) ~ e^-46.
_U_TAIL = 9.5
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_SERIES_TERMS = 6
#: Fractional orders up to this use the certified truncated series where it applies.
_SERIES_MAX_ORDER = 256.0
#: Terms of the truncated series beyond ceil(alpha).
_SERIES_EXTRA_TERMS = 40
_SERIES_BLOCK = 4096
#: Below this many distinct sigmas the per-order series loop costs more than it saves.
_SERIES_MIN_SIGMAS = 32
_SERIES_BOUND = 1e-3


def check_sigma(sigma, name: str) -> np.ndarray:
    arr = check_finite_array(sigma, name)
    arr = arr.reshape(-1)
    if arr.size == 0:
        raise ValueError(f"{name} must contain at least one value")
    if np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0; got {arr[arr <= 0][0]!r}")
    return arr


def rdp_sampled_gaussian(q: float, sigma: float, orders) -> np.ndarray:
    """RDP of one step of the Poisson-subsampled Gaussian mechanism at each order.

    ``q``: sampling rate in (0, 1]; ``sigma``: noise multiplier (noise std / L2 sensitivity) > 0;
    ``orders``: Rényi orders alpha > 1, at least :data:`MIN_SUBSAMPLED_ORDER` when q < 1
    (:func:`check_subsampled_orders`). Returns ``log A_alpha / (alpha - 1)`` (Mironov, Talwar,
    Zhang 2019), exactly ``alpha / (2 sigma^2)`` at q = 1; see the module docstring for the method.
    """
    q = check_sampling_rate(q, "q")
    s = check_real("sigma", sigma, low=0.0, low_inclusive=False)
    alphas = check_orders(orders)
    return _log_a_matrix(q, np.array([s]), alphas)[0] / (alphas - 1.0)


def rdp_sampled_gaussian_composed(q: float, sigmas, orders) -> np.ndarray:
    """RDP of the adaptive composition of SGM steps with per-step noise multipliers ``sigmas``.

    ``sum_t rdp_t(alpha)`` (Mironov 2017, Prop. 1), vectorised over steps and orders; repeated
    sigmas are computed once. ``q`` in (0, 1] is the same at every step.
    """
    q = check_sampling_rate(q, "q")
    sig = check_sigma(sigmas, "sigmas")
    alphas = check_orders(orders)
    uniq, counts = np.unique(sig, return_counts=True)
    return counts.astype(float) @ _log_a_matrix(q, uniq, alphas) / (alphas - 1.0)


def needs_multiprecision(q: float, sigma: float, orders) -> bool:
    """Whether :func:`rdp_sampled_gaussian` takes the mpmath path (about a second per order, see the module
    docstring) for some order: a fractional order (or an integer one above the binomial limit) whose trapezoid grid
    would exceed 2^21 points. That happens for tiny noise multipliers (sigma below about 3e-3 at the default orders:
    the grid needs about 1.8 alpha / sigma^2 points) and for orders far above 10^6 sigma. Mirrors the branches of
    :func:`_log_a_matrix` and :func:`_log_a_quadrature_pairs` for one sigma."""
    q = check_sampling_rate(q, "q")
    s = check_real("sigma", sigma, low=0.0, low_inclusive=False)
    alphas = check_orders(orders)
    if q == 1.0:
        return False
    is_int = (alphas == np.round(alphas)) & (alphas <= _MAX_BINOMIAL_TERMS)
    frac = alphas[~is_int]
    if frac.size == 0:
        return False
    with np.errstate(over="ignore"):
        step = float(_trapezoid_step(np.array([s]))[0])
        need = np.ceil((np.maximum(frac, 2.0) / s + 2.0 * _U_TAIL) / step) + 1
    return bool(np.any(need > _MAX_GRID_POINTS))


def one_step_epsilon(q: float, sigma: float, delta: float) -> float:
    """epsilon(delta) of ONE step of the Poisson-subsampled Gaussian mechanism, removal direction, exactly.

    With P = (1 - q) N(0, sigma^2) + q N(1, sigma^2) and Q = N(0, sigma^2), dP/dQ(x) = 1 - q + q e^((2x - 1)/(2
    sigma^2)) exceeds e^eps on a half-line, and the hockey-stick divergence is
    ``delta(eps) = q delta_G(eps'; mu = 1/sigma)`` with ``e^eps = 1 - q + q e^eps'`` and delta_G the Gaussian
    mechanism's profile (Balle & Wang 2018, Thm 8; the amplification-by-subsampling identity of Balle, Barthe,
    Gaboardi 2018, Thm 8, for this direction). So eps = log(1 - q + q e^eps') with eps' =
    :func:`~dpverify.calculus.mechanisms.gaussian.gaussian_epsilon` (delta/q, 1/sigma), and 0 when delta >= q.

    Any composition that releases such a step has at least this epsilon at this delta (composition is never below
    its parts), so it is a certified lower bound for ``T`` steps: cheap where the RDP bound needs the mpmath path
    (:func:`needs_multiprecision`). ``inf`` when 1/sigma^2 overflows a double (sigma below about 1e-154: the
    epsilon exceeds the float range)."""
    q = check_sampling_rate(q, "q")
    s = check_real("sigma", sigma, low=0.0, low_inclusive=False)
    d = check_delta(delta, allow_zero=False)
    if d >= q:
        return 0.0
    mu = 1.0 / s
    if not math.isfinite(mu * mu):
        return math.inf
    eps_prime = gaussian_epsilon(d / q, mu)
    if q == 1.0:
        return eps_prime
    return float(np.logaddexp(math.log1p(-q), math.log(q) + eps_prime))


def log_a_matrix(q: float, sigmas: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """``log A_alpha`` for each sigma (rows) and order (columns); inputs already validated.

    Internal entry point shared with :mod:`dpverify.calculus.accounting.moments` (where
    ``log A_{lambda+1}`` is the log-moment alpha(lambda) of Li et al. 2019, Def. 3).
    """
    return _log_a_matrix(q, np.asarray(sigmas, dtype=float), np.asarray(alphas, dtype=float))


def check_subsampled_orders(alphas: np.ndarray, q: float, name: str = "orders") -> None:
    """The orders of the subsampled Gaussian's RDP (q < 1) must be >= :data:`MIN_SUBSAMPLED_ORDER`: closer to 1 the
    quadrature's ``(1 + x)^alpha - 1 - alpha x`` loses its precision (about 1e-16 / (alpha - 1) relative: NaN at the
    double just above 1, 1e-7 at 1 + 1e-8), and the RDP is divided by ``alpha - 1``. Such an order gives no useful
    epsilon anyway (the conversion adds ``log(1 / delta) / (alpha - 1)``). A ``ValueError`` naming the order and the
    range; nothing to check at q = 1 (the closed form ``alpha / (2 sigma^2)`` holds at every order)."""
    if q < 1.0 and np.any(alphas < MIN_SUBSAMPLED_ORDER):
        bad = float(alphas[alphas < MIN_SUBSAMPLED_ORDER][0])
        raise ValueError(f"{name}: every Rényi order of the subsampled Gaussian (sampling rate q = {q:g} < 1) must be "
                         f"in [{MIN_SUBSAMPLED_ORDER!r}, inf), where its RDP is computed to 1e-9 (an order closer to 1 "
                         f"gives no useful epsilon); got order {bad!r}")


def _log_a_matrix(q: float, sigmas: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    check_subsampled_orders(alphas, q)
    # 1 / sigma^2 overflows for sigma below ~1e-154 (log A = inf: no privacy) and sigma^2 for sigma above ~1e154
    # (1 / sigma^2 = 0: log A = 0): both are the right limits, not errors to warn about
    with np.errstate(over="ignore", divide="ignore", under="ignore"):
        finite = np.isfinite(1.0 / sigmas**2)
        if finite.all():
            return _log_a_matrix_checked(q, sigmas, alphas)
        # 1 / sigma^2 = inf: A_alpha = E[(1 - q + q e^((2z - 1) / (2 sigma^2)))^alpha] = inf at every order (no
        # privacy), at once rather than through the mpmath quadrature
        out = np.full((sigmas.size, alphas.size), np.inf)
        if finite.any():
            out[finite] = _log_a_matrix_checked(q, sigmas[finite], alphas)
        return out


def _log_a_matrix_checked(q: float, sigmas: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    if q == 1.0:
        return np.outer(0.5 / sigmas**2, alphas * (alphas - 1.0))
    out = np.empty((sigmas.size, alphas.size))
    order = np.argsort(sigmas)  # ascending sigma: neighbours in a block have similar scales
    s_sorted = sigmas[order]
    is_int = (alphas == np.round(alphas)) & (alphas <= _MAX_BINOMIAL_TERMS)
    if np.any(is_int):
        cols = np.flatnonzero(is_int)
        out[np.ix_(order, cols)] = _log_a_int(q, s_sorted, alphas[cols].astype(np.int64))
    frac = np.flatnonzero(~is_int)
    if frac.size:
        # Many sigmas: the certified truncated series where it applies (one pass per order), the
        # quadrature for all the rest in one call. Few sigmas: the quadrature alone is faster.
        block = np.empty((sigmas.size, frac.size))
        ok = np.zeros(block.shape, dtype=bool)
        for k, j in enumerate(frac if sigmas.size >= _SERIES_MIN_SIGMAS else ()):
            block[:, k], ok[:, k] = _log_a_frac_series(q, s_sorted, float(alphas[j]))
        rows, cols = np.nonzero(~ok)
        if rows.size:
            block[rows, cols] = _log_a_quadrature_pairs(q, s_sorted[rows], alphas[frac][cols])
        out[np.ix_(order, frac)] = block
    return out


def _logsumexp_segments(terms: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """log of the sums of exp(terms) over column segments beginning at ``starts`` (per row)."""
    m = np.maximum.reduceat(terms, starts, axis=1)
    m = np.where(np.isfinite(m), m, 0.0)
    lengths = np.diff(np.append(starts, terms.shape[1]))
    with np.errstate(divide="ignore"):
        return m + np.log(np.add.reduceat(np.exp(terms - np.repeat(m, lengths, axis=1)), starts, axis=1))


# ---------------------------------------------------------------------------------------------
# integer orders: binomial expansion


def _log_expm1(y: np.ndarray) -> np.ndarray:
    """log(exp(y) - 1) = y + log(1 - exp(-y)) for y >= 0, accurate for tiny and huge y (-inf at 0)."""
    with np.errstate(divide="ignore"):
        return y + np.log(-np.expm1(-y))


def _log_a_int(q: float, sigmas: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """log A_alpha at integer orders (columns) for ascending ``sigmas`` (rows).

    MTZ 2019, Sec. 3.1, in the A - 1 form of the module docstring; the terms of all orders are
    laid end to end and reduced segment by segment.
    """
    lengths = alphas - 1  # terms i = 2 .. alpha
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    a_rep = np.repeat(alphas.astype(float), lengths)
    i = np.arange(lengths.sum(), dtype=float) - np.repeat(starts, lengths) + 2.0
    log_comb = -np.log(a_rep + 1.0) - special.betaln(a_rep - i + 1.0, i + 1.0)
    log_w = log_comb + i * math.log(q) + (a_rep - i) * math.log1p(-q)
    half_i2 = 0.5 * i * (i - 1.0)
    inv_var = 1.0 / sigmas**2  # descending
    out = np.empty((sigmas.size, alphas.size))
    rows = max(1, _BLOCK // i.size)
    for first in range(0, sigmas.size, rows):
        s_blk = inv_var[first : first + rows]
        # Every term increases with 1/sigma^2, so in each segment the largest term at the smallest
        # 1/sigma^2 bounds the maximum from below, and each term at the largest bounds it above.
        hi = log_w + _log_expm1(half_i2 * s_blk[0])
        lo_max = np.maximum.reduceat(log_w + _log_expm1(half_i2 * s_blk[-1]), starts)
        keep = np.flatnonzero(hi >= np.repeat(lo_max, lengths) - _LOG_NEGLIGIBLE)
        kept_starts = np.searchsorted(keep, starts)
        h_keep = half_i2[keep]
        if h_keep.max() * s_blk[0] <= _LINEAR_MAX_EXPONENT and log_w[keep].min() > _LOG_TINY:
            # No overflow or underflow possible: sum the positive terms in linear space.
            terms = np.expm1(np.outer(s_blk, h_keep))
            terms *= np.exp(log_w[keep])
            out[first : first + rows] = np.log1p(np.add.reduceat(terms, kept_starts, axis=1))
        else:
            terms = log_w[keep] + _log_expm1(np.outer(s_blk, h_keep))
            out[first : first + rows] = np.logaddexp(0.0, _logsumexp_segments(terms, kept_starts))
    return out


# ---------------------------------------------------------------------------------------------
# fractional orders: trapezoidal rule on the defining integral


def _series_coefficients(alphas: np.ndarray) -> np.ndarray:
    """C(alpha, k) for k = 2 .. _SERIES_TERMS + 1, one row per alpha, highest k first (Horner)."""
    c = [alphas * (alphas - 1.0) / 2.0]
    for k in range(2, _SERIES_TERMS + 1):
        c.append(c[-1] * (alphas - k) / (k + 1.0))
    return np.stack(c[::-1], axis=1)


def _log_g(w: np.ndarray, q: float, alpha: np.ndarray, coeffs: np.ndarray) -> np.ndarray:
    """log((1+x)^alpha - 1 - alpha x) with x = q expm1(w), for any real w.

    ``w`` is (rows, points); ``alpha`` (rows,); ``coeffs`` (rows, K) from :func:`_series_coefficients`.
    Three regimes: |alpha x| < 1e-3 by the Taylor series sum_k C(alpha, k) x^k (ratio of terms
    <= 2e-3, so _SERIES_TERMS = 6 terms reach 1e-16); x < 0 directly as
    expm1(alpha log1p(x)) - alpha x (relative rounding error <= 2 eps alpha / ((alpha - 1) |alpha x|)
    <= 1e-12 for alpha >= 1.001); x > 0 in log space (x may overflow a double).
    """
    out = np.empty_like(w)
    x = q * np.expm1(np.minimum(w, 700.0))
    a_full = alpha[:, None] * np.ones((1, w.shape[1]))
    t = a_full * x
    series = np.abs(t) < _SERIES_BOUND
    rows = np.nonzero(series)[0]
    xs = x[series]
    poly = coeffs[rows, 0]
    for k in range(1, coeffs.shape[1]):
        poly = poly * xs + coeffs[rows, k]
    with np.errstate(divide="ignore"):
        out[series] = 2.0 * np.log(np.abs(xs)) + np.log(poly)
    neg = ~series & (w <= 0.0)
    xn, an = x[neg], a_full[neg]
    out[neg] = np.log(np.expm1(an * np.log1p(xn)) - t[neg])
    pos = ~series & (w > 0.0)
    ap = a_full[pos]
    lx = math.log(q) + _log_expm1(w[pos])
    y = ap * np.logaddexp(0.0, lx)
    log_1pt = np.logaddexp(0.0, np.log(ap) + lx)
    out[pos] = y + np.log(-np.expm1(log_1pt - y))
    return out


def _log_a_frac_series(q: float, sigmas: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """log A_alpha at a fractional order by the truncated binomial series, with a certified error.

    Returns (values, ok): ``ok`` marks the sigmas (ascending) where the result is certified to
    relative error <= 1e-13; the others are left to the quadrature.

    With w_i = C(alpha, i) q^i (1-q)^(alpha-i) (signed) and c_i = (i^2 - i)/(2 sigma^2), the MTZ 2019
    Sec. 3.3 decomposition A = A0 + A1 at z0 = sigma^2 L + 1/2, L = log((1-q)/q), gives

        | A - 1 - sum_{i=2}^{K} w_i expm1(c_i) |
            <= (sum_i |C(alpha, i)| + 2^alpha) e^(-z0^2 / (2 sigma^2))      [the Phi factors, A1]
             + z0 |w_K| e^(c_K) + sum_{i>K} |w_i|                            [truncation]

    for ceil(alpha) <= K < sigma^2 L and alpha < z0: each dropped Phi-tail term is
    |C(alpha, i)| (1-q)^alpha e^(-z0^2/(2 sigma^2)) exactly after completing the square; the terms
    |w_i| e^(c_i) decrease for alpha <= i < sigma^2 L; A1 <= (2 q r)^alpha integrated over z > z0; and
    sum_i w_i = 1, sum_i i w_i = alpha q (binomial series, q < 1/2) remove the i = 0, 1 terms.
    sum_i |C(alpha, i)| <= 2^(alpha + 1) for the orders used here. Rounding is bounded by requiring
    sum |terms| <= 1e3 |sum|. Where it applies (sigma^2 log((1-q)/q)^2 large, the usual DP-SGD regime) it
    costs K expm1 per sigma instead of a quadrature grid.
    """
    n = sigmas.size
    values = np.zeros(n)
    ok = np.zeros(n, dtype=bool)
    if not (q < 1.0 / 3.0 and alpha <= _SERIES_MAX_ORDER):
        return values, ok
    big_l = math.log1p(-q) - math.log(q)
    log_q, log_1mq = math.log(q), math.log1p(-q)
    k_min = int(math.ceil(alpha))
    # Coefficients C(alpha, i), i = 0 .. k_max + 1, by recurrence (bounded by 2^alpha here).
    k_cap = k_min + _SERIES_EXTRA_TERMS
    coef = np.ones(k_cap + 2)
    for j in range(k_cap + 1):
        coef[j + 1] = coef[j] * (alpha - j) / (j + 1.0)
    i_all = np.arange(k_cap + 2, dtype=float)
    with np.errstate(under="ignore"):
        w_all = coef * np.exp(i_all * log_q + (alpha - i_all) * log_1mq)
    log_phi_const = (alpha + 3.0) * math.log(2.0)
    inv_var = 1.0 / sigmas**2
    # sigma^2 L increases with sigma: the sigmas with room for K >= max(ceil(alpha), 2) form a suffix.
    k_need = max(k_min, 2)
    start = int(np.searchsorted(sigmas**2 * big_l, k_need + 1.0, side="left"))
    start = max(start, int(np.searchsorted(sigmas * math.sqrt(1200.0), k_need, side="left")))
    first = start
    while first < n:
        sig_lo = sigmas[first]  # smallest sigma of the block: the binding one for K
        # Blocks span sigmas within 25 % so that one K serves them all.
        stop = min(first + _SERIES_BLOCK, int(np.searchsorted(sigmas, 1.25 * sig_lo, side="right")))
        stop = max(stop, first + 1)
        s_blk = inv_var[first:stop]
        # K: below sigma^2 L (monotone decrease) and below overflow of expm1(c_K / sigma^2).
        k_hi = min(k_cap, int(math.floor(sig_lo**2 * big_l - 1e-9)), int(math.sqrt(1200.0) * sig_lo))
        if k_hi < k_need:
            first = stop
            continue
        i = np.arange(2, k_hi + 1, dtype=float)
        e = np.expm1(np.outer(s_blk, 0.5 * i * (i - 1.0)))
        w = w_all[2 : k_hi + 1]
        am1 = e @ w
        abs_sum = e @ np.abs(w)
        z0 = big_l / s_blk + 0.5
        bound = (
            np.exp(log_phi_const - 0.5 * z0**2 * s_blk)
            + z0 * abs(w_all[k_hi]) * (e[:, -1] + 1.0)
            + abs(w_all[k_hi + 1]) / (1.0 - q / (1.0 - q))
        )
        good = (am1 > 0) & (bound <= 1e-13 * am1) & (abs_sum <= 1e3 * am1) & (z0 > alpha)
        values[first:stop] = np.log1p(np.where(good, am1, 0.0))
        ok[first:stop] = good
        first = stop
    return values, ok


def _trapezoid_step(sigma: np.ndarray) -> np.ndarray:
    """Grid step in u = z/sigma with discretisation error <= e^-36 relative.

    The trapezoidal rule on the real line errs by about exp(d^2/2 - 2 pi d / h) for an integrand
    phi(u) f(u) analytic in |Im u| < d (the e^(d^2/2) is the growth of phi off the real axis); here
    d = min(pi sigma, 2 pi / h). Solving for exponent <= -36 gives h <= pi sqrt(2/36) = 0.74 when
    sigma >= 2/h, else h <= 2 pi^2 sigma / (36 + pi^2 sigma^2 / 2).

    The second formula is used only where it applies (sigma < 2 / 0.74 = 2.70, where it is increasing and
    reaches 0.74); for larger sigma the strip half-width d = 2 pi / h < pi sigma is available and h = 0.74
    holds. (Applying the second formula beyond its range makes h fall like 4 / sigma, so the grid, and the
    cost, grew linearly with the noise multiplier: 18 s at sigma = 1e9 through the mpmath fallback.)
    The grid therefore has at most (2 * 9.5 + max(alpha, 2) / sigma) / 0.74 + 1 points for sigma >= 2.70:
    the cost does not grow with the noise level.
    """
    sigma = np.asarray(sigma, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):  # inf / inf at sigma ~1e308, where the 0.74 branch is taken
        small = 2.0 * math.pi**2 * sigma / (36.0 + 0.5 * math.pi**2 * sigma**2)
    return np.where(sigma >= 2.0 / 0.74, 0.74, np.minimum(0.74, small))


def _log_a_quadrature(q: float, sigmas: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """log A_alpha for every sigma (rows) and alpha (columns) by the trapezoidal rule."""
    sig = np.repeat(sigmas, alphas.size)
    alp = np.tile(alphas, sigmas.size)
    return _log_a_quadrature_pairs(q, sig, alp).reshape(sigmas.size, alphas.size)


def _log_a_quadrature_pairs(q: float, sig: np.ndarray, alp: np.ndarray) -> np.ndarray:
    """log A_alpha for the pairs (sig[k], alp[k]) by the trapezoidal rule (see module docstring).

    Pairs needing similar grids share one (step = the block's smallest, range = its widest).
    """
    step = _trapezoid_step(sig)
    u_hi = np.maximum(alp, 2.0) / sig + _U_TAIL
    need = np.ceil((u_hi + _U_TAIL) / step) + 1
    rank = np.argsort(need, kind="stable")
    result = np.empty(sig.size)
    first = 0
    while first < rank.size:
        n0 = need[rank[first]]
        if n0 > _MAX_GRID_POINTS:
            for r in rank[first:]:
                result[r] = _log_a_mpmath(q, sig[r], alp[r])
            break
        stop = min(first + max(1, int(_BLOCK // (2 * n0))), int(np.searchsorted(need[rank], 2 * n0, "right")))
        rows = rank[first:stop]
        h = step[rows].min()
        u = -_U_TAIL + h * np.arange(int(math.ceil((u_hi[rows].max() + _U_TAIL) / h)) + 1)
        s_blk = sig[rows, None]
        w = u / s_blk - 0.5 / s_blk**2
        terms = _log_g(w, q, alp[rows], _series_coefficients(alp[rows])) - 0.5 * u**2 - _HALF_LOG_2PI
        log_am1 = math.log(h) + _logsumexp_segments(terms, np.array([0]))[:, 0]
        result[rows] = np.logaddexp(0.0, log_am1)
        first = stop
    return result


def _log_a_mpmath(q: float, sigma: float, alpha: float) -> float:
    """log A_alpha by mpmath quadrature (for orders beyond the float64 grids)."""
    with mp.workdps(30 + int(max(0.0, -2.0 * math.log10(q)))):
        qm, sm, am = mp.mpf(q), mp.mpf(sigma), mp.mpf(alpha)

        def integrand(u):
            x = qm * mp.expm1(u / sm - 1 / (2 * sm**2))
            return mp.npdf(u) * ((1 + x) ** am - 1 - am * x)

        peak = am / sm
        val = mp.quad(integrand, [-mp.inf, -_U_TAIL, 0, peak - _U_TAIL, peak, peak + _U_TAIL, mp.inf])
        return float(mp.log1p(val))

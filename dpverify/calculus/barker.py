"""The privacy calculus of DP MCMC with the Barker acceptance test (Heikkilä, Jälkö, Dikmen, Honkela, NeurIPS 2019).

One iteration of the subsampled DP Barker test releases (white-box view) the noisy estimate

    Z = N tau mean_{i in B} R_i + N(0, sigma_nor^2 - V_B),      V_B = (N tau)^2 s_B^2 / b,

of the tempered log-likelihood ratio, where ``B`` is a batch of ``b`` of the ``N`` records drawn without
replacement, ``R_i`` the per-record log-likelihood ratios clipped to ``[-C, C]``, ``s_B^2`` their (biased) batch
variance, ``tau`` the temperature and ``sigma_nor^2 = 2`` the variance of the normal part of the paper's
normal-plus-correction decomposition of the logistic variable of Barker's test. The proposal is accepted iff
``Z + log prior ratio + V_corr > 0`` (post-processing). Under ``N tau C <= sqrt(b)``:

- the batch means of two batches that differ in one record differ by at most ``2 / sqrt(b)``;
- ``V_B <= 1`` (Popoviciu: ``s_B^2 <= C^2``), so the added noise variance ``2 - V_B`` is in ``[1, 2]``;
- the variances differ by at most ``5 / b`` (``1/b`` from the mean of squares, ``4/b`` from the squared mean),

and the closed-form Rényi divergence of two normal laws (:func:`gaussian_renyi_divergence`) gives the per-iteration
bound :func:`barker_step_rdp` ``= 5/(2b) + log(2b / (b - 5 alpha)) / (2 (alpha - 1)) + 2 alpha / (b - 5 alpha)`` for
``1 < alpha < b / 5`` (the authors' ``exact_rdp.rd_approx``). Subsampling is amplified with Wang, Balle and
Kasiviswanathan's bound for sampling without replacement (AISTATS 2019, Thm 9) at integer orders
(:func:`amplified_rdp`), composed over ``T`` iterations and converted with ``eps = T eps'(alpha) + log(1/delta) /
(alpha - 1)`` (:func:`heikkila_epsilon`, the authors' ``get_privacy_spent``).

Exact privacy of a canary pair (:func:`canary_statistic_mixture`, :func:`composed_loss_masses`): on the linear model
in one dimension with records ``+-R`` and a proposal of fixed step length, every clipped ratio is ``+-c`` with ``c =
min(R step, C)``; the sign-normalised statistic of one iteration is then a mixture over the number ``k`` of ``+R``
records in the batch (hypergeometric) of normal laws, the same at every iteration, so the path's privacy loss is the
sum of ``T`` independent copies of one iteration's loss.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats
from scipy.optimize import brentq, nnls
from scipy.signal import fftconvolve
from scipy.special import gammaln, logsumexp, ndtr

from dpverify.calculus.loss_masses import LossMasses
from dpverify.validation import check_delta, check_positive_int, check_real

__all__ = [
    "SIGMA_NOR2",
    "gaussian_renyi_divergence",
    "barker_step_rdp",
    "max_order",
    "amplified_rdp",
    "heikkila_epsilon",
    "clip_bound",
    "logistic_over_normal_cf",
    "CorrectionMixture",
    "correction_mixture",
    "batch_sign_means",
    "canary_statistic_mixture",
    "mixture_logpdf",
    "composed_loss_masses",
]

#: The variance of the normal part of the DP Barker test (the authors' ``noise_scale = sqrt(2)``).
SIGMA_NOR2 = 2.0


def gaussian_renyi_divergence(alpha, mu1, var1, mu2, var2) -> np.ndarray:
    """``D_alpha(N(mu1, var1) || N(mu2, var2))`` in closed form (the formula in the header of the authors'
    ``exact_rdp.py``)::

        log(s2 / s1) + log(var2 / v*) / (2 (alpha - 1)) + alpha (mu1 - mu2)^2 / (2 v*),
        v* = alpha var2 + (1 - alpha) var1,

    ``inf`` where ``v* <= 0``. Elementwise (numpy broadcasting); ``alpha > 1``, variances > 0."""
    a = np.asarray(alpha, dtype=float)
    m1, v1, m2, v2 = (np.asarray(x, dtype=float) for x in (mu1, var1, mu2, var2))
    if np.any(a <= 1):
        raise ValueError("alpha must be > 1")
    if np.any(v1 <= 0) or np.any(v2 <= 0):
        raise ValueError("var1 and var2 must be > 0")
    vstar = a * v2 + (1.0 - a) * v1
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (0.5 * np.log(v2 / v1) + np.log(v2 / vstar) / (2.0 * (a - 1.0))
               + a * (m1 - m2) ** 2 / (2.0 * vstar))
    return np.where(vstar > 0, out, np.inf)


def max_order(b) -> np.ndarray:
    """The largest order of the per-iteration bound: ``b / 5`` (exclusive)."""
    return np.asarray(b, dtype=float) / 5.0


def barker_step_rdp(alpha, b) -> np.ndarray:
    """Heikkilä et al.'s per-iteration RDP of the DP Barker test on a batch of ``b`` records (``N tau C <= sqrt(b)``,
    ``sigma_nor^2 = 2``): ``5/(2b) + log(2b / (b - 5 alpha)) / (2 (alpha - 1)) + 2 alpha / (b - 5 alpha)`` for ``1 <
    alpha < b / 5``; ``inf`` at larger orders. Elementwise."""
    a = np.asarray(alpha, dtype=float)
    bb = np.asarray(b, dtype=float)
    if np.any(a <= 1):
        raise ValueError("alpha must be > 1")
    if np.any(bb <= 0):
        raise ValueError("b must be > 0")
    gap = bb - 5.0 * a
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 5.0 / (2.0 * bb) + np.log(2.0 * bb / gap) / (2.0 * (a - 1.0)) + 2.0 * a / gap
    return np.where(gap > 0, out, np.inf)


def _log_binom(n: int, k: np.ndarray) -> np.ndarray:
    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


def amplified_rdp(alpha: int, q: float, step_rdp) -> float:
    """Wang, Balle, Kasiviswanathan (AISTATS 2019, Thm 9; sampling without replacement, replace-one, ``eps(inf) =
    inf``) as Heikkilä et al. use it (``exact_rdp.amplified_RDP``), at an integer order ``alpha >= 2``::

        eps'(alpha) = log(1 + q^2 C(alpha, 2) min(4 (e^{eps(2)} - 1), 2 e^{eps(2)})
                          + sum_{j=3}^{alpha} 2 q^j C(alpha, j) e^{(j - 1) eps(j)}) / (alpha - 1),

    ``step_rdp(j)`` the per-iteration RDP at order ``j`` (a callable or a sequence starting at order 2). Summed in log
    space (``logsumexp``), so large orders do not overflow; ``inf`` when some ``eps(j)`` is infinite."""
    a = check_positive_int(alpha, "alpha", minimum=2)
    qq = check_real("q", q, low=0.0, high=1.0, low_inclusive=False)
    orders = np.arange(2, a + 1, dtype=float)
    eps = (np.asarray([float(step_rdp(j)) for j in range(2, a + 1)]) if callable(step_rdp)
           else np.asarray(step_rdp, dtype=float)[: a - 1])
    if eps.size != a - 1:
        raise ValueError(f"step_rdp must give the RDP at orders 2..{a}; got {eps.size} values")
    if not np.all(np.isfinite(eps)):
        return math.inf
    e2 = float(eps[0])
    log_min2 = min(math.log(4.0) + e2 + math.log1p(-math.exp(-e2)) if e2 > 0 else -math.inf, math.log(2.0) + e2)
    terms = [0.0, 2.0 * math.log(qq) + float(_log_binom(a, np.array(2.0))) + log_min2]
    j = orders[1:]
    terms += list(j * math.log(qq) + _log_binom(a, j) + math.log(2.0) + (j - 1.0) * eps[1:])
    return float(logsumexp(terms) / (a - 1.0))


#: log of the largest float64: where the authors' plain-float evaluation of the amplification overflows.
_LOG_MAX_FLOAT = math.log(np.finfo(float).max)


def _overflows_in_float64(alpha: int, q: float, eps: np.ndarray) -> bool:
    """Whether ``exact_rdp.amplified_RDP`` in float64 gives a non-finite value at this order: some ``exp((j - 1)
    eps(j))`` overflows (then ``q^j C(alpha, j) exp(...)`` is inf, or nan where ``q^j`` underflowed), or the sum
    inside the log does."""
    j = np.arange(3, alpha + 1, dtype=float)
    if j.size and float(np.max((j - 1.0) * eps[1:])) > _LOG_MAX_FLOAT:
        return True
    return (alpha - 1.0) * amplified_rdp(alpha, q, eps) > _LOG_MAX_FLOAT


def heikkila_epsilon(b: int, N: int, T: int, delta: float | None = None, max_alpha: int = 10,
                     authors_search: bool = True) -> tuple[float, int]:
    """``(epsilon, order)``: the authors' ``get_privacy_spent(b, N, T, max_alpha, delta)``: ``q = b / N``, ``delta =
    1 / N`` by default, and the smallest ``T eps'(alpha) + log(1 / delta) / (alpha - 1)`` over the integer orders
    ``3 <= alpha < min(max_alpha, b // 5)`` (:func:`amplified_rdp` of :func:`barker_step_rdp`). The authors' loop stops
    at the first order where their float64 amplification is not finite; ``authors_search=True`` (default) stops there
    too (so the result is theirs), ``False`` searches every order (log space never overflows; the result can only be
    smaller, and is as valid). ``(inf, 0)`` when no order qualifies (``b < 20`` or ``max_alpha <= 3``)."""
    bb = check_positive_int(b, "b")
    n = check_positive_int(N, "N", minimum=bb)
    t = check_positive_int(T, "T")
    d = 1.0 / n if delta is None else check_delta(delta, allow_zero=False)
    top = min(check_positive_int(max_alpha, "max_alpha"), bb // 5)
    q = bb / n
    best, best_order = math.inf, 0
    for a in range(3, top):
        eps = barker_step_rdp(np.arange(2, a + 1), bb)
        if authors_search and _overflows_in_float64(a, q, eps):
            break
        amp = amplified_rdp(a, q, eps)
        if not math.isfinite(amp):
            break
        total = t * amp - math.log(d) / (a - 1.0)
        if total < best:
            best, best_order = total, a
    return best, best_order


def clip_bound(b: float, N: float, temperature: float) -> float:
    """The largest clip ``C`` of the log-likelihood ratios with ``N tau C <= sqrt(b)`` (then ``V_B <= 1``)."""
    return math.sqrt(check_real("b", b, low=0.0, low_inclusive=False)) / (
        check_real("N", N, low=0.0, low_inclusive=False) * check_real("temperature", temperature, low=0.0,
                                                                        low_inclusive=False))


def logistic_over_normal_cf(t, var: float) -> np.ndarray:
    """``phi_logistic(t) / phi_N(0, var)(t) = (pi t / sinh(pi t)) exp(var t^2 / 2)``: the characteristic function an
    exact correction ``V_corr`` (``N(0, var) + V_corr = Logistic``) would need. It exceeds 1 for large ``|t|`` at every
    ``var > 0``, so no exact correction exists: Seita et al.'s and the authors' corrections are approximations (the
    test is approximate; the privacy is not affected, the correction being post-processing)."""
    tt = np.abs(np.asarray(t, dtype=float))
    v = check_real("var", var, low=0.0, low_inclusive=False)
    with np.errstate(over="ignore", divide="ignore"):
        log_ratio = np.where(tt > 0, np.log(np.pi * np.where(tt > 0, tt, 1.0))
                             - (np.pi * tt + np.log1p(-np.exp(-2 * np.pi * tt)) - math.log(2.0)), 0.0)
    return np.exp(log_ratio + v * tt**2 / 2.0)


@dataclass(frozen=True)
class CorrectionMixture:
    """An approximate Barker correction: a Gaussian mixture ``V_corr`` with ``N(0, var) + V_corr`` close to the
    standard logistic law; ``sup_error`` is the largest density error on ``[-10, 10]``."""

    var: float
    weights: np.ndarray
    means: np.ndarray
    scale: float
    sup_error: float

    def sample(self, rng: np.random.Generator, size) -> np.ndarray:
        k = rng.choice(self.weights.size, size=size, p=self.weights)
        return self.means[k] + self.scale * rng.standard_normal(size)


@lru_cache(maxsize=8)
def correction_mixture(var: float = SIGMA_NOR2, scale: float = 0.3) -> CorrectionMixture:
    """Fit the correction for a normal part of variance ``var`` (< pi^2/3, the logistic variance): non-negative least
    squares of the logistic density on ``[-10, 10]`` by ``N(m_k, var + scale^2)`` with means ``m_k`` on a grid of
    step 0.25 over ``[-12, 12]`` (symmetrised), the authors' mixture construction (``X_corr.py``) done by NNLS instead
    of Adam."""
    v = check_real("var", var, low=0.0, high=math.pi**2 / 3, low_inclusive=False, high_inclusive=False)
    x = np.linspace(-10.0, 10.0, 801)
    target = stats.logistic.pdf(x)
    half = np.arange(0.0, 12.0 + 1e-9, 0.25)
    s = math.sqrt(v + scale**2)
    cols = [stats.norm.pdf(x, 0.0, s)] + [0.5 * (stats.norm.pdf(x, m, s) + stats.norm.pdf(x, -m, s)) for m in half[1:]]
    w, _ = nnls(np.column_stack(cols), target)
    w = w / w.sum()
    weights = np.concatenate([[w[0]], w[1:] / 2, w[1:] / 2])
    means = np.concatenate([[0.0], half[1:], -half[1:]])
    keep = weights > 0
    weights, means = weights[keep] / weights[keep].sum(), means[keep]
    fitted = np.sum(weights[:, None] * stats.norm.pdf(x[None, :], means[:, None], s), axis=0)
    return CorrectionMixture(v, weights, means, scale, float(np.max(np.abs(fitted - target))))


def batch_sign_means(N: int, n_plus: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """``(weights, m)``: the law of the batch mean ``m_k = (2k - b) / b`` of the signs of a batch of ``b`` drawn
    without replacement from ``N`` records ``+-1`` of which ``n_plus`` are ``+1`` (``k ~ Hypergeom(N, n_plus, b)``)."""
    n = check_positive_int(N, "N")
    bb = check_positive_int(b, "b", maximum=n)
    npl = check_positive_int(n_plus, "n_plus", minimum=0, maximum=n)
    k = np.arange(max(0, bb - (n - npl)), min(bb, npl) + 1)
    weights = stats.hypergeom.pmf(k, n, npl, bb)
    return weights / weights.sum(), (2.0 * k - bb) / bb


def canary_statistic_mixture(N: int, n_plus: int, b: int, scaled_clip: float,
                             sigma2: float = SIGMA_NOR2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(weights, means, variances)`` of one iteration's sign-normalised statistic on a dataset of ``N`` records
    ``+-R`` with ``n_plus`` at ``+R``: ``k ~ Hypergeom(N, n_plus, b)`` records ``+R`` in the batch, batch mean ``m_k =
    (2k - b) / b`` of the signs (:func:`batch_sign_means`), and ``Z | k ~ N(c' m_k, sigma2 - c'^2 (1 - m_k^2) / b)``
    with ``c' = N tau c`` the scaled clipped ratio (``scaled_clip``)."""
    weights, m = batch_sign_means(N, n_plus, b)
    c = check_real("scaled_clip", scaled_clip, low=0.0)
    variances = sigma2 - c * c * (1.0 - m * m) / b
    if np.any(variances <= 0):
        raise ValueError(f"scaled_clip = {c} makes the added noise variance <= 0 (needs (N tau c)^2 < b sigma2)")
    return weights, c * m, variances


def mixture_logpdf(z, weights, means, variances) -> np.ndarray:
    """``log sum_k w_k N(z; mu_k, v_k)`` elementwise in ``z`` (log space)."""
    zz = np.asarray(z, dtype=float)[..., None]
    lw = np.log(np.asarray(weights, dtype=float))
    v = np.asarray(variances, dtype=float)
    comp = lw - 0.5 * (zz - means) ** 2 / v - 0.5 * np.log(2 * np.pi * v)
    return logsumexp(comp, axis=-1)


def composed_loss_masses(p_mix, q_mix, T: int, *, cells: int = 20001, width: float = 14.0,
                         interval: float = 2e-3) -> LossMasses:
    """The privacy-loss law of ``T`` independent iterations of ``P`` = mixture ``p_mix`` against ``Q`` = mixture
    ``q_mix`` (each ``(weights, means, variances)``). One iteration: the real line cut into ``cells`` intervals over
    ``width`` standard deviations around the components (two infinite end cells), each cell's exact P and Q masses
    (normal CDF differences), cells grouped by their loss rounded to ``interval``; ``T`` iterations: the grouped laws
    convolved ``T`` times (FFT). Grouping events is post-processing, so the result's epsilon is at most the pair's and
    converges to it as ``interval`` and the cells shrink."""
    t = check_positive_int(T, "T")
    comps = [np.asarray(x, dtype=float) for x in (*p_mix, *q_mix)]
    means = np.concatenate([comps[1], comps[4]])
    sds = np.sqrt(np.concatenate([comps[2], comps[5]]))
    lo, hi = float(np.min(means - width * sds)), float(np.max(means + width * sds))
    edges = np.concatenate([[-np.inf], np.linspace(lo, hi, cells - 1), [np.inf]])

    def masses(w, m, v):
        s = np.sqrt(v)
        cdf_hi = ndtr((edges[1:, None] - m) / s)
        cdf_lo = ndtr((edges[:-1, None] - m) / s)
        return np.sum(w * np.maximum(cdf_hi - cdf_lo, 0.0), axis=1)

    p1, q1 = masses(*comps[:3]), masses(*comps[3:])
    keep = (p1 > 1e-300) & (q1 > 1e-300)
    p1, q1 = p1[keep], q1[keep]
    idx = np.round(np.log(p1 / q1) / interval).astype(np.int64)
    base = int(idx.min())
    pg = np.bincount(idx - base, weights=p1)
    qg = np.bincount(idx - base, weights=q1)
    pt, qt = _self_convolve(pg, t), _self_convolve(qg, t)
    keep2 = (pt > 1e-14) & (qt > 1e-14)  # FFT round-off is ~1e-17 of the total mass
    pt, qt = pt[keep2], qt[keep2]
    return LossMasses(np.log(pt / qt), pt, qt, f"{t} iterations of a normal-mixture pair, loss cells of {interval:g}")


def _self_convolve(m: np.ndarray, t: int) -> np.ndarray:
    out = np.array([1.0])
    power = m
    while t:
        if t & 1:
            out = np.maximum(fftconvolve(out, power), 0.0)
        t >>= 1
        if t:
            power = np.maximum(fftconvolve(power, power), 0.0)
    return out

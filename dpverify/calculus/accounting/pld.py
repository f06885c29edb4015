"""A privacy-loss-distribution (PLD) accountant with a rigorous error bracket.

**What is represented.** A run is one ordered pair of adjacent datasets (D, D'); each step t is a pair
(P_t, Q_t) = (M_t(D), M_t(D')) whose privacy loss ``L = log dP/dQ`` is a monotone function of one real
output x (every pair below is one-dimensional after rotating and dividing by the noise standard deviation;
``mu`` = sensitivity / noise std):

- ``gaussian``: P = N(mu, 1) vs Q = N(0, 1), L(x) = mu x - mu^2/2 (symmetric: the reverse pair has the same
  loss law).
- ``mixture`` (subsampled Gaussian): P = (1-q) N(0, 1) + q N(mu, 1) vs Q = N(0, 1),
  L(x) = log(1 - q + q exp(mu x - mu^2/2)) >= log(1 - q). Two readings of the same pair family:

  * Poisson sampling with rate q under add/remove adjacency: (P, Q) is the "remove" pair and its reverse
    (Q, P) the "add" pair (Mironov, Talwar, Zhang 2019, "Rényi differential privacy of the sampled Gaussian
    mechanism"; Zhu, Dong, Wang 2022, AISTATS, "Optimal accounting of differential privacy via
    characteristic function", dominating pairs of Poisson subsampling);
  * fixed-size sampling without replacement (batch b of N records, q = b/N) under replace-one adjacency,
    with mu = replace-one sensitivity / noise std: the dominating pair is ((1-q) P0 + q P1, P0) for the
    Gaussian pair (P1, P0) (Balle, Barthe, Gaboardi 2018, NeurIPS, "Privacy amplification by subsampling:
    tight analyses via couplings and divergences", substitution relation with subsampling without
    replacement; Zhu, Dong, Wang 2022, dominating pair ((1-q)P + qQ, P)).

- ``pure_dp(epsilon)``: randomized response, P = (e^eps, 1)/(1 + e^eps), Q reversed, the worst pair of pure
  epsilon-DP (Kairouz, Oh, Viswanath 2015), e.g. a one-posterior-sample release claimed epsilon-DP.

The steps compose (heterogeneous steps, repeated steps self-composed by repeated squaring with FFT
convolution). The *forward* composition composes the forward pairs of all steps, the *backward* composition
their reverses; epsilon(delta) is the larger of the two directions (as dp-accounting does with its
``pmf_remove`` / ``pmf_add``).

**The one functional everything rests on.** For a (sub-)probability law w of the privacy loss under P (its
"P-law"; mass may sit at +inf), write

    H_w(t) = E_w[(1 - t e^{-L})_+],   t >= 0,   so that   delta(eps) = H_w(e^eps)

is the hockey-stick divergence of the pair at eps (Balle et al. 2018; Sommer, Meiser, Mohammadi 2019).
Three facts make every bound below rigorous:

1. *Composition.* The P-law of a product pair is the convolution of the P-laws, and
   ``H_{w1*w2}(t) = E_{w2}[H_{w1}(t e^{-L2})]``; so if ``H_{w1'} <= H_{w1}`` and ``H_{w2'} <= H_{w2}``
   pointwise on t >= 0, then ``H_{w1'*w2'} <= H_{w1*w2}`` (apply the identity twice, once in each factor).
   The same with >=.
2. *Rounding.* ``(1 - t e^{-l})_+`` is non-decreasing in l and equals 1 at l = +inf: moving mass to a larger
   loss (or to +inf) raises H pointwise, moving it to a smaller loss (or dropping it) lowers H
   (privacy buckets, Meiser & Mohammadi 2018, "Tight on budget? Tight bounds for r-fold approximate
   differential privacy", CCS).
3. *Splitting and merging.* For atoms (p, q), ``(p - tq)_+`` is subadditive: splitting an atom into atoms
   that carry the same P- and Q-mass raises H pointwise; merging lowers it (Blackwell order: merging is a
   post-processing).

**Discretisation on the grid of width h = ``interval``** (losses k h). Each pair is cut at the loss values
k h/2 into half-cells whose P- and Q-masses come in closed form from the inverse of the (monotone) loss
function and the normal CDF in log space (``scipy.special.log_ndtr``, and ``erfcx`` for differences of tail
masses), never by sampling. The range of losses kept per direction leaves at most ``tail_mass``/2 of mass
in each tail.

- *Upper (pessimistic) law*: connect-the-dots (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022,
  "Connect the dots: tighter discrete approximations of privacy loss distributions", PETS, Alg. 1): each
  half-cell, merged into an atom with loss l in [kh, (k+1)h], is split between the grid points kh and (k+1)h
  keeping its P- and Q-mass (fact 3): H is raised pointwise and is exact at the grid points. The tail
  beyond the range goes to +inf (right) or up to the first grid point (left) (fact 2).
- *Lower (optimistic) law*: H of the true law, minus the two tails (fact 2), lies above the tangent line
  of H at each half-grid point ``m = e^{(k+1/2)h}``; the tangent at m sits below H by ``B_k`` at ``e^{kh}``
  and by ``A_{k+1}`` at ``e^{(k+1)h}``, where ``B_k = sum over the half-cell (kh, (k+1/2)h] of (p - e^{kh} q)``
  and ``A_{k+1} = sum over ((k+1/2)h, (k+1)h] of (e^{(k+1)h} q - p)``. So the piecewise-linear function
  through the values ``H(e^{kh}) - max(A_k, B_k)`` lies below H on every grid cell, and so does its greatest
  convex minorant (isotonic regression of its slopes, ``scipy.optimize.isotonic_regression``, needed only
  where the loss density changes on the scale of h). Its slope changes are the P-masses, on the grid, of a
  law whose H is below the true one at every t: a rigorous lower law whose error, like that of
  connect-the-dots, is second order in h where the loss density is smooth. Where the law *jumps* (the
  subsampled Gaussian's loss is >= log(1 - q), so its remove law starts, and its add law ends, with a wall
  of mass), lowering H by the wall's tangent gap at every t would be a first-order error per step that
  composition multiplies; there the wall (the bottom cells up to the end of their steep rise, resp. the
  top cell) is first merged with just enough mass from the other side of a grid point that the merged atom
  sits exactly on it (fact 3: a post-processing, which keeps both total masses). The far right end, where H
  vanishes, is closed with the tangent at the last kept grid point.
- *Composition*: repeated squaring and FFT convolution (``scipy.signal.fftconvolve``; Koskela, Jälkö,
  Honkela 2020, "Computing tight differential privacy guarantees using FFT", AISTATS). After each
  convolution, tails of mass <= ``tail_mass``/2 are cut: upper laws send the right tail to +inf and the left
  tail up to the first kept point, lower laws drop the left tail and move the right tail down to the last
  kept point (fact 2). Ends made only of entries at the FFT round-off level (< 2e-15 ||a||_2 ||b||_2; the
  measured round-off is ~4e-16 of that) are cut the same way, or repeated squaring would let round-off
  grow the arrays without bound.

By facts 1-3, for every eps and both directions, H_lower(e^eps) <= delta_true(eps) <= H_upper(e^eps), hence
``epsilon_lower(delta) <= epsilon_true(delta) <= epsilon_upper(delta)``. The only non-rigorous ingredient is
floating point: FFT convolution has absolute round-off near 1e-16 of the largest mass (negative round-off
is clipped to 0), and the split fractions carry relative errors near 1e-8; deltas below ~1e-13 are not
resolved, and a delta below the mass the upper law holds at +inf gives ``epsilon_upper = inf``.

epsilon(delta) of a discrete law with masses m_j at losses l_j: delta(eps) = sum_{l_j > eps} m_j
(1 - e^{eps - l_j}) + m_inf is computed at every grid point in one pass of non-negative increments
(``scipy.signal.lfilter``), then inverted exactly on the grid cell where it crosses delta.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, isotonic_regression
from scipy.special import erfcx, expit, log_ndtr, ndtr, ndtri

from dpverify.validation import (
    check_delta,
    check_epsilon,
    check_positive_int,
    check_real,
    check_sampling_rate,
)
from dpverify.calculus.accounting.base import PrivacyAccountant
from dpverify.calculus.accounting.described import Described, is_description, is_gaussian_release, is_pure_dp_release
from dpverify.calculus.guarantees import Conversion

__all__ = [
    "DEFAULT_INTERVAL",
    "DEFAULT_TAIL_MASS",
    "PrivacyLossDistribution",
    "PldAccountant",
    "gaussian_pld",
    "subsampled_gaussian_pld",
    "pure_dp_pld",
    "identity_pld",
    "grid_law_pld",
    "normal_log_mass",
]

#: Grid width of the privacy loss (dp-accounting's default ``value_discretization_interval``).
DEFAULT_INTERVAL: float = 1e-4
#: Mass cut from the tails when a step is discretised and after each convolution (dp-accounting's
#: ``tail_mass_truncation``); the upper law keeps it at +inf, so deltas below it give epsilon_upper = inf.
DEFAULT_TAIL_MASS: float = 1e-15

_HALF_LOG_PI_OVER_2 = 0.5 * math.log(math.pi / 2.0)
_MAX_NODES = 10_000_000  # grid points of one discretised step (memory guard: ~1 GB of temporaries)
#: The largest grid index of a privacy loss: 2^53, the integers a double holds exactly (beyond, mu^2/2 +- 8 mu rounds
#: to one grid point and the grid is meaningless).
_MAX_INDEX = float(2**53)


# ---------------------------------------------------------------------------------------------- laws


@dataclass(frozen=True)
class _Law:
    """A discrete (sub-)probability law of a privacy loss: ``masses[j]`` at loss ``(offset + j) * h`` and
    ``inf`` at +inf."""

    offset: int
    masses: np.ndarray
    inf: float = 0.0


def _trim(law: _Law) -> _Law:
    nz = np.flatnonzero(law.masses)
    if nz.size == 0:
        return _Law(law.offset, np.zeros(1), law.inf)
    a, b = int(nz[0]), int(nz[-1]) + 1
    return _Law(law.offset + a, law.masses[a:b], law.inf)


def _truncate(law: _Law, tail_mass: float, upper: bool) -> _Law:
    """Cut tails of mass <= tail_mass/2 each: upper laws move the left tail up to the first kept point and
    the right tail to +inf; lower laws drop the left tail and move the right tail down to the last kept point
    (both monotone, fact 2 of the module docstring)."""
    m = law.masses
    n = m.size
    half = tail_mass / 2.0
    cl = np.cumsum(m)
    cr = np.cumsum(m[::-1])
    left = int(np.searchsorted(cl, half, side="right"))
    right = int(np.searchsorted(cr, half, side="right"))
    if left + right >= n:  # keep at least the largest mass
        j = int(np.argmax(m))
        left, right = j, n - 1 - j
    kept = m[left:n - right].copy()
    lm = float(cl[left - 1]) if left else 0.0
    rm = float(cr[right - 1]) if right else 0.0
    if upper:
        kept[0] += lm
        inf = law.inf + rm
    else:
        kept[-1] += rm
        inf = law.inf
    return _trim(_Law(law.offset + left, kept, inf))


#: FFT round-off per entry of a convolution is below ~4.3e-16 ||a||_2 ||b||_2 (measured on composed PLDs);
#: entries at the ends of the result below this multiple of ||a||_2 ||b||_2 are treated as round-off.
_FFT_NOISE = 2e-15


def _convolve(a: _Law, b: _Law, tail_mass: float, upper: bool) -> _Law:
    fa, fb = float(a.masses.sum()), float(b.masses.sum())
    inf = min(1.0, a.inf * (fb + b.inf) + fa * b.inf)
    offset = a.offset + b.offset
    if a.masses.size == 1 or b.masses.size == 1:  # one atom (e.g. the identity): a shift, nothing to cut
        one, other = (a, b) if a.masses.size == 1 else (b, a)
        return _Law(offset, other.masses * float(one.masses[0]), inf)
    if min(a.masses.size, b.masses.size) <= 64:
        m = np.convolve(a.masses, b.masses)
    else:
        from scipy.signal import fftconvolve  # lazy: scipy.signal costs ~0.8 s to import

        m = fftconvolve(a.masses, b.masses)
        np.maximum(m, 0.0, out=m)  # FFT round-off can be negative
        # Ends made only of round-off-sized entries would otherwise grow with every squaring: cut them like
        # tails (upper: left end up to the first kept entry, right end to +inf; lower: drop / round down).
        floor = _FFT_NOISE * math.sqrt(float(np.sum(np.square(a.masses))) * float(np.sum(np.square(b.masses))))
        big = np.flatnonzero(m >= floor)
        if big.size:
            i, j = int(big[0]), int(big[-1]) + 1
            lm, rm = float(m[:i].sum()), float(m[j:].sum())
            m = m[i:j].copy()
            offset += i
            if upper:
                m[0] += lm
                inf = min(1.0, inf + rm)
            else:
                m[-1] += rm
    return _truncate(_Law(offset, m, inf), tail_mass, upper)


def _tail_filter(m: np.ndarray, h: float) -> np.ndarray:
    """T_j = sum_{k > j} m_k e^{-(k - j) h} (a stable first-order recursion, all terms non-negative)."""
    from scipy.signal import lfilter  # lazy: scipy.signal costs ~0.8 s to import

    e = math.exp(-h)
    return lfilter([0.0, e], [1.0, -e], m[::-1])[::-1]


def _law_delta(law: _Law, eps: float, h: float) -> float:
    """delta(eps) = sum_{l_j > eps} m_j (1 - e^{eps - l_j}) + m_inf."""
    g = (law.offset + np.arange(law.masses.size)) * h
    above = g > eps
    return float(np.sum(law.masses[above] * -np.expm1(eps - g[above]))) + law.inf


def _law_epsilon(law: _Law, delta: float, h: float) -> float:
    """Smallest eps >= 0 with delta(eps) <= delta for the discrete law (exact for the law)."""
    if law.inf > delta:
        return math.inf
    m = law.masses
    T = _tail_filter(m, h)
    D = math.expm1(h) * np.cumsum(T[::-1])[::-1]  # D_j = delta at the j-th grid point, minus m_inf
    M = np.cumsum(m[::-1])[::-1]  # M_j = sum_{k >= j} m_k
    budget = delta - law.inf
    j = int(np.searchsorted(-D, -budget, side="left"))  # first j with D_j <= budget (D is non-increasing)
    if j == 0:
        num = float(M[0]) - budget
        if num <= 0.0:
            return 0.0
        eps = (law.offset * h) + math.log(num / (float(m[0]) + float(T[0])))
        return max(0.0, eps)
    # eps in [g_{j-1}, g_j]: delta(eps) = M_j + m_inf - e^{eps - g_{j-1}} T_{j-1}
    num = float(M[j]) - budget if j < m.size else -budget
    s = math.log(num / float(T[j - 1])) if num > 0 else 0.0
    eps = (law.offset + j - 1) * h + min(max(s, 0.0), h)
    return max(0.0, eps)


# --------------------------------------------------------------------------- normal masses in log space


def _log_mills(z: np.ndarray) -> np.ndarray:
    """log of the Mills ratio Phibar(z)/phi(z), z >= 0 (via erfcx, no overflow)."""
    with np.errstate(divide="ignore"):
        return np.log(erfcx(z / math.sqrt(2.0))) + _HALF_LOG_PI_OVER_2


def _log_upper_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log(Phi(b) - Phi(a)) for 0 <= a <= b <= inf, to ~1e-12 relative even for narrow far-tail intervals:
    Phibar(b)/Phibar(a) = exp(-(b - a)(b + a)/2) M(b)/M(a) with M the Mills ratio."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        d = -(b - a) * (b + a) / 2.0 + _log_mills(b) - _log_mills(a)
        d = np.where(np.isinf(b), -np.inf, np.minimum(d, 0.0))
        return log_ndtr(-a) + np.log(-np.expm1(d))


def _log_normal_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log P(a < Z <= b) for Z ~ N(0, 1), a <= b (either may be infinite), accurate in both tails."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    out = np.empty(a.shape)
    up = a >= 0.0
    lo = b <= 0.0
    mid = ~(up | lo)
    if up.any():
        out[up] = _log_upper_mass(a[up], b[up])
    if lo.any():
        out[lo] = _log_upper_mass(-b[lo], -a[lo])
    if mid.any():
        out[mid] = np.log1p(-(ndtr(a[mid]) + ndtr(-b[mid])))
    return out


# ------------------------------------------------------------------------------ the mixture pair


def _loss_of_x(q: float, mu: float, x: float) -> float:
    z = mu * x - mu * mu / 2.0
    if q == 1.0:
        return z
    return float(np.logaddexp(math.log1p(-q), math.log(q) + z))


def _x_of_loss(q: float, mu: float, y: np.ndarray) -> np.ndarray:
    """Inverse of the loss function: the output x with L(x) = y (-inf at or below log(1 - q))."""
    if q == 1.0:
        return (y + mu * mu / 2.0) / mu
    z = np.full(y.shape, -np.inf)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        small = y <= 0.5
        r = np.expm1(y[small]) / q
        z[small] = np.where(r > -1.0, np.log1p(np.maximum(r, -1.0)), -np.inf)
        big = ~small
        z[big] = y[big] + np.log1p(-(1.0 - q) * np.exp(-y[big])) - math.log(q)
    return (z + mu * mu / 2.0) / mu


def _quantile(log_cdf, log_target: float) -> float:
    """The x with log_cdf(x) = log_target for an increasing log-CDF (bracketed root)."""
    lo, hi = -1.0, 1.0
    while log_cdf(lo) > log_target:
        lo *= 2.0
    while log_cdf(hi) < log_target:
        hi *= 2.0
    return brentq(lambda x: log_cdf(x) - log_target, lo, hi, xtol=1e-12)


def _node_range(q: float, mu: float, h: float, tail_mass: float, under_p: bool) -> tuple[int, int]:
    """Grid indices [i_lo, i_hi] outside which the loss has at most tail_mass/2 per tail, under P or Q."""
    lt = math.log(tail_mass / 2.0)
    if under_p and q < 1.0:
        l1q, lq = math.log1p(-q), math.log(q)
        lower = lambda x: float(np.logaddexp(l1q + log_ndtr(x), lq + log_ndtr(x - mu)))  # noqa: E731
        upper = lambda x: float(np.logaddexp(l1q + log_ndtr(-x), lq + log_ndtr(mu - x)))  # noqa: E731
        x_lo = _quantile(lower, lt)
        x_hi = -_quantile(lambda x: upper(-x), lt)
    else:
        shift = mu if under_p else 0.0  # q == 1 under P: N(mu, 1)
        x_lo = shift + float(ndtri(tail_mass / 2.0))
        x_hi = shift - float(ndtri(tail_mass / 2.0))
    f_lo, f_hi = _loss_of_x(q, mu, x_lo) / h, _loss_of_x(q, mu, x_hi) / h
    if not (math.isfinite(f_lo) and math.isfinite(f_hi)) or max(abs(f_lo), abs(f_hi)) > _MAX_INDEX:
        _too_large(mu, h, max(abs(_loss_of_x(q, mu, x_lo)), abs(_loss_of_x(q, mu, x_hi))))
    i_lo = math.floor(f_lo)
    i_hi = math.ceil(f_hi)
    return i_lo, max(i_hi, i_lo + 1)


def _too_large(mu: float, h: float, loss: float) -> None:
    """A ``ValueError`` for a step whose privacy loss lies beyond what a grid of ``h`` can index."""
    raise ValueError(f"mu = {mu!r} is too large for a privacy-loss distribution on a grid of interval={h:g}: its "
                     f"privacy loss reaches {loss:.3g}, beyond the grid's range (a step may span at most {_MAX_NODES} "
                     "grid points); use a smaller mu (a larger noise) or a larger interval")


def _half_cells(q: float, mu: float, h: float, i_lo: int, i_hi: int):
    """Log P- and Q-masses and merged losses of the half-cells ((k/2)h, ((k+1)/2)h], k = 2 i_lo .. 2 i_hi - 1,
    and the log masses of the two tails (L <= i_lo h, L > i_hi h)."""
    y = (2 * i_lo + np.arange(2 * (i_hi - i_lo) + 1)) * (h / 2.0)
    x = _x_of_loss(q, mu, y)
    xa, xb = x[:-1], x[1:]
    lq = _log_normal_mass(xa, xb)
    lg = _log_normal_mass(xa - mu, xb - mu)
    tails_q = (float(log_ndtr(x[0])), float(log_ndtr(-x[-1])))
    tails_g = (float(log_ndtr(x[0] - mu)), float(log_ndtr(mu - x[-1])))
    tails_p: tuple[float, ...]
    with np.errstate(invalid="ignore", over="ignore"):
        d = lg - lq
        if q == 1.0:
            lp, lam = lg, d
            tails_p = tails_g
        else:
            l1q, lqq = math.log1p(-q), math.log(q)
            lp = np.logaddexp(l1q + lq, lqq + lg)
            lam = np.where(d > 1.0, np.logaddexp(l1q, lqq + d), np.log1p(q * np.expm1(np.minimum(d, 1.0))))
            tails_p = tuple(float(np.logaddexp(l1q + a, lqq + b)) for a, b in zip(tails_q, tails_g))
    return lp, lq, lam, tails_p, tails_q


def _direction_laws(lm: np.ndarray, lam: np.ndarray, node0: int, h: float,
                    left: float, right: float) -> tuple[_Law, _Law]:
    """Upper (connect-the-dots) and lower (tangent) laws of one direction.

    ``lm``: log masses of the half-cells under this direction's measure, in increasing order of this
    direction's loss; ``lam``: their merged losses; half-cells 2j, 2j+1 lie between grid points node0 + j
    and node0 + j + 1; ``left`` / ``right``: the masses with loss <= the first / > the last grid point.
    """
    n = lm.size // 2
    P = np.exp(lm)
    rel = (np.arange(2 * n) // 2 + node0) * h
    with np.errstate(invalid="ignore"):
        u = lam - rel
    u = np.where(np.isfinite(u), u, h / 2.0)
    u[0::2] = np.clip(u[0::2], 0.0, h / 2.0)
    u[1::2] = np.clip(u[1::2], h / 2.0, h)
    om = -math.expm1(-h)  # 1 - e^{-h}
    em = math.expm1(h)  # e^h - 1
    upper = _connect_dots(P, u, h)
    upper[0] += left  # the left tail, rounded up to the first grid point; the right tail goes to +inf (fact 2)
    upper_law = _trim(_Law(node0, upper, min(1.0, right)))

    # tangent construction (see module docstring), on the law with its top cell merged onto the grid
    P, u = _merge_top_cell(P, u, h)
    P, u = _merge_bottom_edge(P, u, h)
    pc = _connect_dots(P, u, h)
    B = P[0::2] * (-np.expm1(-u[0::2]))  # at grid point j (lower half of cell j)
    A = P[1::2] * np.expm1(h - u[1::2])  # at grid point j + 1 (upper half of cell j)
    c = np.zeros(n + 1)
    c[:n] = B
    c[1:] = np.maximum(c[1:], A)
    T = _tail_filter(pc, h)
    D = em * np.cumsum(T[::-1])[::-1]  # H of the truncated law at the grid points (exact for CTD)
    v = D - c
    if v[0] <= 0.0:
        return upper_law, _Law(node0, np.zeros(1), 0.0)
    k = int(np.flatnonzero(v[1:] <= 0.0)[0]) + 1  # first grid point where the lower H reaches 0
    idx = np.arange(2 * k, 2 * n)
    W = om * float(np.sum(P[idx] * np.exp(-(u[idx] + (idx // 2 - k) * h))))  # Q(L > g_k)(x_k - x_{k-1})
    w = min(float(v[k - 1]), W)
    # masses from the slope changes; precise form away from the end: p_j = pc_j - dc_j/em + dc_{j-1}/om
    p = np.zeros(k + 1)
    dc = np.diff(c[:k])  # c_{j+1} - c_j, j = 0..k-2
    p[:k] = pc[:k]
    p[:k - 1] -= dc / em
    p[1:k] += dc / om
    # H' is w at x_{k-1} and 0 from x_k on: the last two segments change (scaled slopes sigma_j = x_j s_j)
    sig_last = -w / em
    drop = float(v[k - 1]) - w  # >= 0: how much the value at x_{k-1} is lowered
    p[k - 1] += sig_last + float(T[k - 1])  # replaces -T_{k-1} - (c_k - c_{k-1})/em by sig_last
    p[k] = -math.exp(h) * sig_last
    if k >= 2:
        p[k - 2] -= drop / em
        p[k - 1] += drop / om
    bad = p < -1e-6 * np.abs(pc[:k + 1]) - 1e-300
    if bad.any():
        repaired = _convexify(p, pc, T, c, k, sig_last, drop, h, bad)
        if repaired is None:  # a repair wider than float64 can rescale: fall back to rounding down
            return upper_law, _round_down(np.exp(lm), right, node0)
        p = repaired
    np.maximum(p, 0.0, out=p)  # residual round-off (relative <= 1e-6 of a grid point's mass)
    lower = np.zeros(n + 1)
    lower[:k + 1] = p
    lower[n] += right  # the right tail, rounded down to the last grid point (fact 2)
    return upper_law, _trim(_Law(node0, lower, 0.0))


def _connect_dots(P: np.ndarray, u: np.ndarray, h: float) -> np.ndarray:
    """Connect-the-dots: each half-cell atom (P-mass P, loss u above the grid point below it) is split between
    the two grid points of its cell keeping its P- and Q-mass: u = 0 stays, u = h moves up entirely."""
    n = P.size // 2
    om = -math.expm1(-h)
    p_up = P * (-np.expm1(-u)) / om
    p_dn = P * np.exp(-u) * (-np.expm1(-(h - u))) / om
    pc = np.zeros(n + 1)
    pc[:n] += p_dn[0::2] + p_dn[1::2]
    pc[1:] += p_up[0::2] + p_up[1::2]
    return pc


def _merge_top_cell(P: np.ndarray, u: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """Merge the top cell's mass with just enough mass from below that the merged atom's loss is exactly the
    grid point g_{n-1} (a post-processing: H only decreases, fact 3). Where the law ends inside the top cell
    (e.g. the add direction of the subsampled Gaussian, whose loss is at most -log(1 - q)), H vanishes
    quadratically there and no line through a grid point fits below it; an atom on the grid makes the end
    linear, so the tangent construction keeps the top mass instead of dropping it."""
    n = P.size // 2
    if n < 2:
        return P, u
    top = slice(2 * n - 2, 2 * n)
    surplus = float(np.sum(P[top] * -np.expm1(-u[top])))  # sum (p - e^{g_{n-1}} q) over the top cell
    if surplus <= 0.0:
        return P, u
    below = np.arange(2 * n - 3, -1, -1)  # half-cells under g_{n-1}, nearest first
    gap = np.minimum((n - 1 - below // 2) * h - u[below], 700.0)  # g_{n-1} minus their loss (> 0)
    deficit = P[below] * np.expm1(gap)  # sum (e^{g_{n-1}} q - p) of each (capped: only the first few count)
    cum = np.cumsum(deficit)
    m = int(np.searchsorted(cum, surplus, side="left"))
    if m >= below.size:
        return P, u  # not enough mass below to balance: leave the top as it is
    P, u = P.copy(), u.copy()
    used = P[below[:m]].sum()
    frac = (surplus - (cum[m - 1] if m else 0.0)) / deficit[m]
    used += frac * P[below[m]]
    atom = float(P[top].sum() + used)
    P[below[:m]] = 0.0
    P[below[m]] *= 1.0 - frac
    P[2 * n - 1] = 0.0
    P[2 * n - 2], u[2 * n - 2] = atom, 0.0
    return P, u


#: Widest window (in loss) of the convex-minorant repair: slopes are rescaled by e^(loss) inside a window.
_MAX_WINDOW_LOSS = 1200.0


#: A law that starts with a jump is merged up to where its cell masses stop growing by this factor per cell.
_RAMP = 2.0


def _merge_bottom_edge(P: np.ndarray, u: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """Where the law starts with a jump (a cell holding >= 1e-3 of the largest cell mass with < 1e-3 of its own
    mass below it, e.g. the remove direction of the subsampled Gaussian, whose loss is at least log(1 - q)),
    merge everything up to that cell with just enough mass from above that the merged atom's loss is exactly
    the next grid point (a post-processing, fact 3). The tangent construction alone would lower H by about
    the edge cell's surplus at every t beyond the edge -- a first-order error per step that composition adds
    up -- while a merge keeps both total masses and costs only near that grid point."""
    n = P.size // 2
    cells = P[0::2] + P[1::2]
    big = np.flatnonzero(cells >= 1e-3 * cells.max())
    J = int(big[0])
    if J + 1 >= n or cells[:J].sum() > 1e-3 * cells[J]:
        return P, u
    while J + 2 < n and cells[J + 1] > _RAMP * cells[J]:  # include the steep part of the ramp
        J += 1
    target = J + 1
    low = np.arange(0, 2 * J + 2)
    deficit = float(np.sum(P[low] * np.expm1((target - low // 2) * h - u[low])))
    if deficit <= 0.0:
        return P, u
    above = np.arange(2 * target, 2 * n)
    gain = np.minimum((above // 2 - target) * h + u[above], 700.0)
    surplus = P[above] * -np.expm1(-gain)
    cum = np.cumsum(surplus)
    m = int(np.searchsorted(cum, deficit, side="left"))
    if m >= above.size:
        return P, u
    P, u = P.copy(), u.copy()
    frac = (deficit - (cum[m - 1] if m else 0.0)) / surplus[m]
    atom = float(P[low].sum() + P[above[:m]].sum() + frac * P[above[m]])
    P[low] = 0.0
    P[above[:m]] = 0.0
    P[above[m]] *= 1.0 - frac
    P[2 * J + 1], u[2 * J + 1] = atom, h  # the top of cell J is the grid point J + 1
    return P, u


def _convexify(p, pc, T, c, k, sig_last, drop, h, bad) -> np.ndarray | None:
    """Greatest convex minorant where the tangent values are not convex: isotonic regression of the slopes,
    weighted by the cell widths (``scipy.optimize.isotonic_regression``), in a window around each violation
    that doubles until its neighbours are convex again. None if a window would exceed _MAX_WINDOW_LOSS."""
    em = math.expm1(h)
    eh = math.exp(h)
    # S[pos]: slopes scaled by x_j (x_j s_j) of the segments j = pos - 1 (pos 0: the segment [0, x_0])
    S = np.empty(k + 1)
    S[0] = -(pc[0] + T[0]) / eh
    S[1:k] = -T[:k - 1] - np.diff(c[:k]) / em
    S[k] = sig_last
    if k >= 2:
        S[k - 1] -= drop / em

    def node_masses(j0: int, j1: int):
        j = np.arange(j0, j1 + 1)
        nxt = np.where(j + 1 <= k, S[np.minimum(j + 1, k)], 0.0)
        pj = nxt - eh * S[j]
        tol = 1e-6 * np.abs(pc[j]) + 1e-12 * (np.abs(nxt) + eh * np.abs(S[j])) + 1e-300
        return pj, pj < -tol

    def fit(a: int, b: int) -> None:
        pos = np.arange(a, b + 1)
        seg = pos - 1.0
        r = 0.5 * (a + b)
        scale = np.exp(-(seg - r) * h)
        weights = np.where(pos == 0, np.exp(-r * h), np.exp((seg - r) * h) * em)
        S[pos] = isotonic_regression(S[pos] * scale, weights=weights, increasing=True).x / scale

    todo = np.flatnonzero(bad)
    while todo.size:
        j = int(todo[0])
        a, b = max(j - 1, 0), min(j + 1, k)
        while True:
            if (b - a) * h > _MAX_WINDOW_LOSS:
                return None
            fit(a, b)
            width = b - a + 1
            left_bad = a > 0 and bool(node_masses(a - 1, a - 1)[1][0])
            right_bad = b < k and bool(node_masses(b, b)[1][0])
            if not (left_bad or right_bad):
                break
            if left_bad:
                a = max(0, a - 2 * width)
            if right_bad:
                b = min(k, b + 2 * width)
        j0 = max(a - 1, 0)
        p[j0:b + 1] = node_masses(j0, b)[0]
        todo = todo[todo > b]
    return p


def _round_down(P: np.ndarray, right: float, node0: int) -> _Law:
    """Privacy-buckets lower law: every half-cell's mass at the grid point below it (fact 2)."""
    n = P.size // 2
    lower = np.zeros(n + 1)
    lower[:n] = P[0::2] + P[1::2]
    lower[n] += right
    return _trim(_Law(node0, lower, 0.0))


def _mixture_laws(q: float, mu: float, h: float, tail_mass: float) -> tuple[_Law, _Law, _Law, _Law]:
    """(forward upper, forward lower, backward upper, backward lower) of one mixture (q < 1) or Gaussian
    (q = 1) step."""
    if not math.isfinite(mu * mu):  # mu above ~1.3e154: the loss mu^2 / 2 of the step is not a double
        _too_large(mu, h, math.inf)
    p_lo, p_hi = _node_range(q, mu, h, tail_mass, under_p=True)
    if q == 1.0:  # symmetric pair: the backward law equals the forward one
        fu, fl = _forward_from_cells(q, mu, h, p_lo, p_hi)
        return fu, fl, fu, fl
    q_lo, q_hi = _node_range(q, mu, h, tail_mass, under_p=False)
    lo, hi = min(p_lo, q_lo), max(p_hi, q_hi)
    if hi - lo <= 1.5 * max(p_hi - p_lo, q_hi - q_lo):
        return _all_from_cells(q, mu, h, lo, hi)
    fu, fl, _, _ = _all_from_cells(q, mu, h, p_lo, p_hi)
    _, _, bu, bl = _all_from_cells(q, mu, h, q_lo, q_hi)
    return fu, fl, bu, bl


def _check_grid(i_lo: int, i_hi: int, h: float) -> None:
    if i_hi - i_lo > _MAX_NODES:
        raise ValueError(
            f"interval={h:g} needs {i_hi - i_lo} grid points for one step (more than {_MAX_NODES}); "
            "use a larger interval"
        )


def _forward_from_cells(q, mu, h, i_lo, i_hi):
    _check_grid(i_lo, i_hi, h)
    lp, _lq, lam, tp, _tq = _half_cells(q, mu, h, i_lo, i_hi)
    return _direction_laws(lp, lam, i_lo, h, math.exp(tp[0]), math.exp(tp[1]))


def _all_from_cells(q, mu, h, i_lo, i_hi):
    _check_grid(i_lo, i_hi, h)
    lp, lq, lam, tp, tq = _half_cells(q, mu, h, i_lo, i_hi)
    fu, fl = _direction_laws(lp, lam, i_lo, h, math.exp(tp[0]), math.exp(tp[1]))
    # backward: loss -L under Q, half-cells in reverse order, grid points -i_hi .. -i_lo
    bu, bl = _direction_laws(lq[::-1].copy(), -lam[::-1], -i_hi, h, math.exp(tq[1]), math.exp(tq[0]))
    return fu, fl, bu, bl


def _pure_dp_laws(eps: float, h: float, tail_mass: float) -> tuple[_Law, _Law]:
    """(upper, lower) P-law of randomized response with parameter eps (the pair is symmetric)."""
    r = eps / h
    if not math.isfinite(r):  # epsilon = 1e308 at interval 1e-4: the grid index overflows a double
        raise ValueError(f"epsilon = {eps!r} is too large for a privacy-loss distribution on a grid of "
                         f"interval={h:g}: epsilon / interval must be a double; use epsilon <= "
                         f"{sys.float_info.max * h:.3g} or a larger interval")
    k = round(r)
    on_grid = abs(r - k) <= 1e-9 * max(1.0, r)
    if not on_grid:
        k = math.floor(r)
    a_hi, a_lo = float(expit(eps)), float(expit(-eps))
    if on_grid:
        up = {k: a_hi, -k: a_lo}
    else:
        t = eps - k * h
        om = -math.expm1(-h)
        f_hi = -math.expm1(-t) / om  # share of the +eps atom that goes up to (k+1)h
        f_lo = -math.expm1(-(h - t)) / om  # share of the -eps atom that goes up to -kh
        up = {k + 1: a_hi * f_hi, k: a_hi * (1.0 - f_hi), -k: a_lo * f_lo, -k - 1: a_lo * (1.0 - f_lo)}
    # lower: randomized response at the grid point below eps (a post-processing of RR(eps))
    lo = {k: float(expit(k * h)), -k: float(expit(-k * h))} if k > 0 else {0: 1.0}
    return _sparse_law(up, tail_mass, True), _sparse_law(lo, tail_mass, False)


def _sparse_law(atoms: dict, tail_mass: float, upper: bool) -> _Law:
    """A law from a few atoms {grid index: mass}; negligible atoms far from the rest are moved (upper: up
    to the next atom; lower: dropped) instead of allocating the grid between them."""
    keys = sorted(atoms)
    masses = [atoms[i] for i in keys]
    while len(keys) > 1 and masses[0] <= tail_mass / 2.0 and keys[1] - keys[0] > 1:
        if upper:
            masses[1] += masses[0]
        keys, masses = keys[1:], masses[1:]
    arr = np.zeros(keys[-1] - keys[0] + 1)
    for i, m in zip(keys, masses):
        arr[i - keys[0]] += m
    return _trim(_Law(keys[0], arr, 0.0))


# --------------------------------------------------------------------------------- public objects


def _check_interval(interval) -> float:
    return check_real("interval", interval, low=0.0, high=1.0, low_inclusive=False)


def _check_tail_mass(tail_mass) -> float:
    return check_real("tail_mass", tail_mass, low=0.0, high=1e-3, low_inclusive=False)


def _check_mu(mu, name: str = "mu") -> float:
    return check_real(name, mu, low=0.0, low_inclusive=False)


def _fmt(x: float) -> str:
    return f"{x:.4g}"


class PrivacyLossDistribution:
    """The composed privacy loss of one run, both directions, each with an upper and a lower discrete law.

    Build it with :func:`gaussian_pld`, :func:`subsampled_gaussian_pld`, :func:`pure_dp_pld`,
    :func:`identity_pld` and combine with :meth:`compose` / :meth:`self_compose`. Bounds: see the module
    docstring (upper = pessimistic connect-the-dots discretisation, lower = tangent construction; both
    rigorous up to floating point).
    """

    def __init__(self, *, interval: float, tail_mass: float, laws: tuple, components: tuple) -> None:
        self._h = _check_interval(interval)
        self._tail = _check_tail_mass(tail_mass)
        if len(laws) != 4 or not all(isinstance(x, _Law) for x in laws):
            raise TypeError("laws must be the four internal laws; build a PLD with the *_pld functions")
        self._laws = tuple(laws)  # forward upper, forward lower, backward upper, backward lower
        self._components = tuple(components)

    # -- description
    @property
    def interval(self) -> float:
        """Grid width of the privacy loss."""
        return self._h

    @property
    def tail_mass(self) -> float:
        return self._tail

    @property
    def steps(self) -> int:
        """Number of composed steps."""
        return sum(n for _, _, n in self._components)

    @property
    def basis(self) -> str:
        """A short human description, e.g. "PLD of 50 Poisson-subsampled Gaussian steps (q=0.1, mu=0.67)"."""
        if not self._components:
            return "PLD of no steps (identity)"
        parts = [f"{n} {kind} step{'s' if n != 1 else ''} ({params})" for kind, params, n in self._components]
        if len(parts) > 4:
            return (f"PLD of {self.steps} steps of {len(parts)} kinds: " + " + ".join(parts[:3])
                    + f" + ... ({len(parts) - 3} more kinds)")
        return "PLD of " + " + ".join(parts)

    def __repr__(self) -> str:
        return f"PrivacyLossDistribution({self.basis}, interval={self._h:g})"

    # -- composition
    def _check_other(self, other) -> None:
        if not isinstance(other, PrivacyLossDistribution):
            raise TypeError(f"other must be a PrivacyLossDistribution; got {type(other).__name__}")
        if other._h != self._h:
            raise ValueError(f"cannot compose PLDs on different grids: interval {self._h:g} vs {other._h:g}")

    def compose(self, other: "PrivacyLossDistribution") -> "PrivacyLossDistribution":
        """The PLD of running both (independent noise; adaptive composition of the dominating pairs):
        each of the four laws is convolved with its counterpart and its tails cut."""
        self._check_other(other)
        tail = max(self._tail, other._tail)
        laws = tuple(_convolve(a, b, tail, upper) for a, b, upper in
                     zip(self._laws, other._laws, (True, False, True, False)))
        return PrivacyLossDistribution(interval=self._h, tail_mass=tail, laws=laws,
                                       components=_merge_components(self._components, other._components))

    def self_compose(self, count: int) -> "PrivacyLossDistribution":
        """``count``-fold composition with itself, by repeated squaring (O(log count) convolutions)."""
        count = check_positive_int(count, "count")
        result, base, n = None, self, count
        while True:
            if n & 1:
                result = base if result is None else result._compose_laws(base)
            n >>= 1
            if not n:
                break
            base = base._compose_laws(base)
        assert result is not None  # count >= 1: the first set bit of count assigned it
        comps = tuple((kind, params, m * count) for kind, params, m in self._components)
        return PrivacyLossDistribution(interval=self._h, tail_mass=self._tail, laws=result._laws, components=comps)

    def _compose_laws(self, other: "PrivacyLossDistribution") -> "PrivacyLossDistribution":
        laws = tuple(_convolve(a, b, self._tail, upper) for a, b, upper in
                     zip(self._laws, other._laws, (True, False, True, False)))
        return PrivacyLossDistribution(interval=self._h, tail_mass=self._tail, laws=laws, components=())

    # -- answers
    def epsilon_bounds(self, delta: float) -> tuple[float, float]:
        """(lower, upper) bracket of the true epsilon(delta) of the run (max over both directions).

        ``delta`` in (0, 1). The upper end is ``inf`` when delta is below the mass the upper laws hold at
        +inf (the tails cut at ``tail_mass``).
        """
        d = check_delta(delta, allow_zero=False)
        fu, fl, bu, bl = self._laws
        h = self._h
        upper = max(_law_epsilon(fu, d, h), _law_epsilon(bu, d, h))
        lower = max(_law_epsilon(fl, d, h), _law_epsilon(bl, d, h))
        return min(lower, upper), upper

    def epsilon(self, delta: float) -> float:
        """An upper bound on epsilon(delta) (pessimistic discretisation, both directions)."""
        return self.epsilon_bounds(delta)[1]

    def epsilon_at(self, delta: float) -> float:
        """:meth:`epsilon` (the upper end): the epsilon this PLD promises at ``delta`` when it is a claim (the claim
        protocol of :mod:`dpverify.calculus.claimed`: ``audit(claim=description.pld())``)."""
        return self.epsilon(delta)

    def delta_bounds(self, epsilon: float) -> tuple[float, float]:
        """(lower, upper) bracket of the true delta(epsilon) of the run (max over both directions)."""
        e = check_real("epsilon", epsilon, low=0.0)
        fu, fl, bu, bl = self._laws
        h = self._h
        upper = min(1.0, max(_law_delta(fu, e, h), _law_delta(bu, e, h)))
        lower = max(_law_delta(fl, e, h), _law_delta(bl, e, h))
        return min(lower, upper), upper

    def delta(self, epsilon: float) -> float:
        """An upper bound on delta(epsilon) (``epsilon`` >= 0)."""
        return self.delta_bounds(epsilon)[1]

    def masses(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
        """(losses, p, q, p_inf, q_inf) of the FORWARD pair: L = log dP/dQ takes ``losses[j]`` with probability
        ``p[j]`` under P and ``q[j]`` under Q; ``p_inf = P(L = +inf)``, ``q_inf = Q(L = -inf)``.

        These are the masses of the pessimistic (connect-the-dots) discretisation: every mass sits at most one
        grid interval from where it truly is (P-masses from the forward upper law, Q-masses from the backward
        upper law read back in the forward loss), its hockey-stick divergences are exact at the grid points for
        one step and never below the truth, and ``p_inf`` / ``q_inf`` hold the tails cut at ``tail_mass``. So a
        tail probability ``P(L >= t)`` at a grid point is off by at most the mass of one grid cell. Input of
        :func:`dpverify.audit.ceiling.ceiling_from_masses`.
        """
        fu, _, bu, _ = self._laws
        lo = min(fu.offset, -(bu.offset + bu.masses.size - 1))
        hi = max(fu.offset + fu.masses.size - 1, -bu.offset)
        losses = np.arange(lo, hi + 1) * self._h
        p = np.zeros(hi - lo + 1)
        q = np.zeros(hi - lo + 1)
        p[fu.offset - lo: fu.offset - lo + fu.masses.size] = fu.masses
        # backward index i <-> forward loss -i h
        qb = bu.masses[::-1]
        start = -(bu.offset + bu.masses.size - 1)
        q[start - lo: start - lo + qb.size] = qb
        return losses, p, q, float(fu.inf), float(bu.inf)


def _merge_components(a: tuple, b: tuple) -> tuple:
    out: dict = {}
    for kind, params, n in a + b:
        out[(kind, params)] = out.get((kind, params), 0) + n
    return tuple((kind, params, n) for (kind, params), n in out.items())


def gaussian_pld(mu: float, *, interval: float = DEFAULT_INTERVAL,
                 tail_mass: float = DEFAULT_TAIL_MASS) -> PrivacyLossDistribution:
    """PLD of one full-batch Gaussian step: P = N(mu, 1) vs Q = N(0, 1), mu = sensitivity / noise std > 0.

    The loss is L = mu x - mu^2/2, normal N(mu^2/2, mu^2) under P; the pair is symmetric (the backward law
    is the forward one). Exact profile for comparison: :func:`dpverify.calculus.mechanisms.gaussian.gaussian_delta`.
    """
    m = _check_mu(mu)
    h = _check_interval(interval)
    tail = _check_tail_mass(tail_mass)
    return PrivacyLossDistribution(interval=h, tail_mass=tail, laws=_mixture_laws(1.0, m, h, tail),
                                   components=(("Gaussian", f"mu={_fmt(m)}", 1),))


def subsampled_gaussian_pld(q: float, mu: float, *, interval: float = DEFAULT_INTERVAL,
                            tail_mass: float = DEFAULT_TAIL_MASS) -> PrivacyLossDistribution:
    """PLD of one subsampled Gaussian step: forward pair P = (1-q) N(0,1) + q N(mu,1) vs Q = N(0,1).

    ``q`` in (0, 1], ``mu`` > 0. Reads as Poisson sampling with rate q under add/remove adjacency (forward =
    remove, backward = add; Mironov, Talwar, Zhang 2019; Zhu, Dong, Wang 2022) or as sampling b of N without
    replacement (q = b/N) under replace-one adjacency with mu = replace-one sensitivity / noise std (Balle,
    Barthe, Gaboardi 2018; Zhu, Dong, Wang 2022). q = 1 is the Gaussian pair.
    """
    qq = check_sampling_rate(q, "q")
    m = _check_mu(mu)
    h = _check_interval(interval)
    tail = _check_tail_mass(tail_mass)
    kind = "Gaussian" if qq == 1.0 else "Poisson-subsampled Gaussian"
    params = f"mu={_fmt(m)}" if qq == 1.0 else f"q={_fmt(qq)}, mu={_fmt(m)}"
    return PrivacyLossDistribution(interval=h, tail_mass=tail, laws=_mixture_laws(qq, m, h, tail),
                                   components=((kind, params, 1),))


def pure_dp_pld(epsilon: float, *, interval: float = DEFAULT_INTERVAL,
                tail_mass: float = DEFAULT_TAIL_MASS) -> PrivacyLossDistribution:
    """PLD of the worst pair of pure epsilon-DP: randomized response, P = (e^eps, 1)/(1 + e^eps), Q reversed
    (Kairouz, Oh, Viswanath 2015). Upper law: connect-the-dots split of the atoms at +-eps; lower law:
    randomized response at the largest grid point <= eps (a post-processing of RR(eps)); both exact when
    eps is a multiple of ``interval``."""
    e = check_epsilon(epsilon)
    h = _check_interval(interval)
    tail = _check_tail_mass(tail_mass)
    up, lo = _pure_dp_laws(e, h, tail)
    return PrivacyLossDistribution(interval=h, tail_mass=tail, laws=(up, lo, up, lo),
                                   components=(("pure-DP", f"epsilon={_fmt(e)}", 1),))


def identity_pld(*, interval: float = DEFAULT_INTERVAL,
                 tail_mass: float = DEFAULT_TAIL_MASS) -> PrivacyLossDistribution:
    """The neutral element of composition: no privacy loss (L = 0 with probability 1)."""
    h = _check_interval(interval)
    tail = _check_tail_mass(tail_mass)
    law = _Law(0, np.ones(1), 0.0)
    return PrivacyLossDistribution(interval=h, tail_mass=tail, laws=(law, law, law, law), components=())


def normal_log_mass(a, b) -> np.ndarray:
    """log P(a < Z <= b) for Z ~ N(0, 1), elementwise, a <= b (either may be infinite), accurate in both tails
    (to ~1e-12 relative, via the Mills ratio; see the module docstring)."""
    return _log_normal_mass(a, b)


def grid_law_pld(forward_upper, forward_lower, backward_upper, backward_lower, *, interval: float,
                 tail_mass: float, component: tuple) -> PrivacyLossDistribution:
    """A :class:`PrivacyLossDistribution` from four discrete laws on the loss grid ``k * interval``, built by a
    calculator outside this module (e.g. :mod:`dpverify.calculus.accounting.shift_mixture`).

    Each law is ``(offset, masses, inf)``: ``masses[j]`` at loss ``(offset + j) * interval`` and ``inf`` at +inf;
    the forward laws are laws of L = log dP/dQ under P, the backward laws of -L under Q. The caller guarantees the
    bracket: H of each upper law lies above, and H of each lower law below, the pair's true hockey-stick curve
    (facts 1-3 of the module docstring). ``component``: ``(kind, parameters, count)`` for :attr:`basis`.
    """
    h = _check_interval(interval)
    tail = _check_tail_mass(tail_mass)
    laws = []
    for name, law in zip(("forward_upper", "forward_lower", "backward_upper", "backward_lower"),
                         (forward_upper, forward_lower, backward_upper, backward_lower)):
        offset, masses, inf = law
        m = np.asarray(masses, dtype=float)
        if m.ndim != 1 or m.size == 0 or not np.all(np.isfinite(m)) or np.any(m < 0):
            raise ValueError(f"{name} masses must be a non-empty 1-d array of finite numbers >= 0")
        inf = check_real(f"{name} inf", inf, low=0.0, high=1.0)
        laws.append(_trim(_Law(int(offset), m, inf)))
    return PrivacyLossDistribution(interval=h, tail_mass=tail, laws=tuple(laws), components=(tuple(component),))


def _check_schedule(q, mu) -> tuple[np.ndarray, np.ndarray]:
    try:
        qa = np.asarray(q, dtype=float)
        ma = np.asarray(mu, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("q and mu must be numbers or 1-d arrays of numbers") from None
    if qa.ndim > 1 or ma.ndim > 1:
        raise ValueError(f"q and mu must be scalars or 1-d arrays; got shapes {qa.shape} and {ma.shape}")
    try:
        qa, ma = np.broadcast_arrays(np.atleast_1d(qa), np.atleast_1d(ma))
    except ValueError:
        raise ValueError(
            f"q and mu must have the same length (or one be a scalar); got {qa.size} and {ma.size}") from None
    if qa.size == 0:
        raise ValueError("the schedule must have at least one step (q and mu are empty)")
    bad = ~((qa > 0) & (qa <= 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"q must be in (0, 1] at every step; got q[{i}] = {qa[i]!r}")
    bad = ~(np.isfinite(ma) & (ma > 0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"mu must be a finite number > 0 at every step; got mu[{i}] = {ma[i]!r}")
    return qa, ma


class PldAccountant(PrivacyAccountant):
    """Accumulates the PLD of a run, dp-accounting-like (``supports`` / ``compose`` / ``get_epsilon`` /
    ``get_delta``, a ledger; the shared template is :class:`~dpverify.calculus.accounting.base.PrivacyAccountant`),
    mirroring :class:`~dpverify.calculus.accounting.accountant.RdpAccountant`. Items (:meth:`compose`): a
    :class:`PrivacyLossDistribution` on the accountant's grid, or a mechanism description whose steps are Gaussian
    releases with noise or pure-DP releases; ``compose_*`` build the PLD of their steps and compose it. Answers are
    :class:`~dpverify.calculus.guarantees.Conversion` with ``method="pld"``, ``order=None``, the upper bound as
    ``epsilon`` (``delta``) and the lower end of the bracket as ``epsilon_lower`` (``delta_lower``).

    >>> acc = PldAccountant(interval=1e-3)
    >>> _ = acc.compose_subsampled_gaussian(q=0.01, mu=1.0, count=100)
    >>> c = acc.get_epsilon(1e-5)
    >>> c.epsilon_lower <= c.epsilon and c.method
    'pld'
    >>> acc.ledger[0].count
    100
    """

    name = "PLD"
    item_noun = "pld"
    item_types = (PrivacyLossDistribution,)
    expected_items = "a PrivacyLossDistribution or a mechanism description"

    def __init__(self, interval: float = DEFAULT_INTERVAL, tail_mass: float = DEFAULT_TAIL_MASS) -> None:
        super().__init__()
        self._pld = identity_pld(interval=interval, tail_mass=tail_mass)

    def _state_text(self) -> str:
        return f"{self._pld.basis}, interval={self._pld.interval:g}"

    @property
    def pld(self) -> PrivacyLossDistribution:
        """The accumulated :class:`PrivacyLossDistribution`."""
        return self._pld

    def _kw(self) -> dict:
        return {"interval": self._pld.interval, "tail_mass": self._pld.tail_mass}

    def supports(self, item: object) -> bool:
        """Whether :meth:`compose` accepts ``item``: a PLD on this accountant's grid, or a mechanism description
        (:mod:`~dpverify.calculus.accounting.described`) whose steps are all Gaussian releases with noise or pure-DP
        releases (:meth:`step_refusal`)."""
        if isinstance(item, PrivacyLossDistribution):
            return item.interval == self._pld.interval
        return is_description(item) and self.description_refusal(item) is None

    def step_refusal(self, step: object) -> str | None:
        """The base class's types; and a Gaussian step without noise (``mu = inf``) has no PLD."""
        if is_gaussian_release(step) and math.isinf(step.mu):
            return ("a step has no noise (noise_std = 0) and a positive sensitivity: the privacy loss is infinite; "
                    "there is no privacy-loss distribution to compute")
        return super().step_refusal(step)

    def _why_unsupported(self, item: object) -> str:
        if isinstance(item, PrivacyLossDistribution):
            return (f"{item!r}: it is on another grid (interval {item.interval:g}; the accountant's is "
                    f"{self._pld.interval:g})")
        return super()._why_unsupported(item)

    def _compose(self, item: PrivacyLossDistribution | Described, count: int) -> None:
        """A PLD: its ``count``-fold self-composition (repeated squaring), convolved with the state. A description:
        its steps in order, runs of Gaussian steps as one schedule (:meth:`compose_schedule`), pure-DP steps as the
        randomized-response pair (:func:`pure_dp_pld`), steps with zero sensitivity skipped; for ``count`` > 1 the
        description's PLD is self-composed first."""
        if isinstance(item, PrivacyLossDistribution):
            self._pld = self._pld.compose(item.self_compose(count))
        elif count == 1:
            self._pld = self._steps_pld(self._pld, item.steps)
        else:
            run = self._steps_pld(identity_pld(**self._kw()), item.steps)
            self._pld = self._pld.compose(run.self_compose(count))

    def _steps_pld(self, start: PrivacyLossDistribution, steps) -> PrivacyLossDistribution:
        """``start`` composed with a description's steps in order (:meth:`_compose`)."""
        pld = start
        gauss_q: list[float] = []
        gauss_mu: list[float] = []

        def flush() -> None:
            nonlocal pld
            if gauss_q:
                pld = pld.compose(self._schedule_pld(np.array(gauss_q), np.array(gauss_mu)))
                gauss_q.clear()
                gauss_mu.clear()

        for r in steps:
            s = r.step
            if is_pure_dp_release(s):
                flush()
                if s.epsilon > 0:
                    pld = pld.compose(pure_dp_pld(s.epsilon, **self._kw()).self_compose(r.count))
                continue
            q, mu = s.sampling.rate, s.mu
            if mu == 0:
                continue
            gauss_q.extend([q] * r.count)
            gauss_mu.extend([mu] * r.count)
        flush()
        return pld

    def compose_gaussian(self, mu: float, count: int = 1) -> "PldAccountant":
        """``count`` full-batch Gaussian steps, mu = sensitivity / noise std (the ledger: :func:`gaussian_pld` x
        ``count``). Returns ``self``."""
        count = check_positive_int(count, "count")
        return self.compose(gaussian_pld(mu, **self._kw()), count)

    def compose_subsampled_gaussian(self, q: float, mu: float, count: int = 1) -> "PldAccountant":
        """``count`` subsampled Gaussian steps (see :func:`subsampled_gaussian_pld`). Returns ``self``."""
        count = check_positive_int(count, "count")
        return self.compose(subsampled_gaussian_pld(q, mu, **self._kw()), count)

    def compose_pure_dp(self, epsilon: float, count: int = 1) -> "PldAccountant":
        """``count`` pure epsilon-DP steps (randomized-response pair). Returns ``self``."""
        count = check_positive_int(count, "count")
        return self.compose(pure_dp_pld(epsilon, **self._kw()), count)

    def compose_schedule(self, q, mu) -> "PldAccountant":
        """One subsampled Gaussian step per entry of ``q`` and ``mu`` (arrays of one length, or one a scalar):
        heterogeneous steps. Identical (q, mu) steps are grouped and self-composed; the distinct groups are
        combined in a balanced tree of convolutions (composition is commutative). The ledger gets the schedule's
        PLD. Returns ``self``."""
        return self.compose(self._schedule_pld(q, mu))

    def _schedule_pld(self, q, mu) -> PrivacyLossDistribution:
        """The PLD of the schedule of :meth:`compose_schedule`."""
        qa, ma = _check_schedule(q, mu)
        rows, counts = np.unique(np.stack([qa, ma], axis=1), axis=0, return_counts=True)
        stack: list = []  # (pld, weight): a binary counter keeps the convolutions balanced
        for (qq, mm), n in zip(rows, counts):
            item = subsampled_gaussian_pld(float(qq), float(mm), **self._kw()).self_compose(int(n))
            weight = 1
            while stack and stack[-1][1] == weight:
                prev, _ = stack.pop()
                item, weight = prev.compose(item), weight * 2
            stack.append((item, weight))
        total = stack.pop()[0]
        while stack:
            total = stack.pop()[0].compose(total)
        return total

    def get_epsilon(self, delta: float) -> Conversion:
        """epsilon at ``delta`` (in (0, 1)): ``epsilon`` = upper bound, ``epsilon_lower`` = lower bound."""
        lower, upper = self._pld.epsilon_bounds(delta)
        return Conversion(upper, float(delta), None, "pld", epsilon_lower=lower)

    def get_delta(self, epsilon: float) -> Conversion:
        """delta at ``epsilon`` (>= 0): ``delta`` = upper bound, ``delta_lower`` = lower bound."""
        lower, upper = self._pld.delta_bounds(epsilon)
        return Conversion(float(epsilon), upper, None, "pld", delta_lower=lower)

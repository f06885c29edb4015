"""The privacy of a Gaussian release whose mean moves by a randomly included data term: a Gaussian shift mixture.

**The pair.** With noise scaled to 1,

    P = law(W + Z)   vs   Q = law(Z),     Z ~ N(0, 1),   W = sum_t w_t b_t,   b_t ~ Bernoulli(q_t) independent,

``w_t >= 0``. It is the exact law of what a linear-Gaussian chain releases on a canary pair: step t's data term
enters the released coordinate with gain ``w_t`` (the step's drift coefficient times every later contraction,
divided by the release's noise standard deviation) when the canary is in step t's batch (``b_t``). One step
(``T = 1``) is the subsampled Gaussian pair of :func:`~dpverify.calculus.accounting.pld.subsampled_gaussian_pld`;
equal gains are "the last iterate advantage" pair of Steinke et al. 2025 (ICLR; c = 1); full batches
(``q_t = 1``) are the Gaussian pair with ``mu = sum_t w_t``. The loss ``L(x) = log E[exp(W x - W^2/2)]`` is convex
and, as ``W >= 0``, non-decreasing in x: the pair is one-dimensional with a monotone privacy loss.

**Rigorous bracket** (the same three facts as :mod:`~dpverify.calculus.accounting.pld`, plus one):

0. *Monotone in each gain.* For ``0 <= w <= w'`` the pair with gain w at step t is a post-processing of the pair
   with w', by one kernel under both datasets: split off an independent ``Z_t ~ N(0, v)`` (any ``v > 0``) from Z;
   map ``y = w' b_t + Z_t`` to ``(w/w') y + N(0, v (1 - (w/w')^2))``, which is ``w b_t + N(0, v)`` under P and
   ``N(0, v)`` under Q; the other steps' terms are independent of step t and are carried along. So rounding every
   gain *up* to a lattice of width g gives a pair that dominates the true one (every hockey-stick divergence, both
   directions, is at least as large), and rounding *down* one that is dominated.
1. On the lattice, W is integer-valued (times g): its law is computed exactly by the recursion
   ``law_{t} = (1 - q_t) law_{t-1} + q_t shift(law_{t-1}, m_t)``; mass pruned from its far right end (below
   ``tail_mass``/100) is sent to loss +inf (upper) or dropped (lower).
2. The output axis is cut into the lattice cells ``[k g, (k+1) g)``; the Q-mass of a cell is a normal mass in log
   space (:func:`~dpverify.calculus.accounting.pld.normal_log_mass`) and its P-mass the exact discrete convolution
   ``P_k = sum_j p_j Q_{k-j}`` (FFT). The merged loss ``lam_k = log(P_k/Q_k)`` lies between L at the cell's two ends,
   so, L being non-decreasing, every loss in cell k lies in ``[lam_{k-1}, lam_{k+1}]``.
3. *Privacy buckets* (Meiser & Mohammadi 2018): the upper law puts cell k's mass at ``lam_{k+1}`` rounded up to the
   loss grid, the lower law at ``lam_{k-1}`` rounded down (fact 2 of the pld module: moving mass up raises H);
   the backward direction (Q against P, loss -L under Q) the same with the roles swapped. Tails beyond the
   lattice go to +inf (upper) or are dropped (lower).

So ``epsilon_lower <= epsilon_true <= epsilon_upper`` at every delta, for both directions, up to floating point: the
FFT's round-off (absolute ~1e-16 of the largest cell mass) is treated by sending cells whose P-mass is below 1e4
times a conservative round-off estimate to +inf (upper) / dropping them (lower), and by widening the bounds of the
others by their relative round-off. The bracket's width comes from the lattice (``shift_tolerance``: the most the
rounding moves W at a typical high count) and the loss grid (``interval``); it is reported, never hidden.

The result is a :class:`~dpverify.calculus.accounting.pld.PrivacyLossDistribution`: it composes with every other
PLD (a sample set of a chain is a composition of such pairs, :mod:`dpverify.calculus.releases`).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.signal import fftconvolve
from scipy.special import ndtri

from dpverify.validation import check_real
from dpverify.calculus.accounting.pld import (
    DEFAULT_INTERVAL,
    DEFAULT_TAIL_MASS,
    PrivacyLossDistribution,
    gaussian_pld,
    grid_law_pld,
    identity_pld,
    normal_log_mass,
)

__all__ = ["DEFAULT_SHIFT_TOLERANCE", "MAX_CELLS", "shift_mixture_pld", "shift_mixture_loss", "shift_lattice"]

#: The most the lattice rounding may move W at a high count (count of steps with b_t = 1 at the mean plus eight
#: standard deviations), in units of the noise standard deviation.
DEFAULT_SHIFT_TOLERANCE: float = 2.5e-4
#: Lattice cells of one pair (memory guard; the lattice is coarsened, and the bracket widened, beyond it).
MAX_CELLS: int = 2**22
#: Relative FFT round-off assumed per cell mass (conservative: measured ~4e-16 of the largest mass).
_ROUND_OFF = 1e-14


def _check_inputs(weights, rates) -> tuple[np.ndarray, np.ndarray]:
    try:
        w = np.asarray(weights, dtype=float)
        q = np.asarray(rates, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("weights and rates must be numbers or 1-d arrays of numbers") from None
    if w.ndim > 1 or q.ndim > 1:
        raise ValueError(f"weights and rates must be scalars or 1-d arrays; got shapes {w.shape} and {q.shape}")
    try:
        w, q = np.broadcast_arrays(np.atleast_1d(w), np.atleast_1d(q))
    except ValueError:
        raise ValueError(f"weights and rates must have the same length; got {w.size} and {q.size}") from None
    bad = ~(np.isfinite(w) & (w >= 0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"weights must be finite numbers >= 0 (a gain that changes sign has a non-monotone loss, "
                         f"not covered here); got weights[{i}] = {w[i]!r}")
    bad = ~((q >= 0) & (q <= 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"rates must be in [0, 1]; got rates[{i}] = {q[i]!r}")
    return w.astype(float), q.astype(float)


def shift_lattice(weights: np.ndarray, rates: np.ndarray, spacing: float, *, round_up: bool,
                  prune_mass: float) -> tuple[np.ndarray, float]:
    """The law of ``M = sum_t m_t b_t`` with ``m_t = ceil(w_t/g)`` (``round_up``) or ``floor(w_t/g)``: masses
    ``p[k] = P(M = k)`` and the mass pruned from the right end (at most ``prune_mass`` in all), by the exact
    recursion of the module docstring (fact 1). Steps with ``m_t = 0`` change nothing."""
    m = np.ceil(weights / spacing) if round_up else np.floor(weights / spacing)
    m = m.astype(np.int64)
    keep = (m > 0) & (rates > 0)
    m, q = m[keep], rates[keep]
    p = np.zeros(int(m.sum()) + 1)
    p[0] = 1.0
    length, pruned = 1, 0.0
    budget = prune_mass
    for k, (mt, qt) in enumerate(zip(m.tolist(), q.tolist())):
        shifted = qt * p[:length]
        p[:length] *= 1.0 - qt
        p[mt:mt + length] += shifted
        length += mt
        if budget > 0 and (k % 16 == 15 or k == m.size - 1):
            tail = np.cumsum(p[length - 1::-1])  # mass from the right end inwards
            cut = int(np.searchsorted(tail, budget, side="right"))
            if 0 < cut < length:
                removed = float(tail[cut - 1])
                p[length - cut:length] = 0.0
                length -= cut
                pruned += removed
                budget -= removed
    return p[:length].copy(), pruned


def _lattice_spacing(w: np.ndarray, q: np.ndarray, shift_tolerance: float, z: float) -> float:
    """The lattice width: rounding moves W by at most g per included step, so g = tolerance / (a high count); then
    coarsened if the cells would exceed :data:`MAX_CELLS`."""
    mean = float(np.sum(q))
    sd = math.sqrt(float(np.sum(q * (1.0 - q))))
    high_count = max(1.0, min(float(np.count_nonzero(w)), mean + 8.0 * sd + 1.0))
    g = shift_tolerance / high_count
    span = float(np.sum(w)) + 2.0 * z + 2.0
    return max(g, span / MAX_CELLS)


def _log_q_cells(n_cells: int, g: float, z: float) -> np.ndarray:
    """log Q-masses of the lattice cells ``[k g, (k+1) g)``, k = -ceil(z/g) .. -ceil(z/g) + n_cells - 1."""
    cells = -int(math.ceil(z / g)) + np.arange(n_cells)
    return normal_log_mass(cells * g, (cells + 1) * g)


def _p_cells(p: np.ndarray, logQ: np.ndarray, g: float, z: float) -> np.ndarray:
    """P-masses of the cells of :func:`_log_q_cells` (the first ``p.size + 2 ceil(z/g) - 1`` of them): the discrete
    convolution of the shift law with the Q-masses of Q's bulk ``[-z, z]``."""
    k_q = int(math.ceil(z / g))
    P = fftconvolve(p, np.exp(logQ[:2 * k_q]))
    np.maximum(P, 0.0, out=P)
    return P


def _bucket_laws(P: np.ndarray, logQ: np.ndarray, pruned: float, h: float, *, upper: bool):
    """(forward law, backward law) of one rounded pair from its cell masses (module docstring, facts 2-3): the
    upper laws if ``upper`` else the lower laws, each as ``(offset, masses, inf)`` on the loss grid of width h."""
    err = _ROUND_OFF * float(P.max())
    reliable = P > 1e4 * err
    idx = np.flatnonzero(reliable)
    with np.errstate(divide="ignore"):
        logP = np.log(P)
    lam = logP - logQ
    slack = 2.0 * err / np.where(reliable, P, 1.0)  # |log(1 + r)| <= 2 r for the relative round-off r <= 1e-4
    n = P.size
    prev, nxt, has_prev, has_next = _neighbours(idx, n)
    lo = np.full(n, -np.inf)  # a lower bound on L over cell k: the merged loss of a reliable cell before it
    hi = np.full(n, np.inf)  # an upper bound: the merged loss of a reliable cell after it
    lo[has_prev] = lam[prev[has_prev]] - slack[prev[has_prev]]
    hi[has_next] = lam[nxt[has_next]] + slack[nxt[has_next]]
    Q = np.exp(logQ)
    p_out = max(0.0, 1.0 - float(P.sum()))  # P-mass beyond the lattice (tails, pruned shifts)
    q_out = max(0.0, 1.0 - float(Q.sum()))
    if upper:  # forward: P-mass at hi rounded up; backward: Q-mass at -lo rounded up; unbounded -> +inf
        fwd = _to_grid(P, hi, h, np.ceil, extra_inf=p_out + pruned)
        bwd = _to_grid(Q, -lo, h, np.ceil, extra_inf=q_out)
    else:  # forward: P-mass at lo rounded down; backward: Q-mass at -hi rounded down; unbounded -> dropped
        fwd = _to_grid(P, lo, h, np.floor, extra_inf=0.0)
        bwd = _to_grid(Q, -hi, h, np.floor, extra_inf=0.0)
    return fwd, bwd


def _neighbours(idx: np.ndarray, n: int):
    """For every cell 0..n-1: the previous and the next cell of the sorted index set ``idx`` (strictly before /
    after it) and whether there is one."""
    cells = np.arange(n)
    prev_pos = np.searchsorted(idx, cells, side="left") - 1
    next_pos = np.searchsorted(idx, cells, side="right")
    has_prev, has_next = prev_pos >= 0, next_pos < idx.size
    prev = np.where(has_prev, idx[np.clip(prev_pos, 0, max(idx.size - 1, 0))], -1)
    nxt = np.where(has_next, idx[np.clip(next_pos, 0, max(idx.size - 1, 0))], n)
    return prev, nxt, has_prev, has_next


def _to_grid(mass: np.ndarray, loss: np.ndarray, h: float, rounding, *, extra_inf: float):
    """Masses at ``rounding(loss / h)`` on the loss grid: ``(offset, masses, inf)``; +inf losses add to ``inf``,
    -inf losses (no lower bound known, lower laws only) are dropped."""
    finite = np.isfinite(loss)
    inf = extra_inf + float(mass[~finite & (loss > 0)].sum())
    if not finite.any():
        return 0, np.zeros(1), min(1.0, inf)
    k = rounding(loss[finite] / h).astype(np.int64)
    offset = int(k.min())
    masses = np.bincount(k - offset, weights=mass[finite])
    return offset, masses, min(1.0, inf)


def shift_mixture_pld(weights, rates, *, interval: float = DEFAULT_INTERVAL, tail_mass: float = DEFAULT_TAIL_MASS,
                      shift_tolerance: float = DEFAULT_SHIFT_TOLERANCE) -> PrivacyLossDistribution:
    """The PLD of ``P = law(sum_t w_t b_t + Z)`` vs ``Q = law(Z)`` (module docstring), with a rigorous bracket.

    ``weights`` ``w_t >= 0`` (gains in units of the noise standard deviation) and ``rates`` ``q_t in [0, 1]``
    (inclusion probabilities), 1-d arrays of one length (or one a scalar). Steps with ``q_t = 1`` are a
    deterministic shift; when every step has it, the pair is the Gaussian pair with ``mu = sum_t w_t``
    (:func:`~dpverify.calculus.accounting.pld.gaussian_pld`). ``shift_tolerance``: lattice accuracy (module
    docstring); ``interval`` and ``tail_mass``: as for every PLD here.
    """
    w, q = _check_inputs(weights, rates)
    h = check_real("interval", interval, low=0.0, high=1.0, low_inclusive=False)
    tail = check_real("tail_mass", tail_mass, low=0.0, high=1e-3, low_inclusive=False)
    tol = check_real("shift_tolerance", shift_tolerance, low=0.0, high=1.0, low_inclusive=False)
    active = (w > 0) & (q > 0)
    w, q = w[active], q[active]
    fixed = float(np.sum(w[q >= 1.0]))
    w, q = w[q < 1.0], q[q < 1.0]
    if w.size == 0:
        if fixed == 0.0:
            return identity_pld(interval=h, tail_mass=tail)
        return gaussian_pld(fixed, interval=h, tail_mass=tail)
    z = -float(ndtri(tail / 8.0))
    # the deterministic shift is one more step with rate 1 (exact on the lattice up to the same rounding)
    w_all = np.append(w, fixed) if fixed > 0 else w
    q_all = np.append(q, 1.0) if fixed > 0 else q
    g = _lattice_spacing(w_all, q_all, tol, z)
    laws, lattices = {}, {}
    for upper in (True, False):
        lattices[upper] = shift_lattice(w_all, q_all, g, round_up=upper, prune_mass=tail / 100.0)
    n_cells = max(p.size for p, _ in lattices.values()) + 2 * int(math.ceil(z / g)) - 1
    logQ = _log_q_cells(n_cells, g, z)
    for upper, (p, pruned) in lattices.items():
        P = _p_cells(p, logQ, g, z)
        laws[upper] = _bucket_laws(P, logQ[:P.size], pruned, h, upper=upper)
    (fu, bu), (fl, bl) = laws[True], laws[False]
    params = (f"{w.size} random steps, rates {float(q.min()):.4g}-{float(q.max()):.4g}, gains "
              f"{float(w.min()):.4g}-{float(w.max()):.4g}" + (f", fixed shift {fixed:.4g}" if fixed else "")
              + f", lattice {g:.3g}")
    return grid_law_pld(fu, fl, bu, bl, interval=h, tail_mass=tail, component=("Gaussian shift mixture", params, 1))


def shift_mixture_loss(weights, rates, *, shift_tolerance: float = 1e-3):
    """The privacy loss ``L(x) = log E[exp(W x - W^2/2)]`` of the pair (module docstring) as a vectorised function of
    x, for a white-box statistic. Full batches: ``mu x - mu^2/2`` exactly. Otherwise tabulated as the merged loss of
    the lattice cells (gains rounded to the nearest lattice point, ``shift_tolerance`` as in
    :func:`shift_mixture_pld`; accurate to ~1e-3 where the pair has mass), interpolated linearly, and continued
    beyond the table by its end slopes (L is convex). A statistic only needs to be a fixed function of the output:
    its tests stay valid whatever its accuracy; its power is the Neyman-Pearson test's up to that accuracy."""
    w, q = _check_inputs(weights, rates)
    tol = check_real("shift_tolerance", shift_tolerance, low=0.0, high=1.0, low_inclusive=False)
    active = (w > 0) & (q > 0)
    w, q = w[active], q[active]
    fixed = float(np.sum(w[q >= 1.0]))
    w, q = w[q < 1.0], q[q < 1.0]
    if w.size == 0:
        mu = fixed
        return lambda x: mu * np.asarray(x, dtype=float) - mu * mu / 2.0
    z = -float(ndtri(1e-15))
    w_all = np.append(w, fixed) if fixed > 0 else w
    q_all = np.append(q, 1.0) if fixed > 0 else q
    g = _lattice_spacing(w_all, q_all, tol, z)
    p, _ = shift_lattice(w_all + 0.5 * g, q_all, g, round_up=False, prune_mass=1e-17)  # nearest lattice point
    n_cells = p.size + 2 * int(math.ceil(z / g)) - 1
    logQ = _log_q_cells(n_cells, g, z)
    P = _p_cells(p, logQ, g, z)
    keep = P > 1e-10 * P.max()
    centres = (-int(math.ceil(z / g)) + np.arange(P.size) + 0.5) * g
    xs = centres[keep]
    with np.errstate(divide="ignore"):
        ls = np.log(P[keep]) - logQ[:P.size][keep]
    slope_lo = (ls[1] - ls[0]) / (xs[1] - xs[0])
    slope_hi = (ls[-1] - ls[-2]) / (xs[-1] - xs[-2])

    def loss(x):
        x = np.asarray(x, dtype=float)
        out = np.interp(x, xs, ls)
        out = np.where(x < xs[0], ls[0] + slope_lo * (x - xs[0]), out)
        return np.where(x > xs[-1], ls[-1] + slope_hi * (x - xs[-1]), out)

    return loss

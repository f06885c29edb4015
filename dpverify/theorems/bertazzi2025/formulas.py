"""Closed forms of Bertazzi, Johnston, Roberts & Durmus 2025, and exact reference values.

All statements are *reconstructed* (re-derived from the paper's proofs: the text copy the project worked from
lost its displayed formulas; see :mod:`dpverify.theorems.bertazzi2025`). Notation (the reconstruction's, mapped to
dpverify's keyword names):

- ``k``     number of Markov-chain steps (the paper's ``n``); ``T = k h`` the time horizon;
- ``K``     bound on the data-dependent drift/gradient (Asm. 5.1, 5.3, 5.5; Props 4.5, 4.6);
- ``M``     smoothness: Lipschitz constant of the gradient of the convex part (the reconstruction's ``L`` in
            Asm. 5.1/5.5; dpverify's shared name ``M``); ``L`` is kept for the generic Lipschitz constant of the
            drift in Prop. 4.6, eq. (20);
- ``m``     strong-convexity (strong-monotonicity) constant, ``m <= M``;
- ``h``     step size; ``beta`` inverse temperature (noise ``sqrt(2 h / beta)``);
- ``tau``   mini-batch size (the reconstruction's ``s``); ``N`` dataset size;
- ``energy`` an a.s. bound ``C`` on ``int_0^T |theta_t|^2 dt`` (the Girsanov "budget"; Lemmas B.2/B.3).

The two generic steps (reconstruction Sec. 4, Lemma 4.1 + B.3 and Lemma 4.2 + B.2): an a.s. budget
``C`` gives ``epsilon_delta(C) = C/2 + sqrt(2 C log(1/delta))`` and ``epsilon_alpha(C) = alpha C / 2``.
Every bound of Props 4.5/4.6 and Thms 5.2-5.8 is one of these at a specific ``C``.

The plain numpy functions (``ula_path_rdp``, ``ula_final_rdp``, ...) are the theory curves of
the notebook "path vs final-state privacy of ULA"; they broadcast over their arguments.
"""
from __future__ import annotations

import numpy as np
import sympy as sp
from numpy.typing import ArrayLike
from scipy.special import logsumexp

from dpverify.theorems import symbols as sy
from dpverify.validation import check_delta, check_order, check_real

__all__ = [
    "SYMBOLS",
    "sym_eps_dp",
    "sym_eps_rdp",
    "sym_coupling_radius",
    "sym_final_constant",
    "budget_epsilon",
    "budget_rdp",
    "coupling_radius",
    "ula_final_constant",
    "ula_path_rdp",
    "ula_path_epsilon",
    "ula_final_rdp",
    "ula_final_epsilon",
    "ula_final_rdp_short_window",
    "noisy_sgd_path_rdp",
    "noisy_sgd_final_rdp",
    "linear_ula_exact_final_rdp",
    "gaussian_path_exact_rdp",
    "mixture_pair_renyi",
    "gaussian_renyi",
]


#: This paper's symbols, keyword name -> the entry of the catalogue's symbol table (:mod:`dpverify.theorems.symbols`);
#: every bertazzi2025 theorem takes its own from here. ``T`` is the time horizon, ``L`` and ``R`` Prop. 4.6's drift
#: Lipschitz constant and coupling radius (both may be 0).
SYMBOLS: dict[str, sp.Symbol] = {
    "epsilon": sy.epsilon,
    "delta": sy.delta,
    "alpha": sy.alpha,
    "beta": sy.beta,
    "K": sy.K,
    "L": sy.L_drift,
    "M": sy.M,
    "m": sy.m,
    "h": sy.h,
    "k": sy.k,
    "T": sy.T_horizon,
    "R": sy.R_coupling,
    "tau": sy.tau,
    "N": sy.N,
    "energy": sy.energy,
    "K_ell": sy.K_ell,
    "sigma": sy.sigma,
    "sensitivity": sy.sensitivity,
    "delta_prime": sy.delta_prime,
    "kappa": sy.kappa,
    "R_n": sy.R_n,
    "R_inf": sy.R_inf,
    "epsilon_xi": sy.epsilon_xi,
    "delta_xi": sy.delta_xi,
    "delta_tilde": sy.delta_tilde,
    "delta_bar": sy.delta_bar,
    "r": sy.r,
    "C_f": sy.C_f,
}


def sym_eps_dp(C: sp.Expr) -> sp.Expr:
    """Lemma 4.1 + Lemma B.3: an a.s. Girsanov budget ``C`` gives ``C/2 + sqrt(2 C log(1/delta))``."""
    return C / 2 + sp.sqrt(2 * C * sp.log(1 / SYMBOLS["delta"]))


def sym_eps_rdp(C: sp.Expr) -> sp.Expr:
    """Lemma 4.2 + Lemma B.2: an a.s. Girsanov budget ``C`` gives RDP ``alpha C / 2``."""
    return SYMBOLS["alpha"] * C / 2


def sym_coupling_radius(K: sp.Expr, M: sp.Expr, m: sp.Expr, h: sp.Expr) -> sp.Expr:
    """App. C.1 eq. (117): ``R_h = 2K / (m - h M^2 / 2)`` for ``0 < h < 2m/M^2`` (M = smoothness)."""
    return 2 * K / (m - h * M**2 / 2)


def sym_final_constant(K: sp.Expr, L: sp.Expr, R: sp.Expr) -> sp.Expr:
    """Prop. 4.6 eq. (22): ``M = K + (L + 1) R`` (control on the unit window [T-1, T])."""
    return K + (L + 1) * R


# --- numpy versions ---------------------------------------------------------------------------

def _pos(name: str, x) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be finite and > 0; got {x!r}")
    return arr


def _orders(alpha) -> np.ndarray:
    arr = np.asarray(alpha, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(arr <= 1):
        raise ValueError(f"alpha must be a finite Rényi order > 1; got {alpha!r}")
    return arr


def _steps(k) -> np.ndarray:
    arr = np.asarray(k, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(arr < 1) or np.any(arr != np.round(arr)):
        raise ValueError(f"k (number of steps) must be an integer >= 1; got {k!r}")
    return arr


def budget_epsilon(C, delta: float) -> np.ndarray:
    """``epsilon_delta(C) = C/2 + sqrt(2 C log(1/delta))`` (Lemma 4.1 + B.3; reconstruction Sec. 4)."""
    C = np.asarray(C, dtype=float)
    if not np.all(np.isfinite(C)) or np.any(C < 0):
        raise ValueError(f"C (Girsanov budget) must be finite and >= 0; got {C!r}")
    d = check_delta(delta, allow_zero=False)
    return C / 2 + np.sqrt(2 * C * np.log(1 / d))


def budget_rdp(C, alpha) -> np.ndarray:
    """``epsilon_alpha(C) = alpha C / 2`` (Lemma 4.2 + B.2; reconstruction Sec. 4)."""
    C = np.asarray(C, dtype=float)
    if not np.all(np.isfinite(C)) or np.any(C < 0):
        raise ValueError(f"C (Girsanov budget) must be finite and >= 0; got {C!r}")
    return _orders(alpha) * C / 2


def coupling_radius(K, M, m, h) -> np.ndarray:
    """``R_h = 2K/(m - h M^2/2)``, the a.s. bound on |X^D_k - X^{D'}_k| of synchronously coupled
    ULA chains (Bertazzi et al. 2025, App. C.1 eq. (117)); needs ``m <= M`` and ``0 < h < 2m/M^2``."""
    K, M, m, h = (_pos(n, v) for n, v in (("K", K), ("M", M), ("m", m), ("h", h)))
    if np.any(m > M):
        raise ValueError(f"m must be <= M (strong monotonicity forces it); got m={m}, M={M}")
    if np.any(h >= 2 * m / M**2):
        raise ValueError(f"h must lie in (0, 2m/M^2); got h={h}, 2m/M^2={2 * m / M**2}")
    return 2 * K / (m - h * M**2 / 2)


def ula_final_constant(K, M, m, h) -> np.ndarray:
    """``M_h = 2K + (M+1) R_h`` (Thm 5.2: Prop. 4.6 with drift offset 2K, Lipschitz M, R = R_h)."""
    return 2 * np.asarray(K, dtype=float) + (np.asarray(M, dtype=float) + 1) * coupling_radius(K, M, m, h)


def ula_path_rdp(alpha, K, h, k) -> np.ndarray:
    """RDP of the whole ULA path after ``k`` steps, ``alpha K^2 k h / 4`` (Thm 5.4 eq. (29)).

    Grows linearly in the number of steps ``k`` (Rényi composition of k Gaussian mechanisms with
    shift ``h K`` and variance ``2h``)."""
    return _orders(alpha) * _pos("K", K) ** 2 * _steps(k) * _pos("h", h) / 4


def ula_path_epsilon(delta: float, K, h, k) -> np.ndarray:
    """(epsilon, delta)-DP of the ULA path: ``K^2 k h/4 + K sqrt(k h log(1/delta))`` (Thm 5.4 eq. (29))."""
    return budget_epsilon(_pos("K", K) ** 2 * _steps(k) * _pos("h", h) / 2, delta)


def ula_final_rdp(alpha, K, M, m, h, k=1) -> np.ndarray:
    """RDP of the ULA final state, ``alpha M_h^2 / 4`` (Thm 5.2 eq. (27)), uniform in the step count.

    ``k`` only sets the broadcast shape: the bound does not depend on it (nor on the dimension)."""
    base = _orders(alpha) * ula_final_constant(K, M, m, h) ** 2 / 4
    return base * np.ones_like(_steps(k))


def ula_final_epsilon(delta: float, K, M, m, h, k=1) -> np.ndarray:
    """(epsilon, delta)-DP of the ULA final state: ``M_h^2/4 + M_h sqrt(log(1/delta))`` (Thm 5.2)."""
    Mh = ula_final_constant(K, M, m, h)
    return budget_epsilon(Mh**2 / 2, delta) * np.ones_like(_steps(k))


def ula_final_rdp_short_window(alpha, K, M, m, h, k=1) -> np.ndarray:
    """A tighter final-state RDP (an improvement beyond the paper; reconstruction Sec. 7b).

    Prop. 4.6 with the control on a window of length ``w = R/(K' + M R)`` (``K' = 2K``, ``R = R_h``)
    instead of 1: ``int |u|^2 <= w (K' + M R + R/w)^2`` is minimised at that ``w`` and equals
    ``4 R (K' + M R)``, so ``epsilon_alpha = alpha (2K + M R_h) R_h``. That needs a horizon ``k h >= w``;
    the path bound (Prop. 4.5 with drift gap 2K) holds at every horizon, so the value is the smaller of the two
    where both hold and the path bound before. Never larger than :func:`ula_final_rdp` (AM-GM)."""
    alpha = _orders(alpha)
    R = coupling_radius(K, M, m, h)
    Kp = 2 * np.asarray(K, dtype=float)
    w = R / (Kp + np.asarray(M, dtype=float) * R)
    window = alpha * (Kp + np.asarray(M, dtype=float) * R) * R
    kk = _steps(k)
    path = ula_path_rdp(alpha, Kp, h, kk)
    return np.where(kk * np.asarray(h, dtype=float) >= w, np.minimum(window, path), path)


def noisy_sgd_final_rdp(alpha, K, M, m, h, beta=1.0, tau=1, affine=False) -> np.ndarray:
    """Final-state RDP of noisy SGD (31): ``alpha beta M_h^2/4`` (Thm 5.6), divided by ``tau^2`` when the
    data-dependent gradient is constant in theta (Thm 5.7)."""
    out = _orders(alpha) * _pos("beta", beta) * ula_final_constant(K, M, m, h) ** 2 / 4
    return out / _pos("tau", tau) ** 2 if affine else out


def noisy_sgd_path_rdp(alpha, K_ell, h, k, beta=1.0, tau=1) -> np.ndarray:
    """Path RDP of noisy SGD (Thm 5.8): ``alpha beta K_ell^2 k h / (4 tau^2)``, ``K_ell`` the per-datum gradient
    sensitivity ``sup |grad l(., x) - grad l(., x')|`` (``<= 2K`` under Asm. 5.5 with a datum-free ``l_1``)."""
    return _orders(alpha) * _pos("beta", beta) * _pos("K_ell", K_ell) ** 2 * _steps(k) * _pos("h", h) / (4 * _pos("tau", tau) ** 2)


# --- exact reference values (independent of the paper's proofs) ---------------------------------

def gaussian_renyi(alpha: float, mean_gap: float, variance: float) -> float:
    """``D_alpha(N(mu_1, s^2 I) || N(mu_2, s^2 I)) = alpha |mu_1 - mu_2|^2 / (2 s^2)`` (Def. 2.2, eq. (4))."""
    a = check_order(alpha, "alpha")
    g = check_real("mean_gap", mean_gap, low=0.0)
    v = check_real("variance", variance, low=0.0, low_inclusive=False)
    return a * g**2 / (2 * v)


def linear_ula_exact_final_rdp(alpha: float, A: np.ndarray, shift: np.ndarray, h: float, k) -> np.ndarray | float:
    """Exact RDP of the final state of ULA on a Gaussian target with full-batch gradients.

    ``grad U^D(x) = A x + g_D`` (``A`` symmetric positive definite), common start, ``k`` steps of (25):
    ``X_{j+1} = (I - hA) X_j - h g_D + sqrt(2h) xi``. Both final laws are Gaussian with the same
    covariance ``S_k`` (``S_{j+1} = (I-hA) S_j (I-hA) + 2h I``, ``S_0 = 0``) and mean gap ``G_k``
    (``G_{j+1} = (I-hA) G_j - h (g_D - g_D')``), so ``D_alpha = alpha G_k^T S_k^{-1} G_k / 2``.
    ``shift = g_D - g_D'``; ``k`` an int (returns a float) or a sequence of step counts (returns an array)."""
    a = check_order(alpha, "alpha")
    A = np.atleast_2d(np.asarray(A, dtype=float))
    shift = np.atleast_1d(np.asarray(shift, dtype=float))
    d = A.shape[0]
    if A.shape != (d, d) or shift.shape != (d,) or not np.allclose(A, A.T):
        raise ValueError("A must be a symmetric d x d matrix and shift a length-d vector")
    h = check_real("h", h, low=0.0, low_inclusive=False)
    ks = _steps(k).astype(int)
    wanted = set(ks.ravel().tolist())
    B = np.eye(d) - h * A
    S = np.zeros((d, d))
    G = np.zeros(d)
    found: dict[int, float] = {}
    for j in range(1, int(ks.max()) + 1):  # loop over time steps of the chain
        S = B @ S @ B.T + 2 * h * np.eye(d)
        G = B @ G - h * shift
        if j in wanted:
            found[j] = float(a * G @ np.linalg.solve(S, G) / 2)
    out = np.vectorize(found.__getitem__, otypes=[float])(ks)
    return float(out) if np.ndim(k) == 0 else out


def gaussian_path_exact_rdp(alpha: float, lam: float, shift: float, h: float, k: int, beta: float = 1.0) -> float:
    """Exact RDP of the whole path ``(X_1, ..., X_k)`` of the 1-d Euler chain
    ``X_{j+1} = (1 - h lam) X_j - h g_D + sqrt(2h/beta) xi`` (common start 0), ``shift = g_D - g_D'``.

    Built independently of any composition argument: the path is ``X = m_D + sqrt(2h/beta) P xi`` with
    ``P`` lower-triangular (``P_{ij} = (1-h lam)^{i-j}``), a joint Gaussian with covariance
    ``(2h/beta) P P^T``; ``D_alpha = alpha G^T Sigma^{-1} G / 2`` with ``G`` the mean-path gap."""
    a = check_order(alpha, "alpha")
    c = 1.0 - h * lam
    idx = np.arange(int(k))
    P = np.tril(c ** np.subtract.outer(idx, idx).clip(min=0))
    G = P @ (-h * shift * np.ones(int(k)))
    Sigma = (2 * h / beta) * P @ P.T
    return float(a * G @ np.linalg.solve(Sigma, G) / 2)


def mixture_pair_renyi(alpha: float, atoms_p: ArrayLike, atoms_q: ArrayLike, weights: ArrayLike,
                       sigma: float, grid_size: int = 20001) -> float:
    """``D_alpha(P || Q)`` for 1-d Gaussian location mixtures ``P = sum_j w_j N(a_j, sigma^2)``,
    ``Q = sum_j w_j N(b_j, sigma^2)``, by trapezoidal quadrature in log space on a grid covering
    ``[min - 12 sigma, max + 12 sigma]`` (the tails beyond contribute < e^{-70} relatively)."""
    a = check_order(alpha, "alpha")
    ap, aq, w = (np.asarray(x, dtype=float) for x in (atoms_p, atoms_q, weights))
    keep = w > 0  # zero-weight atoms carry no mass
    ap, aq, w = ap[keep], aq[keep], w[keep]
    lo = min(ap.min(), aq.min()) - 12 * sigma
    hi = max(ap.max(), aq.max()) + 12 * sigma
    x = np.linspace(lo, hi, grid_size)
    logw = np.log(w)[:, None]
    norm = -0.5 * np.log(2 * np.pi * sigma**2)
    lp = logsumexp(logw - (x[None, :] - ap[:, None]) ** 2 / (2 * sigma**2), axis=0) + norm
    lq = logsumexp(logw - (x[None, :] - aq[:, None]) ** 2 / (2 * sigma**2), axis=0) + norm
    integrand = a * lp + (1 - a) * lq
    dx = x[1] - x[0]
    trap = np.full(x.size, np.log(dx))
    trap[[0, -1]] += np.log(0.5)
    return float(logsumexp(integrand + trap) / (a - 1))

"""The total variation of two one-dimensional Gaussian laws, and the exact law of ULA on a quadratic potential: what
the approximate-sampling transfer (Minami et al. 2016, ``minami2016.prop_approximate_sampling``; Bertazzi et al. 2025,
Prop. 3.2) needs on its Gaussian instance.

**Total variation (closed form).** For ``P = N(mu_1, s_1^2)`` and ``Q = N(mu_2, s_2^2)`` put ``d = mu_1 - mu_2`` and
measure x from mu_2. Then ``p > q`` iff ``f(x) = (x - d)^2 / s_1^2 - x^2 / s_2^2 - 2 log(s_2 / s_1) < 0``, a quadratic
``A x^2 + B x + C`` with ``A = 1/s_1^2 - 1/s_2^2``, ``B = -2 d / s_1^2``, ``C = d^2 / s_1^2 - 2 log(s_2 / s_1)``. Its
discriminant is

    B^2 - 4 A C = 4 d^2 / (s_1^2 s_2^2) + 8 A log(s_2 / s_1)  > 0      (s_1 != s_2),

(expand: the d^2 / s_1^4 terms cancel), both terms >= 0 since A and log(s_2 / s_1) have the same sign -- so there are
always two crossing points x_1 < x_2, found here without cancellation (``q = -(B + sign(B) sqrt(disc)) / 2``, roots
``q / A`` and ``C / q``). If s_1 < s_2 (A > 0), p > q exactly on (x_1, x_2); if s_1 > s_2, exactly outside it. Hence

    TV(P, Q) = sup_S P(S) - Q(S) = sign(A) (P(x_1 < X < x_2) - Q(x_1 < X < x_2)),

and for s_1 = s_2 = s the classical ``2 Phi(|d| / (2 s)) - 1``. Each interval mass is taken from the side of the
normal law where it is a difference of small tail masses (no cancellation of two numbers near 1). Checked against
scipy's quadrature in ``tests/test_minami2016_approximate.py`` and the item's check ``tv_closed_form_vs_quadrature``.

**TV increases with the mean gap** (used for the supremum over datasets). With s_1, s_2 fixed, d > 0 and
``S = {p_d > q}``, the envelope theorem gives ``d/dd TV = int_S dp_d/dd = -int_S dp_d/dx``: for s_1 < s_2, S =
(x_1, x_2) and the derivative is ``p_d(x_1) - p_d(x_2) = q(x_1) - q(x_2)`` (p = q at the crossings); the vertex of the
concave log-ratio is at ``x* = d s_2^2 / (s_2^2 - s_1^2) > 0``, so x_1 + x_2 = 2 x* > 0, |x_1| < |x_2| and q(x_1) >
q(x_2). For s_1 > s_2, S is the complement, the derivative is ``q(x_2) - q(x_1)`` and x* < 0 gives |x_2| < |x_1|: again
> 0. So TV is increasing in |d| (checked on a grid by the item's check ``tv_sup_over_datasets``).

**ULA on a quadratic.** On ``U(theta) = m |theta|^2 / 2 - <b, theta>`` (curvature m, minimiser b / m) ULA with step h,

    theta_{k+1} = theta_k - h grad U(theta_k) + sqrt(2 h) xi_{k+1} = rho theta_k + h b + sqrt(2 h) xi_{k+1},
    rho = 1 - h m,

from a fixed theta_0 is Gaussian after K steps, per coordinate, with

    mean_K = rho^K theta_0 + (1 - rho^K) b / m,
    var_K  = 2 h (1 - rho^{2K}) / (1 - rho^2) = 2 (1 - rho^{2K}) / (m (2 - h m)),

(induction: mean_{k+1} = rho mean_k + h b, var_{k+1} = rho^2 var_k + 2h; 1 - rho^2 = h m (2 - h m)), stable iff
0 < h m < 2, with the stationary law ``N(b / m, 1 / (m (1 - h m / 2)))``: the target N(b / m, 1 / m) with its variance
inflated by ``1 / (1 - h m / 2)`` (the discretisation bias; :meth:`dpverify.models.targets.GaussianTarget.ula_law` is
the same law on the Gaussian-likelihood target). :func:`ula_contraction` and :func:`ula_variance` compute rho^K,
1 - rho^K and var_K through ``expm1`` of ``K log |rho|`` (no cancellation for h m near 0 or 2).
"""
from __future__ import annotations

import math

from scipy.special import ndtr

from dpverify.validation import check_positive_int, check_real

__all__ = ["gaussian_tv", "normal_interval_mass", "ula_contraction", "ula_variance", "check_ula_step"]


def normal_interval_mass(a: float, b: float) -> float:
    """``P(a < Z < b)`` for Z standard normal (a <= b; infinite ends allowed), from the side where it is a difference
    of tail masses: ``Phi(-a) - Phi(-b)`` on the right of 0, ``Phi(b) - Phi(a)`` on the left, ``1 - Phi(a) - Phi(-b)``
    when the interval holds 0."""
    if a > 0:
        return float(ndtr(-a) - ndtr(-b))
    if b < 0:
        return float(ndtr(b) - ndtr(a))
    return float(1.0 - ndtr(a) - ndtr(-b))


def gaussian_tv(mean1: float, sd1: float, mean2: float, sd2: float) -> float:
    """The total variation ``sup_S |P(S) - Q(S)|`` of ``P = N(mean1, sd1^2)`` and ``Q = N(mean2, sd2^2)``, exact
    (closed form through the two crossing points of the densities; module docstring). ``ValueError`` naming the
    argument for a non-finite mean or a standard deviation that is not > 0."""
    m1 = check_real("mean1", mean1)
    m2 = check_real("mean2", mean2)
    s1 = check_real("sd1", sd1, low=0.0, low_inclusive=False)
    s2 = check_real("sd2", sd2, low=0.0, low_inclusive=False)
    d = m1 - m2
    if not math.isfinite(d):
        raise ValueError(f"mean1 - mean2 must be finite; got {mean1!r} and {mean2!r}")
    if s1 == s2:
        return math.erf(abs(d) / (2.0 * math.sqrt(2.0) * s1))
    a_coef = 1.0 / s1**2 - 1.0 / s2**2
    log_ratio = math.log(s2 / s1)
    b_coef = -2.0 * d / s1**2
    c_coef = d * d / s1**2 - 2.0 * log_ratio
    disc = 4.0 * d * d / (s1 * s1 * s2 * s2) + 8.0 * a_coef * log_ratio  # both terms >= 0 (module docstring)
    q = -0.5 * (b_coef + math.copysign(math.sqrt(disc), b_coef if b_coef != 0 else 1.0))
    roots = sorted((q / a_coef, c_coef / q))
    x1, x2 = roots
    mass_p = normal_interval_mass((x1 - d) / s1, (x2 - d) / s1)
    mass_q = normal_interval_mass(x1 / s2, x2 / s2)
    tv = (mass_p - mass_q) if a_coef > 0 else (mass_q - mass_p)
    return min(1.0, max(0.0, tv))


def check_ula_step(h: float, m: float, name: str = "step_size") -> float:
    """``h`` as a float after checking ``0 < h < 2 / m`` (ULA on a potential of curvature m is stable, and its law
    has a finite variance, exactly there); a ``ValueError`` naming ``name`` and the range otherwise."""
    m_value = check_real("m", m, low=0.0, low_inclusive=False)
    return check_real(name, h, low=0.0, high=2.0 / m_value, low_inclusive=False, high_inclusive=False)


def ula_contraction(h: float, m: float, n_steps: int) -> tuple[float, float]:
    """``(rho^K, 1 - rho^K)`` for ``rho = 1 - h m`` and K = ``n_steps`` >= 1 (0 < h m < 2), the second without
    cancellation (``-expm1(K log rho)`` for rho > 0)."""
    h_value = check_ula_step(h, m)
    k = check_positive_int(n_steps, "n_steps")
    rho = 1.0 - h_value * float(m)
    if rho == 0.0:
        return 0.0, 1.0
    t = k * math.log(abs(rho))
    sign = -1.0 if (rho < 0 and k % 2 == 1) else 1.0
    rho_k = sign * math.exp(t)
    return rho_k, (-math.expm1(t) if sign > 0 else 1.0 + math.exp(t))


def ula_variance(h: float, m: float, n_steps: int) -> float:
    """``var_K = 2 (1 - rho^{2K}) / (m (2 - h m))`` per coordinate: the variance of ULA's K-th state on a potential of
    curvature m from a fixed start (module docstring); ``-expm1(2 K log |rho|)`` keeps it exact for small h m."""
    h_value = check_ula_step(h, m)
    k = check_positive_int(n_steps, "n_steps")
    m_value = float(m)
    rho = 1.0 - h_value * m_value
    one_minus = 1.0 if rho == 0.0 else -math.expm1(2.0 * k * math.log(abs(rho)))
    return 2.0 * one_minus / (m_value * (2.0 - h_value * m_value))

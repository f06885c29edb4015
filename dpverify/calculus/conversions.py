"""Conversions from Rényi DP to (epsilon, delta)-DP, minimised over the orders.

Two conversions, both valid at every order alpha > 1 for a mechanism that is
(alpha, r)-RDP:

- ``"mironov2017"`` (Mironov 2017, Prop. 3)::

      epsilon = r + log(1/delta) / (alpha - 1)        delta = exp((alpha - 1)(r - epsilon))

- ``"balle2020"`` (Balle et al. 2020, Thm. 21; Canonne, Kamath, Steinke 2020, Prop. 12;
  Asoodeh et al. 2020, Eq. 20)::

      epsilon = r + log((alpha - 1)/alpha) - (log delta + log alpha) / (alpha - 1)
      log delta = (alpha - 1)(r - epsilon + log(1 - 1/alpha)) - log alpha

  combined, exactly as dp-accounting 0.6 ``compute_epsilon``/``compute_delta`` do, with the
  Bretagnolle-Huber bound through the KL divergence (KL <= D_alpha for alpha >= 1):
  ``delta(0) = TV <= sqrt(1 - exp(-KL))``, so epsilon = 0 whenever ``delta**2 > 1 - exp(-r)``,
  and ``log delta <= 0.5 log(1 - exp(-r))`` at every epsilon. The result is clipped at epsilon >= 0.

  Unlike dp-accounting we do not drop orders alpha <= 1.01 from the Balle et al. formula: it is
  valid there and computed stably (``alpha - 1`` is exact in floating point for alpha in (1, 2]);
  such orders are never optimal for delta < 1/2 anyway.

Everything is in log space: delta may go down to 1e-300 (and below, to subnormals) and epsilon
up to hundreds without overflow; ``inf`` RDP entries mean "no guarantee at this order" and give
``inf`` (never NaN).
"""
from __future__ import annotations

import math

import numpy as np

from dpverify.validation import check_delta, check_epsilon, check_orders
from dpverify.calculus.guarantees import Conversion, RenyiDP

__all__ = ["METHODS", "rdp_to_dp", "rdp_to_delta", "renyi_to_approx_dp"]

#: The supported conversion methods.
METHODS: tuple[str, ...] = ("balle2020", "mironov2017")


def _check_method(method: str) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    return method


def _check_curve(orders, rdp) -> tuple[np.ndarray, np.ndarray]:
    a = check_orders(orders)
    try:
        r = np.asarray(rdp, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(f"rdp must be a sequence of numbers; got {type(rdp).__name__}") from None
    if r.shape != a.shape:
        raise ValueError(f"rdp must have one value per order; got {r.size} values for {a.size} orders")
    if np.any(np.isnan(r)) or np.any(r < 0):
        raise ValueError("rdp must contain numbers >= 0 (inf allowed, NaN not)")
    return a, r


def _log_delta_kl(r: np.ndarray) -> np.ndarray:
    """0.5 log(1 - exp(-r)): Bretagnolle-Huber bound on delta(0) = TV via KL <= r."""
    with np.errstate(divide="ignore"):
        return 0.5 * np.log(-np.expm1(-r))


def rdp_epsilons(orders, rdp, delta: float, method: str = "balle2020") -> np.ndarray:
    """Per-order epsilon of an RDP curve at ``delta`` (before minimising); see the module docstring.

    Inputs are assumed validated (internal helper of :func:`rdp_to_dp`, also used by the
    accountant and the moments tail bound). ``delta`` must be in (0, 1).
    """
    a = np.asarray(orders, dtype=float)
    r = np.asarray(rdp, dtype=float)
    log_delta = math.log(delta)
    am1 = a - 1.0
    if method == "mironov2017":
        return r - log_delta / am1
    eps = r + np.log1p(-1.0 / a) - (log_delta + np.log(a)) / am1
    # KL branch: delta >= sqrt(1 - exp(-r)) already at epsilon = 0.
    kl_ok = log_delta > _log_delta_kl(r)
    return np.where(kl_ok, 0.0, eps)


def rdp_to_dp(orders, rdp, delta: float, method: str = "balle2020") -> Conversion:
    """Smallest epsilon over ``orders`` such that the RDP curve implies (epsilon, delta)-DP.

    ``orders``: Rényi orders alpha > 1; ``rdp``: RDP epsilon at each order (>= 0, inf allowed);
    ``delta`` in [0, 1); ``method``: "balle2020" (default, tighter) or "mironov2017" (Mironov 2017,
    Prop. 3). Returns a :class:`~dpverify.calculus.guarantees.Conversion` with the optimal order.
    With ``delta == 0`` finite orders give no guarantee: epsilon is inf (0 if the curve is 0).
    """
    a, r = _check_curve(orders, rdp)
    delta = check_delta(delta)
    method = _check_method(method)
    if delta == 0.0:
        return Conversion(0.0 if np.all(r == 0) else math.inf, 0.0, float(a[0]), method)
    eps = rdp_epsilons(a, r, delta, method)
    i = int(np.argmin(eps))
    return Conversion(max(0.0, float(eps[i])), delta, float(a[i]), method)


def rdp_log_deltas(orders, rdp, epsilon: float, method: str = "balle2020") -> np.ndarray:
    """Per-order log delta of an RDP curve at ``epsilon`` (before minimising); inputs assumed valid."""
    a = np.asarray(orders, dtype=float)
    r = np.asarray(rdp, dtype=float)
    am1 = a - 1.0
    # inf - inf cannot occur (epsilon is finite); a product beyond the double range (epsilon = 1e308 at a large
    # order) is -inf, i.e. log delta = -inf: delta 0
    with np.errstate(invalid="ignore", over="ignore"):
        if method == "mironov2017":
            return np.minimum(am1 * (r - epsilon), 0.0)
        balle = am1 * (r - epsilon + np.log1p(-1.0 / a)) - np.log(a)
    return np.minimum(np.minimum(balle, _log_delta_kl(r)), 0.0)


def rdp_to_delta(orders, rdp, epsilon: float, method: str = "balle2020") -> Conversion:
    """Smallest delta over ``orders`` such that the RDP curve implies (epsilon, delta)-DP.

    ``epsilon`` > 0 (finite). Same conversions as :func:`rdp_to_dp`, inverted for delta:
    mironov2017 ``delta = exp((alpha - 1)(r - epsilon))`` (Mironov 2017, Prop. 3); balle2020
    ``log delta = (alpha - 1)(r - epsilon + log(1 - 1/alpha)) - log alpha`` (Canonne, Kamath,
    Steinke 2020, Prop. 12), each capped at 1, the latter also by the KL bound. A delta below the
    smallest double (e.g. epsilon = 100 at a small RDP) is returned as 0.0.
    """
    a, r = _check_curve(orders, rdp)
    epsilon = check_epsilon(epsilon)
    method = _check_method(method)
    log_d = rdp_log_deltas(a, r, epsilon, method)
    i = int(np.argmin(log_d))
    return Conversion(epsilon, float(math.exp(log_d[i])), float(a[i]), method)


def renyi_to_approx_dp(guarantee: RenyiDP, delta: float, method: str = "balle2020") -> Conversion:
    """Convert a :class:`~dpverify.calculus.guarantees.RenyiDP` curve to (epsilon, delta)-DP at ``delta``,
    minimising over its stored orders (:func:`rdp_to_dp`; ``method`` as there)."""
    if not isinstance(guarantee, RenyiDP):
        raise TypeError(f"guarantee must be a RenyiDP curve; got {type(guarantee).__name__}")
    return rdp_to_dp(guarantee.orders, guarantee.epsilons, delta, method=method)

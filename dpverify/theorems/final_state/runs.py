"""The runs the final-state theorems speak about, on quadratic models, as mechanism descriptions with linear dynamics.

Every algorithm below is an Euler step ``theta_t = theta_{t-1} - c_t grad U_D(theta_{t-1}) + s_t xi_t`` on a potential
whose data-free part is quadratic with curvature ``lam`` along the canary direction and whose data part is linear in
theta (a gradient canary: the two datasets' gradients differ by a constant). So ``theta_t = rho_t theta_{t-1} +
(data term) + s_t xi_t`` with ``rho_t = 1 - c_t lam`` and a data term that differs between the two datasets by
``d_t`` when the canary is in step t's batch: a linear-Gaussian chain whose final iterate has an exact privacy
(:mod:`dpverify.calculus.accounting.release`). The model's constants are the theorems' constants:

- **ULA** (Bertazzi et al. 2025, eq. 25) on ``U^D = lam theta^2/2 + K theta``, ``U^D' = lam theta^2/2 - K theta``:
  Assumption 5.1 with ``m <= lam <= M`` and the gradient bound K, the largest gradient gap 2K; ``c = h``,
  ``d = 2 h K``, ``s = sqrt(2h)``, full batch, replace-one.
- **Noisy SGD** (Bertazzi eq. 31) on ``l(theta, x) = lam theta^2/2 + c(x) theta``, ``|c| <= K``: Assumption 5.5 with a
  datum-free ``l_1`` and an affine ``l_2`` (Theorem 5.7's extra hypothesis); the canary pair has ``c = K`` in D and
  ``-K`` in D' for one record, all others equal; batches of ``s`` of ``N`` without replacement: ``d = 2 h K / s``
  when the record is drawn (rate ``s/N``), ``s_t = sqrt(2 h / beta)``.
- **Noisy GD** (Chourasia et al. 2021) on ``l(theta; x) = lam theta^2/2 - x theta``, ``|x - x'| <= S_g``: strongly
  convex and smooth with constants ``m <= lam <= M``; ``c = eta``, ``d = eta S_g / n``, ``s = sqrt(2 eta) sigma``,
  full batch; the theorem's random start ``theta_0 ~ N(0, 2 sigma^2 / m)`` is a first step with no data term.
- **DP-SGLD of Wang et al. 2015** (Alg. 2) on the linear log-likelihood ``x theta``, ``|x| <= L``, with prior
  precision ``lam``: ``c = eta``, ``d = eta (N/tau) 2L``, ``s`` the square root of Alg. 2's variance, batches of
  ``tau`` of ``N`` without replacement, replace-one.
- **DP-SGLD of Li et al. 2019** (Alg. 1, the drift sign that samples the posterior) on the same model: ``c = eta_t``
  applied to ``grad log prior / N``, so ``rho_t = 1 - eta_t lam / N``; ``d = eta_t L / tau`` (add/remove: the canary's
  clipped gradient), ``s = sqrt(eta_t / N)``, Poisson batches of rate ``q = tau / N``.

The same descriptions come out of the reference samplers on :class:`~dpverify.models.linear.LinearLoss` (the tests
compare them); they are built here because the theorem layer does not import the samplers.
"""
from __future__ import annotations

import numpy as np

from dpverify.calculus.linear_dynamics import LinearDynamics
from dpverify.calculus.mechanism_description import (
    FixedSizeSampling,
    FullBatch,
    GaussianStep,
    MechanismDescription,
    PoissonSampling,
    Repeated,
)
from dpverify.calculus.vocabulary import Release
from dpverify.validation import check_positive_int, check_real

__all__ = ["dp_sgld_li_run", "dp_sgld_wang_run", "linear_chain", "noisy_gd_run", "noisy_sgd_run", "ula_run"]


def _per_step(name: str, value, n: int, *, low: float = 0.0, inclusive: bool = True) -> np.ndarray:
    arr = np.broadcast_to(np.asarray(value, dtype=float), (n,)).copy()
    ok = np.isfinite(arr) & ((arr >= low) if inclusive else (arr > low))
    if not np.all(ok):
        raise ValueError(f"{name} must be finite and {'>=' if inclusive else '>'} {low:g} at every step; got {value!r}")
    return arr


def linear_chain(contraction, sensitivity, noise_std, sampling, neighbouring: str, n_steps: int, *,
                 start_std: float = 0.0, source: str = "") -> MechanismDescription:
    """The final release of ``theta_t = rho_t theta_{t-1} + (data term, gap d_t) + s_t xi_t`` over ``n_steps``
    steps (module docstring); ``contraction`` ``rho_t``, ``sensitivity`` ``d_t`` and ``noise_std`` ``s_t`` are
    numbers or per-step arrays. ``start_std > 0``: theta_0 is Gaussian with that standard deviation (a first step
    with no data term)."""
    n = check_positive_int(n_steps, "n_steps")
    rho = _per_step("contraction", contraction, n, low=-np.inf, inclusive=False)
    d = _per_step("sensitivity", sensitivity, n)
    s = _per_step("noise_std", noise_std, n, inclusive=False)
    change = np.flatnonzero((np.diff(d) != 0) | (np.diff(s) != 0)) + 1  # run-length encoding of (d_t, s_t)
    starts, ends = np.concatenate([[0], change]), np.concatenate([change, [n]])
    steps = [Repeated(GaussianStep(float(d[i]), float(s[i]), sampling), int(j - i)) for i, j in zip(starts, ends)]
    factors = rho
    if check_real("start_std", start_std, low=0.0) > 0:
        steps.insert(0, Repeated(GaussianStep(0.0, float(start_std), FullBatch(), "random start")))
        factors = np.concatenate([[1.0], rho])
    return MechanismDescription(tuple(steps), neighbouring, Release.FINAL, source,
                                dynamics=LinearDynamics.contraction(factors, source=source))


def ula_run(K: float, curvature: float, h: float, n_steps: int) -> MechanismDescription:
    """ULA (Bertazzi et al. 2025, eq. 25) on ``U^{D, D'} = curvature theta^2/2 +- K theta`` (module docstring)."""
    K, lam, h = check_real("K", K, low=0.0), check_real("curvature", curvature, low=0.0), check_real("h", h, low=0.0)
    return linear_chain(1 - h * lam, 2 * h * K, np.sqrt(2 * h), FullBatch(), "replace_one", n_steps,
                        source="Bertazzi et al. 2025, eq. (25)")


def noisy_sgd_run(K: float, curvature: float, h: float, beta: float, batch_size: int, N: int,
                  n_steps: int) -> MechanismDescription:
    """Noisy SGD (Bertazzi et al. 2025, eq. 31) on ``l = curvature theta^2/2 + c(x) theta``, the canary record with
    ``c = +-K``, batches of ``batch_size`` of ``N`` without replacement (module docstring)."""
    K, lam = check_real("K", K, low=0.0), check_real("curvature", curvature, low=0.0)
    h, beta = check_real("h", h, low=0.0), check_real("beta", beta, low=0.0, low_inclusive=False)
    s, N = check_positive_int(batch_size, "batch_size"), check_positive_int(N, "N")
    sampling = FullBatch() if s == N else FixedSizeSampling(s, N)
    return linear_chain(1 - h * lam, 2 * h * K / s, np.sqrt(2 * h / beta), sampling, "replace_one", n_steps,
                        source="Bertazzi et al. 2025, eq. (31)")


def noisy_gd_run(S_g: float, curvature: float, eta: float, sigma: float, N: int, n_steps: int,
                 start_variance: float = 0.0) -> MechanismDescription:
    """Noisy GD (Chourasia et al. 2021) on ``l = curvature theta^2/2 - x theta``, ``|x - x'| <= S_g``, from a start of
    variance ``start_variance`` (Theorem 2's is ``2 sigma^2 / m``; module docstring)."""
    S_g, lam = check_real("S_g", S_g, low=0.0), check_real("curvature", curvature, low=0.0)
    eta, sigma = check_real("eta", eta, low=0.0), check_real("sigma", sigma, low=0.0, low_inclusive=False)
    N = check_positive_int(N, "N")
    return linear_chain(1 - eta * lam, eta * S_g / N, np.sqrt(2 * eta) * sigma, FullBatch(), "replace_one", n_steps,
                        start_std=float(np.sqrt(check_real("start_variance", start_variance, low=0.0))),
                        source="Chourasia et al. 2021, noisy GD")


def dp_sgld_wang_run(L: float, prior_precision: float, eta: float, noise_variance: float, N: int, tau: int,
                     n_steps: int) -> MechanismDescription:
    """DP-SGLD (Wang et al. 2015, Alg. 2) on the linear log-likelihood with ``|x| <= L`` and a Gaussian prior of
    precision ``prior_precision`` (module docstring); ``noise_variance`` is Alg. 2's ``max{D eta^2, eta}``."""
    L, lam = check_real("L", L, low=0.0), check_real("prior_precision", prior_precision, low=0.0)
    eta = check_real("eta", eta, low=0.0, low_inclusive=False)
    var = check_real("noise_variance", noise_variance, low=0.0, low_inclusive=False)
    N, tau = check_positive_int(N, "N"), check_positive_int(tau, "tau", maximum=N)
    sampling = FullBatch() if tau == N else FixedSizeSampling(tau, N)
    return linear_chain(1 - eta * lam, eta * (N / tau) * 2 * L, np.sqrt(var), sampling, "replace_one", n_steps,
                        source="Wang et al. 2015, Alg. 2")


def dp_sgld_li_run(L: float, prior_precision: float, etas, N: int, q: float) -> MechanismDescription:
    """DP-SGLD (Li et al. 2019, Alg. 1) on the linear log-likelihood clipped to ``L``, Gaussian prior of precision
    ``prior_precision``, step sizes ``etas`` (one per step), Poisson rate ``q`` (module docstring)."""
    L, lam = check_real("L", L, low=0.0), check_real("prior_precision", prior_precision, low=0.0)
    N = check_positive_int(N, "N")
    q = check_real("q", q, low=0.0, high=1.0, low_inclusive=False)
    eta = np.atleast_1d(np.asarray(etas, dtype=float))
    eta = _per_step("etas", eta, eta.size, inclusive=False)
    sampling = FullBatch() if q == 1.0 else PoissonSampling(q)
    return linear_chain(1 - eta * lam / N, eta * L / (q * N), np.sqrt(eta / N), sampling, "add_remove", eta.size,
                        source="Li et al. 2019, Alg. 1")

"""Update rules of the gradient samplers: ``init(position) -> state`` and ``step(rng, state, gradient, ...) -> state``.

Pure and vectorised over chains (the leading axis of every array). The Langevin, SGHMC and SGNHT updates use only
arithmetic and the generator's ``standard_normal``, so they run unchanged on numpy arrays and on torch tensors (the
samplers' device path, :mod:`dpverify.samplers.device`). ``gradient(rng, theta)`` is a gradient
estimator bound to the data (:mod:`dpverify.samplers.gradients`); an integrator calls it where its update rule
evaluates the gradient, so the random draws come in the algorithm's order (mini-batch, then the injected noise).
Per-step parameters (step size, noise scale, ...) are arguments of ``step``: a :class:`~dpverify.samplers.schedules.Schedule`
supplies them from outside. Nothing here knows about privacy: the injected noise scale is a parameter that the
sampler's budget calibrates.

- :class:`EulerMaruyama` -- ``theta + c_t g(theta) + s_t xi`` (Langevin; Wang et al. 2015, Alg. 2; Li et al. 2019,
  Alg. 1; Bertazzi et al. 2025, eqs. 25, 31);
- :class:`SGHMCIntegrator` -- Wang et al. 2015, eq. (4.2) (Chen, Fox, Guestrin 2014);
- :class:`SGNHTIntegrator` -- Wang et al. 2015, eq. (4.5) (Ding et al. 2014);
- :class:`SGFSIntegrator` -- Wang et al. 2015, supp. Alg. 4 steps 2-5 (Ahn, Korattikara, Welling 2012);
- :class:`MALAIntegrator` -- Metropolis-adjusted Langevin (Roberts & Tweedie 1996), for OPS by MCMC (Wang et al.
  2015, Alg. 1); its "gradient" is the target's log density and gradient
  (:class:`~dpverify.samplers.gradients.TemperedLogPosterior`).
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple, Protocol, cast

import numpy as np

from dpverify.backends import backend_of

__all__ = [
    "IntegratorState",
    "LangevinState",
    "EulerMaruyama",
    "SGHMCState",
    "SGHMCIntegrator",
    "SGNHTState",
    "SGNHTIntegrator",
    "SGFSState",
    "SGFSIntegrator",
    "MALAState",
    "MALAIntegrator",
    "project_psd",
]

#: ``gradient(rng, theta) -> estimate``: a gradient estimator bound to a dataset.
GradientFn = Callable[[np.random.Generator, np.ndarray], np.ndarray]


def _positions(position) -> np.ndarray:
    """``position`` as a float ``(chains, d)`` array: numpy, or a tensor of another backend kept on its device (the
    samplers' device path, :mod:`dpverify.samplers.device`)."""
    theta = position if _on_device(position) else np.asarray(position, dtype=float)
    if theta.ndim != 2:
        raise ValueError(f"position must have shape (chains, d); got {tuple(theta.shape)}")
    return theta


def _on_device(x) -> bool:
    return not isinstance(x, np.ndarray) and type(x).__module__.split(".")[0] == "torch"


def _zeros_like(theta):
    return theta.new_zeros(theta.shape) if _on_device(theta) else np.zeros_like(theta)


def _zeros(theta, shape: tuple[int, ...]):
    """Zeros of ``shape`` on ``theta``'s backend."""
    return theta.new_zeros(shape) if _on_device(theta) else np.zeros(shape)


def _full(theta, value: float):
    """``(chains,)`` filled with ``value``, on ``theta``'s backend."""
    return theta.new_full((theta.shape[0],), float(value)) if _on_device(theta) else np.full(theta.shape[0], value)


class IntegratorState(Protocol):
    """What the state of every update rule has (each is a NamedTuple of its own fields): the positions ``theta``
    ``(chains, d)``."""

    @property
    def theta(self) -> np.ndarray: ...


class LangevinState(NamedTuple):
    """Positions ``theta`` ``(chains, d)``."""

    theta: np.ndarray


class EulerMaruyama:
    """The Langevin update with drift coefficient ``c`` and noise scale ``s`` given per step:

        theta_{t+1} = theta_t + c_t g(theta_t) + s_t xi_t,     xi_t ~ N(0, I_d),

    ``g`` the gradient estimate of the log posterior. (``c_t = h``, ``s_t = sqrt(2h)`` is the Euler-Maruyama
    discretisation of ``d theta = grad log pi dt + sqrt(2) dW``; DP-SGLD sets ``s_t`` from its privacy budget.)

    Its state is a :class:`LangevinState`; the update reads only the positions, so a variant that keeps more per-chain
    variables (the known-bad :class:`~dpverify.samplers.broken_integrators.ReusedNoiseEulerMaruyama`) sets its own
    ``state_type`` and ``init``."""

    state_type: type[IntegratorState] = LangevinState

    def init(self, position) -> IntegratorState:
        return LangevinState(_positions(position))

    def step(self, rng: np.random.Generator, state: IntegratorState, gradient: GradientFn, step_size: float,
             noise_std: float) -> LangevinState:
        theta = state.theta
        drift = gradient(rng, theta)
        z = noise_std * rng.standard_normal(theta.shape)  # the injected Gaussian noise (DP-SGLD's mechanism)
        return LangevinState(theta + step_size * drift + z)


class SGHMCState(NamedTuple):
    """Positions ``theta`` and momenta ``p``, both ``(chains, d)``."""

    theta: np.ndarray
    p: np.ndarray


class SGHMCIntegrator:
    """Stochastic gradient HMC as in Wang et al. 2015, eq. (4.2), with ``g = -grad U~`` the gradient estimate:

        theta_t = theta_{t-1} + h p_{t-1},
        p_t     = p_{t-1} + h g(theta_t) - h A p_{t-1} + s xi_t,     xi_t ~ N(0, I_d),

    ``A`` the friction and ``s = sqrt(2 (A - B_hat) h)`` the injected noise scale. The momentum starts at 0."""

    state_type = SGHMCState

    def init(self, position) -> SGHMCState:
        theta = _positions(position)
        return SGHMCState(theta, _zeros_like(theta))

    def step(self, rng: np.random.Generator, state: SGHMCState, gradient: GradientFn, step_size: float,
             friction: float, noise_std: float) -> SGHMCState:
        h, p = step_size, state.p
        theta = state.theta + h * p
        g = gradient(rng, theta)  # = -grad U~(theta_t)
        noise = noise_std * rng.standard_normal(theta.shape)
        return SGHMCState(theta, p + h * g - h * friction * p + noise)


class SGNHTState(NamedTuple):
    """Positions ``theta`` and velocities ``v`` ``(chains, d)``, thermostats ``alpha`` ``(chains,)``."""

    theta: np.ndarray
    v: np.ndarray
    alpha: np.ndarray


class SGNHTIntegrator:
    """The stochastic gradient Nose-Hoover thermostat in Wang et al. 2015's SGD-with-momentum form, eq. (4.5):

        v_t     = v_{t-1} - alpha_{t-1} v_{t-1} + eta g(theta_{t-1}) + s xi_t,
        theta_t = theta_{t-1} + v_t,
        alpha_t = alpha_{t-1} + (v_t^T v_t / d - eta),

    ``g = -grad U~``, ``s = sqrt(2 a eta)``; ``v_0 = 0`` and ``alpha_0 = initial_thermostat`` (``a`` in eq. 4.5)."""

    state_type = SGNHTState

    def __init__(self, initial_thermostat: float) -> None:
        self.initial_thermostat = initial_thermostat

    def __repr__(self) -> str:
        return f"SGNHTIntegrator(initial_thermostat={self.initial_thermostat!r})"

    def init(self, position) -> SGNHTState:
        theta = _positions(position)
        return SGNHTState(theta, _zeros_like(theta), _full(theta, self.initial_thermostat))

    def step(self, rng: np.random.Generator, state: SGNHTState, gradient: GradientFn, step_size: float,
             noise_std: float) -> SGNHTState:
        v, alpha, eta = state.v, state.alpha, step_size
        g = gradient(rng, state.theta)  # = -grad U~(theta_{t-1})
        noise = noise_std * rng.standard_normal(v.shape)
        v_new = v - alpha[:, None] * v + eta * g + noise
        theta = state.theta + v_new
        alpha_new = alpha + ((v_new**2).sum(axis=1) / v.shape[1] - eta)  # ndarray.sum is np.sum; torch too
        return SGNHTState(theta, v_new, alpha_new)


def project_psd(M: np.ndarray) -> np.ndarray:
    """Frobenius projection of (a batch of) square matrices on the PSD cone: ``Q max(Lambda, 0) Q^T`` of the
    symmetric part ``(M + M^T)/2`` (Higham 1988). numpy arrays or torch tensors (``torch.linalg.eigh``)."""
    if _on_device(M):
        import torch

        S = 0.5 * (M + M.transpose(-1, -2))
        w, Q = torch.linalg.eigh(S)
        return (Q * w.clamp(min=0.0)[..., None, :]) @ Q.transpose(-1, -2)
    S = 0.5 * (M + np.swapaxes(M, -1, -2))
    w, Q = np.linalg.eigh(S)
    return (Q * np.maximum(w, 0.0)[..., None, :]) @ np.swapaxes(Q, -1, -2)


class SGFSState(NamedTuple):
    """Positions ``theta`` ``(chains, d)`` and the running Fisher estimates ``fisher`` ``(chains, d, d)``."""

    theta: np.ndarray
    fisher: np.ndarray


class SGFSIntegrator:
    """Stochastic gradient Fisher scoring with noisy statistics, Wang et al. 2015, supp. Alg. 4 steps 2-5, for a
    public matrix ``F``. Given the mini-batch's per-record gradients ``g_i`` (``i in S``, ``|S| = tau``) and the
    prior's gradient (a :class:`~dpverify.samplers.gradients.RecordGradients`):

        g_bar = (1/tau) sum_i g_i,   g~ = g_bar + F Z,   Z ~ N(0, s_g^2 I_d),
        V     = P_{S^d_+}{ (1/(tau-1)) sum_i (g_i - g_bar)(g_i - g_bar)^T + W },   W_jk ~ N(0, s_W^2),
        I_t   = (1 - kappa_t) I_{t-1} + kappa_t V,
        theta_{t+1} = theta_t + 2 ((tau + N) N / tau I_t + 4 F F^T / eta_t)^{-1} (grad log prior(theta_t) + N g~),

    ``P`` the Frobenius projection on the PSD cone (:func:`project_psd`). ``s_g``, ``s_W`` (the privacy noise),
    ``eta_t`` and the averaging weight ``kappa_t`` (``1/t``, Ahn et al. 2012) are per-step parameters."""

    state_type = SGFSState

    def __init__(self, F: np.ndarray) -> None:
        self.F = np.asarray(F, dtype=float)

    def __repr__(self) -> str:
        return f"SGFSIntegrator(F={self.F.tolist()!r})"

    def init(self, position) -> SGFSState:
        theta = _positions(position)
        d = theta.shape[1]
        return SGFSState(theta, _zeros(theta, (theta.shape[0], d, d)))

    def step(self, rng: np.random.Generator, state: SGFSState, gradient, step_size: float,
             gradient_noise_std: float, covariance_noise_std: float, averaging_weight: float) -> SGFSState:
        if _on_device(state.theta):
            return self._device_step(rng, state, gradient, step_size, gradient_noise_std, covariance_noise_std,
                                     averaging_weight)
        theta = state.theta
        c, d = theta.shape
        est = gradient(rng, theta)  # step 1: the mini-batch's per-record gradients
        g, N, tau, eta = est.records, est.N, est.records.shape[1], step_size
        g_bar = g.mean(axis=1)
        Z = gradient_noise_std * rng.standard_normal((c, d))  # step 2
        W = covariance_noise_std * rng.standard_normal((c, d, d))
        g_tilde = g_bar + Z @ self.F.T  # step 3
        centred = g - g_bar[:, None, :]
        V = project_psd(np.swapaxes(centred, 1, 2) @ centred / (tau - 1) + W)
        kappa = averaging_weight  # step 4
        fisher = (1 - kappa) * state.fisher + kappa * V
        precond = (tau + N) * N / tau * fisher + 4 * (self.F @ self.F.T) / eta  # step 5
        rhs = est.prior + N * g_tilde
        return SGFSState(theta + 2 * np.linalg.solve(precond, rhs[..., None])[..., 0], fisher)

    def _device_step(self, rng, state: SGFSState, gradient, step_size: float, gradient_noise_std: float,
                     covariance_noise_std: float, averaging_weight: float) -> SGFSState:
        """:meth:`step` on torch tensors: the same steps 1-5 in the same order of draws (torch.linalg)."""
        import torch

        theta = cast("torch.Tensor", state.theta)  # :meth:`step` sends torch states here
        c, d = theta.shape
        F = torch.as_tensor(self.F, dtype=theta.dtype, device=theta.device)
        est = gradient(rng, theta)
        g, N, tau, eta = est.records, est.N, est.records.shape[1], step_size
        g_bar = g.mean(1)
        Z = gradient_noise_std * rng.standard_normal((c, d))
        W = covariance_noise_std * rng.standard_normal((c, d, d))
        g_tilde = g_bar + Z @ F.T
        centred = g - g_bar[:, None, :]
        V = project_psd(centred.transpose(1, 2) @ centred / (tau - 1) + W)
        kappa = averaging_weight
        fisher = (1 - kappa) * state.fisher + kappa * V
        precond = (tau + N) * N / tau * fisher + 4 * (F @ F.T) / eta
        rhs = est.prior + N * g_tilde
        return SGFSState(theta + 2 * torch.linalg.solve(precond, rhs[..., None])[..., 0], fisher)


class MALAState(NamedTuple):
    """Positions ``theta`` ``(chains, d)``, the target's log density ``logp`` ``(chains,)`` and gradient ``grad``
    ``(chains, d)`` there, and whether each chain's last proposal was ``accepted`` ``(chains,)``."""

    theta: np.ndarray
    logp: np.ndarray
    grad: np.ndarray
    accepted: np.ndarray


class MALAIntegrator:
    """One Metropolis-adjusted Langevin transition with step ``h`` (Roberts & Tweedie 1996):

        theta' = theta + (h/2) grad log pi(theta) + sqrt(h) xi,     xi ~ N(0, I_d),
        accept with probability min(1, pi(theta') q(theta | theta') / (pi(theta) q(theta' | theta))),

    ``q(a | b) = N(a; b + (h/2) grad log pi(b), h I)``; a proposal with ``pi = 0`` (``log pi = -inf``) is rejected.
    ``target(rng, theta)`` returns ``(log pi, grad log pi)``; :meth:`init` takes its value at the start. The step
    ``h`` is a per-step parameter (OPS by MALA adapts it between steps during burn-in)."""

    state_type = MALAState

    def init(self, position, target) -> MALAState:
        """The state at ``position`` given the target's ``(log density, gradient)`` there; nothing accepted yet."""
        theta = _positions(position)
        logp, grad = target
        return MALAState(theta, logp, grad, _zeros_like(logp) != 0)

    def step(self, rng: np.random.Generator, state: MALAState, target, step_size: float) -> MALAState:
        """One transition (class docstring), in arithmetic numpy and torch share (the device path of OPS by MALA)."""
        theta, logp, grad, h = state.theta, state.logp, state.grad, step_size
        xp = backend_of(theta)
        prop = theta + 0.5 * h * grad + math.sqrt(h) * rng.standard_normal(theta.shape)
        logp_p, grad_p = target(rng, prop)
        fwd = xp.sum((prop - theta - 0.5 * h * grad) ** 2, axis=1)
        bwd = xp.sum((theta - prop - 0.5 * h * grad_p) ** 2, axis=1)
        with xp.errstate(invalid="ignore"):  # a rejected proposal outside the support: -inf - finite, never used
            log_alpha = xp.where(xp.isfinite(logp_p), logp_p - logp - (bwd - fwd) / (2 * h), -math.inf)
        accept = xp.log(rng.random(theta.shape[0])) < log_alpha
        return MALAState(xp.where(accept[:, None], prop, theta), xp.where(accept, logp_p, logp),
                         xp.where(accept[:, None], grad_p, grad), accept)

"""The white-box statistic of a released final iterate or sample set of a linear-Gaussian chain on a canary pair.

On a verified canary pair (:meth:`~dpverify.samplers.sgmcmc.GradientMechanism.canary_vector`, difference ``u``) one
side is *deterministic* in its data terms: every batch contributes the same (the other records are copies of that
side's record, or null records). Along ``u_hat = u/||u||`` the released iterates of that side have means ``m_t``
(the chain run without noise: :func:`mean_path`), and with the window propagation factors ``Phi_j`` of
:class:`~dpverify.calculus.linear_dynamics.LinearDynamics`

    Y_j = (y_{t_j} - m_{t_j}) - Phi_j (y_{t_{j-1}} - m_{t_{j-1}}),      x_j = Y_j / std_j,      y = theta . u_hat,

are independent across the windows j (:mod:`dpverify.calculus.releases`), ``N(0, 1)`` on the deterministic side and
the shift mixture of window j on the other. The log-likelihood ratio of the release is therefore
``sum_j L_j(x_j)`` with ``L_j`` the window's privacy loss (:func:`~dpverify.calculus.accounting.shift_mixture.
shift_mixture_loss`), with the sign and orientation flipped when the dataset is the deterministic side. It is the
Neyman-Pearson statistic of the declared algorithm; like every white-box statistic it sees only what the declaration
says (the auditor therefore never uses it alone).
"""
from __future__ import annotations

import numpy as np

from dpverify.calculus.accounting.release import release_window_pairs
from dpverify.calculus.accounting.shift_mixture import shift_mixture_loss
from dpverify.calculus.releases import SampleSet, release_windows, released_indices

__all__ = ["release_statistic", "mean_path"]


def mean_path(sampler, data, indices: list[int]) -> np.ndarray:
    """The iterates ``theta_t`` (t in ``indices``) of one chain of ``sampler`` on ``data`` run with its injected
    noise set to 0: the mean path when ``data``'s batch terms are deterministic (copies of one record or null
    records). Shape ``(len(indices), d)``."""
    kernel, schedule = sampler.kernel, sampler.kernel_schedule
    if kernel is None or schedule is None:
        raise ValueError(f"{type(sampler).__name__} has no fixed kernel schedule to run without noise")
    rng = np.random.default_rng(0)  # the batches drawn do not matter: every batch contributes the same
    prepared = sampler.prepare_data(data)
    state = kernel.init(np.asarray(sampler.theta0, dtype=float)[None, :])
    want = {t: j for j, t in enumerate(indices)}
    out = np.empty((len(indices), sampler.model.dim))
    if 0 in want:
        out[want[0]] = state.theta[0]
    for t in range(sampler.n_steps):
        params = dict(schedule.at(t))
        params["noise_std"] = 0.0
        state = kernel.step(rng, state, prepared, **params)
        if t + 1 in want:
            out[want[t + 1]] = state.theta[0]
    return out


def _window_loss(pair):
    """A window's privacy loss as a function of its standardised coordinate x: ``mu x - mu^2/2`` for full batches
    (``mu`` the signed mean gap), else the shift mixture's (mirrored when its gains are all negative)."""
    if pair.full_batch:
        mu = float(np.sum(pair.weights))
        return lambda x: mu * x - mu * mu / 2.0
    weights = pair.mixture_weights()
    loss = shift_mixture_loss(weights, pair.rates)
    if np.all(pair.weights >= 0):
        return loss
    return lambda x: loss(-np.asarray(x))


def release_statistic(sampler, dataset, neighbour):
    """The statistic ``outputs -> log p_D(outputs) - log p_D'(outputs)`` of the module docstring for ``sampler``'s
    release (final iterate ``(n, d)`` or sample set ``(n, count, d)``) on the canary pair (dataset, neighbour).
    A ``ValueError`` says why when it is not available (not a verified canary pair; no linear dynamics; a hidden
    momentum state with a sample set)."""
    release = sampler.output
    if release == "path":
        raise ValueError("the release statistic is for a final iterate or a sample set; use the path statistic")
    u = sampler.canary_vector(dataset, neighbour)
    if u is None:
        raise ValueError("the pair is not a verified canary pair for this sampler (see canary_vector): the release's "
                         "likelihood ratio is not known in closed form")
    dynamics = sampler.linear_dynamics(u)
    if dynamics is None:
        raise ValueError(f"{type(sampler).__name__} on {sampler.model!r} is not a linear-Gaussian chain: the release's "
                         "likelihood ratio is not known in closed form")
    description = sampler.canary_description(float(np.linalg.norm(u)), u)
    pairs = release_window_pairs(description.steps_expanded(), dynamics, release)
    losses = [_window_loss(p) for p in pairs]
    stds = np.array([p.std for p in pairs])
    windows = release_windows(release, sampler.n_steps)
    transitions = dynamics.transitions()[:, 0, 0] if dynamics.state_dim == 1 else None
    phis = np.array([1.0] + [float(np.prod(transitions[s - 1:e])) for s, e in windows[1:]]) \
        if transitions is not None else np.ones(1)
    base = sampler.canary_deterministic_side(dataset, neighbour)
    indices = released_indices(release, sampler.n_steps)
    means = mean_path(sampler, neighbour if base == "neighbour" else dataset, indices) @ (u / np.linalg.norm(u))
    u_hat = u / np.linalg.norm(u)
    sign = 1.0 if base == "neighbour" else -1.0
    count = len(indices)
    d = sampler.model.dim
    sample_set = isinstance(release, SampleSet)

    def statistic(outputs: np.ndarray) -> np.ndarray:
        out = np.asarray(outputs, dtype=float)
        shape = (count, d) if sample_set else (d,)
        if out.ndim != len(shape) + 1 or out.shape[1:] != shape:
            raise ValueError(f"outputs must have shape (n, {', '.join(map(str, shape))}); got {out.shape}")
        dev = (out.reshape(out.shape[0], count, d) @ u_hat) - means  # (n, count)
        Y = dev.copy()
        if count > 1:
            Y[:, 1:] -= phis[1:] * dev[:, :-1]
        x = sign * Y / stds
        total = np.zeros(out.shape[0])
        for j, loss in enumerate(losses):
            total += loss(x[:, j])
        return sign * total

    statistic.description = f"white-box {release} log-likelihood ratio (linear-Gaussian chain, exact windows)"
    return statistic

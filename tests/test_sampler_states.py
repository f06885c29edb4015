"""Typed sampler states end to end (issue 36): every registered sampler draws bit for bit what it drew before the
states were typed, and a step carries the integrator's own NamedTuple state, with no dict anywhere in it.

The fingerprints below (a SHA-256 of the outputs' bytes, and for the kernel samplers of every variable of the final
state: positions, momenta, thermostats, Fisher estimates, MALA's log density, gradient, acceptances and step) were
taken from the code *before* the change (``ChainState(theta, t, aux: dict)``, the dict rebuilt on every step), with
the seeds and the small inputs of :data:`CASES`. A different number anywhere, in any bit, changes a hash.
"""
from __future__ import annotations

import hashlib
from functools import partial
from typing import Any, Callable

import numpy as np
import pytest

from dpverify.models.linear import LinearLoss
from dpverify.models.logistic import LogisticRegression, make_logistic_dataset
from dpverify.models.targets import GaussianTarget
from dpverify.samplers import registry
from dpverify.samplers.broken import DEFECTS
from dpverify.samplers.integrators import MALAIntegrator, MALAState
from dpverify.samplers.kernels import ChainState
from dpverify.samplers.ops_mcmc import AdaptiveMALAState
from dpverify.samplers.sgmcmc import StochasticGradientSampler

CHAINS = 5


def _logistic_data(N: int, d: int = 2, seed: int = 3, R: float = 1.0) -> np.ndarray:
    return make_logistic_dataset(N, d, np.random.default_rng(seed), R=R)


def _ball_data(N: int, d: int = 2, seed: int = 4) -> np.ndarray:
    u = np.random.default_rng(seed).standard_normal((N, d))
    return 0.9 * u / np.linalg.norm(u, axis=1, keepdims=True)


def _sgld_path(defect: str | None, release: str = "path"):
    model = LogisticRegression(2, R=4.0, prior_variance=100.0)
    params = {"model": model, "N": 40, "tau": 4, "T": 12, "delta": 1e-3, "step_size": 0.444, "L": 1.0,
              "theta0": np.array([-2.0, 0.0]), "release": release}
    if defect is None:
        return registry.make("dp_sgld_li", epsilon=None, claim="accountant", **params), _logistic_data(40, R=4.0)
    return registry.make("dp_sgld_broken", defect=defect, **params), _logistic_data(40, R=4.0)


_LINEAR: dict[str, Any] = {"dim": 2, "R": 1.0, "prior_variance": 4.0}
_BOUNDED: dict[str, Any] = {"dim": 2, "R": 1.0, "theta_radius": 4.0}

#: case name -> (sampler, dataset): every registered sampler on a small input (and each known-bad defect)
CASES: dict[str, Callable[[], tuple[Any, np.ndarray]]] = {
    "laplace_mechanism": lambda: (registry.make("laplace_mechanism"), np.array([0, 1, 1, 0])),
    "gaussian_mechanism": lambda: (registry.make("gaussian_mechanism"), np.array([0, 1, 1, 0])),
    "analytic_gaussian_mechanism": lambda: (registry.make("analytic_gaussian_mechanism"), np.array([0, 1, 1, 0])),
    "exponential_mechanism": lambda: (registry.make("exponential_mechanism"), np.array([0, 2, 2, 1])),
    "ops_beta_bernoulli": lambda: (registry.make("ops_beta_bernoulli"), np.array([0, 1, 1, 0])),
    "ops_dirichlet_categorical": lambda: (registry.make("ops_dirichlet_categorical"), np.array([0, 2, 2, 1])),
    "ops_gaussian_mean": lambda: (registry.make("ops_gaussian_mean"), np.array([0.2, -0.5, 0.9])),
    "laplace_posterior_beta_bernoulli": lambda: (registry.make("laplace_posterior_beta_bernoulli"),
                                                 np.array([0, 1, 1, 0])),
    "private_gibbs": lambda: (registry.make("private_gibbs", T=3),
                              np.array([[0, 1, 1, 0, 1], [1, 1, 1, 1, 0], [0, 0, 0, 1, 0]])),
    "noisy_mc_estimator": lambda: (registry.make("noisy_mc_estimator", n_steps=50),
                                   np.r_[np.ones(30, int), np.zeros(70, int)]),
    "ops_mcmc_logistic": lambda: (registry.make("ops_mcmc_logistic", model=LogisticRegression(**_BOUNDED), N=30,
                                                epsilon=1.0, n_steps=40, diagnostic_chains=4), _logistic_data(30)),
    "dp_sgld_wang": lambda: (registry.make("dp_sgld_wang", model=LinearLoss(**_LINEAR), N=20, tau=2, T=2,
                                           epsilon=50.0, delta=1e-5, step_size=1e-3, unguaranteed=True),
                             _ball_data(20)),
    "dp_sgld_wang_path_half_drift": lambda: (registry.make(
        "dp_sgld_wang", model=LogisticRegression(2), N=20, tau=2, T=2, epsilon=1.0, delta=1e-5,
        step_size=np.linspace(2e-3, 1e-3, 20), half_drift=True, release="path", unguaranteed=True), _logistic_data(20)),
    "dp_sgld_li": lambda: (registry.make("dp_sgld_li", model=LinearLoss(**_LINEAR), N=40, tau=4, T=12,
                                         epsilon=None, delta=1e-3, step_size=0.444, L=1.0, claim="accountant"),
                           _ball_data(40)),
    "dp_sgld_li_samples": lambda: (registry.make("dp_sgld_li", model=LinearLoss(**_LINEAR), N=40, tau=4, T=14,
                                                 epsilon=None, delta=1e-3, step_size=0.444, L=1.0,
                                                 claim="accountant", release="samples(2, 4, 3)"), _ball_data(40)),
    "dp_sgld_path": lambda: _sgld_path(None),
    **{f"dp_sgld_broken_{defect}": partial(_sgld_path, defect)
       for defect in ("no_noise", "half_noise", "no_clip", "double_rate", "sum_not_mean", "shared_noise",
                      "reused_noise", "warm_start")},
    "dp_sgld_broken_shared_noise_final": lambda: _sgld_path("shared_noise", release="final"),
    "dp_sghmc": lambda: (registry.make("dp_sghmc", model=LinearLoss(**_LINEAR), N=40, tau=4, T=2, epsilon=50.0,
                                       delta=1e-5, h=1e-3, A=1.0, B_hat=0.1, unguaranteed=True), _ball_data(40)),
    "dp_sgnht": lambda: (registry.make("dp_sgnht", model=LogisticRegression(2), N=40, tau=4, T=2, epsilon=1.0,
                                       delta=1e-5, eta=1e-3, a=1.0, unguaranteed=True), _logistic_data(40)),
    "dp_sgfs": lambda: (registry.make("dp_sgfs", model=LogisticRegression(3, R=1.0), N=60, tau=6, T=1,
                                      epsilon=1.0, delta=1e-5, step_size=1e-3, unguaranteed=True),
                        _logistic_data(60, 3)),
    "hybrid_ops_sgld": lambda: (registry.make("hybrid_ops_sgld", model=LogisticRegression(**_BOUNDED), N=30, tau=3,
                                              T=1, epsilon=1.0, delta=1e-5, step_size=1e-7, ops_steps=30,
                                              unguaranteed=True), _logistic_data(30)),
    "ula_final": lambda: (registry.make("ula_final", model=GaussianTarget(dim=2, R=1.0), N=20, step_size=0.01,
                                        n_steps=12), _ball_data(20)),
    "ula_path": lambda: (registry.make("ula_path", model=GaussianTarget(dim=2, R=1.0), N=20, step_size=0.002,
                                       n_steps=12), _ball_data(20)),
    "noisy_sgd_final": lambda: (registry.make("noisy_sgd_final", model=GaussianTarget(dim=2, R=1.0), N=20,
                                              batch_size=5, step_size=0.05, n_steps=12, beta=10.0), _ball_data(20)),
    "noisy_sgd_path": lambda: (registry.make("noisy_sgd_path", model=GaussianTarget(dim=2, R=1.0), N=20,
                                             batch_size=5, step_size=0.05, n_steps=12, beta=10.0), _ball_data(20)),
}


def _digest(values: dict) -> str:
    """SHA-256 of the named arrays (name, dtype, shape and bytes of each, in name order): bit-exact."""
    h = hashlib.sha256()
    for name in sorted(values):
        a = np.ascontiguousarray(np.asarray(values[name]))
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()[:24]


def state_variables(chain: ChainState) -> dict:
    """Every variable of a sampler's chain state by name, read from its typed fields: the integrator's NamedTuple
    (positions ``theta`` and its other variables); for OPS by MALA, MALA's and the step ``h``. (The names the untyped
    state had in ``theta`` and ``aux``, so that the hashes taken before the change compare.)"""
    state = chain.state
    if isinstance(state, AdaptiveMALAState):
        mala = state.mala
        return {"theta": mala.theta, "logp": mala.logp, "grad": mala.grad, "accepted": mala.accepted,
                "h": state.step_size}
    return state._asdict()


def fingerprint(name: str) -> tuple[str, str | None]:
    """``(hash of sample(dataset, CHAINS, seed 2026), hash of every variable of run(dataset, CHAINS, seed 7)'s final
    state)``; the second is None for samplers that are not kernel samplers."""
    sampler, dataset = CASES[name]()
    out = sampler.sample(dataset, CHAINS, np.random.default_rng(2026))
    run = None
    if isinstance(sampler, StochasticGradientSampler):
        state, _ = sampler.run(dataset, CHAINS, np.random.default_rng(7))
        run = _digest(state_variables(state))
    return _digest({"output": out}), run


def _dicts_in(value, where: str = "state") -> list[str]:
    """Where a dict (or anything but arrays, numbers and tuples of them) sits inside a state, recursively."""
    if isinstance(value, dict):
        return [where]
    if isinstance(value, tuple):
        fields = getattr(value, "_fields", range(len(value)))
        return [w for name, item in zip(fields, value) for w in _dicts_in(item, f"{where}.{name}")]
    if isinstance(value, (np.ndarray, np.generic, float, int)):
        return []
    return [f"{where}: {type(value).__name__}"]


#: taken from the code before the change (issue 36: ``ChainState(theta, t, aux: dict)``), with :func:`fingerprint`
BEFORE: dict[str, tuple[str, str | None]] = {
    'analytic_gaussian_mechanism': ('0e326edf8e422c56ded8acea', None),
    'dp_sgfs': ('aa91adb00c0c160be94ae743', '06f2ca29afc33c94a9c6567a'),
    'dp_sghmc': ('6ab2b6f67053a2329bd2823a', 'fb69705b6cf16d3bed658483'),
    'dp_sgld_broken_double_rate': ('ad5e450e3457a2ad59c90c87', '3fcb9617a6f73c4f2f57866b'),
    'dp_sgld_broken_half_noise': ('f84e57d426ab2539c51cd5f1', '39e3656d88264ba79a0a7e93'),
    'dp_sgld_broken_no_clip': ('d38f448f98d70fe45d4a8f19', '271d0f99351793c00dbf0ac2'),
    'dp_sgld_broken_no_noise': ('d3905071ab4bb078d96c1bda', '33411c9507cb32914bbdd66f'),
    'dp_sgld_broken_reused_noise': ('3ae9888ee165a088556cab54', '2750b05a804b961c959731d4'),
    'dp_sgld_broken_shared_noise': ('04d7f571fb3d163a81631fbf', 'dc30d55b118bc5abb466c10c'),
    'dp_sgld_broken_shared_noise_final': ('4016aa5de8991244d816020f', 'dc30d55b118bc5abb466c10c'),
    'dp_sgld_broken_sum_not_mean': ('9f33392fe41b9016291983b4', 'df2e3daa8c6b2bc464dd0dda'),
    'dp_sgld_broken_warm_start': ('9994edf599b673f628e51361', '49f097458bb996cf8f02a14b'),
    'dp_sgld_li': ('6cd1163ec29a52f0c88a4e89', '9187e5ba67005160c13cc865'),
    'dp_sgld_li_samples': ('0df2b26f9198edc7e146bfcb', '3a451f8cc900ce9a3a2a9c00'),
    'dp_sgld_path': ('fab21578b4883490a0dc04cb', 'a4320829f8176cbea3969e1c'),
    'dp_sgld_wang': ('3c02aab6dbe448de1b411041', 'd32fcdaa2b2492fa065d28f9'),
    'dp_sgld_wang_path_half_drift': ('e97dbbad5c77dc14ec44d8de', 'acf870abec74cd9168cc480f'),
    'dp_sgnht': ('3efe66ba1237ee1015de4b61', 'fa49b365ed8a13b015449da9'),
    'exponential_mechanism': ('8ecd84afb027c353ba117ad6', None),
    'gaussian_mechanism': ('57e3267f005c83f006eb32c0', None),
    'hybrid_ops_sgld': ('98cc0997674e6c9c680096f6', 'eda8b7adc7e142af26c80f87'),
    'laplace_mechanism': ('3815eea820552461b7d69300', None),
    'laplace_posterior_beta_bernoulli': ('7550d266edda47708555aaeb', None),
    'noisy_mc_estimator': ('6b0a2a3ec057662a12ba8b2b', None),
    'noisy_sgd_final': ('cb01254b515ddba61e7d8b71', 'a55075fafcc5617385095cbf'),
    'noisy_sgd_path': ('08291ba552f499abb44cb3e2', 'a55075fafcc5617385095cbf'),
    'ops_beta_bernoulli': ('9549338a4d665f32da0ef0b8', None),
    'ops_dirichlet_categorical': ('fc65c1576a4e3be53f55a77c', None),
    'ops_gaussian_mean': ('dc758b6964cc291baaf80b0b', None),
    'ops_mcmc_logistic': ('659f43cb16a1f8f8d71aeef5', '8108a97545616db1643abe61'),
    'private_gibbs': ('74566d503336c773ab5100f6', None),
    'ula_final': ('c012ee5834124967076736cf', 'f7e53cf9204674078ea7353c'),
    'ula_path': ('b8c14dfda600368bd34b8901', '193d790f1ffd4cbc27442693'),
}


#: the samplers registered when the fingerprints were taken (a sampler registered later has no "before")
REGISTERED_AT_CHANGE = {
    "analytic_gaussian_mechanism", "dp_sgfs", "dp_sghmc", "dp_sgld_broken", "dp_sgld_li", "dp_sgld_wang", "dp_sgnht",
    "exponential_mechanism", "gaussian_mechanism", "hybrid_ops_sgld", "laplace_mechanism",
    "laplace_posterior_beta_bernoulli", "noisy_mc_estimator", "noisy_sgd_final", "noisy_sgd_path",
    "ops_beta_bernoulli", "ops_dirichlet_categorical", "ops_gaussian_mean", "ops_mcmc_logistic", "private_gibbs",
    "ula_final", "ula_path",
}


def test_every_registered_sampler_has_a_case():
    """Each sampler registered at the change is fingerprinted (with every known-bad defect of ``dp_sgld_broken``)."""
    assert REGISTERED_AT_CHANGE <= {c.id for c in registry.all_samplers()}
    assert {type(CASES[name]()[0]).id for name in CASES} == REGISTERED_AT_CHANGE
    assert {f"dp_sgld_broken_{d}" for d in DEFECTS} <= set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_samples_are_unchanged_bit_for_bit(name):
    assert fingerprint(name) == BEFORE[name]


KERNEL_CASES = sorted(name for name in CASES if isinstance(CASES[name]()[0], StochasticGradientSampler))


@pytest.mark.parametrize("name", KERNEL_CASES)
def test_a_step_carries_the_integrators_typed_state(name):
    """Issue 36: the sampler's state is a ChainState around the integrator's own NamedTuple (``state_type``; OPS by
    MALA: MALA's state and its step), at step 0 after ``init`` and ``t + 1`` after a step; no dict anywhere in it. The
    kernel's step receives the very object the chain carries (nothing rebuilt from a dict) and returns a new state of
    the same type."""
    sampler, dataset = CASES[name]()
    integrator = sampler.kernel.integrator
    seen = []
    step = integrator.step

    def recording_step(rng, state, *args, **kwargs):
        seen.append(state)
        return step(rng, state, *args, **kwargs)

    integrator.step = recording_step  # on this instance only
    rng = np.random.default_rng(1)
    chain = sampler.init(dataset, CHAINS, rng)
    after = sampler.step(chain, dataset, rng)
    for c, t in ((chain, 0), (after, 1)):
        assert isinstance(c, ChainState) and c.t == t and _dicts_in(c) == []
        typed = c.state.mala if isinstance(c.state, AdaptiveMALAState) else c.state
        assert type(typed) is integrator.state_type
        assert c.theta is typed.theta and c.theta.shape == (CHAINS, sampler.model.dim)
    assert len(seen) == 1
    assert seen[0] is (chain.state.mala if isinstance(chain.state, AdaptiveMALAState) else chain.state)


def test_the_kernel_steps_typed_states():
    """Kernel.init gives the integrator's ``state_type`` and Kernel.step takes and returns it, for every update rule
    a registered sampler runs (MALA's ``init`` takes the target's value at the start)."""
    for name in KERNEL_CASES:
        sampler, dataset = CASES[name]()
        kernel, data = sampler.kernel, sampler.prepare_data(dataset)
        theta0 = np.zeros((CHAINS, sampler.model.dim))
        if isinstance(kernel.integrator, MALAIntegrator):
            state = kernel.integrator.init(theta0, kernel.estimator.estimate(None, theta0, data))
            params = {"step_size": 0.1}
        else:
            state = kernel.init(theta0)
            params = sampler.kernel_schedule.at(0)
        new = kernel.step(np.random.default_rng(0), state, data, **params)
        assert type(state) is type(new) is kernel.integrator.state_type, name
        assert _dicts_in(new) == [] and new is not state, name


def test_ops_by_mala_keeps_its_step_in_a_typed_state():
    """OPS by MALA's adapted step and acceptances are fields of its typed state (no dict read and rebuilt each
    step); the read-only ``aux`` view gives them under the untyped state's names."""
    sampler, dataset = CASES["ops_mcmc_logistic"]()
    chain = sampler.init(dataset, CHAINS, 3)
    assert type(chain.state) is AdaptiveMALAState and type(chain.state.mala) is MALAState
    assert chain.state.step_size > 0 and not chain.state.mala.accepted.any()
    nxt = sampler.step(chain, dataset, 4)
    assert nxt.state.step_size == chain.state.step_size and nxt.t == 1
    assert list(nxt.aux) == ["logp", "grad", "h", "accepted"] and nxt.aux["h"] == nxt.state.step_size
    assert nxt.aux["accepted"] is nxt.state.mala.accepted

"""Samplers as kernels (issue 16, item 3): gradient estimators, integrators and schedules compose into the samplers'
chains, step by step the same as the papers' update rules written out by hand; models declare their gradient
capabilities in the ``Model`` base class; the budget part of a sampler holds no update arithmetic.

The step-by-step references below draw from a generator with the same seed as the sampler's, in the algorithms'
order (mini-batch, then the injected noise), so the chains agree draw for draw. They sum the mini-batch gradients
in a different order than the models' fast paths (a sparse product over (chain, record) pairs), so they agree to
rounding: ``rtol = 1e-12`` over five steps of O(1) numbers (a few ulps per operation), not to the bit.
"""
from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.special import expit

from dpverify.models.base import Model, PrivacyConstants, clip_gradients
from dpverify.models.gaussian_mean import GaussianMean
from dpverify.models.logistic import LogisticRegression, make_logistic_dataset
from dpverify.samplers import registry
from dpverify.samplers.broken import DEFECTS
from dpverify.samplers.broken_integrators import ReusedNoiseEulerMaruyama, SharedNoiseEulerMaruyama
from dpverify.samplers.gradients import (
    Data,
    FullBatchGradient,
    PoissonMinibatchGradient,
    UniformMinibatchGradient,
)
from dpverify.samplers.integrators import (
    EulerMaruyama,
    LangevinState,
    SGHMCIntegrator,
    SGHMCState,
    SGNHTIntegrator,
    SGNHTState,
)
from dpverify.samplers.kernels import ChainState, Kernel
from dpverify.samplers.minibatch import draw_minibatches
from dpverify.samplers.momentum import WangMomentumSampler
from dpverify.samplers.schedules import Schedule, decreasing_schedule, step_size_schedule

PACKAGE = Path(__file__).resolve().parents[1] / "dpverify"
RTOL, ATOL = 1e-12, 1e-14
N, D, TAU, CHAINS, STEPS = 12, 2, 3, 7, 5


@pytest.fixture(scope="module")
def problem():
    model = LogisticRegression(D, R=1.0, prior_variance=2.0)
    X = make_logistic_dataset(N, D, np.random.default_rng(3))
    return model, X, X[:, :-1] * X[:, -1:]


def grad_log_posterior(model, Z, idx, theta, weight):
    """By hand: ``-theta / s^2 + weight sum_{i in batch} z_i sigmoid(-z_i . theta)`` per chain (Wang et al. 2015,
    eq. 4.1 with weight N / tau)."""
    zb = Z[idx]  # (chains, tau, d)
    per_record = zb * expit(-np.einsum("cbd,cd->cb", zb, theta))[..., None]
    return -theta / model.prior_variance + weight * per_record.sum(axis=1)


def run_steps(sampler, X, seed):
    rng = np.random.default_rng(seed)
    state = sampler.init(X, CHAINS, rng)
    states = []
    for _ in range(STEPS):
        state = sampler.step(state, X, rng)
        states.append(state)
    return states


def test_dp_sgld_wang_is_algorithm_2_step_by_step(problem):
    """theta_{t+1} = theta_t + eta_t (grad log prior + (N/tau) sum_S grad log p) + N(0, var_t I) (Wang et al. 2015,
    Alg. 2), with var_t from the budget."""
    model, X, Z = problem
    eta = np.linspace(2e-3, 1e-3, 8)
    s = registry.make("dp_sgld_wang", model=model, N=N, tau=TAU, T=2, epsilon=1.0, delta=1e-5, step_size=eta,
                      unguaranteed=True)
    assert s.n_steps == 8
    got = run_steps(s, X, 11)
    rng = np.random.default_rng(11)
    theta = np.zeros((CHAINS, D))
    for t, state in enumerate(got):
        idx = draw_minibatches(rng, CHAINS, N, TAU)
        g = grad_log_posterior(model, Z, idx, theta, N / TAU)
        theta = theta + eta[t] * g + math.sqrt(s.noise_variance[t]) * rng.standard_normal((CHAINS, D))
        assert state.t == t + 1 and type(state.state) is LangevinState
        np.testing.assert_allclose(state.theta, theta, rtol=RTOL, atol=ATOL)


def test_dp_sghmc_is_eq_4_2_step_by_step(problem):
    """theta_t = theta_{t-1} + h p_{t-1}; p_t = p_{t-1} + h g(theta_t) - h A p_{t-1} + N(0, 2 (A - B_hat) h I)."""
    model, X, Z = problem
    h, A, B_hat = 1e-2, 1.0, 0.2
    s = registry.make("dp_sghmc", model=model, N=N, tau=TAU, T=2, epsilon=1.0, delta=1e-5, h=h, A=A, B_hat=B_hat,
                      unguaranteed=True)
    got = run_steps(s, X, 12)
    rng = np.random.default_rng(12)
    theta, p = np.zeros((CHAINS, D)), np.zeros((CHAINS, D))
    for t, state in enumerate(got):
        theta = theta + h * p
        idx = draw_minibatches(rng, CHAINS, N, TAU)
        g = grad_log_posterior(model, Z, idx, theta, N / TAU)
        p = p + h * g - h * A * p + math.sqrt(2 * (A - B_hat) * h) * rng.standard_normal((CHAINS, D))
        assert state.t == t + 1 and type(state.state) is SGHMCState
        np.testing.assert_allclose(state.theta, theta, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(state.state.p, p, rtol=RTOL, atol=ATOL)


def test_dp_sgnht_is_eq_4_5_step_by_step(problem):
    """v_t = v - alpha v + eta g(theta) + N(0, 2 a eta I); theta += v_t; alpha += |v_t|^2/d - eta; alpha_0 = a."""
    model, X, Z = problem
    eta, a = 1e-2, 0.7
    s = registry.make("dp_sgnht", model=model, N=N, tau=TAU, T=2, epsilon=1.0, delta=1e-5, eta=eta, a=a,
                      unguaranteed=True)
    got = run_steps(s, X, 13)
    rng = np.random.default_rng(13)
    theta, v, alpha = np.zeros((CHAINS, D)), np.zeros((CHAINS, D)), np.full(CHAINS, a)
    for t, state in enumerate(got):
        idx = draw_minibatches(rng, CHAINS, N, TAU)
        g = grad_log_posterior(model, Z, idx, theta, N / TAU)
        v = v - alpha[:, None] * v + eta * g + math.sqrt(2 * a * eta) * rng.standard_normal((CHAINS, D))
        theta = theta + v
        alpha = alpha + (np.sum(v**2, axis=1) / D - eta)
        assert type(state.state) is SGNHTState
        np.testing.assert_allclose(state.theta, theta, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(state.state.v, v, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(state.state.alpha, alpha, rtol=RTOL, atol=ATOL)


def test_sampler_step_is_its_kernel_under_its_schedule(problem):
    """A sampler's step is exactly ``kernel.step(rng, state, data, **schedule.at(t))`` (bit for bit: the same code
    path), and the kernel is pure (its input state is not modified)."""
    model, X, _ = problem
    s = registry.make("dp_sghmc", model=model, N=N, tau=TAU, T=2, epsilon=1.0, delta=1e-5, h=1e-2, A=1.0,
                      unguaranteed=True)
    assert isinstance(s.kernel.estimator, UniformMinibatchGradient) and isinstance(s.kernel.integrator, SGHMCIntegrator)
    data = s.prepare_data(X)
    start = s.kernel.init(np.tile([0.3, -0.1], (CHAINS, 1)))
    before = [a.copy() for a in start]
    by_hand = start
    r1, r2 = np.random.default_rng(5), np.random.default_rng(5)
    chain = ChainState(start, 0)
    for t in range(3):
        by_hand = s.kernel.step(r1, by_hand, data, **s.kernel_schedule.at(t))
        chain = s.step(chain, data, r2)
        assert type(chain.state) is SGHMCState and chain.t == t + 1
        np.testing.assert_array_equal(chain.theta, by_hand.theta)
        np.testing.assert_array_equal(chain.state.p, by_hand.p)
    for a, b in zip(start, before):
        np.testing.assert_array_equal(a, b)


def test_estimators_and_euler_maruyama_compose_into_a_langevin_step(problem):
    """EulerMaruyama with each estimator: theta + c g + s xi, the estimator drawing its batch before the noise."""
    model, X, Z = problem
    data = Data(X, model.prepare(X), N)
    theta0 = np.tile([0.2, -0.4], (CHAINS, 1))
    full = FullBatchGradient(model, prior_weight=0.5, data_weight=2.0)
    data_sum = (Z[None] * expit(-theta0 @ Z.T)[..., None]).sum(axis=1)
    want = 0.5 * (-theta0 / model.prior_variance) + 2.0 * data_sum
    np.testing.assert_allclose(full.estimate(None, theta0, data), want, rtol=RTOL, atol=ATOL)
    kernel = Kernel(UniformMinibatchGradient(model, TAU, data_weight=N / TAU), EulerMaruyama())
    rng = np.random.default_rng(8)
    new = kernel.step(rng, kernel.init(theta0), data, step_size=0.1, noise_std=0.3)
    ref = np.random.default_rng(8)
    idx = draw_minibatches(ref, CHAINS, N, TAU)
    g = grad_log_posterior(model, Z, idx, theta0, N / TAU)
    np.testing.assert_allclose(new.theta, theta0 + 0.1 * g + 0.3 * ref.standard_normal((CHAINS, D)), rtol=RTOL,
                               atol=ATOL)
    # Poisson with rate 1 and clipping: every record, each gradient clipped (Li et al. 2019, Alg. 1 steps 2-4)
    pois = PoissonMinibatchGradient(model, 1.0, prior_weight=0.0, data_weight=1.0, clip=0.1)
    per = Z[None] * expit(-theta0 @ Z.T)[..., None]
    np.testing.assert_allclose(pois.estimate(np.random.default_rng(0), theta0, data),
                               clip_gradients(per, 0.1).sum(axis=1), rtol=RTOL, atol=ATOL)


def test_schedules():
    """Constant, Li et al.'s t^{-1/3} and explicit step sizes; a Schedule gives step t's parameters and rejects an
    array of the wrong length naming it."""
    np.testing.assert_allclose(decreasing_schedule(0.5, 4), 0.5 * np.arange(1, 5) ** (-1 / 3), rtol=1e-15)
    np.testing.assert_array_equal(step_size_schedule(0.2, 3), [0.2, 0.2, 0.2])
    with pytest.raises(ValueError, match="schedule must be 'fixed' or 'decreasing'"):
        step_size_schedule(0.2, 3, "cosine")
    with pytest.raises(ValueError, match="step_size must be > 0"):
        step_size_schedule(np.array([0.1, 0.0, 0.1]), 3)
    sched = Schedule(3, step_size=np.array([1.0, 2.0, 3.0]), friction=0.5)
    assert sched.at(1) == {"step_size": 2.0, "friction": 0.5}
    with pytest.raises(ValueError, match="'noise_std' must be a number or have shape \\(3,\\)"):
        Schedule(3, noise_std=np.ones(4))


def test_li_schedule_composes_outside_the_kernel(problem):
    """DP-SGLD (Li et al. 2019) with the decreasing schedule: the kernel is the same as with the fixed one; only the
    schedule differs (eta_t = eta t^{-1/3}, noise sqrt(eta_t / N))."""
    model, X, _ = problem
    common = dict(model=model, N=N, tau=3.0, T=6, epsilon=1.0, delta=1e-5, step_size=0.01, unguaranteed=True)
    fixed = registry.make("dp_sgld_li", **common)
    decreasing = registry.make("dp_sgld_li", schedule="decreasing", **common)
    assert repr(fixed.kernel) == repr(decreasing.kernel)
    eta = 0.01 * np.arange(1, 7) ** (-1 / 3)
    np.testing.assert_allclose(decreasing.kernel_schedule["step_size"], eta, rtol=1e-15)
    np.testing.assert_allclose(decreasing.kernel_schedule["noise_std"], np.sqrt(eta / N), rtol=1e-15)
    np.testing.assert_array_equal(fixed.kernel_schedule["step_size"], np.full(6, 0.01))


@pytest.mark.parametrize("defect", DEFECTS)
def test_known_bad_samplers_differ_from_the_correct_one_in_the_kernel_only(problem, defect):
    """The known-bad DP-SGLDs declare the correct budget (same mechanism description and claim) and run another
    kernel."""
    model, X, _ = problem
    common = dict(model=model, N=N, tau=3.0, T=4, delta=1e-3, step_size=0.05, L=0.5, release="path")
    good = registry.make("dp_sgld_li", epsilon=None, claim="accountant", **common)
    bad = registry.make("dp_sgld_broken", defect=defect, **common)
    assert bad.mechanism().to_dict() == good.mechanism().to_dict()
    assert bad.guarantee().epsilon == good.guarantee().epsilon
    changed = {
        "no_noise": lambda k, s: np.all(np.asarray(s["noise_std"]) == 0),
        "half_noise": lambda k, s: np.array_equal(s["noise_std"], 0.5 * good.kernel_schedule["noise_std"]),
        "no_clip": lambda k, s: k.estimator.clip is None and good.kernel.estimator.clip == 0.5,
        "double_rate": lambda k, s: k.estimator.rate == 2 * good.kernel.estimator.rate,
        "sum_not_mean": lambda k, s: k.estimator.data_weight == 1.0 != good.kernel.estimator.data_weight,
        "shared_noise": lambda k, s: isinstance(k.integrator, SharedNoiseEulerMaruyama),
        "reused_noise": lambda k, s: isinstance(k.integrator, ReusedNoiseEulerMaruyama),
        # the kernel is the correct one; the start is not
        "warm_start": lambda k, s: not np.allclose(bad.init(X, 2, 0).theta, good.init(X, 2, 0).theta),
    }[defect]
    assert changed(bad.kernel, bad.kernel_schedule)


def test_sghmc_and_sgnht_share_one_budget(problem):
    """Both are Wang et al. 2015 momentum samplers: one budget object, the same checks and error messages."""
    model, X, _ = problem
    for sid, extra in (("dp_sghmc", {"h": 1e-3, "A": 1.0}), ("dp_sgnht", {"eta": 1e-3, "a": 1.0})):
        cls = registry.get(sid)
        assert issubclass(cls, WangMomentumSampler) and "__init__" in vars(cls)
        s = registry.make(sid, model=model, N=N, tau=TAU, T=2, epsilon=1.0, delta=1e-5, unguaranteed=True, **extra)
        assert (s.n_steps, s.tau, s.T) == (math.floor(N * 2 / TAU), TAU, 2.0)
        with pytest.raises(ValueError, match=f"tau must be <= N = {N}"):
            registry.make(sid, model=model, N=N, tau=N + 1, T=2, epsilon=1.0, delta=1e-5, **extra)
        with pytest.raises(ValueError, match="delta"):
            registry.make(sid, model=model, N=N, tau=TAU, T=2, epsilon=1.0, delta=0.0, **extra)


class _Linear(Model):
    """A model with only the abstract methods: log p(x | theta) = x . theta - |theta|^2 / 2 (gradient x - theta)."""

    dim = 2

    def validate_dataset(self, X):
        return np.asarray(X, dtype=float)

    def log_likelihood(self, X, theta):
        return theta @ X.T - 0.5 * np.sum(theta**2, axis=-1)[..., None]

    def grad_log_likelihood(self, X, theta):
        return X - theta[..., None, :]

    def log_prior(self, theta):
        return -0.5 * np.sum(theta**2, axis=-1)

    def grad_log_prior(self, theta):
        return -theta

    @property
    def constants(self):
        return PrivacyConstants()


def test_model_capabilities_have_defaults():
    """A model with only the abstract methods has every capability the samplers call (no ``hasattr``): prepare,
    per-record gradients, their clipped weighted sum, the full-data sums; Bertazzi's constants are a clear error."""
    m = _Linear()
    X = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, -1.0]])
    theta = np.array([[0.5, 0.5], [0.0, 1.0]])
    idx = np.array([[0, 2], [1, 1]])
    assert m.prepare(X) is X and m.theta_radius is None
    per = m.per_record_gradients(X, idx, theta)
    np.testing.assert_array_equal(per, X[idx] - theta[:, None, :])
    w = np.array([[1.0, 0.0], [1.0, 1.0]])
    np.testing.assert_allclose(m.minibatch_gradient(X, idx, theta, clip=1.0, weights=w),
                               (clip_gradients(X[idx] - theta[:, None, :], 1.0) * w[..., None]).sum(axis=1), rtol=1e-15)
    np.testing.assert_allclose(m.full_data_gradient(X, theta), X.sum(axis=0) - 3 * theta, rtol=1e-15)
    ll, g = m.full_data_terms(X, theta)
    np.testing.assert_allclose(ll, m.log_likelihood(X, theta).sum(axis=-1), rtol=1e-15)
    np.testing.assert_allclose(g, X.sum(axis=0) - 3 * theta, rtol=1e-15)
    for kind in ("ula", "sgd"):
        with pytest.raises(NotImplementedError, match=f"does not provide Bertazzi et al. 2025 constants \\({kind}_"):
            getattr(m, f"{kind}_constants")(3)


@pytest.mark.parametrize("model", [LogisticRegression(3, R=1.0), GaussianMean()], ids=["logistic", "gaussian_mean"])
def test_fast_paths_agree_with_the_base_defaults(model):
    """A model's overrides compute what the base class' defaults compute (to rounding: other summation orders)."""
    rng = np.random.default_rng(2)
    if isinstance(model, LogisticRegression):
        X = make_logistic_dataset(9, 3, rng)
        theta = rng.standard_normal((4, 3))
    else:
        X = rng.uniform(-1, 1, 9)
        theta = rng.uniform(-1, 1, (4, 1))
    P = model.prepare(model.validate_dataset(X))
    idx = rng.integers(0, 9, (4, 5))
    w = rng.random((4, 5)) < 0.5
    for clip in (None, 0.2):
        np.testing.assert_allclose(model.minibatch_gradient(P, idx, theta, clip=clip, weights=w),
                                   Model.minibatch_gradient(model, P, idx, theta, clip=clip, weights=w),
                                   rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(model.full_data_gradient(P, theta), Model.full_data_gradient(model, P, theta),
                               rtol=1e-12, atol=1e-14)
    if isinstance(model, LogisticRegression):
        np.testing.assert_allclose(model.full_data_terms(P, theta)[1], model.full_data_gradient(P, theta), rtol=1e-15)


def test_chain_state_carries_the_integrators_typed_state():
    """Issue 36: a ChainState is the integrator's own NamedTuple and the step count, nothing converted: ``state`` is
    the very object, ``theta`` its positions; ``aux`` is a read-only view of its other variables by name (for code
    written against the untyped state)."""
    integ = SGNHTIntegrator(0.3)
    st = integ.init(np.ones((2, 3)))
    cs = ChainState(st, 4)
    assert cs.state is st and cs.theta is st.theta and cs.t == 4 and cs._fields == ("state", "t")
    assert list(cs.aux) == ["v", "alpha"] and cs.aux["v"] is st.v and cs.aux["alpha"] is st.alpha
    with pytest.raises(AttributeError):
        cs.aux = {}  # type: ignore[misc]


def _calls_on_models(tree: ast.AST) -> list[str]:
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("hasattr", "getattr"):
            target = ast.unparse(node.args[0]) if node.args else ""
            if "model" in target:
                bad.append(f"line {node.lineno}: {ast.unparse(node)}")
    return bad


def test_samplers_never_duck_type_a_model():
    """Model capabilities are declared in the Model base class: no sampler asks ``hasattr``/``getattr`` of a model."""
    bad = {p.name: _calls_on_models(ast.parse(p.read_text())) for p in sorted((PACKAGE / "samplers").glob("*.py"))}
    assert {k: v for k, v in bad.items() if v} == {}
    assert _calls_on_models(ast.parse("hasattr(self.model, 'prepare')"))  # the check can fail


def test_update_arithmetic_lives_in_the_integrators():
    """The gradient sampler modules hold budgets, not updates: none draws noise, a mini-batch or an acceptance itself
    (OPS by MALA draws its chains' random starts only); the integrators do."""
    kernel_free = ("sgld.py", "sghmc.py", "sgnht.py", "sgfs.py", "ula.py", "broken.py", "momentum.py", "sgmcmc.py",
                   "budgets.py", "hybrid.py", "ops_mcmc.py")
    for name in kernel_free:
        src = (PACKAGE / "samplers" / name).read_text()
        assert src.count("standard_normal") == (name == "ops_mcmc.py"), name
        assert "draw_minibatches(" not in src and "rng.random(" not in src, name
    assert "standard_normal" in (PACKAGE / "samplers" / "integrators.py").read_text()


def test_mala_step_by_hand():
    """One MALA step on the standard normal target (log pi = -|x|^2/2): proposal x + (h/2) grad + sqrt(h) xi, accepted
    iff log u < log pi(x') - log pi(x) - (|x - x' - (h/2) grad'|^2 - |x' - x - (h/2) grad|^2) / (2h)."""
    from dpverify.samplers.integrators import MALAIntegrator

    def target(rng, x):
        return -0.5 * np.sum(x**2, axis=1), -x

    x0 = np.array([[0.5, -1.0], [2.0, 0.0], [0.0, 0.1]] * 20)
    h, integ = 0.8, MALAIntegrator()
    new = integ.step(np.random.default_rng(4), integ.init(x0, target(None, x0)), target, step_size=h)
    r = np.random.default_rng(4)
    prop = x0 + 0.5 * h * (-x0) + math.sqrt(h) * r.standard_normal(x0.shape)
    log_ratio = (-0.5 * np.sum(prop**2, 1) + 0.5 * np.sum(x0**2, 1)
                 - (np.sum((x0 - prop - 0.5 * h * (-prop)) ** 2, 1) - np.sum((prop - x0 - 0.5 * h * (-x0)) ** 2, 1)) / (2 * h))
    accept = np.log(r.random(x0.shape[0])) < log_ratio
    assert 0 < accept.sum() < accept.size  # both branches exercised
    np.testing.assert_array_equal(new.accepted, accept)
    np.testing.assert_allclose(new.theta, np.where(accept[:, None], prop, x0), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(new.grad, -new.theta, rtol=RTOL, atol=ATOL)


def test_a_kernel_refuses_what_is_not_an_estimator_or_an_integrator():
    """Issue 36: estimators and integrators have Protocols (GradientEstimator, Integrator); a kernel built from
    something else is a TypeError naming the part, not an AttributeError at the first step."""
    with pytest.raises(TypeError, match="estimator must have estimate"):
        Kernel(None, EulerMaruyama())
    with pytest.raises(TypeError, match="integrator must have state_type"):
        Kernel(FullBatchGradient(None), object())

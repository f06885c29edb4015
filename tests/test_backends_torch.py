"""The torch backend on the CPU (issue 26): every ported gradient sampler's step equals the numpy step when handed the
same random draws, its samples follow the numpy backend's law (with power against a halved noise), the white-box
path statistic is the same function on both backends, and audits reach the same verdicts.

Marker ``torch`` (excluded from the default run; CI runs ``python -m pytest -m torch`` after installing the opacus
extra, which pins torch's CPU wheel). torch is imported inside the tests, so collecting this file needs no torch.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpverify.backends import get_backend
from dpverify.interfaces.suite import get_case, run_case
from dpverify.models.linear import LinearLoss
from dpverify.models.logistic import LogisticRegression, make_logistic_dataset
from dpverify.models.targets import GaussianTarget
from dpverify.samplers import registry
from dpverify.samplers.broken import DEFECTS
from dpverify.samplers.device import (
    DenseBatchGradient,
    DenseRecordGradients,
    DeviceData,
    device_kernel,
)
from dpverify.samplers.gradients import (
    RecordGradients,
    minibatch_gradient_sum,
    per_record_gradients,
)
from dpverify.samplers.schedules import Schedule

pytestmark = pytest.mark.torch


def _ball(N: int, d: int, R: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    u = rng.standard_normal((N, d))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    return R * u * rng.random((N, 1)) ** (1.0 / d)


def _logistic_data(N: int, d: int, R: float, seed: int) -> np.ndarray:
    return make_logistic_dataset(N, d, np.random.default_rng(seed), R=R)


#: id -> (sampler id, model, parameters, dataset): every gradient sampler with a device path, at the suite's sizes
#: (small N and T so that the law tests run in seconds).
CASES = {
    "dp_sgld_li": ("dp_sgld_li", LogisticRegression(2, R=4.0, prior_variance=100.0),
                   {"N": 100, "tau": 10, "T": 20, "epsilon": None, "delta": 1e-3, "step_size": 0.444, "L": 1.0, "theta0": (-2.0, 0.0),
                        "claim": "accountant"}, _logistic_data(100, 2, 4.0, 1)),
    "dp_sgld_wang": ("dp_sgld_wang", LogisticRegression(2, R=1.0),
                     {"N": 20, "tau": 2, "T": 2, "epsilon": 50.0, "delta": 1e-5, "step_size": 1e-2, "unguaranteed": True},
                     _logistic_data(20, 2, 1.0, 2)),
    "ula_final": ("ula_final", GaussianTarget(2, R=1.0), {"N": 20, "step_size": 0.01, "n_steps": 20}, _ball(20, 2, 1.0, 3)),
    "noisy_sgd_final": ("noisy_sgd_final", GaussianTarget(2, R=1.0),
                        {"N": 20, "batch_size": 5, "step_size": 0.05, "n_steps": 20, "beta": 10.0}, _ball(20, 2, 1.0, 4)),
    "dp_sghmc": ("dp_sghmc", LinearLoss(2, R=1.0, prior_variance=4.0),
                 {"N": 40, "tau": 4, "T": 2, "epsilon": 50.0, "delta": 1e-5, "h": 1e-2, "A": 1.0, "B_hat": 0.1, "unguaranteed": True},
                 _ball(40, 2, 1.0, 5)),
    "dp_sgfs": ("dp_sgfs", LogisticRegression(2, R=1.0),
                {"N": 40, "tau": 5, "T": 2, "epsilon": 1.0, "delta": 1e-5, "step_size": 1e-2, "unguaranteed": True},
                _logistic_data(40, 2, 1.0, 7)),
    "dp_sgnht": ("dp_sgnht", LogisticRegression(2, R=1.0),
                 {"N": 40, "tau": 4, "T": 2, "epsilon": 50.0, "delta": 1e-5, "eta": 1e-3, "a": 1.0, "unguaranteed": True},
                 _logistic_data(40, 2, 1.0, 6)),
}
#: DP-SGLD with Poisson batches on the linear-loss model (the `dp_sgld_li` case of `dpverify verify`): the Poisson
#: weights enter a matrix product with the float64 records there.
CASES["dp_sgld_li_linear"] = ("dp_sgld_li", LinearLoss(2, R=1.0, prior_variance=4.0),
                              {"N": 60, "tau": 6, "T": 10, "epsilon": None, "delta": 1e-3, "step_size": 0.05, "L": 1.0,
                               "claim": "accountant"}, _ball(60, 2, 1.0, 8))
#: The known-bad DP-SGLDs (dpverify.samplers.broken) with dp_sgld_li's parameters: their defects in the estimator
#: (no clip, double rate, sum not mean), the schedule (no noise, half noise), the update (shared, reused noise) and the
#: start (warm start) run on the device too.
CASES.update({f"dp_sgld_broken_{defect}": (
    "dp_sgld_broken", CASES["dp_sgld_li"][1],
    {**{k: v for k, v in CASES["dp_sgld_li"][2].items() if k not in ("epsilon", "claim")}, "defect": defect,
     "release": "final"},
    CASES["dp_sgld_li"][3]) for defect in DEFECTS})


@pytest.fixture(scope="module")
def torch_cpu():
    import torch

    torch.set_num_threads(1)  # 2 threads on a loaded 2-core machine spin: 10x slower
    return get_backend("torch", "cpu")


class Replay:
    """A generator that hands out given normal draws (numpy or torch), in order: the same noise for both backends."""

    def __init__(self, draws, backend):
        self.draws, self.backend = list(draws), backend

    def standard_normal(self, shape):
        x = self.draws.pop(0)
        assert tuple(x.shape) == tuple(shape)
        return x

    def random(self, size):
        return self.standard_normal((size,) if isinstance(size, int) else size)


class Recorder:
    """A numpy generator's normal draws, kept in order (``draws``) for a :class:`Replay` on the other backend: whatever
    shapes an update asks for (a shared-noise bug's ``(chains, 1)``, a reused noise drawn only once)."""

    def __init__(self, rng: np.random.Generator):
        self.rng, self.draws, self.backend = rng, [], None

    def standard_normal(self, shape):
        self.draws.append(self.rng.standard_normal(shape))
        return self.draws[-1]

    def random(self, size):
        self.draws.append(self.rng.random(size))
        return self.draws[-1]


def _batch_args(dense: DenseBatchGradient, W: np.ndarray):
    """The numpy estimator's batch for the same dense 0/1 weights: the indices of a fixed-size batch (its production
    path), every record with the 0/1 weights for Poisson; None for the full batch."""
    if dense.batch == "fixed":
        n = W.shape[0]
        return np.nonzero(W)[1].reshape(n, -1), None
    if dense.batch == "poisson":
        return np.broadcast_to(np.arange(W.shape[1]), W.shape), W
    return None, None


@pytest.mark.parametrize("case", sorted(CASES))
def test_step_equals_the_numpy_step_given_the_same_draws(case, torch_cpu):
    """Five steps of 64 chains from a spread of starting points: the torch step (dense batch weights, the sampler's own
    integrator) against the numpy step (the production estimator's mini-batch sum for the same batch, the same
    integrator) with the same batches and the same Gaussian noise, to 1e-10 relative: float64 sums in a different
    order differ by a few ulps per step. Fails on any difference in the update rule, the weights, the clipping, the
    prior term or the order of the draws."""
    import torch

    sid, model, params, X = CASES[case]
    sampler = registry.make(sid, model=model, **params)
    kernel = device_kernel(sampler)
    dense, integrator = kernel.estimator, kernel.integrator
    rng = np.random.default_rng(11)
    n, d = 64, model.dim
    data = sampler.prepare_data(X)
    ddata = DeviceData(torch_cpu.asarray(data.prepared), data.N)
    theta0 = sampler.theta0 + 0.5 * rng.standard_normal((n, d))
    s_np = sampler.kernel.init(theta0)
    s_t = kernel.init(torch_cpu.asarray(theta0))
    numpy_estimator = sampler.kernel.estimator
    for t in range(5):
        if isinstance(dense, DenseRecordGradients):  # DP-SGFS: the same records, the gradient and covariance noise
            idx = get_backend("numpy").fixed_size_indices(rng, n, data.N, dense.batch_size)

            def grad_np(_, theta, idx=idx):
                return RecordGradients(per_record_gradients(model, data, idx, theta), model.grad_log_prior(theta),
                                       data.N)

            def grad_t(_, theta, idx=torch.as_tensor(idx)):  # noqa: B008 - the batch of this step
                return dense.records(theta, ddata, idx)
        else:
            W = dense.weights(rng, n, data.N)
            W = None if W is None else np.asarray(W)
            idx, weights = (None, None) if W is None else _batch_args(dense, W)

            def grad_np(_, theta, idx=idx, weights=weights):
                if idx is None:
                    return numpy_estimator.estimate(None, theta, data)
                return numpy_estimator._combine(theta, minibatch_gradient_sum(model, data, idx, theta,
                                                                              clip=numpy_estimator.clip,
                                                                              weights=weights))

            W_t = None if W is None else torch.as_tensor(W)

            def grad_t(_, theta, W_t=W_t):
                return dense.combine(theta, ddata, W_t)

        params_t = sampler.kernel_schedule.at(t)
        recorder = Recorder(rng)
        s_np = integrator.step(recorder, s_np, grad_np, **params_t)
        s_t = integrator.step(Replay([torch.as_tensor(x) for x in recorder.draws], torch_cpu), s_t, grad_t,
                              **{k: float(v) for k, v in params_t.items()})
        for a, b in zip(s_np, s_t):
            np.testing.assert_allclose(b.numpy(), a, rtol=1e-10, atol=1e-12)
    assert not np.allclose(s_np.theta, theta0)  # the chains moved


def _halved(sampler):
    """The same sampler with its injected noise scale halved (a known-bad variant for the power checks)."""
    sched = sampler.kernel_schedule
    T = sampler.n_steps
    names = list(sched.at(0))
    arrays = {k: np.array([sched.at(t)[k] for t in range(T)], dtype=float) for k in names}
    for k in names:
        if k.endswith("noise_std"):  # the injected noise (DP-SGFS: its gradient and covariance noise)
            arrays[k] = arrays[k] / 2
    sampler._schedule = Schedule(T, **arrays)
    return sampler


def _ks_p(a: np.ndarray, b: np.ndarray) -> float:
    """The smallest two-sample Kolmogorov-Smirnov p-value over the coordinates of the final iterates and their
    distance to the numpy side's mean (Bonferroni over those d + 1 tests is applied by the caller's threshold)."""
    m = a.mean(axis=0)
    cols = [(a[:, j], b[:, j]) for j in range(a.shape[1])]
    cols.append((np.linalg.norm(a - m, axis=1), np.linalg.norm(b - m, axis=1)))
    return min(stats.ks_2samp(x, y).pvalue for x, y in cols)


#: chains per side of the law tests; per-test false-alarm level ALPHA (Bonferroni over the 3 KS tests inside
#: _ks_p: each at ALPHA / 3). At n = m = 4000 a KS test at level 1e-4 / 3 detects a sup-distance of about
#: 2.2 sqrt(2 / 4000) = 0.05 between the two CDFs; a halved noise shrinks the final spread by far more (checked below:
#: the halved-noise p-value must be below POWER_P).
LAW_CHAINS = 4000
ALPHA = 1e-4
POWER_P = 1e-8


@pytest.mark.parametrize("case", sorted(CASES))
def test_torch_samples_follow_the_numpy_law_and_a_halved_noise_is_detected(case, torch_cpu):
    """Final iterates of LAW_CHAINS chains on each backend (fixed seeds): the KS tests do not reject at ALPHA, and a
    wrong torch law is rejected at POWER_P: the sampler with half the noise, or for a known-bad sampler the declared
    DP-SGLD (its defect lost on the device; measured p-values 1e-32 and below). The exception is ``shared_noise``,
    whose final iterates have the declared marginals (p = 0.006 against the declared law): it is held to the halved
    noise (p = 1e-33). Fails if the torch batches, noise or update have another law than numpy's (e.g. a batch drawn
    with replacement, a wrong Poisson rate, noise scaled wrongly, a defect lost on the device)."""
    sid, model, params, X = CASES[case]
    sampler = registry.make(sid, model=model, **params)
    ref = sampler.sample(X, LAW_CHAINS, np.random.default_rng(2026))
    gen = torch_cpu.generator(np.random.SeedSequence(2026))
    out = sampler.sample(X, LAW_CHAINS, gen).numpy()
    assert out.shape == ref.shape
    assert _ks_p(ref, out) > ALPHA / 3
    if params.get("defect") not in (None, "shared_noise"):  # a known-bad sampler whose defect the device lost
        broken = registry.make("dp_sgld_li", model=model, **CASES["dp_sgld_li"][2])
    else:
        broken = _halved(registry.make(sid, model=model, **params))
    bad = broken.sample(X, LAW_CHAINS, torch_cpu.generator(np.random.SeedSequence(7))).numpy()
    assert _ks_p(ref, bad) < POWER_P


def test_batch_weights_are_float64_on_the_device(torch_cpu):
    """Poisson and fixed-size batch weights on the device are float64 0/1 rows with the right counts (a bool times 1.0
    is float32 in torch, which a float64 matrix product refuses: the linear-loss DP-SGLD failed that way)."""
    import torch

    gen = torch_cpu.generator(np.random.SeedSequence(4))
    poisson = torch_cpu.poisson_weights(gen, 500, 40, 0.25)
    fixed = torch_cpu.fixed_size_weights(gen, 500, 40, 7)
    for W in (poisson, fixed):
        assert W.dtype == torch.float64 and bool(((W == 0) | (W == 1)).all())
    assert bool((fixed.sum(1) == 7).all())
    assert abs(float(poisson.mean()) - 0.25) < 5 * (0.25 * 0.75 / 20_000) ** 0.5  # 5 standard errors of 20,000 draws


def test_every_suite_case_with_a_device_path_samples_on_the_device(torch_cpu):
    """Every case of ``dpverify verify`` whose sampler has a device path draws 16 runs on torch-CPU: float64, finite,
    the numpy output's shape. Fails if a model, batch scheme or release that the suite combines breaks on the device
    (the linear-loss DP-SGLD with Poisson batches raised a dtype error here)."""
    from dpverify.interfaces.suite import cases
    from dpverify.samplers.device import has_device_path

    ran = []
    for case in cases():
        sampler = case.build()
        if not has_device_path(sampler):
            continue
        X = case.dataset()
        out = sampler.sample(X, 16, torch_cpu.generator(np.random.SeedSequence(1)))
        ref = sampler.sample(X, 16, np.random.default_rng(1))
        assert tuple(out.shape) == ref.shape and str(out.dtype) == "torch.float64", case.id
        assert bool(out.isfinite().all()), case.id
        ran.append(case.id)
    assert len(ran) >= 22 and {"dp_sgld_li", "dp_sgld_broken_warm_start", "ops_mcmc_logistic", "hybrid_ops_sgld"} <= set(ran)


def test_generator_is_reproducible_per_seed_and_paths_shape(torch_cpu):
    """The same SeedSequence gives the same torch outputs, another one other outputs; path releases keep every
    iterate. Fails if the generator ignores its seed."""
    sid, model, params, X = CASES["dp_sgld_li"]
    sampler = registry.make(sid, model=model, **{**params, "release": "path"})
    a = sampler.sample(X, 50, torch_cpu.generator(np.random.SeedSequence(5)))
    b = sampler.sample(X, 50, torch_cpu.generator(np.random.SeedSequence(5)))
    c = sampler.sample(X, 50, torch_cpu.generator(np.random.SeedSequence(6)))
    assert tuple(a.shape) == (50, sampler.n_steps + 1, 2)
    assert bool((a == b).all()) and not bool((a == c).all())
    np.testing.assert_array_equal(a[:, 0].numpy(), np.broadcast_to(sampler.theta0, (50, 2)))


def test_unsupported_samplers_say_so(torch_cpu):
    """A gradient sampler on a model without backend-generic gradients (ULA on the non-convex target) has no device
    path: a NotImplementedError naming the model, never numpy numbers."""
    from dpverify.models.targets import NonConvexTarget
    from dpverify.samplers.device import has_device_path

    ula = registry.make("ula_final", model=NonConvexTarget(2), N=20, step_size=0.01, n_steps=10)
    assert not has_device_path(ula)
    with pytest.raises(NotImplementedError, match="NonConvexTarget"):
        ula.sample(_ball(20, 2, 1.0, 0), 4, torch_cpu.generator(0))


def test_hybrid_sampler_follows_the_numpy_law_on_the_device(torch_cpu):
    """Wang et al. 2015, Alg. 3 (OPS at eps/2 by MALA, then DP-SGLD from that draw; the path released) on torch-CPU:
    its first iterate (the OPS draw, through the sampler's ``start``) and its last follow numpy's law (KS at ALPHA),
    and with half the DP-SGLD noise the last iterate is rejected at POWER_P (measured p = 0.31 and 0.47, then 0)."""
    from dpverify.models.logistic import LogisticRegression as Logistic

    hybrid = registry.make("hybrid_ops_sgld", model=Logistic(2, R=1.0, theta_radius=4.0), N=40, tau=4, T=10,
                           epsilon=1.0, delta=1e-5, step_size=1e-3, ops_steps=100)
    X = _logistic_data(40, 2, 1.0, 12)
    ref = hybrid.sample(X, LAW_CHAINS, np.random.default_rng(2026))
    out = hybrid.sample(X, LAW_CHAINS, torch_cpu.generator(np.random.SeedSequence(2026))).numpy()
    assert out.shape == ref.shape == (LAW_CHAINS, hybrid.n_steps + 1, 2)
    assert _ks_p(ref[:, 0], out[:, 0]) > ALPHA / 3 and _ks_p(ref[:, -1], out[:, -1]) > ALPHA / 3
    bad = _halved(hybrid).sample(X, LAW_CHAINS, torch_cpu.generator(np.random.SeedSequence(7))).numpy()
    assert _ks_p(ref[:, -1], bad[:, -1]) < POWER_P


def test_hybrid_path_statistic_is_evaluated_on_the_device(torch_cpu, forbid_host_copy):
    """The hybrid sampler's white-box path statistic (the OPS draw's tempered log-likelihood ratio plus DP-SGLD's
    per-step mixture ratio) on torch paths equals the numpy value to 1e-9 relative, and a torch audit of the suite's
    hybrid case with it (``test="likelihood_ratio"``) copies no chunk to the host. Fails if the OPS term is computed
    differently on the device or the statistic loses its device path."""
    import torch

    from dpverify.audit import audit

    case = get_case("hybrid_ops_sgld")
    sampler, X, Y = case.build(), case.dataset(), case.neighbour()
    statistic = sampler.log_likelihood_ratio(X, Y)
    assert statistic.backend_generic
    paths = sampler.sample(X, 300, np.random.default_rng(4))
    on_device = statistic(torch.as_tensor(paths))
    assert isinstance(on_device, torch.Tensor)
    np.testing.assert_allclose(on_device.numpy(), statistic(paths), rtol=1e-9, atol=1e-9)
    forbid_host_copy()
    result = audit(sampler, X, Y, epsilon=sampler.guarantee().epsilon, delta=sampler.guarantee().delta, samples=4000,
                   seed=2, test="likelihood_ratio", backend="torch", device="cpu", chunk_size=1000, fit_cap=500,
                   threshold_sample=500)
    assert result.backend == "torch" and result.verdict != "violation"


def _ops_mcmc(epsilon: float = 1.0):
    """OPS by MALA (Wang et al. 2015, Alg. 1) on a bounded logistic model, 100 steps (50 adapting the step)."""
    model = LogisticRegression(2, R=1.0, theta_radius=4.0)
    return registry.make("ops_mcmc_logistic", model=model, N=40, epsilon=epsilon, n_steps=100), _logistic_data(40, 2, 1.0, 12)


def test_mala_step_equals_the_numpy_step_given_the_same_draws(torch_cpu):
    """Five MALA transitions of 64 chains of OPS by MALA from its random starts: the device kernel (the dense tempered
    posterior, the same update) against numpy's with the same normal and uniform draws, to 1e-10 (log densities,
    gradients, positions) and the same accept decisions; some proposals are accepted and some rejected. Fails on any
    difference in the tempered density, its gradient, the proposal or the acceptance ratio on the device."""
    import torch

    from dpverify.samplers.device import DeviceData

    sampler, X = _ops_mcmc()
    data = sampler.prepare_data(X)
    ddata = DeviceData(torch_cpu.asarray(data.prepared), data.N)
    rng = np.random.default_rng(13)
    s_np = sampler._start(data, 64, rng)
    m = s_np.state.mala  # the typed OPS-by-MALA state: positions, log density and gradient on the torch backend
    s_t = s_np._replace(state=s_np.state._replace(mala=m._replace(
        theta=torch_cpu.asarray(m.theta), logp=torch_cpu.asarray(m.logp), grad=torch_cpu.asarray(m.grad))))
    start_t = sampler._kernel_for(ddata).estimator.estimate(None, s_t.theta, ddata)
    np.testing.assert_allclose(start_t.log_density.numpy(), s_np.aux["logp"], rtol=1e-10)
    np.testing.assert_allclose(start_t.gradient.numpy(), s_np.aux["grad"], rtol=1e-10, atol=1e-12)
    decisions = []
    for _ in range(5):
        recorder = Recorder(rng)
        s_np = sampler._step(s_np, data, recorder)
        s_t = sampler._step(s_t, ddata, Replay([torch.as_tensor(x) for x in recorder.draws], torch_cpu))
        for name in ("logp", "grad"):
            np.testing.assert_allclose(s_t.aux[name].numpy(), s_np.aux[name], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(s_t.theta.numpy(), s_np.theta, rtol=1e-10, atol=1e-12)
        assert np.array_equal(s_t.aux["accepted"].numpy(), s_np.aux["accepted"])
        decisions.append(s_np.aux["accepted"])
    assert 0 < np.mean(decisions) < 1


def test_ops_by_mala_follows_the_numpy_law_on_the_device(torch_cpu):
    """OPS by MALA's draws (LAW_CHAINS chains of 100 steps) on torch-CPU against numpy: the KS tests do not reject at
    ALPHA, and the sampler at twice the epsilon (a tempering rho twice as large: a narrower posterior) is rejected at
    POWER_P. Also the step adaptation and diagnostics run on the device path (acceptance near the target 0.574)."""
    sampler, X = _ops_mcmc()
    ref = sampler.sample(X, LAW_CHAINS, np.random.default_rng(2026))
    out = sampler.sample(X, LAW_CHAINS, torch_cpu.generator(np.random.SeedSequence(2026)))
    assert str(out.dtype) == "torch.float64"
    assert 0.4 < sampler.diagnostics["acceptance"] < 0.75
    assert _ks_p(ref, out.numpy()) > ALPHA / 3
    wider, _ = _ops_mcmc(epsilon=2.0)
    assert wider.rho == pytest.approx(2 * sampler.rho)
    bad = wider.sample(X, LAW_CHAINS, torch_cpu.generator(np.random.SeedSequence(7))).numpy()
    assert _ks_p(ref, bad) < POWER_P


def test_the_warm_start_is_the_numpy_start_on_the_device(torch_cpu):
    """The known-bad warm start (one full-batch gradient step on the data from theta0) computed on the device equals
    numpy's to 1e-12, and differs between the canary pair's two datasets (the leak it is there to show). Fails if the
    device path skips the sampler's start."""
    from dpverify.samplers.device import DeviceData

    model, X, Y, params = _path_pair()
    warm = registry.make("dp_sgld_broken", model=model, defect="warm_start",
                         **{k: v for k, v in params.items() if k != "release"})
    theta = np.broadcast_to(warm.theta0, (3, 2)).copy()
    starts = []
    for D in (X, Y):
        data = warm.prepare_data(D)
        on_host = warm.start(theta.copy(), data, None)
        on_device = warm.start(torch_cpu.asarray(theta), DeviceData(torch_cpu.asarray(data.prepared), data.N), None)
        np.testing.assert_allclose(on_device.numpy(), on_host, rtol=1e-12, atol=1e-12)
        starts.append(on_host)
    assert not np.allclose(starts[0], theta) and not np.allclose(starts[0], starts[1])
    first = warm.sample(X, 4, torch_cpu.generator(0))[:, 0].numpy()  # the released path starts there
    np.testing.assert_allclose(first, np.broadcast_to(starts[0][0], (4, 2)), rtol=1e-12)


@pytest.mark.parametrize("defect", DEFECTS)
def test_known_bad_samplers_are_caught_on_the_device(defect, torch_cpu):
    """``run_case("dp_sgld_broken_<defect>", backend="torch")`` at the quick budget: audited on torch (not sent back
    to numpy) and a violation of the declared claim, as on numpy (certified 2.0-8.1 against the claim of about 1.4 on
    both, measured 2026-11-26). Fails if a defect is lost on the device (the declared DP-SGLD is never flagged) or the
    case falls back to numpy."""
    result = run_case(f"dp_sgld_broken_{defect}", budget="quick", backend="torch", device="cpu")
    assert (result.backend, result.error) == ("torch", None)
    assert result.verdict == "violation" and result.passed
def _path_pair():
    from dpverify.models.canary import model_canary_pair

    model = LogisticRegression(2, R=4.0, prior_variance=100.0)
    X, Y = model_canary_pair(model, 100, kind="null")
    params = {"N": 100, "tau": 10, "T": 20, "delta": 1e-3, "step_size": 0.444, "L": 1.0, "theta0": (-2.0, 0.0), "release": "path"}
    return model, X, Y, params


def test_path_statistic_is_the_same_function_on_both_backends(torch_cpu):
    """The white-box path log-likelihood ratio of DP-SGLD evaluated on the same paths as numpy arrays and as torch
    tensors, to 1e-9 relative (both float64; the torch side sums the other records with dense weights). Natural data
    (every record distinct, clipping active) and the canary pair. Fails on any difference in the formula."""
    import torch

    model, X, Y, params = _path_pair()
    nat_X = _logistic_data(100, 2, 4.0, 9)
    nat_Y = nat_X.copy()
    nat_Y[0] = _logistic_data(1, 2, 4.0, 10)[0]
    for D, Dp in ((X, Y), (nat_X, nat_Y)):
        sampler = registry.make("dp_sgld_li", model=model, epsilon=1.0, unguaranteed=True, **params)
        paths = sampler.sample(D, 300, np.random.default_rng(3))
        s = sampler.log_likelihood_ratio(D, Dp)
        a = s(paths)
        b = s(torch.as_tensor(paths))
        assert isinstance(b, torch.Tensor)
        np.testing.assert_allclose(b.numpy(), a, rtol=1e-9, atol=1e-9)
        assert np.std(a) > 0.1


def test_audits_reach_the_same_verdicts_on_both_backends(torch_cpu):
    """The DP-SGLD path audit (white-box statistic, 6000 samples per side) against the accountant's epsilon (exact for
    this canary pair: never a violation) and against a claim of a third of it (violated) on numpy and on torch-CPU: the same
    verdicts; both bounds below the exact epsilon; torch counts come from the device path. Fails if the device
    counting or sampling changes what the audit certifies."""
    from dpverify.audit import audit

    model, X, Y, params = _path_pair()
    sampler = registry.make("dp_sgld_li", model=model, epsilon=None, claim="accountant", **params)
    exact = sampler.guarantee().epsilon
    verdicts = {}
    for backend in ("numpy", "torch"):
        for claimed in (exact, exact / 3):
            r = audit(sampler, X, Y, epsilon=claimed, delta=1e-3, samples=6000, seed=1, test="likelihood_ratio",
                      backend=backend, device="cpu" if backend == "torch" else None, chunk_size=2000)
            verdicts[backend, round(claimed, 6)] = r.verdict
            assert r.epsilon_lower <= exact + 1e-9
    assert verdicts["numpy", round(exact, 6)] == verdicts["torch", round(exact, 6)] != "violation"
    assert verdicts["numpy", round(exact / 3, 6)] == verdicts["torch", round(exact / 3, 6)] == "violation"


def test_device_cuda_without_cuda_is_a_clear_error():
    """device='cuda' where torch has no CUDA: a ValueError saying so (this machine has none; on a GPU machine the
    backend is built instead)."""
    import torch

    if torch.cuda.is_available():
        assert get_backend("torch", "cuda").device == "cuda"
    else:
        with pytest.raises(ValueError, match="no CUDA device is available"):
            get_backend("torch", "cuda")

"""Tests of the SG-MCMC samplers: mini-batches, DP-SGLD (Wang, Li), OPS by MCMC and its diagnostics, hybrid,
DP-SGHMC, DP-SGNHT, DP-SGFS."""
from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from dpverify.models.logistic import LogisticRegression, make_logistic_dataset
from dpverify.models.targets import GaussianTarget
from dpverify.samplers import registry
from dpverify.samplers.sgmcmc import draw_minibatches, draw_poisson_minibatches
from dpverify.samplers.hybrid import HybridOPSSGLD
from dpverify.samplers.ops_mcmc import OPSMCMCLogistic, effective_sample_size, split_rhat
from dpverify.samplers.sgfs import DPSGFS, project_psd
from dpverify.samplers.sghmc import DPSGHMC
from dpverify.samplers.sgld import DPSGLDLi, DPSGLDWang, wang_noise_variance
from dpverify.samplers.sgnht import DPSGNHT

MY_IDS = {"ops_mcmc_logistic", "dp_sgld_wang", "dp_sgld_li", "hybrid_ops_sgld", "dp_sghmc", "dp_sgnht", "dp_sgfs",
          "ula_final", "ula_path", "noisy_sgd_final", "noisy_sgd_path"}


def test_registered_with_catalogue_ids():
    ids = {c.id: c for c in registry.all_samplers()}
    assert MY_IDS <= set(ids)
    for sid in MY_IDS:
        cls = ids[sid]
        assert cls.theorems and all(t.split(".")[0] in ("wang2015", "li2019", "bertazzi2025") for t in cls.theorems)
        assert cls.description


# -- mini-batches ---------------------------------------------------------------------------------
@pytest.mark.parametrize("N, size", [(10, 3), (10, 6), (10, 8), (7, 7), (10, 1)])
def test_minibatches_are_uniform_subsets_without_repeats(N, size):
    """(10, 3) and (10, 6) use sequential rejection, (10, 8) and (7, 7) the random-key branch (dpverify.samplers.minibatch).
    Each of the C(N, size) subsets has probability 1/C(N, size): chi-square goodness of fit on 60,000 draws, rejected
    only at p < 1e-6."""
    rng = np.random.default_rng(10)
    n = 60_000
    idx = draw_minibatches(rng, n, N, size)
    assert idx.shape == (n, size)
    s = np.sort(idx, axis=1)
    assert np.all(s[:, 1:] != s[:, :-1]) and idx.min() >= 0 and idx.max() < N
    subsets = {c: i for i, c in enumerate(combinations(range(N), size))}
    counts = np.bincount([subsets[tuple(r)] for r in s[:5000].tolist()] + [subsets[tuple(r)] for r in s[5000:].tolist()],
                         minlength=len(subsets))
    if len(subsets) > 1:
        assert stats.chisquare(counts).pvalue > 1e-6
    # The first entry is uniform on {0..N-1} (rows are in uniformly random order; Poisson batches rely on it).
    first = np.bincount(idx[:, 0], minlength=N)
    assert stats.chisquare(first).pvalue > 1e-6


@pytest.mark.parametrize("N, q", [(50, 0.2), (30, 0.9), (200, 0.01)])
def test_poisson_minibatches_sizes_and_inclusion(N, q):
    """Batch size ~ Binomial(N, q): mean Nq, variance Nq(1-q); each record included with probability q.
    Tolerances: 5 standard errors of the Monte Carlo estimates (n = 40,000 chains)."""
    rng = np.random.default_rng(11)
    n = 40_000
    idx, mask = draw_poisson_minibatches(rng, n, N, q)
    sizes = mask.sum(axis=1)
    var = N * q * (1 - q)
    assert abs(sizes.mean() - N * q) < 5 * math.sqrt(var / n)
    # SE of the sample variance: sqrt((mu4 - var^2)/n), mu4 of the binomial = var (1 + 3 (N - 2) var / N)
    mu4 = var * (1 + 3 * (N - 2) * q * (1 - q))
    assert abs(sizes.var() - var) < 5 * math.sqrt((mu4 - var**2) / n)
    chosen = np.zeros((n, N), dtype=bool)
    rows = np.repeat(np.arange(n), idx.shape[1])[mask.ravel()]
    chosen[rows, idx[mask]] = True
    assert chosen.sum() == sizes.sum()  # no repeats within a batch
    freq = chosen.mean(axis=0)
    assert np.all(np.abs(freq - q) < 5 * math.sqrt(q * (1 - q) / n))


# -- DP-SGLD (Wang et al. 2015, Alg. 2) -----------------------------------------------------------
def test_wang_noise_variance_equals_the_formula_at_a_hand_point():
    # N = 1000, T = 2, tau = 50, eps = 0.5, delta = 1e-4, L = 1, eta = 1e-5:
    # 128 N T L^2/(tau eps^2) = 128*1000*2/12.5 = 20480; log(2.5 N T/(tau delta)) = log(1e6) = 13.815511;
    # log(2/delta) = log(2e4) = 9.903488; 20480 * 13.815511 * 9.903488 * 1e-10 = 2.802109e-4 > eta.
    assert wang_noise_variance(1e-5, 1000, 2, 50, 0.5, 1e-4, 1.0) == pytest.approx(2.802109e-4, rel=1e-6)
    # Below the switch the Langevin term eta wins: with eta = 1e-8 the data term is 2.8e-10 < 1e-8.
    assert wang_noise_variance(1e-8, 1000, 2, 50, 0.5, 1e-4, 1.0) == pytest.approx(1e-8)
    sampler = DPSGLDWang(LogisticRegression(3), N=1000, tau=50, T=2, epsilon=0.5, delta=1e-4, step_size=1e-5)
    assert sampler.n_steps == 40
    np.testing.assert_allclose(sampler.noise_variance, 2.802109e-4, rtol=1e-6)
    from dpverify.theorems import registry as thm_registry  # the catalogue's Alg. 2 agrees

    ev = thm_registry.get("wang2015.alg2_dp_sgld").evaluate(N=1000, T=2, tau=50, L=1.0, epsilon=0.5, delta=1e-4, eta=1e-5)
    assert ev.conclusion["noise_variance"] == pytest.approx(2.802109e-4, rel=1e-6)


def test_wang_step_injects_the_stated_noise():
    """All records equal, so the mini-batch gradient at theta = 0 is the constant (N/tau) tau z/2 = N z/2 and
    theta_1 - eta N z/2 is the noise alone: its variance must be the Alg. 2 variance. 20,000 chains x 3 coordinates:
    the sample variance has relative standard error sqrt(2/60000) = 0.58%; tolerance 5 SE."""
    N, d = 100, 3
    x = np.array([0.6, 0.0, 0.0])
    X = np.column_stack([np.tile(x, (N, 1)), np.ones(N)])
    sampler = DPSGLDWang(LogisticRegression(d), N=N, tau=10, T=2, epsilon=1.0, delta=1e-5, step_size=1e-4)
    state = sampler.init(X, 20_000, 0)
    nxt = sampler.step(state, X, np.random.default_rng(1))
    z = nxt.theta - 1e-4 * N * x / 2
    expected = sampler.noise_variance[0]
    assert abs(z.var() / expected - 1) < 5 * math.sqrt(2 / z.size)
    assert abs(z.mean()) < 5 * math.sqrt(expected / z.size)
    assert nxt.t == 1 and state.t == 0 and np.all(state.theta == 0)  # pure step


def test_sgld_on_gaussian_target_has_the_exact_stationary_moments():
    """Privacy term dropped: theta <- (1 - eta a) theta + eta g_S + N(0, eta), g_S = mu0/s0^2 + (N/(tau sigma^2))
    sum_S x_i with Var(g_S) = (N/sigma^2)^2 (1 - tau/N) S^2/tau per coordinate (sampling without replacement).
    After k steps: mean b/a + rho^k (0 - b/a), variance (eta^2 Var g + eta)(1 - rho^{2k})/(1 - rho^2), rho = 1 - eta a.
    The printed drift eta (not eta/2) makes this about 1/(2a): the posterior at temperature 1/2 (see sgld.py).
    Tolerances: 5 standard errors (mean: sqrt(v/n); variance: sqrt((m4 - v^2)/n) from the sample)."""
    rng = np.random.default_rng(12)
    N, tau, eta = 50, 10, 0.005
    model = GaussianTarget(2, R=1.0, noise_variance=1.0, prior_variance=1.0)
    X = rng.uniform(-0.7, 0.7, size=(N, 2))
    sampler = DPSGLDWang(model, N=N, tau=tau, T=20, epsilon=1.0, delta=1e-5, step_size=eta, privacy_noise=False)
    assert sampler.guarantee().guaranteed is False
    out = sampler.sample(X, 20_000, rng)
    a, b = model.precision(N), model.linear_term(X)
    rho = 1 - eta * a
    k = sampler.n_steps
    var_g = (N / model.noise_variance) ** 2 * (1 - tau / N) * X.var(axis=0, ddof=1) / tau
    mean = b / a * (1 - rho**k)
    var = (eta**2 * var_g + eta) * (1 - rho ** (2 * k)) / (1 - rho**2)
    n = out.shape[0]
    assert np.all(np.abs(out.mean(axis=0) - mean) < 5 * np.sqrt(var / n))
    m4 = np.mean((out - out.mean(axis=0)) ** 4, axis=0)
    assert np.all(np.abs(out.var(axis=0) - var) < 5 * np.sqrt((m4 - var**2) / n))
    # the mini-batch term is visible: the variance without it is several standard errors away
    assert np.all(np.abs(out.var(axis=0) - eta * (1 - rho ** (2 * k)) / (1 - rho**2)) > 5 * np.sqrt((m4 - var**2) / n))


def test_wang_hypotheses_enforced_and_unguaranteed_flag():
    model = LogisticRegression(2)
    # T >= eps^2 N/(32 tau log(2/delta)) = 25*1000/(320*12.2) = 6.4 fails at T = 1.
    with pytest.raises(ValueError, match="passes_condition"):
        DPSGLDWang(model, N=1000, tau=10, T=1, epsilon=5.0, delta=1e-5, step_size=1e-4)
    s = DPSGLDWang(model, N=1000, tau=10, T=1, epsilon=5.0, delta=1e-5, step_size=1e-4, unguaranteed=True)
    claim = s.guarantee()
    assert claim.guaranteed is False and claim.hypotheses["passes_condition"] is False
    # Theorem 4's proof also needs the per-step epsilon below 1 (the catalogue's per_step_epsilon_below_one): T = 20.
    ok = DPSGLDWang(model, N=1000, tau=10, T=20, epsilon=5.0, delta=1e-5, step_size=1e-4).guarantee()
    assert ok.guaranteed and ok.delta == 1e-5 and ok.theorem == "wang2015.thm4_dp_sgld"


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"tau": 0}, ValueError, "tau"),
        ({"tau": 2000}, ValueError, "tau must be <= N"),
        ({"epsilon": -1.0}, ValueError, "epsilon"),
        ({"delta": 0.0}, ValueError, "delta"),
        ({"T": 0.0}, ValueError, "T"),
        ({"step_size": -1e-3}, ValueError, "step_size"),
        ({"step_size": np.ones(3)}, ValueError, "step_size"),
        ({"theta0": [1.0]}, ValueError, "theta0"),
    ],
)
def test_wang_rejects_bad_parameters(kwargs, exc, match):
    base = dict(model=LogisticRegression(2), N=1000, tau=10, T=10, epsilon=1.0, delta=1e-5, step_size=1e-4)
    with pytest.raises(exc, match=match):
        DPSGLDWang(**{**base, **kwargs})


def test_wang_needs_finite_L_and_right_dataset():
    with pytest.raises(ValueError, match="Lipschitz constant L"):
        DPSGLDWang(GaussianTarget(2), N=10, tau=2, T=100, epsilon=1.0, delta=1e-5, step_size=1e-4)
    s = DPSGLDWang(LogisticRegression(2), N=20, tau=2, T=100, epsilon=1.0, delta=1e-5, step_size=1e-4)
    with pytest.raises(ValueError, match="N = 20"):
        s.sample(make_logistic_dataset(19, 2, 0), 3, 0)
    with pytest.raises(ValueError, match="labels"):
        s.sample(np.zeros((20, 3)), 3, 0)


# -- DP-SGLD (Li et al. 2019, Alg. 1) -------------------------------------------------------------
def test_li_clipping_and_batches_in_the_step():
    """One step from theta = 0 with a tiny eta: the increment minus the noise is eta (sum of clipped gradients)/tau,
    so ||increment - noise|| <= eta |J| L / tau. We check the clipped sum directly through the model: every
    per-record term has norm <= L, and the step's mean over chains is eta E|J| L_eff/tau within MC error."""
    rng = np.random.default_rng(13)
    model = LogisticRegression(2, R=4.0)
    N = 40
    x = np.array([4.0, 0.0])
    X = np.column_stack([np.tile(x, (N, 1)), np.ones(N)])  # every record: z = (4, 0), ||grad|| = 4 sigmoid(0) = 2 at 0
    L = 0.5
    s = DPSGLDLi(model, N=N, tau=8, T=100, epsilon=1.0, delta=1e-5, step_size=1e-3, L=L, unguaranteed=True)
    data = s.prepare_data(X)
    idx, mask = draw_poisson_minibatches(rng, 5000, N, 8 / N)
    g = model.per_record_gradients(data.prepared, idx, np.zeros((5000, 2)))
    from dpverify.models.logistic import clip_gradients

    assert np.linalg.norm(clip_gradients(g, L), axis=-1).max() <= L * (1 + 1e-12)
    out = s.step(s.init(X, 50_000, 0), X, rng).theta
    # E[theta_1] = eta * (q N) * L * e_1 / tau = eta L e_1 (each clipped gradient is (L, 0)); Var = eta/N + eta^2 L^2 Var|J|/tau^2.
    eta, q = 1e-3, 8 / N
    var = eta / N + (eta * L / 8) ** 2 * N * q * (1 - q)
    assert abs(out[:, 0].mean() - eta * L) < 5 * math.sqrt(var / out.shape[0])
    assert abs(out[:, 1].mean()) < 5 * math.sqrt(eta / N / out.shape[0])
    assert abs(out[:, 1].var() / (eta / N) - 1) < 5 * math.sqrt(2 / out.shape[0])


def test_li_schedules_and_claim():
    model = LogisticRegression(2)
    s = DPSGLDLi(model, N=1000, tau=10, T=27, epsilon=1.0, delta=1e-5, step_size=0.1, schedule="decreasing",
                 unguaranteed=True)
    np.testing.assert_allclose(s.eta[[0, 7, 26]], [0.1, 0.05, 0.1 / 3])
    assert s.theorem_id == "li2019.thm3_decreasing_stepsize"
    f = DPSGLDLi(model, N=1000, tau=10, T=27, epsilon=1.0, delta=1e-5, step_size=0.1, unguaranteed=True)
    assert f.theorem_id == "li2019.thm4_fixed_stepsize" and np.all(f.eta == 0.1)
    with pytest.raises(ValueError, match="schedule"):
        DPSGLDLi(model, N=1000, tau=10, T=27, epsilon=1.0, delta=1e-5, step_size=0.1, schedule="cosine")
    with pytest.raises(ValueError, match="explicit"):
        DPSGLDLi(model, N=1000, tau=10, T=3, epsilon=1.0, delta=1e-5, step_size=[0.1, 0.1, 0.1])
    claim = f.guarantee()
    assert claim.theorem == "li2019.thm4_fixed_stepsize" and claim.delta == 1e-5


def test_li_hypotheses_enforced():
    """N = 10^4, q = 0.01, T = 1000, eps = 1, delta = 1e-5, L = 1: eta = 0.05 meets Theorem 4; eta = 1e-3 breaks
    condition ii) (Lemma 2's q < 1/(16 sigma), as the catalogue re-derives it)."""
    model = LogisticRegression(10)
    base = dict(N=10_000, tau=100, T=1000, epsilon=1.0, delta=1e-5)
    assert DPSGLDLi(model, step_size=0.05, **base).guarantee().guaranteed
    with pytest.raises(ValueError, match=r"ii\)"):
        DPSGLDLi(model, step_size=1e-3, **base)
    claim = DPSGLDLi(model, step_size=1e-3, unguaranteed=True, **base).guarantee()
    assert claim.guaranteed is False and claim.hypotheses["ii)"] is False


# -- OPS by MCMC and its diagnostics ---------------------------------------------------------------
def test_rhat_and_ess_on_known_chains():
    """i.i.d. normal draws: R-hat ~ 1, ESS ~ m n. AR(1) with phi = 0.8: ESS ~ m n (1 - phi)/(1 + phi) (the
    integrated autocorrelation time of AR(1)); the estimator's relative error at n = 20,000 is a few %; tolerance 15%.
    Chains with shifted means: R-hat well above 1.01."""
    rng = np.random.default_rng(14)
    iid = rng.standard_normal((4, 5000, 2))
    assert np.all(np.abs(split_rhat(iid) - 1) < 0.01)
    assert np.all(np.abs(effective_sample_size(iid) / 20_000 - 1) < 0.1)
    from scipy.signal import lfilter

    ar = lfilter([1.0], [1.0, -0.8], rng.standard_normal((4, 20_000)), axis=1)[:, 1000:]
    ess = effective_sample_size(ar)[0]
    target = ar.size * 0.2 / 1.8
    assert abs(ess / target - 1) < 0.15
    shifted = iid + np.arange(4)[:, None, None] * 0.5
    assert np.all(split_rhat(shifted) > 1.05)
    with pytest.raises(ValueError, match="draws"):
        split_rhat(np.zeros((2, 3)))


def _tempered_posterior_moments(model, X, rho, radius, n_grid=401):
    """Mean and sd of the tempered posterior of a 2-d logistic model on the disk, by quadrature on a grid."""
    g = np.linspace(-radius, radius, n_grid)
    T1, T2 = np.meshgrid(g, g, indexing="ij")
    pts = np.column_stack([T1.ravel(), T2.ravel()])
    pts = pts[np.linalg.norm(pts, axis=1) <= radius]
    logw = rho * (model.log_prior(pts) + model.log_likelihood(X, pts).sum(axis=1))
    w = np.exp(logw - logw.max())
    w /= w.sum()
    mean = w @ pts
    return mean, np.sqrt(w @ (pts - mean) ** 2)


def test_ops_mcmc_well_mixed_run_and_claim():
    """A well-mixed MALA run: R-hat < 1.01 and bulk ESS > 400 (Vehtari et al. 2021's thresholds), acceptance near
    the adapted 0.574; the 400 released draws match the tempered posterior's mean computed by quadrature
    (tolerance 5 standard errors sd/sqrt(400); the quadrature error on a 401^2 grid is far smaller)."""
    model = LogisticRegression(2, R=1.0, theta_radius=4.0)
    X = make_logistic_dataset(100, 2, np.random.default_rng(15))
    s = OPSMCMCLogistic(model, N=100, epsilon=1.0, n_steps=600, diagnostic_chains=32)
    draws, diag = s.sample_with_diagnostics(X, 400, np.random.default_rng(16))
    assert draws.shape == (400, 2)
    assert np.all(diag["rhat"] < 1.01) and diag["converged"]
    assert np.all(diag["ess_bulk"] > 400)
    assert 0.45 < diag["acceptance"] < 0.7
    assert np.all(np.linalg.norm(draws, axis=1) <= 4.0)
    claim = s.guarantee()
    assert claim.epsilon == pytest.approx(1.0) and claim.delta == 0 and claim.details["exact_sampling"] is False
    assert s.rho == pytest.approx(1.0 / (4 * model.constants.B))
    mean, sd = _tempered_posterior_moments(model, X, s.rho, 4.0)
    assert np.all(np.abs(draws.mean(axis=0) - mean) < 5 * sd / math.sqrt(400))
    assert np.all(np.abs(draws.std(axis=0) / sd - 1) < 5 * math.sqrt(1 / (2 * 400)))


def test_ops_mcmc_needs_finite_B():
    with pytest.raises(ValueError, match="B finite"):
        OPSMCMCLogistic(LogisticRegression(2), N=10, epsilon=1.0)
    with pytest.raises(ValueError, match="burn_in"):
        OPSMCMCLogistic(LogisticRegression(2, theta_radius=1.0), N=10, epsilon=1.0, n_steps=20, burn_in=15)


def test_hybrid_path_starts_at_the_ops_draw():
    model = LogisticRegression(2, R=1.0, theta_radius=4.0)
    X = make_logistic_dataset(100, 2, np.random.default_rng(18))
    s = HybridOPSSGLD(model, N=100, tau=10, T=20, epsilon=1.0, delta=1e-5, step_size=1e-7, ops_steps=200)
    out = s.sample(X, 64, np.random.default_rng(19))
    assert out.shape == (64, s.n_steps + 1, 2) and s.n_steps == 200
    assert s.ops.diagnostics is not None and s.ops.epsilon == 0.5 and s.sgld.epsilon == 0.5
    claim = s.guarantee()
    assert claim.theorem == "wang2015.alg3_hybrid" and claim.epsilon == pytest.approx(1.0) and claim.guaranteed


# -- SGHMC, SGNHT, SGFS --------------------------------------------------------------------------
def _privacy_level(N, T, tau, eps, delta, L):
    return 128 * N * T * L**2 / (tau * eps**2) * math.log(2.5 * N * T / (tau * delta)) * math.log(2 / delta)


def test_sghmc_condition_enforced():
    model = LogisticRegression(2)
    N, T, tau, eps, delta = 200, 10, 20, 1.0, 1e-5
    C = _privacy_level(N, T, tau, eps, delta, 1.0)
    h_ok = 2 * (1.0 - 0.1) / C * 0.99
    s = DPSGHMC(model, N, tau, T, eps, delta, h=h_ok, A=1.0, B_hat=0.1)
    assert s.guarantee().guaranteed and s.n_steps == 100
    with pytest.raises(ValueError, match="privacy_condition"):
        DPSGHMC(model, N, tau, T, eps, delta, h=h_ok * 1.05, A=1.0, B_hat=0.1)
    assert DPSGHMC(model, N, tau, T, eps, delta, h=h_ok * 1.05, A=1.0, B_hat=0.1, unguaranteed=True).guarantee().guaranteed is False
    with pytest.raises(ValueError, match="A must exceed B_hat"):
        DPSGHMC(model, N, tau, T, eps, delta, h=h_ok, A=0.1, B_hat=0.1)
    X = make_logistic_dataset(N, 2, 0)
    out = s.sample(X, 100, 1)
    assert out.shape == (100, 2) and np.all(np.isfinite(out))


def test_sghmc_momentum_noise_variance():
    """One step from theta = 0, p = 0 with all records equal: p_1 = h grad + N(0, 2(A - B_hat) h); its variance."""
    N = 50
    X = np.column_stack([np.tile([0.5, 0.0], (N, 1)), np.ones(N)])
    s = DPSGHMC(LogisticRegression(2), N, 10, 10, 1.0, 1e-5, h=1e-3, A=2.0, B_hat=0.5, unguaranteed=True)
    st1 = s.step(s.init(X, 40_000, 0), X, 1)
    noise = st1.state.p - st1.state.p.mean(axis=0)
    assert abs(noise.var() / (2 * 1.5 * 1e-3) - 1) < 5 * math.sqrt(2 / noise.size)


def test_sgnht_condition_enforced_and_runs():
    model = LogisticRegression(2)
    N, T, tau, eps, delta = 200, 10, 20, 1.0, 1e-5
    C = _privacy_level(N, T, tau, eps, delta, 1.0)
    eta_ok = 2 * 1.0 / C * 0.99
    s = DPSGNHT(model, N, tau, T, eps, delta, eta=eta_ok, a=1.0)
    assert s.guarantee().guaranteed
    with pytest.raises(ValueError, match="privacy_condition"):
        DPSGNHT(model, N, tau, T, eps, delta, eta=eta_ok * 1.05, a=1.0)
    st = s.run(make_logistic_dataset(N, 2, 0), 50, 2)[0]
    assert st.theta.shape == (50, 2) and st.state.alpha.shape == (50,) and np.all(np.isfinite(st.theta))


def test_sgfs_noise_levels_and_hypotheses():
    model = LogisticRegression(3, R=1.0)
    N, T, tau, eps, delta = 500, 4, 20, 1.0, 1e-5
    s = DPSGFS(model, N, tau, T, eps, delta, step_size=1e-3)
    sigma2 = 32 * T * math.log(2.5 * N * T / (tau * delta)) * math.log(2 / delta) / (N * tau * eps**2)
    assert s.sigma2 == pytest.approx(sigma2)
    np.testing.assert_allclose(s.gradient_noise_variance, max(sigma2, 4 / (N**2 * 1e-3)))
    assert s.covariance_noise_variance == pytest.approx(49 * sigma2)  # ||F|| = L = 1
    claim = s.guarantee()
    assert claim.delta == pytest.approx(2 * delta) and claim.details["epsilon_claimed"] == 2 * eps
    with pytest.raises(ValueError, match="batch_above_four"):
        DPSGFS(model, N, 4, T, eps, delta, step_size=1e-3)
    out = s.sample(make_logistic_dataset(N, 3, 0), 40, 3)
    assert out.shape == (40, 3) and np.all(np.isfinite(out))


def test_project_psd():
    rng = np.random.default_rng(20)
    M = rng.standard_normal((50, 4, 4))
    P = project_psd(M)
    assert np.all(np.linalg.eigvalsh(P) >= -1e-12)
    np.testing.assert_allclose(P, np.swapaxes(P, 1, 2))
    S = M @ np.swapaxes(M, 1, 2)  # already PSD: unchanged
    np.testing.assert_allclose(project_psd(S), S, atol=1e-10)


def test_memory_a_run_asks_for_is_bounded_up_front():
    # T = 1e12 reached numpy's MemoryError (and mid-size values could exhaust the machine): now a clear error naming
    # the parameter and its range, before anything is allocated.
    from dpverify.models.targets import GaussianTarget
    from dpverify.samplers import registry
    from dpverify.samplers.sgmcmc import MAX_STEPS

    with pytest.raises(ValueError, match=r"n_steps must be an integer in \[1, 10000000\]"):
        registry.make("ula_path", model=GaussianTarget(2), N=5, step_size=0.1, n_steps=1e12)
    with pytest.raises(ValueError, match="iterations; at most"):
        registry.make("dp_sgld_wang", model=LogisticRegression(2), N=10, tau=1, T=1e9, epsilon=1.0, delta=1e-5,
                      step_size=1e-4, unguaranteed=True)
    s = registry.make("ula_path", model=GaussianTarget(2), N=5, step_size=0.1, n_steps=MAX_STEPS // 10)
    with pytest.raises(ValueError, match="ask for fewer runs per call"):
        s.sample(np.full((5, 2), -0.5), 1000, 0)


def test_a_pickled_sampler_leaves_its_pair_cache_behind_and_computes_the_same_privacy_loss():
    """The per-pair PLD cache of pair_privacy_loss (about 2.8 MB for dp_sgld_path's pair) stays out of the pickle
    (``__getstate__``), so a Dask chunk task no longer carries it; the unpickled sampler computes the same PLD."""
    import pickle

    from dpverify.interfaces.suite import get_case

    case = get_case("dp_sgld_path")
    sampler, dataset, neighbour = case.build(), case.dataset(), case.neighbour()
    before = len(pickle.dumps(sampler))
    loss = sampler.pair_privacy_loss(dataset, neighbour)
    assert "_pair_pld_cache" in sampler.__dict__
    blob = pickle.dumps(sampler)
    assert len(blob) < before + 1_000  # without __getstate__: about 2.8 MB more
    copy = pickle.loads(blob)
    assert "_pair_pld_cache" not in copy.__dict__
    again = copy.pair_privacy_loss(dataset, neighbour)
    assert again.epsilon(1e-3) == loss.epsilon(1e-3)

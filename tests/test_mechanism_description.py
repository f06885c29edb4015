"""Mechanism descriptions (dpverify.calculus.mechanism_description) and the samplers that compute them."""
import math

import numpy as np
import pytest

from dpverify.calculus.accounting import DEFAULT_ORDERS, rdp_sampled_gaussian
from dpverify.calculus.mechanism_description import (
    FixedSizeSampling,
    GaussianStep,
    MechanismDescription,
    PoissonSampling,
    PureDPStep,
    Repeated,
    describe_steps,
)
from dpverify.models.canary import canary_pair, model_canary_pair
from dpverify.models.logistic import LogisticRegression
from dpverify.models.targets import GaussianTarget, NonConvexTarget
from dpverify.samplers import registry

INTEGER_ORDERS = [2.0, 3.0, 5.0, 8.0, 16.0, 32.0]


def li(**kw):
    params = dict(model=LogisticRegression(dim=2, R=4.0), N=100, tau=10, T=20, epsilon=None, delta=1e-3,
                  step_size=0.4, L=1.0, theta0=np.array([-2.0, 0.0]), release="path", claim="accountant")
    params.update(kw)
    return registry.make("dp_sgld_li", **params)


def test_steps_are_validated_and_run_length_encoded():
    with pytest.raises(ValueError, match="noise_std"):
        GaussianStep(1.0, -1.0)
    with pytest.raises(ValueError, match="rate"):
        PoissonSampling(1.5)
    with pytest.raises(ValueError, match="batch_size"):
        FixedSizeSampling(5, 3)
    with pytest.raises(ValueError, match="add/remove adjacency only"):
        MechanismDescription((GaussianStep(1.0, 1.0, PoissonSampling(0.1)),), "replace_one", "path")
    with pytest.raises(ValueError, match="replace-one adjacency only"):
        MechanismDescription((GaussianStep(1.0, 1.0, FixedSizeSampling(2, 10)),), "add_remove", "path")
    with pytest.raises(ValueError, match="release"):
        MechanismDescription((GaussianStep(1.0, 1.0),), "add_remove", "sample")
    a, b = GaussianStep(1.0, 2.0), GaussianStep(1.0, 3.0)
    runs = describe_steps([a, a, b, a])
    assert [(r.step, r.count) for r in runs] == [(a, 2), (b, 1), (a, 1)]
    d = MechanismDescription(runs, "add_remove", "path")
    assert d.n_releases == 4 and list(d) == [a, a, b, a]
    assert GaussianStep(1.0, 0.0).mu == math.inf and not MechanismDescription((GaussianStep(1.0, 0.0),), "add_remove", "path").is_private


def test_rdp_matches_closed_forms_and_dp_accounting():
    dp_accounting = pytest.importorskip("dp_accounting")  # test extra; installed by the README's test command
    from dp_accounting.rdp import rdp_privacy_accountant as rdp_mod

    # Full batch: k Gaussian steps of mu are one Gaussian of mu sqrt(k): RDP alpha k mu^2 / 2 (Mironov 2017, Prop. 7).
    d = MechanismDescription((Repeated(GaussianStep(0.3, 1.5), 7),), "replace_one", "path")
    np.testing.assert_allclose(d.rdp(DEFAULT_ORDERS), np.array(DEFAULT_ORDERS) * 7 * 0.2**2 / 2, rtol=1e-12)
    # Poisson add/remove against dp-accounting's RDP accountant at integer orders (where both are exact).
    d = MechanismDescription((Repeated(GaussianStep(2.0, 3.0, PoissonSampling(0.05)), 40),
                              Repeated(GaussianStep(1.0, 1.2, PoissonSampling(0.05)), 10)), "add_remove", "path")
    acc = rdp_mod.RdpAccountant(INTEGER_ORDERS)
    acc.compose(d.to_dp_event())
    np.testing.assert_allclose(d.rdp(INTEGER_ORDERS), acc._rdp, rtol=1e-9)
    # Fixed-size batches under replace-one: our dominating-pair RDP is below dp-accounting's (Wang, Balle,
    # Kasiviswanathan 2019 upper bound for sampling without replacement).
    d = MechanismDescription((Repeated(GaussianStep(2.0, 2.0, FixedSizeSampling(10, 100)), 30),), "replace_one", "path")
    acc = rdp_mod.RdpAccountant(INTEGER_ORDERS, dp_accounting.NeighboringRelation.REPLACE_ONE)
    acc.compose(d.to_dp_event())
    ours = d.rdp(INTEGER_ORDERS)
    assert np.all(ours <= acc._rdp * (1 + 1e-9)) and np.all(ours > 0.2 * acc._rdp)
    np.testing.assert_allclose(ours, 30 * rdp_sampled_gaussian(0.1, 1.0, INTEGER_ORDERS), rtol=1e-12)


def test_pure_dp_steps_and_scaling():
    d = MechanismDescription((PureDPStep(0.5), Repeated(GaussianStep(1.0, 1.0), 4)), "replace_one", "path")
    a = np.array([2.0, 10.0])
    np.testing.assert_allclose(d.rdp(a), np.minimum(0.5, a * 0.125) + a * 4 / 2)
    half = d.scaled(0.5)
    assert [r.step.mu for r in half.steps if isinstance(r.step, GaussianStep)] == [0.5]
    assert half.steps[0].step == PureDPStep(0.5)
    assert d.account(1e-5, method="rdp").epsilon > half.account(1e-5, method="rdp").epsilon


def test_li_description_reads_the_kernel_numbers():
    s = li(step_size=0.3, tau=10, N=100, L=1.0)
    d = s.mechanism()
    (run,) = d.steps
    assert run.count == 20 and d.release == "path" and d.neighbouring == "add_remove"
    assert run.step.sampling == PoissonSampling(0.1)
    assert run.step.sensitivity == pytest.approx(0.3 * 1.0 / 10)  # eta * clip / tau (Li Alg. 1 steps 4-6)
    assert run.step.noise_std == pytest.approx(math.sqrt(0.3 / 100))  # sqrt(eta / N)
    half = li(step_size=0.3, half_drift=True).mechanism().steps[0].step
    assert half.sensitivity == pytest.approx(run.step.sensitivity / 2)


def test_the_noise_the_kernel_adds_is_the_described_noise():
    # With null records only and theta far inside the flat prior, theta_1 - theta_0 = eta (prior/N) + noise: the
    # empirical standard deviation of 2*10^4 chains' first increments matches the description's noise_std
    # (relative sampling error of an sd from n = 4*10^4 normal draws: 1/sqrt(2n) = 0.35%; 5 sigma = 1.8%).
    model = LogisticRegression(dim=2, R=4.0, prior_variance=1e6)
    s = li(model=model, T=1)
    null = np.tile(np.array([0.0, 0.0, 1.0]), (100, 1))
    paths = s.sample(null, 20_000, np.random.default_rng(3))
    inc = (paths[:, 1] - paths[:, 0]).ravel()
    assert np.std(inc) == pytest.approx(s.mechanism().steps[0].step.noise_std, rel=0.018)


@pytest.mark.parametrize("sampler_id,expected_relation", [
    ("dp_sgld_wang", "replace_one"), ("dp_sghmc", "replace_one"), ("dp_sgnht", "replace_one"),
    ("dp_sgfs", "replace_one"), ("ula_path", "replace_one"), ("noisy_sgd_final", "replace_one"),
    ("dp_sgld_li", "add_remove"), ("hybrid_ops_sgld", "replace_one"),
])
def test_every_gradient_sampler_describes_itself(sampler_id, expected_relation):
    from dpverify.interfaces.suite import get_case

    s = get_case(sampler_id).build()
    d = s.mechanism()
    assert d.neighbouring == expected_relation and d.release == s.output
    assert d.is_private and d.n_releases >= s.n_steps
    conv = s.account(1e-5, method="rdp")
    assert 0 < conv.epsilon < math.inf and ("upper bound" in conv.method) == (s.output == "final")


def _wang_logistic():
    """Wang et al.'s DP-SGLD on logistic regression at Theorem 4's parameters (the suite's case runs on the linear
    model since issue 21)."""
    return registry.make("dp_sgld_wang", model=LogisticRegression(dim=2), N=20, tau=2, T=20, epsilon=1.0,
                         delta=1e-5, step_size=1e-4)


def test_wang_description_sensitivity_and_noise():
    s = _wang_logistic()
    step = s.mechanism().steps[0].step
    # eta (N/tau) 2L with L = R = 1 for the unbounded logistic model; noise the square root of Alg. 2's variance
    assert step.sensitivity == pytest.approx(1e-4 * (20 / 2) * 2.0)
    assert step.noise_std == pytest.approx(math.sqrt(s.noise_variance[0]))
    assert step.sampling == FixedSizeSampling(2, 20)


def test_canary_records_and_verification():
    m = LogisticRegression(dim=2, R=4.0)
    r = m.canary_records(1)
    theta = np.random.default_rng(0).normal(size=(50, 2)) * 3
    g = m.grad_log_likelihood(np.vstack([r.canary, r.counterpart, r.null]), theta)
    np.testing.assert_allclose(g[:, 0] - g[:, 1], np.tile([0.0, 4.0], (50, 1)), atol=1e-12)  # exactly R e_j
    np.testing.assert_allclose(g[:, 2], 0.0)
    # Poisson (Li) needs null others: the null kind is a canary, the replace kind is not
    s = li()
    assert s.canary_shift(*model_canary_pair(m, 100, kind="null")) == pytest.approx(1.0)  # clipped at L = 1
    assert s.canary_shift(*model_canary_pair(m, 100, kind="replace")) is None
    # fixed-size (Wang) accepts the replace kind: gradient difference R = 1 (model R = 1), half of 2L
    w = _wang_logistic()
    assert w.canary_shift(*model_canary_pair(w.model, 20, kind="replace")) == pytest.approx(1.0)
    natural = np.column_stack([np.random.default_rng(1).uniform(-0.7, 0.7, (20, 2)), np.ones(20)])
    other = natural.copy()
    other[3, -1] = -1.0
    assert w.canary_shift(natural, other) is None  # others differ: the batch mixture does not collapse
    assert w.canary_shift(natural, natural) is None  # no differing record
    g = GaussianTarget(2, R=1.0)
    assert registry.make("ula_path", model=g, N=5, step_size=0.05, n_steps=3).canary_shift(
        *model_canary_pair(g, 5)) == pytest.approx(2.0)
    with pytest.raises(NotImplementedError, match="no record"):
        NonConvexTarget(2).canary_records()
    with pytest.raises(ValueError, match="null record"):
        canary_pair(4, 1.0, -1.0, kind="null")


def test_white_box_statistic_is_the_exact_likelihood_ratio_on_full_batch_paths():
    from dpverify.interfaces.suite import get_case

    c = get_case("ula_path")
    s = c.build()
    paths = s.sample(c.dataset(), 50, np.random.default_rng(0))
    llr = s.log_likelihood_ratio(c.dataset(), c.neighbour())
    np.testing.assert_allclose(llr(paths), s.log_density(c.dataset(), paths) - s.log_density(c.neighbour(), paths),
                               rtol=1e-9, atol=1e-9)
    # final releases of a linear-Gaussian chain: the release's exact ratio (here full batch: a Gaussian pair)
    c = get_case("ula_final")
    s = c.build()
    finals = s.sample(c.dataset(), 50, np.random.default_rng(1))
    llr = s.log_likelihood_ratio(c.dataset(), c.neighbour())
    np.testing.assert_allclose(llr(finals), s.log_density(c.dataset(), finals) - s.log_density(c.neighbour(), finals),
                               rtol=1e-9, atol=1e-9)


def test_white_box_statistic_is_a_likelihood_ratio_on_canary_mixtures():
    # For the exact likelihood ratio L = log dP/dQ of a canary pair, E_P[e^{-L}] = 1 = E_Q[e^{L}] (change of
    # measure). 2*10^4 paths per side; with L of small variance here the Monte Carlo sd of either mean is < 0.3%,
    # so 1.5% is a 5-sigma tolerance. A wrong mixture weight or shift breaks the identity.
    s = li(T=10)
    D, Dp = model_canary_pair(s.model, 100, kind="null")
    llr = s.log_likelihood_ratio(D, Dp)
    lp = llr(s.sample(D, 20_000, np.random.default_rng(1)))
    lq = llr(s.sample(Dp, 20_000, np.random.default_rng(2)))
    assert np.mean(np.exp(-lp)) == pytest.approx(1.0, abs=0.015)
    assert np.mean(np.exp(lq)) == pytest.approx(1.0, abs=0.015)
    # and its means are the two KL divergences of the per-step mixture pair, 10 steps of
    # P = (1-q) N(0,1) + q N(mu,1) vs Q = N(0,1) with mu = (eta L/tau)/sqrt(eta/N) (quadrature); 5 Monte Carlo sds.
    from scipy import integrate, stats

    q, mu = 0.1, (0.4 * 1.0 / 10) / math.sqrt(0.4 / 100)
    p_pdf = lambda x: (1 - q) * stats.norm.pdf(x) + q * stats.norm.pdf(x - mu)  # noqa: E731
    loss = lambda x: math.log(p_pdf(x) / stats.norm.pdf(x))  # noqa: E731
    kl_pq = 10 * integrate.quad(lambda x: p_pdf(x) * loss(x), -12, 12)[0]
    kl_qp = 10 * integrate.quad(lambda x: -stats.norm.pdf(x) * loss(x), -12, 12)[0]
    assert np.mean(lp) == pytest.approx(kl_pq, abs=5 * np.std(lp) / math.sqrt(lp.size))
    assert -np.mean(lq) == pytest.approx(kl_qp, abs=5 * np.std(lq) / math.sqrt(lq.size))


def test_broken_variants_declare_the_correct_mechanism():
    base = li()
    D, Dp = model_canary_pair(base.model, 100, kind="null")
    from dpverify.samplers.broken import DEFECTS

    for defect in DEFECTS:
        bad = registry.make("dp_sgld_broken", model=base.model, N=100, tau=10, T=20, delta=1e-3, step_size=0.4,
                            L=1.0, theta0=np.array([-2.0, 0.0]), defect=defect)
        assert bad.mechanism() == base.mechanism()
        assert bad.guarantee().epsilon == base.guarantee().epsilon
        assert bad.guarantee().details["defect"] == defect
        a = bad.sample(D, 200, np.random.default_rng(5))
        b = base.sample(D, 200, np.random.default_rng(5))
        assert not np.allclose(a, b), defect  # the implementation differs
    with pytest.raises(ValueError, match="defect must be one of"):
        registry.make("dp_sgld_broken", model=base.model, N=100, tau=10, T=20, delta=1e-3, step_size=0.4, defect="x")


def test_gradient_sensitivities_of_the_models():
    # add/remove: min(clip, L); replace-one: min(2 clip, the model's gradient-difference bound)
    m = LogisticRegression(dim=2, R=3.0)
    assert m.gradient_sensitivity("add_remove") == 3.0 and m.gradient_sensitivity("replace_one") == 6.0
    assert m.gradient_sensitivity("add_remove", clip=1.0) == 1.0
    assert m.gradient_sensitivity("replace_one", clip=1.0) == 2.0
    g = GaussianTarget(2, R=1.0, noise_variance=0.5)
    assert g.gradient_sensitivity("replace_one") == pytest.approx(4.0)  # 2R/sigma^2
    assert g.gradient_sensitivity("replace_one", clip=1.0) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="no finite gradient sensitivity under add_remove"):
        g.gradient_sensitivity("add_remove")
    nc = NonConvexTarget(2, R=1.0, amplitude=1.0, width=0.5)
    assert nc.gradient_sensitivity("replace_one") == pytest.approx(2 * (1.0 / 0.5) * math.exp(-0.5))
    with pytest.raises(ValueError, match="neighbouring must be"):
        m.gradient_sensitivity("swap")


def test_claims_and_accountant_answers_convert_to_the_calculus_guarantees():
    from dpverify.calculus.guarantees import ApproxDP

    s = li()
    claim, acc = s.guarantee(), s.account(1e-3)
    assert claim.as_approx_dp() == ApproxDP(claim.epsilon, 1e-3)
    assert acc.as_approx_dp() == ApproxDP(acc.epsilon, 1e-3)
    assert claim.as_approx_dp().implies(ApproxDP(acc.epsilon * 1.001, 1e-3))  # the accountant's claim is its epsilon
    assert acc.epsilon_lower <= acc.epsilon < acc.epsilon_lower + 1e-3  # the PLD bracket is narrow

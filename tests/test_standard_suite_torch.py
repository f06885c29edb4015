"""The standard suite's one-number cases on the torch backend (issue 26): their device outputs follow the exact law
of the numpy path, the auditor's statistics of them are the numpy statistics evaluated on the device, a torch audit
reaches the numpy verdict without copying a chunk to the host, and a mechanism without a device path is refused
before any sample is drawn.

Marker ``torch`` (excluded from the default run: ``python -m pytest -m torch``). torch is imported inside the tests.
They run on torch's CPU; with ``DPVERIFY_TORCH_TEST_DEVICE=cuda`` in the environment,
``python -m pytest -m torch tests/test_standard_suite_torch.py`` runs the same checks on a GPU (curand's uniforms
under every draw, the device's own exp and log).
Every law test has a fixed seed: the correct device law must pass at level ``LEVEL`` and the same test must reject a
deliberately wrong device law (half the noise, a shifted table) at ``POWER_P``, so it can fail.
"""
from __future__ import annotations

import math
import os

import numpy as np
import pytest
from scipy import stats

from dpverify.audit import audit
from dpverify.audit.events import outcome_log_ratio
from dpverify.audit.known_bad import RandomizedResponse
from dpverify.audit.likelihood_ratio import log_likelihood_ratio
from dpverify.audit.standard import additive, local, noisy_max
from dpverify.audit.standard_suite import get
from dpverify.audit.statistics import identity

pytestmark = pytest.mark.torch

#: The torch device the tests draw and audit on ("cpu" unless the environment names another, e.g. "cuda").
DEVICE = os.environ.get("DPVERIFY_TORCH_TEST_DEVICE", "cpu")
#: The cases whose outputs are one number per sample (benchmarks/suite.py --preset gpu1d).
ONE_NUMBER = ("laplace_0.1", "laplace_1", "truncated_geometric", "report_noisy_max1", "report_noisy_max2",
              "report_noisy_max3", "report_noisy_max4", "report_noisy_max_half_noise_add_remove",
              "report_noisy_max_half_noise_replace", "randomized_response", "exponential")
#: Draws per law test. The smallest atom of a discrete law here has probability 0.04 (8000 expected counts) and the
#: wrong laws move some probability by >= 0.01 (a chi-square of several hundred at this size), or, continuous, move
#: the CDF by >= 0.05 somewhere (KS statistic 0.05 against a critical value of about 0.007 at 10^-8).
LAW_DRAWS = 200_000
#: The correct device law passes at this level (a false alarm has probability 1e-4 for a seed chosen blind).
LEVEL = 1e-4
#: The wrong device law must be rejected this strongly.
POWER_P = 1e-8


def _wrong(name: str):
    """The case's mechanism with a deliberate mistake in its law: half the noise, twice the epsilon, or a shifted
    table (GeoSample with k - 1)."""
    m = get(name).mechanism
    if name.startswith("laplace"):
        return additive.laplace(2.0 * m.noise.epsilon)
    if name.startswith("report_noisy_max"):
        return noisy_max.NoisyMax(m.epsilon, m.noise, m.release, m.scale_factor / 2.0)
    if name == "truncated_geometric":
        return local.GeoSample(k=m.k - 1, n=m.n)
    if name == "randomized_response":
        return RandomizedResponse(2.0 * m.epsilon)
    return noisy_max.ExponentialSelection(2.0 * m.epsilon, m.utility_sensitivity)


def _atoms(name: str) -> np.ndarray:
    case = get(name)
    if name == "truncated_geometric":
        return np.arange(case.mechanism.n + 1)
    if name == "randomized_response":
        return np.arange(2)
    return np.arange(np.asarray(case.dataset).size)


def _cdf(name: str, answers):
    """The exact CDF of the case's output on ``answers``: Laplace(q, b); the maximum of q_i + Z_i is prod_i F(x - q_i)
    (Ding et al. 2018, Algs. 7-8)."""
    m = get(name).mechanism
    if name.startswith("laplace"):
        return stats.laplace(loc=float(np.asarray(answers).reshape(-1)[0]), scale=m.noise.scale).cdf
    q = np.asarray(answers, dtype=float).reshape(-1)
    noise = stats.laplace(scale=m.scale) if m.noise == "laplace" else stats.expon(scale=m.scale)
    return lambda x: np.prod(noise.cdf(np.asarray(x)[:, None] - q[None, :]), axis=1)


def _p_value(name: str, outputs: np.ndarray, answers) -> float:
    """Goodness of fit of ``outputs`` to the case's exact law on ``answers``: chi-square over the atoms (the exact pmf
    from the case's own log-density) for discrete outputs, one-sample Kolmogorov-Smirnov for continuous ones."""
    case = get(name)
    if case.output == "discrete":
        atoms = _atoms(name)
        expected = np.exp(case.mechanism.log_density(answers, atoms)) * outputs.size
        assert abs(expected.sum() - outputs.size) < 1e-6 * outputs.size
        observed = np.bincount(outputs.astype(int), minlength=atoms.size)
        assert observed.size == atoms.size, "an output outside the atoms"
        return float(stats.chisquare(observed, expected).pvalue)
    return float(stats.kstest(outputs, _cdf(name, answers)).pvalue)


@pytest.mark.parametrize("name", ONE_NUMBER)
def test_device_outputs_follow_the_numpy_law_and_a_wrong_law_is_rejected(name, torch_device):
    """On both inputs of the pair, ``LAW_DRAWS`` device outputs pass the exact law of the numpy path at ``LEVEL``
    (chi-square over the atoms, or KS against the closed-form CDF), with the numpy path's dtype and shape, as a
    tensor; the same test on the device outputs of the deliberately wrong mechanism (:func:`_wrong`) gives a p-value
    below ``POWER_P``. Fails on a wrong device primitive (scale, inversion, sign), a wrong reduction (max for argmax),
    a table off by one, or a dtype that differs from numpy's."""
    import torch

    case = get(name)
    for side, answers in enumerate((case.dataset, case.neighbour)):
        out = case.mechanism(answers, LAW_DRAWS, torch_device.generator(np.random.SeedSequence(100 + side)))
        reference = case.mechanism(answers, 8, np.random.default_rng(0))
        assert isinstance(out, torch.Tensor) and tuple(out.shape) == (LAW_DRAWS,)
        assert str(out.dtype).removeprefix("torch.") == reference.dtype.name
        assert _p_value(name, out.cpu().numpy(), answers) > LEVEL
    bad = _wrong(name)(case.neighbour, LAW_DRAWS, torch_device.generator(np.random.SeedSequence(102)))
    assert _p_value(name, bad.cpu().numpy(), case.neighbour) < POWER_P


@pytest.mark.parametrize("name", ONE_NUMBER)
def test_device_statistics_equal_the_numpy_statistics_on_the_same_outputs(name, torch_device):
    """The auditor's statistics of these outputs -- the identity, the rounded log-likelihood ratio of the declared
    ``log_density`` and, for discrete outputs, the outcome log-ratio fitted on numpy samples -- are backend-generic,
    return tensors, and equal the numpy statistics of the same outputs copied to the host: bit for bit, except the
    noisy maximum's closed-form density (exp/log1p of two libraries), compared unrounded to 1e-12. Fails if a device
    lookup is off by one, compares in another dtype, or a formula differs."""
    import torch

    case = get(name)
    out = case.mechanism(case.neighbour, 20_000, torch_device.generator(np.random.SeedSequence(5)))
    host = out.cpu().numpy()
    f0 = case.mechanism(case.dataset, 4000, np.random.default_rng(1))
    f1 = case.mechanism(case.neighbour, 4000, np.random.default_rng(2))
    closed_form = name in ("report_noisy_max3", "report_noisy_max4")
    statistics = [identity(f0, f1), log_likelihood_ratio(case.mechanism.log_density, case.dataset, case.neighbour,
                                                         decimals=None if closed_form else 9)]
    if case.output == "discrete":
        statistics.append(outcome_log_ratio(f0, f1))
    for statistic in statistics:
        assert statistic.function.backend_generic, statistic.name
        on_device = statistic.function(out)
        assert isinstance(on_device, torch.Tensor) and on_device.dtype == torch.float64
        if closed_form and statistic.name != "identity":
            np.testing.assert_allclose(on_device.cpu().numpy(), statistic(host), rtol=0, atol=1e-12)
        else:
            np.testing.assert_array_equal(on_device.cpu().numpy(), statistic(host), err_msg=statistic.name)
    assert np.std(statistics[1](host)) > 0  # the ratio is not constant on these outputs: the comparison has teeth


def test_outcome_lookup_gives_zero_off_the_fitted_outcomes(torch_device):
    """An output never seen in the fit gets 0 on the device as on the host, also past both ends of the table."""
    import torch

    statistic = outcome_log_ratio(np.array([1, 1, 2, 3]), np.array([2, 3, 3, 3]))
    x = torch.tensor([0, 1, 2, 3, 4, 7], device=torch_device.torch_device)
    np.testing.assert_array_equal(statistic.function(x).cpu().numpy(), statistic(x.cpu().numpy()))
    assert statistic(np.array([0, 4, 7])).tolist() == [0.0, 0.0, 0.0]


#: (case, samples per side): a private case of each kind and a non-private one.
AUDITED = {"laplace_1": 200_000, "report_noisy_max3": 200_000, "randomized_response": 200_000,
           "report_noisy_max_half_noise_replace": 200_000}


@pytest.mark.parametrize("name", sorted(AUDITED))
def test_torch_audit_reaches_the_numpy_verdict_without_copying_a_chunk_to_the_host(name, audit_numpy_then_torch):
    """``audit(test="auto")`` at 2 x 10^5 samples per side, in chunks of 2^14 after a fit of 2^13 outputs per side (so
    that most chunks are scored and counted on the device), on numpy and on torch-CPU: the same verdict, the right one
    for the case (violation exactly when it is not private), both bounds below the exact epsilon, and the torch audit
    never copies a chunk to the host (the host fallback of :class:`~dpverify.audit.chunk_work.DeviceChunk` is made to
    raise). Fails if a statistic of these outputs is not evaluated on the device, or the device path changes what the
    audit certifies."""
    case = get(name)
    on_numpy, on_torch = audit_numpy_then_torch(case, AUDITED[name])
    assert on_torch.backend == "torch" and on_numpy.backend == "numpy"
    expected = "consistent" if case.private else "violation"
    assert on_numpy.verdict == on_torch.verdict == expected
    for result in (on_numpy, on_torch):
        assert 0.0 < result.epsilon_lower <= case.epsilon_exact


def test_a_mechanism_without_a_device_path_is_refused_before_any_sample(torch_device, monkeypatch):
    """A mechanism doing numpy arithmetic on the generator's draws (a numpy mask ``&`` a device array) and one drawing
    ``rng.normal`` (a draw the device generator lacks) on backend='torch': a NotImplementedError naming the mechanism
    and pointing to backend='numpy', raised before the fit is drawn (the fit stage is made to fail if reached); the
    same mechanisms audit on numpy."""
    import dpverify.audit.core as core

    def plain_gaussian(dataset, n, rng):
        return float(np.asarray(dataset)[0]) + rng.normal(0.0, 1.0, size=n)

    def numpy_flags(dataset, n, rng):
        return (np.ones(n, dtype=bool) & (rng.laplace(float(np.asarray(dataset)[0]), 1.0, size=n) >= 0)).astype(np.int8)

    def fit_reached(*args, **kwargs):
        raise AssertionError("the fit was drawn before the mechanism was refused")

    with monkeypatch.context() as patched:
        patched.setattr(core, "fit_statistics", fit_reached)
        with pytest.raises(NotImplementedError, match="numpy_flags.*unsupported operand.*backend='numpy'"):
            audit(numpy_flags, np.zeros(1), np.ones(1), epsilon=1.0, samples=2000, backend="torch", device=DEVICE)
        with pytest.raises(NotImplementedError, match="plain_gaussian.*has no attribute 'normal'.*backend='numpy'"):
            audit(plain_gaussian, np.zeros(1), np.ones(1), epsilon=1.0, samples=2000, backend="torch",
                  device=DEVICE)
    for mechanism in (plain_gaussian, numpy_flags):
        assert audit(mechanism, np.zeros(1), np.ones(1), epsilon=1.0, samples=2000).backend == "numpy"


def test_generator_integers_are_uniform_and_ranges_are_checked(torch_device):
    """``integers(low, high)`` is uniform on {low..high-1} (chi-square at ``LEVEL``; a range one too wide, read as
    this one, is rejected at ``POWER_P``) and refuses ranges above 2^32 or empty ones."""
    gen = torch_device.generator(np.random.SeedSequence(9))
    draws = gen.integers(3, 10, size=140_000).cpu().numpy()
    assert draws.min() == 3 and draws.max() == 9
    counts = np.bincount(draws - 3, minlength=7)
    assert stats.chisquare(counts).pvalue > LEVEL
    wide = gen.integers(3, 11, size=140_000).cpu().numpy()
    wide_counts = np.bincount(np.minimum(wide, 9) - 3, minlength=7)  # 10 folded into 9: not uniform on 3..9
    assert stats.chisquare(wide_counts).pvalue < POWER_P
    for low, high in ((0, 0), (0, (1 << 32) + 1)):
        with pytest.raises(ValueError, match="high - low"):
            gen.integers(low, high, size=3)


def test_draws_stay_inside_their_float64_support(torch_device):
    """Laplace and Gumbel draws are finite (a uniform 0 is drawn again), exponentials lie in [0, 36.8 scales]
    (-log 2^-53 = 36.7): the resolution docs/gpu.md states."""
    gen = torch_device.generator(np.random.SeedSequence(11))
    lap = gen.laplace(1.0, 2.0, size=300_000)
    exp = gen.exponential(3.0, size=300_000)
    gum = gen.gumbel(size=300_000)
    assert bool(lap.isfinite().all()) and bool(gum.isfinite().all())
    assert float(exp.min()) >= 0.0 and float(exp.max()) <= 3.0 * 53 * math.log(2.0)
    assert float((lap - 1.0).abs().max()) <= 2.0 * 53 * math.log(2.0)


def test_a_uniform_zero_is_drawn_again(torch_device):
    """``open_random`` (under ``laplace`` and ``gumbel``) replaces every exact 0 of ``random`` by a fresh draw and
    keeps the other values (rejection: the uniform conditioned on U > 0), so log(2U) and log(-log U) stay finite. The
    first ``random`` call is made to return zeros, which sampling alone would show once in 2^53 draws."""
    import torch

    gen = torch_device.generator(np.random.SeedSequence(12))
    real = gen.random
    on = torch_device.torch_device
    first = [torch.tensor([0.0, 0.25, 0.0, 0.75], dtype=torch.float64, device=on)]
    gen.random = lambda size: first.pop() if first else real(size)  # type: ignore[method-assign]
    u = gen.open_random(4)
    assert bool((u > 0).all()) and u[1] == 0.25 and u[3] == 0.75
    first.append(torch.tensor([0.0, 0.5], dtype=torch.float64, device=on))
    assert bool(gen.laplace(0.0, 1.0, size=2).isfinite().all())


def test_device_chunks_of_small_outputs_may_exceed_the_numpy_default():
    """On an 80 GB device, the one-number mechanisms and PrefixSum (``output_bytes(dataset)`` <= 1024) get chunks of
    2^23-2^24 outputs (their memory budget, capped at ``DEVICE_CHUNK_CAP``), a sampler's kilobyte outputs and a
    mechanism that declares nothing keep at most 2^20, and numpy keeps its default for small outputs (its numbers
    depend on it)."""
    from dpverify.audit.core import DEVICE_CHUNK_CAP, device_chunk_size
    from dpverify.audit.split import DEFAULT_CHUNK_SIZE
    from dpverify.backends import NUMPY, Backend

    class EightyGigabytes(Backend):
        name, device = "torch", "cuda"

        def free_memory(self) -> int:
            return 80 * 10**9

    gpu = EightyGigabytes()

    def chunk(name: str, backend) -> int:
        case = get(name)
        return device_chunk_size(case.mechanism, backend, (case.dataset, case.neighbour))

    assert chunk("report_noisy_max3", gpu) == 1 << 23  # 0.2 * 80e9 / 1024 -> 2^23
    assert chunk("laplace_1", gpu) == DEVICE_CHUNK_CAP == 1 << 24

    class Chains:
        def output_bytes(self) -> float:
            return 11_600.0  # the DP-SGLD path of the closing table (d = 10, N = 100, T = 100)

    assert device_chunk_size(Chains(), gpu) == DEFAULT_CHUNK_SIZE == 1 << 20
    assert device_chunk_size(object(), gpu) == DEFAULT_CHUNK_SIZE  # declares nothing
    assert chunk("prefix_sum", gpu) == DEVICE_CHUNK_CAP  # 616 bytes for its ten answers
    assert chunk("laplace_1", NUMPY) == DEFAULT_CHUNK_SIZE


@pytest.mark.parametrize("name, test", [("report_noisy_max_half_noise_replace", "events"),
                                        ("report_noisy_max3", "likelihood_ratio"), ("laplace_1", "threshold")])
def test_the_named_tests_also_stay_on_the_device(name, test, torch_device, forbid_host_copy):
    """``test="events"`` (outcome log-ratio), ``"likelihood_ratio"`` (the declared density's ratio) and
    ``"threshold"`` (the identity) on torch-CPU at 10^5 samples per side in chunks of 2^13: no chunk is copied to the
    host, and the non-private cases are caught (the private Laplace is not flagged). Fails if one of these statistics
    loses its device path."""
    forbid_host_copy()
    case = get(name)
    r = audit(case.mechanism, case.dataset, case.neighbour, epsilon=case.epsilon_claimed, samples=100_000, seed=2,
              test=test, backend="torch", device=DEVICE, chunk_size=1 << 13, fit_cap=1 << 12,
              threshold_sample=1 << 12)
    assert r.verdict == ("consistent" if case.private else "violation")
    assert r.epsilon_lower <= case.epsilon_exact

"""Reported bugs of Opacus (meta-pytorch/opacus), each a corpus case (:mod:`dpverify.libraries.corpus`).
"""
from __future__ import annotations

import contextlib
import copy
import logging
import math
import warnings
from typing import Any

import numpy as np

from dpverify.audit import audit
from dpverify.calculus.accounting import epsilon_sampled_gaussian
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.libraries import opacus as lib
from dpverify.libraries.accountants import Reference, reference_bracket
from dpverify.libraries.corpus.model import CorpusCase, installed_version as _version


def _opacus_571() -> dict:
    """Opacus#571 (and #819): ``make_private(loss_reduction="mean")`` with full batches divides the summed clipped
    gradients by the expected batch size computed from the private dataset's size, so neighbours of 4 and 3 records
    are divided by 4 and 3. The catalogue's function ``make_private[mean_full_batch_divisor_differs]`` (one DP-SGD
    step on that pair) is audited with 3,000 samples per side, seed 0, against Opacus' own claimed epsilon;
    "reproduced" on a violation."""
    fn = next(f for f in lib.catalogue() if f.name == "make_private[mean_full_batch_divisor_differs]")
    d, n = fn.pairs[0]
    claimed = fn.claim(d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = audit(fn.mechanism, d, n, claim=claimed, samples=3000, seed=0, test=fn.test)
    sizes = [len(d), len(n)]
    return {"status": "reproduced" if r.is_violation else "fixed", "version": lib.version(),
            "claimed": claimed.epsilon, "delta": claimed.delta, "certified": r.epsilon_lower,
            "exact": r.epsilon_exact,
            "detail": (f"loss_reduction='mean', full batches of {sizes[0]} vs {sizes[1]} records: certified "
                       f"{r.epsilon_lower:.3g} (exact {r.epsilon_exact:.3g}) against Opacus' {claimed.epsilon:.3g} "
                       f"at delta {claimed.delta:g}, 3000 samples, seed 0")}


def _opacus_negative_epsilon() -> dict:
    """Opacus#585 (PR #844): at noise multiplier 50, sample rate 0.01, one step and delta 0.5 the RDP and PRV
    accountants return a negative epsilon and the GDP accountant fails; a negative epsilon is no guarantee.
    "reproduced" when any of the three answers is not a finite epsilon >= 0."""
    from opacus.accountants import GaussianAccountant, PRVAccountant, RDPAccountant

    out: dict[str, Any] = {}
    for name, cls in (("rdp", RDPAccountant), ("prv", PRVAccountant), ("gdp", GaussianAccountant)):
        acc = cls()
        acc.step(noise_multiplier=50.0, sample_rate=0.01)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out[name] = float(acc.get_epsilon(delta=0.5))
            except Exception as exc:  # noqa: BLE001 - an accountant that cannot answer is part of the report
                out[name] = f"{type(exc).__name__}: {exc}"
    bad = {k: v for k, v in out.items() if not (isinstance(v, float) and v >= 0 and math.isfinite(v))}
    return {"status": "reproduced" if bad else "fixed", "version": _version("opacus"), "epsilons": out,
            "detail": ("noise multiplier 50, sample rate 0.01, one step, delta 0.5: "
                       + ", ".join(f"{k} -> {v if isinstance(v, str) else f'{v:.4g}'}" for k, v in out.items())
                       + ("; a negative epsilon or a failure is no guarantee" if bad else ""))}


def _opacus_len() -> dict:
    """Opacus PR #829: ``len(accountant)`` is documented as the number of optimization steps taken so far, but
    counts the distinct (noise multiplier, sample rate) settings of its history: after 5 identical steps it is 1.
    "reproduced" when it differs from the number of steps."""
    from opacus.accountants import RDPAccountant

    acc = RDPAccountant()
    steps = 5
    for _ in range(steps):
        acc.step(noise_multiplier=1.0, sample_rate=0.1)
    n = len(acc)
    return {"status": "reproduced" if n != steps else "fixed", "version": _version("opacus"), "len": n,
            "steps": steps, "detail": f"{steps} steps recorded, len(accountant) = {n} (documented: the number of "
                                      "optimization steps taken so far)"}


def _opacus_616(samples: int = 20_000, std: float = 1.0) -> dict:
    """Opacus#616: ``secure_mode=True`` still adds float32 noise to the summed gradient, so the release's low-order
    bits depend on the gradient (a precision-based attack, Haney et al. 2022): with the summed clipped gradient 0
    (D) the output keeps bits below 2^-24 whenever it is small, with the gradient 1 (D': one record at
    ``max_grad_norm`` 1 added) ``1 + noise`` is always a multiple of 2^-24. The installed ``_generate_noise`` is
    audited on that pair (statistic: the output has bits below 2^-24), against the Gaussian mechanism's exact
    epsilon at mu = 1 (noise multiplier 1), delta 1e-5."""
    import opacus.optimizers.optimizer as om
    import torch

    def mechanism(dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        summed = torch.full((n,), float(np.asarray(dataset, dtype=float).ravel()[0]), dtype=torch.float32)
        gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
        noise = om._generate_noise(std, summed, generator=gen, secure_mode=True)
        return (summed + noise).numpy().astype(np.float64)  # exact: every float32 is a float64

    def fine_bits(outputs: np.ndarray) -> np.ndarray:
        z = np.asarray(outputs, dtype=float).reshape(len(outputs), -1)[:, 0] * 2.0 ** 24
        return (z != np.floor(z)).astype(float)

    delta = 1e-5
    claim = gaussian_epsilon(delta, 1.0 / std)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = audit(mechanism, np.array([0.0]), np.array([1.0]), epsilon=claim, delta=delta, samples=samples, seed=0,
                  test=fine_bits)
        rates = [float(fine_bits(mechanism(np.array([x]), samples, np.random.default_rng(1))).mean())
                 for x in (0.0, 1.0)]
    return {"status": "reproduced" if r.is_violation else "fixed", "version": _version("opacus"),
            "claimed": claim, "delta": delta, "certified": r.epsilon_lower, "fine_bit_rates": rates,
            "detail": (f"_generate_noise(std={std:g}, secure_mode=True) added to a float32 summed gradient of 0 vs 1: "
                       f"the output has bits below 2^-24 in {rates[0]:.3f} vs {rates[1]:.3f} of {samples} releases; "
                       f"certified epsilon {r.epsilon_lower:.3g} against the Gaussian mechanism's {claim:.3g} at "
                       f"delta {delta:g} (seed 0)")}


# -- cases with versions (issue 37, section 3) -----------------------------------------------------------------------

def _quiet_opacus() -> Any:
    """A context that silences Opacus' warnings and its logger (secure-mode and deprecation notices)."""
    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    logger = logging.getLogger("opacus")
    level = logger.level
    logger.setLevel(logging.ERROR)
    stack.callback(logger.setLevel, level)
    return stack


def _opacus_813(records: int = 10_000, num_samples: int = 128, batch_size: int = 16) -> dict:
    """Opacus#813: with a ``WeightedRandomSampler`` in the ``DataLoader``, ``make_private`` (and
    ``make_private_with_epsilon``) set ``sample_rate = 1 / len(data_loader)``, the number of batches the *sampler*
    yields per epoch (``num_samples / batch_size``), not ``batch_size / len(dataset)``: with 10,000 records, a sampler
    drawing 128 per epoch and batches of 16, the accountant charges every step at rate 1/8 = 0.125 instead of
    16/10,000 = 0.0016 (78x), and the replaced Poisson loader silently drops the user's weights (#600). The
    accounting stays consistent with the Poisson loader Opacus substitutes, so the reported epsilon is not below
    what runs; what breaks is the documented relation between the user's loader and the sample rate (the budget of
    a planned run is spent 78x faster per step, with no warning).

    Neighbouring datasets: none (a deterministic invariant of ``make_private``). The check calls
    ``PrivacyEngine(accountant="rdp").make_private`` on the issue's setup (scaled to 10,000 records), takes one
    optimizer step and reads the sample rate the accountant recorded; "reproduced" when it differs from
    ``batch_size / len(dataset)`` by more than 1%. Source: opacus/privacy_engine.py ``make_private`` (1.6.0, lines
    ``sample_rate = 1 / len(data_loader)`` after ``_prepare_data_loader``)."""
    import torch
    from opacus import PrivacyEngine
    from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

    torch.manual_seed(0)
    dataset = TensorDataset(torch.zeros(records, 2), torch.zeros(records, 1))
    sampler = WeightedRandomSampler([1.0] * records, num_samples=num_samples, replacement=True)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    model = torch.nn.Linear(2, 1)
    with _quiet_opacus():
        engine = PrivacyEngine(accountant="rdp")
        model, optimizer, private_loader = engine.make_private(
            module=model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1), data_loader=loader,
            noise_multiplier=1.0, max_grad_norm=1.0)
        model(torch.zeros(2, 2)).sum().backward()
        optimizer.step()
    recorded = float(engine.accountant.history[-1][1])
    intended = batch_size / records
    sampler_kept = isinstance(getattr(private_loader, "sampler", None), WeightedRandomSampler) or isinstance(
        getattr(private_loader, "batch_sampler", None), WeightedRandomSampler)
    bad = abs(recorded - intended) > 0.01 * intended
    return {"status": "reproduced" if bad else "fixed", "version": _version("opacus"), "recorded_sample_rate": recorded,
            "intended_sample_rate": intended, "ratio": recorded / intended, "weights_kept": sampler_kept,
            "detail": (f"{records} records, WeightedRandomSampler(num_samples={num_samples}), batch_size {batch_size}: "
                       f"the accountant records sample rate {recorded:.4g} per step, batch_size / len(dataset) is "
                       f"{intended:.4g} ({recorded / intended:.3g}x); the private loader "
                       + ("keeps" if sampler_kept else "drops") + " the sampler's weights")}


def _opacus_819(dim: int = 256, noise_multiplier: float = 1.0, delta: float = 1e-5) -> dict:
    """Opacus#819 (extends #571): with ``loss_reduction="mean"`` (the default) Opacus divides the noisy clipped sum
    by ``expected_batch_size = int(len(dataset) * sample_rate)`` (the floor-based expected-averaged subsampled
    Gaussian, FEASGM), computed from the *private* dataset's size, while its accountant analyses the plain
    subsampled Gaussian. Add/remove neighbours of 12 and 11 records with batch_size 4 get the same sample rate 1/3
    but divisors 4 and 3, so the noise std of *every* coordinate is sigma C / 4 on one side and sigma C / 3 on the
    other; the two output laws separate more and more as the dimension grows (issue #819: the guarantee vanishes as
    the output dimension goes to infinity), whatever the records' gradients and whichever records are sampled.

    Neighbouring datasets: 12 vs 11 records, every record with feature 0 (zero per-sample gradient, so the release is
    the noise alone, and Poisson sampling does not matter), a model ``Linear(256, 1)`` without bias. The check runs
    ``make_private`` (RDP accountant, sigma 1, C 1) on both, reads each optimizer's ``expected_batch_size``, takes one
    step and measures the std of the released gradient (it must be sigma C / divisor within 10%: 256 coordinates
    give about 4.4% sampling error), then computes the pair's exact epsilon at delta 1e-5 (two centred Gaussians of
    different scales in 256 dimensions: :func:`dpverify.libraries.opacus.averaged_gaussian_epsilon`, the
    chi-square closed form) and compares it with Opacus' own epsilon for that step. "reproduced" when the exact
    epsilon exceeds the claim. Source: opacus/privacy_engine.py ``make_private`` (1.6.0: ``expected_batch_size =
    int(len(data_loader.dataset) * sample_rate)``), optimizers/optimizer.py ``scale_grad``."""
    import torch
    from opacus import PrivacyEngine
    from torch.utils.data import DataLoader, TensorDataset

    def run(records: int) -> tuple[float, float, float]:
        torch.manual_seed(0)
        loader = DataLoader(TensorDataset(torch.zeros(records, dim)), batch_size=4)
        model = torch.nn.Linear(dim, 1, bias=False)
        with _quiet_opacus():
            engine = PrivacyEngine(accountant="rdp")
            model, optimizer, _ = engine.make_private(
                module=model, optimizer=torch.optim.SGD(model.parameters(), lr=1.0), data_loader=loader,
                noise_multiplier=noise_multiplier, max_grad_norm=1.0, noise_generator=torch.Generator().manual_seed(1))
            model(torch.zeros(2, dim)).sum().backward()
            optimizer.step()
            grad = next(p for p in model.parameters()).grad
            claim = float(engine.accountant.get_epsilon(delta=delta))
        return float(optimizer.expected_batch_size), float(grad.std()), claim

    (b_big, std_big, claim), (b_small, std_small, _) = run(12), run(11)
    stds_match = all(abs(s * b / noise_multiplier - 1.0) < 0.10 for s, b in ((std_big, b_big), (std_small, b_small)))
    exact = lib.averaged_gaussian_epsilon(0.0, b_small / b_big, dim, 1, delta) if b_small != b_big else 0.0
    small_dim = lib.averaged_gaussian_epsilon(0.0, b_small / b_big, 16, 1, delta) if b_small != b_big else 0.0
    bad = stds_match and exact > claim
    return {"status": "reproduced" if bad else "fixed", "version": _version("opacus"), "claimed": claim,
            "delta": delta, "exact": exact, "exact_16_coordinates": small_dim, "divisors": [b_big, b_small],
            "noise_stds": [std_big, std_small],
            "detail": (f"12 vs 11 zero-gradient records, batch_size 4, sigma {noise_multiplier:g}, one step: divisors "
                       f"{b_big:g} vs {b_small:g}, released noise std {std_big:.3g} vs {std_small:.3g}; exact epsilon "
                       f"{exact:.3g} in {dim} coordinates ({small_dim:.3g} in 16) against Opacus' {claim:.3g} at delta "
                       f"{delta:g}")}


def _opacus_adaclip(noise_multiplier: float = 1.0, unclipped_num_std: float = 1.0, sample_rate: float = 0.1,
                    delta: float = 1e-5) -> dict:
    """Opacus PR #807 (fixed in 1.6.0): ``AdaClipDPOptimizer`` (``clipping="adaptive"``, since 1.2.0) overwrote
    ``self.noise_multiplier`` with the gradient-noise multiplier of Theorem 1 of Andrew et al. (arXiv:1905.03871),
    ``sigma_eff = (sigma^-2 - (2 sigma_u)^-2)^(-1/2)`` (1.155 for sigma = sigma_u = 1), and the accountant's step hook
    reads ``optimizer.noise_multiplier``: the accountant recorded sigma_eff, yet the theorem says the gradient noise
    sigma_eff *together with* the noisy unclipped count (std sigma_u) is as private as one Gaussian of multiplier
    sigma, the user's. Every epsilon was therefore computed for less privacy loss than the mechanism has.

    Neighbouring datasets: the accountant's add/remove pair of DP-SGD (one record's gradient clipped to C). The check
    builds ``AdaClipDPOptimizer`` (sigma 1, sigma_u 1) on a ``GradSampleModule(Linear(4, 1))``, attaches an
    ``RDPAccountant`` hook (sample rate 0.1), takes one step and compares the recorded noise multiplier and epsilon
    at delta 1e-5 with the RDP epsilon of sigma itself (Opacus' own accountant, one step); "reproduced" when the
    recorded epsilon is below it. Source: opacus/optimizers/adaclipoptimizer.py ``__init__`` (1.5.4: "Theorem 1"
    block), fixed by moving the adjustment into ``add_noise`` (PR #807)."""
    import torch
    from opacus import GradSampleModule
    from opacus.accountants import RDPAccountant
    from opacus.optimizers import AdaClipDPOptimizer

    torch.manual_seed(0)
    model = GradSampleModule(torch.nn.Linear(4, 1))
    with _quiet_opacus():
        optimizer = AdaClipDPOptimizer(
            torch.optim.SGD(model.parameters(), lr=0.1), noise_multiplier=noise_multiplier,
            target_unclipped_quantile=0.5, clipbound_learning_rate=0.2, max_clipbound=10.0, min_clipbound=0.1,
            unclipped_num_std=unclipped_num_std, max_grad_norm=1.0, expected_batch_size=4,
            generator=torch.Generator().manual_seed(1))
        accountant = RDPAccountant()
        optimizer.attach_step_hook(accountant.get_optimizer_hook_fn(sample_rate=sample_rate))
        model(torch.ones(4, 4)).sum().backward()
        optimizer.step()
        recorded_sigma = float(accountant.history[-1][0])
        recorded = float(accountant.get_epsilon(delta=delta))
        truth = RDPAccountant()
        truth.history = [(noise_multiplier, sample_rate, 1)]
        correct = float(truth.get_epsilon(delta=delta))
    bad = recorded < correct * (1 - 1e-9)
    return {"status": "reproduced" if bad else "fixed", "version": _version("opacus"),
            "recorded_noise_multiplier": recorded_sigma, "noise_multiplier": noise_multiplier, "claimed": recorded,
            "correct": correct, "delta": delta,
            "detail": (f"AdaClipDPOptimizer(sigma={noise_multiplier:g}, unclipped_num_std={unclipped_num_std:g}), one "
                       f"step at sample rate {sample_rate:g}: the accountant recorded noise multiplier "
                       f"{recorded_sigma:.4g} and reports epsilon {recorded:.4g}; the RDP epsilon of sigma "
                       f"{noise_multiplier:g} is {correct:.4g} at delta {delta:g}")}


def _opacus_601(noise_multiplier: float = 2.0, delta: float = 1e-3, steps: int = 5000,
                sample_rate: float = 0.19120458891013384) -> dict:
    """Opacus#601 (and #604; PR #606, fixed in 1.4.1): the PRV accountant (ported from microsoft/prv_accountant)
    integrates the privacy random variable's mean on a fixed grid ``[t_min, -0.1, ..., -1e-5, 1e-5, ..., 0.1,
    t_max]``; when ``[t_min, t_max]`` is wide (large epsilons: sample rate 0.19 over 5000 steps, as in the issue) the
    quadrature is wrong, the discretised mean disagrees with it and the accountant raises "Discrete mean differs
    significantly from continuous mean": ``get_epsilon``, ``make_private_with_epsilon`` and ``get_noise_multiplier``
    with ``accountant="prv"`` cannot answer for such a run at all (an accountant that cannot answer gives no
    guarantee; it fails for every noise multiplier from 0.6 to 2 here).

    Neighbouring datasets: the accountant's add/remove pair (no data). The check runs the issue's parameters (sample
    rate 0.1912, 5000 steps, delta 1e-3) at noise multiplier 2: ``PRVAccountant`` with that history, then
    ``get_epsilon(1e-3)``; "reproduced" when it raises or returns a non-finite or negative epsilon, or one above
    Opacus' RDP epsilon for the same history (an upper bound the PRV estimate may only tighten, with 1% slack).
    Source: opacus/accountants/analysis/prv/prvs.py ``TruncatedPrivacyRandomVariable.mean`` (1.4.0)."""
    from opacus.accountants import PRVAccountant, RDPAccountant

    history = [(noise_multiplier, sample_rate, steps)]
    with _quiet_opacus():
        rdp = RDPAccountant()
        rdp.history = list(history)
        rdp_eps = float(rdp.get_epsilon(delta=delta))
        prv = PRVAccountant()
        prv.history = list(history)
        try:
            eps: float | str = float(prv.get_epsilon(delta=delta))
        except Exception as exc:  # noqa: BLE001 - the failure is the defect
            eps = f"{type(exc).__name__}: {str(exc)[:80]}"
    bad = not (isinstance(eps, float) and math.isfinite(eps) and 0 <= eps <= rdp_eps * 1.01)
    shown = eps if isinstance(eps, str) else f"{eps:.4g}"
    return {"status": "reproduced" if bad else "fixed", "version": _version("opacus"),
            "noise_multiplier": noise_multiplier, "rdp_epsilon": rdp_eps, "prv_epsilon": eps, "delta": delta,
            "detail": (f"noise multiplier {noise_multiplier:g}, sample rate {sample_rate:.4g}, {steps} steps, delta "
                       f"{delta:g}: PRVAccountant.get_epsilon -> {shown} (RDP epsilon {rdp_eps:.4g})")}


def _opacus_346(target_epsilon: float = 8.0, delta: float = 1e-5, sample_rate: float = 0.04, epochs: int = 10) -> dict:
    """Opacus#346 (PR #348, released in 1.1.0): ``get_noise_multiplier`` (what ``make_private_with_epsilon`` calls)
    bisected sigma until ``sigma_max - sigma_min <= 0.01`` and returned the *last midpoint* tried, whether or not its
    epsilon was below the target: the returned sigma lies anywhere in ``sigma_opt +- 0.005``, so about half the time
    the run's epsilon, by Opacus' own RDP accountant, exceeds the ``target_epsilon`` the user asked for (the docstring
    promised "the noise level sigma to ensure privacy budget of (target_epsilon, target_delta)"). PR #348 made the
    search conservative (it returns ``sigma_high``, whose epsilon is below the target by at most
    ``epsilon_tolerance``).

    Neighbouring datasets: the accountant's add/remove pair of DP-SGD (Poisson-subsampled Gaussian, sensitivity C);
    no data. The check asks ``opacus.accountants.utils.get_noise_multiplier`` for target epsilon 8 at delta 1e-5,
    sample rate 0.04, 10 epochs (250 steps; the setting of Opacus' own test), then measures the epsilon of 250
    subsampled-Gaussian steps at the returned sigma with dpverify's RDP accountant
    (:func:`dpverify.calculus.accounting.epsilon_sampled_gaussian`: exact RDP, the Balle et al. 2020 conversion
    Opacus uses) and with Opacus' own ``RDPAccountant``; "reproduced" when dpverify's RDP epsilon exceeds the target.
    The rigorous PLD bracket (:func:`dpverify.libraries.accountants.reference_bracket`) is reported too: 1.0.2's
    sigma 0.7811 gives RDP epsilon 8.23 > 8, while the PLD epsilon is 7.24, so what breaks is the guarantee Opacus
    states and certifies with its accountant, not (here) the mechanism's optimal epsilon. Source:
    opacus/accountants/utils.py ``get_noise_multiplier`` (1.0.2: ``while sigma_max - sigma_min > SIGMA_PRECISION``
    ... ``return sigma``)."""
    from opacus.accountants import RDPAccountant
    from opacus.accountants.utils import get_noise_multiplier

    steps = int(epochs / sample_rate)
    with _quiet_opacus():
        sigma = float(get_noise_multiplier(target_epsilon=target_epsilon, target_delta=delta,
                                           sample_rate=sample_rate, epochs=epochs))
        acc = RDPAccountant()
        record = [(sigma, sample_rate, steps)]
        if hasattr(acc, "history"):  # 1.1 on; 1.0.x kept ``steps``
            acc.history = record
        else:
            acc.steps = record
        opacus_eps = float(acc.get_epsilon(delta=delta))
    rdp_eps = float(epsilon_sampled_gaussian(sigma, sample_rate, steps, delta).epsilon)
    low, high, _ = reference_bracket(Reference(((("poisson_gaussian", sigma, sample_rate), steps),)), delta)
    bad = rdp_eps > target_epsilon * (1 + 1e-9)
    return {"status": "reproduced" if bad else "fixed", "version": _version("opacus"), "noise_multiplier": sigma,
            "target_epsilon": target_epsilon, "rdp_epsilon": rdp_eps, "opacus_epsilon": opacus_eps,
            "pld_epsilon": [low, high], "delta": delta, "steps": steps,
            "detail": (f"get_noise_multiplier(target_epsilon={target_epsilon:g}, delta={delta:g}, sample_rate="
                       f"{sample_rate:g}, epochs={epochs}) -> sigma {sigma:.6g}: RDP epsilon {rdp_eps:.4g} (dpverify; "
                       f"Opacus' accountant {opacus_eps:.4g}) against the target {target_epsilon:g}; PLD epsilon "
                       f"{high:.4g}")}


def _opacus_751(tokens: int = 8, scale: float = 0.05, max_grad_norm: float = 0.25, noise_multiplier: float = 1.0,
                delta: float = 1e-5) -> dict:
    """Opacus PR #751 (released in 1.5.4): ghost clipping (``GradSampleModuleFastGradientClipping``, since 1.5)
    computed the per-sample norm of a ``Linear`` layer's bias gradient on 3-d inputs (records of T tokens) as
    ``sqrt(vec(G)^T vec(G))`` with ``G = g g^T`` (``g``: the record's T x k output gradients), i.e. the Frobenius norm
    of ``g g^T``, instead of ``sqrt(vec(G)^T vec(1)) = ||sum_t g_t||``, the norm of the bias gradient. When the output
    gradients are small the computed norm is far below the true one (here 0.04 against 0.57), the clipping factor
    ``min(1, C / norm)`` stays 1, and a record's gradient enters the noisy sum with norm above ``max_grad_norm`` C:
    the sensitivity the noise ``sigma C`` was calibrated for is exceeded.

    Neighbouring datasets: add/remove one record (8 tokens of 3 features, loss ``0.05 * sum`` of a
    ``Linear(3, 2)``'s outputs, so every output gradient is 0.05) from a batch; the noisy clipped sum moves by that
    record's clipped gradient. The check runs ``GradSampleModuleFastGradientClipping(max_grad_norm=0.25,
    use_ghost_clipping=True)`` on a batch of two such records, reads ``get_norm_sample()`` (the ghost norms), forms
    the clipping factors from them and multiplies each by the record's exact gradient norm (autograd on a plain copy
    of the layer); "reproduced" when a clipped norm exceeds C by more than 0.1%. It also reports the exact epsilon of
    the Gaussian mechanism at the sensitivity that results (mu = norm / (sigma C), sigma 1) against the one claimed
    (mu = 1 / sigma), at delta 1e-5 (:func:`gaussian_epsilon`). Source: opacus/grad_sample/linear.py
    ``compute_linear_norm_sample`` (1.5.3, the ``backprops.dim() == 3`` bias branch)."""

    import torch
    from opacus.grad_sample.grad_sample_module_fast_gradient_clipping import (
        GradSampleModuleFastGradientClipping,
    )

    torch.manual_seed(0)
    layer = torch.nn.Linear(3, 2)
    plain = copy.deepcopy(layer)
    x = 0.1 * torch.randn(2, tokens, 3)
    with _quiet_opacus():
        gsm = GradSampleModuleFastGradientClipping(torch.nn.Sequential(layer), batch_first=True, loss_reduction="sum",
                                                   max_grad_norm=max_grad_norm, use_ghost_clipping=True)
        out = gsm(x)
        (scale * out.sum()).backward()
        ghost = [float(v) for v in gsm.get_norm_sample().detach()]
    exact = []
    for i in range(x.shape[0]):
        grads = torch.autograd.grad(scale * plain(x[i]).sum(), [plain.weight, plain.bias])
        exact.append(float(torch.cat([g.flatten() for g in grads]).norm()))
    clipped = [min(1.0, max_grad_norm / (g + 1e-6)) * e for g, e in zip(ghost, exact)]
    ratio = max(clipped) / max_grad_norm
    claimed = gaussian_epsilon(delta, 1.0 / noise_multiplier)
    actual = gaussian_epsilon(delta, max(ratio, 1.0) / noise_multiplier)
    bad = ratio > 1.001
    return {"status": "reproduced" if bad else "fixed", "version": _version("opacus"), "ghost_norms": ghost,
            "exact_norms": exact, "clipped_norms": clipped, "max_grad_norm": max_grad_norm, "claimed": claimed,
            "exact": actual, "delta": delta,
            "detail": (f"ghost clipping, Linear(3, 2) on records of {tokens} tokens, C {max_grad_norm:g}: ghost norms "
                       + ", ".join(f"{g:.3g}" for g in ghost) + " vs exact " + ", ".join(f"{e:.3g}" for e in exact)
                       + f"; a clipped gradient reaches {max(clipped):.3g} ({ratio:.3g} C): epsilon {actual:.3g} "
                       f"instead of {claimed:.3g} at sigma {noise_multiplier:g}, delta {delta:g}")}


CASES: tuple[CorpusCase, ...] = (
    CorpusCase("opacus#571", "opacus",
               "loss_reduction='mean' divides by an expected batch size computed from the private dataset's size",
               ("https://github.com/meta-pytorch/opacus/issues/571",
                "https://github.com/meta-pytorch/opacus/issues/819"),
               "issues open: no fixed version to install", "library", _opacus_571,
               affected=">=1.0", fixed_in=None, method="statistical",
               datasets="4 vs 3 null records plus a canary (full batches, loss_reduction='mean'): divisors 4 vs 3",
               releases=("1.4.1", "1.6.0")),
    CorpusCase("opacus#585", "opacus", "RDP/PRV accountants return a negative epsilon, GDP fails, at large delta",
               ("https://github.com/meta-pytorch/opacus/pull/844", "https://github.com/meta-pytorch/opacus/issues/585"),
               "fix PR #844 open (unreleased): no fixed version to install", "library", _opacus_negative_epsilon,
               affected=">=1.3", fixed_in=None, method="exact",
               datasets="none: the accountants' answer for noise 50, sample rate 0.01, one step, at delta 0.5",
               releases=("1.4.1", "1.6.0")),
    CorpusCase("opacus-pr829", "opacus", "len(accountant) counts distinct settings, not steps",
               ("https://github.com/meta-pytorch/opacus/pull/829",),
               "PR #829 closed after Opacus 1.6.0: no fixed release here", "library", _opacus_len,
               affected=">=1.0", fixed_in=None, method="exact",
               datasets="none: len(RDPAccountant) after 5 steps of one setting", releases=("1.4.1", "1.6.0")),
    CorpusCase("opacus#616", "opacus",
               "secure_mode noise is still floating-point: the release's low-order bits reveal the gradient",
               ("https://github.com/meta-pytorch/opacus/issues/616",),
               "issue closed; Opacus still adds float32 noise in _generate_noise: no fixed version to install",
               "library", _opacus_616, affected=">=1.0", fixed_in=None, method="statistical",
               datasets="a float32 summed gradient of 0 (D) vs 1 (D': one record at max_grad_norm 1 added)",
               releases=("1.4.1", "1.6.0")),
    CorpusCase("opacus#813", "opacus",
               "WeightedRandomSampler: make_private takes the sample rate from len(sampler), not batch_size / N",
               ("https://github.com/meta-pytorch/opacus/issues/813", "https://github.com/meta-pytorch/opacus/pull/814",
                "https://github.com/meta-pytorch/opacus/issues/600"),
               "issue open; fix PR #814 open, PRs #815 and #816 closed unmerged: no fixed version to install",
               "library", _opacus_813, affected=">=1.0", fixed_in=None, method="exact",
               datasets="none: the sample rate make_private records for 10,000 records, WeightedRandomSampler(128), "
                        "batch_size 16", releases=("1.2.0", "1.6.0")),
    CorpusCase("opacus#819", "opacus",
               "floor-based expected batch size (FEASGM) accounted as the SGM: the leak grows with the dimension",
               ("https://github.com/meta-pytorch/opacus/issues/819", "https://github.com/meta-pytorch/opacus/pull/838",
                "https://github.com/meta-pytorch/opacus/issues/571"),
               "issue open; fix PR #838 open (unreleased): no fixed version to install", "library", _opacus_819,
               affected=">=1.0", fixed_in=None, method="exact",
               datasets="12 vs 11 records with zero gradients, batch_size 4 (sample rate 1/3 on both, divisors 4 vs 3)",
               releases=("1.2.0", "1.6.0")),
    CorpusCase("opacus-pr807", "opacus",
               "AdaClipDPOptimizer: the accountant records the adjusted gradient-noise multiplier, not the user's",
               ("https://github.com/meta-pytorch/opacus/pull/807",),
               "fixed by PR #807 (merged 2026-03-06), released in 1.6.0", "library", _opacus_adaclip,
               affected=">=1.2,<1.6.0", fixed_in="1.6.0", method="exact",
               datasets="the accountant's add/remove pair (one record clipped to C); no data",
               releases=("1.5.4", "1.6.0")),
    CorpusCase("opacus#601", "opacus",
               "PRV accountant fails ('Discrete mean differs') for wide privacy-loss ranges (large epsilons)",
               ("https://github.com/meta-pytorch/opacus/pull/606",
                "https://github.com/microsoft/prv_accountant/pull/38",
                "https://github.com/microsoft/prv_accountant/issues/36"),
               "fixed by PR #606 (merged 2023-11-28), released in 1.4.1", "library", _opacus_601,
               affected=">=1.3,<1.4.1", fixed_in="1.4.1", method="exact",
               datasets="none: the PRV accountant's answer for noise 2, sample rate 0.1912, 5000 steps, delta 1e-3",
               releases=("1.4.0", "1.4.1")),
    CorpusCase("opacus#346", "opacus",
               "get_noise_multiplier's bisection returns a sigma whose epsilon exceeds target_epsilon",
               ("https://github.com/meta-pytorch/opacus/issues/346", "https://github.com/meta-pytorch/opacus/pull/348"),
               "fixed by PR #348 ('Conservative search for target epsilon in get_noise_multiplier'), released in "
               "1.1.0 (CHANGELOG v1.1.0)", "library", _opacus_346,
               affected=">=1.0,<1.1.0", fixed_in="1.1.0", method="exact",
               datasets="the accountant's add/remove pair (DP-SGD, sensitivity C); no data: sigma for epsilon 8, "
                        "delta 1e-5, sample rate 0.04, 10 epochs", releases=("1.0.2", "1.1.0")),
    CorpusCase("opacus-pr751", "opacus",
               "ghost clipping under-estimates a Linear bias's per-sample norm on 3-d inputs: gradients exceed C",
               ("https://github.com/meta-pytorch/opacus/pull/751",),
               "fixed by PR #751 (2025-04-09), released in 1.5.4 (CHANGELOG v1.5.4: 'Fix the norm calculation of "
               "bias under ghost clipping')", "library", _opacus_751,
               affected=">=1.5,<1.5.4", fixed_in="1.5.4", method="exact",
               datasets="add/remove one record of 8 tokens (Linear(3, 2), every output gradient 0.05) from a batch: "
                        "the clipped sum moves by its clipped gradient", releases=("1.5.3", "1.5.4")),
)

"""Opacus (PyTorch DP-SGD) audited through its public API and compared with its own accountant.

**What runs.** ``PrivacyEngine().make_private(module=, optimizer=, data_loader=, noise_multiplier=,
max_grad_norm=, loss_reduction=, poisson_sampling=True, noise_generator=)`` on a linear model
``f_w(x) = <w, x>`` with the linear loss ``l(w; x, y) = -y <w, x>`` (per-record gradient ``-y x``, the same at every
``w``), trained by plain SGD for ``steps`` steps; every iterate ``w_1 .. w_T`` is released (the path). Opacus does
everything privacy-relevant: per-sample gradients (its ``nn.Linear`` grad sampler), flat clipping
(``min(1, C / (||g|| + 1e-6))``), Gaussian noise ``N(0, (sigma C)^2)`` on the clipped sum, the division by its
``expected_batch_size`` when ``loss_reduction="mean"``, Poisson batches (``DPDataLoader``: each record enters a
step with probability ``sample_rate = 1 / len(data_loader)``), and the accountant (default ``"prv"``).

**Vectorisation** (the auditor asks for ``n`` independent releases). One ``nn.Linear(n d, 1)`` holds ``n``
independent copies of the model; copy ``k`` sees the ``M`` records with their features placed in block ``k`` of
an ``n d``-vector, so a record's per-sample gradient is zero outside its copy's block. Opacus' flat clipping norm
of a record is then the norm within its copy, its noise is independent per coordinate, and its Poisson sampler
draws each of the ``n M`` records independently with the same rate ``1 / ceil(M / B)``: copy ``k`` runs exactly
the single-model DP-SGD of ``M`` records. One number differs and is set from the single-model run: Opacus'
``expected_batch_size = int(len(dataset) * sample_rate)`` would be computed from ``n M`` records, so the batched
optimizer's ``expected_batch_size`` is replaced by the value Opacus computes for the ``M``-record dataset itself
(read from a real single-model ``make_private``; :func:`opacus_parameters`). Memory and time per step grow as
``n^2 M d`` (the per-sample gradients are dense in all copies' blocks), so releases are drawn in chunks.

**The claim** (:meth:`OpacusRun.claim`): a real single-model run on the dataset (the same ``make_private`` call
and ``steps`` optimizer steps), then ``privacy_engine.accountant.get_epsilon(delta)``.

**Pairs** (add/remove, :func:`canary_pair`): a dataset of ordinary records whose features use coordinates
``1 .. d-1``, with and without a gradient canary ``(R e_0, -1)`` (gradient ``R e_0``, clipped to about ``C e_0``;
Jagielski, Ullman, Oprea 2020; Nasr et al. 2021, 2023; :mod:`dpverify.models.canary`). The other records cannot
cancel it (their gradients have no ``e_0`` component) and the output's other coordinates have the same law on
both sides, so with the same normaliser on both sides the pair's privacy loss is exactly that of the subsampled
Gaussian description ``GaussianStep(c, sigma C, PoissonSampling(q))`` x ``T`` with ``c`` the canary's clipped norm
(the description's PLD, :class:`~dpverify.calculus.mechanism_description.MechanismDescription`).

**Dividing by the expected batch size** (Wang et al. 2026, "Rethinking the security of DP-SGD: a corrected
analysis of differentially private machine learning", arXiv:2605.15648, the expected-averaged subsampled Gaussian
mechanism; meta-pytorch/opacus issues #571 and #819). Opacus' ``loss_reduction="mean"`` (its default) divides the
noisy sum by ``int(len(dataset) * sample_rate)``, computed from the *private* dataset's size. Under replace-one
adjacency that number is public; under add/remove (the relation Opacus' accountant assumes) the two neighbours can
get different divisors, and the noise scale of every one of the ``d`` coordinates then reveals which dataset was
used -- more clearly as ``d`` grows. :func:`averaged_gaussian_epsilon` computes the exact epsilon of such a pair
for full-batch steps with null other records (the ``mean_full_batch_divisor_differs`` entry; the
``mean_poisson_divisor_differs`` entry is the same leak with Poisson batches, certified only).
"""
from __future__ import annotations

import contextlib
import math
import os
import sys
import time
import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

import numpy as np
from scipy import integrate, optimize, stats

from dpverify.audit import audit
from dpverify.calculus.guarantees import ApproxDP
from dpverify.calculus.mechanism_description import (
    FullBatch,
    GaussianStep,
    MechanismDescription,
    PairPrivacyLoss,
    PoissonSampling,
    Repeated,
)
from dpverify.calculus.vocabulary import Release
from dpverify.libraries.ledger import Ledger, LedgerEntry, library_site
from dpverify.libraries.search import array_code
from dpverify.validation import check_delta, check_positive_int, check_real
from dpverify.libraries.base import Claimed, LabelledPair, LibraryFunction

__all__ = [
    "INSTALL_HINT", "DEFAULT_DELTA", "DPSGDConfig", "OpacusRun", "canary_pair", "catalogue", "version",
    "opacus_parameters", "averaged_gaussian_epsilon", "averaged_gaussian_delta", "measure", "snippet_for",
    "scaled_noise", "torch_and_opacus",
]

INSTALL_HINT = "pip install 'dpverify[opacus]'"
#: delta at which every Opacus claim of the catalogue is read.
DEFAULT_DELTA = 1e-5
#: the canary's feature norm R (its gradient R e_0 is clipped to about C e_0).
CANARY_NORM = 10.0
#: floats of per-sample gradient allowed per chunk of releases (n^2 M d of them per step), and the most copies per
#: chunk (beyond about 256 the quadratic cost outweighs the per-call overhead of Opacus)
CHUNK_FLOATS = 1 << 22
MAX_CHUNK = 256
#: Opacus' clipping factor is min(1, C / (||g|| + 1e-6)) (opacus/optimizers/optimizer.py, clip_and_accumulate).
OPACUS_CLIP_EPS = 1e-6
LOSS_REDUCTIONS = ("sum", "mean")
#: A white-box statistic: ``(dataset, neighbour) -> (outputs -> log p_D - log p_D')`` (the auditor's
#: ``HasWhiteBoxStatistic``).
WhiteBoxStatistic = Callable[[Any, Any], Callable[[np.ndarray], np.ndarray]]


def torch_and_opacus(purpose: str = "the Opacus audits") -> tuple:
    """The modules torch and opacus, or an ImportError naming ``purpose`` with the install hint."""
    try:
        import opacus
        import torch
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(f"{purpose} cannot run without torch and opacus: {INSTALL_HINT} ({exc})") from exc
    return torch, opacus


def version() -> str:
    """The installed Opacus version (ImportError with the install hint when missing)."""
    _, opacus = torch_and_opacus()
    return str(opacus.__version__)


@dataclass(frozen=True)
class DPSGDConfig:
    """One DP-SGD configuration, as passed to Opacus: ``noise_multiplier`` (sigma), ``max_grad_norm`` (C), the data
    loader's ``batch_size`` B (Opacus derives ``sample_rate = 1 / ceil(M / B)``), ``steps`` T, ``loss_reduction``
    ("sum": the noisy sum is the gradient; "mean": divided by Opacus' ``expected_batch_size``), the learning rate
    ``lr`` of ``torch.optim.SGD`` and the ``accountant`` of ``PrivacyEngine`` ("prv", Opacus' default, or "rdp")."""

    noise_multiplier: float
    max_grad_norm: float = 1.0
    batch_size: int = 1
    steps: int = 1
    loss_reduction: str = "sum"
    lr: float = 1.0
    accountant: str = "prv"

    def __post_init__(self) -> None:
        object.__setattr__(self, "noise_multiplier", check_real("noise_multiplier", self.noise_multiplier, low=0.0))
        object.__setattr__(self, "max_grad_norm", check_real("max_grad_norm", self.max_grad_norm, low=0.0,
                                                             low_inclusive=False))
        object.__setattr__(self, "batch_size", check_positive_int(self.batch_size, "batch_size"))
        object.__setattr__(self, "steps", check_positive_int(self.steps, "steps"))
        object.__setattr__(self, "lr", check_real("lr", self.lr, low=0.0, low_inclusive=False))
        if self.loss_reduction not in LOSS_REDUCTIONS:
            raise ValueError(f"loss_reduction must be one of {LOSS_REDUCTIONS}; got {self.loss_reduction!r}")
        if self.accountant not in ("prv", "rdp"):
            raise ValueError(f"accountant must be 'prv' or 'rdp'; got {self.accountant!r}")

    def describe(self) -> str:
        return (f"make_private(noise_multiplier={self.noise_multiplier:g}, max_grad_norm={self.max_grad_norm:g}, "
                f"loss_reduction='{self.loss_reduction}', poisson_sampling=True), batch_size={self.batch_size}, "
                f"{self.steps} step{'s' if self.steps > 1 else ''}")


# -- data ----------------------------------------------------------------------------------------------------------
def _records(data: Any) -> np.ndarray:
    """A dataset as an ``(M, d + 1)`` float array: features, then the label in the last column."""
    arr = np.asarray(data, dtype=float)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 2:
        raise ValueError(f"dataset must be an (M, d + 1) array of records (features, label) with M >= 1, d >= 1; "
                         f"got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("dataset must hold finite numbers only")
    return arr


def canary_pair(others: int, dim: int, *, null: bool = False, seed: int = 0,
                canary_norm: float = CANARY_NORM) -> tuple[np.ndarray, np.ndarray]:
    """``(dataset + canary, dataset)``: an add/remove pair of records ``(x, y)`` with ``x`` in R^dim.

    The ``others`` ordinary records have standard normal features in coordinates ``1 .. dim-1`` (none in
    coordinate 0) and labels +-1 (seeded by ``seed``); with ``null=True`` they are null records (zero features:
    zero gradient, :func:`dpverify.models.canary.canary_pair`). The canary ``(canary_norm e_0, -1)`` comes first;
    its gradient ``canary_norm e_0`` is clipped by Opacus to ``c = C canary_norm / (canary_norm + 1e-6)``.
    """
    others = check_positive_int(others, "others")
    dim = check_positive_int(dim, "dim", minimum=1 if null else 2)
    canary_norm = check_real("canary_norm", canary_norm, low=0.0, low_inclusive=False)
    rng = np.random.default_rng(seed)
    base = np.zeros((others, dim + 1))
    if not null:
        base[:, 1:dim] = rng.standard_normal((others, dim - 1))
        base[:, dim] = rng.choice([-1.0, 1.0], size=others)
    canary = np.zeros((1, dim + 1))
    canary[0, 0] = canary_norm
    canary[0, dim] = -1.0
    return np.vstack([canary, base]), base


# -- Opacus calls --------------------------------------------------------------------------------------------------
@contextlib.contextmanager
def _quiet():
    """Opacus' advisory warnings (secure RNG off, full backward hooks...) are not findings of the audit."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        warnings.filterwarnings("ignore", category=FutureWarning)
        # the PRV accountant takes log(1 - q) = log(0) at q = 1 (opacus/accountants/analysis/prv/prvs.py); harmless
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"opacus\.")
        yield


def _make_private(config: DPSGDConfig, features, labels, loader_batch: int, n_params: int, seeds: tuple[int, int]):
    """``PrivacyEngine().make_private`` on ``nn.Linear(n_params, 1)`` at zero and a DataLoader over
    (features, labels); returns (engine, model, optimizer, loader)."""
    torch, opacus = torch_and_opacus()
    from torch.utils.data import DataLoader, TensorDataset

    model = torch.nn.Linear(n_params, 1, bias=False, dtype=torch.float64)
    with torch.no_grad():
        model.weight.zero_()
    optimizer = torch.optim.SGD(model.parameters(), lr=config.lr)
    g_data = torch.Generator().manual_seed(seeds[0])
    g_noise = torch.Generator().manual_seed(seeds[1])
    dataset = TensorDataset(features, labels)
    loader = DataLoader(dataset, batch_size=loader_batch, generator=g_data)
    engine = opacus.PrivacyEngine(accountant=config.accountant)
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=config.noise_multiplier,
        max_grad_norm=config.max_grad_norm, loss_reduction=config.loss_reduction, poisson_sampling=True,
        noise_generator=g_noise)
    return engine, model, optimizer, loader


def _train(model, optimizer, loader, config: DPSGDConfig) -> np.ndarray:
    """``config.steps`` DP-SGD steps (the Opacus training loop); the iterates, ``(steps, n_params)``."""
    torch, _ = torch_and_opacus()
    path: list[np.ndarray] = []
    while len(path) < config.steps:
        for xb, yb in loader:
            optimizer.zero_grad()
            out = model(xb).squeeze(-1)
            losses = -yb * out
            loss = losses.sum() if config.loss_reduction == "sum" else losses.mean()
            loss.backward()
            optimizer.step()
            path.append(model._module.weight.detach().reshape(-1).clone().numpy())
            if len(path) == config.steps:
                break
    return np.stack(path)


@dataclass(frozen=True)
class OpacusParameters:
    """What Opacus derives from a dataset of ``records`` records and a configuration (read from a real
    single-model ``make_private``): ``sample_rate`` and ``expected_batch_size``."""

    records: int
    sample_rate: float
    expected_batch_size: int


def opacus_parameters(records: int, config: DPSGDConfig) -> OpacusParameters:
    """Opacus' ``sample_rate`` and ``expected_batch_size`` for a ``records``-record dataset (a real
    ``make_private`` on a model of one parameter; Opacus 1.x privacy_engine.py: ``sample_rate = 1 /
    len(data_loader)``, ``expected_batch_size = int(len(dataset) * sample_rate)``)."""
    return _opacus_parameters(check_positive_int(records, "records"), config)


@lru_cache(maxsize=256)
def _opacus_parameters(records: int, config: DPSGDConfig) -> OpacusParameters:
    torch, _ = torch_and_opacus()
    with _quiet():
        _, _, optimizer, loader = _make_private(config, torch.zeros(records, 1, dtype=torch.float64),
                                                torch.zeros(records, dtype=torch.float64), config.batch_size, 1,
                                                (0, 0))
    return OpacusParameters(records, float(loader.batch_sampler.sample_rate), int(optimizer.expected_batch_size))


class OpacusRun:
    """Opacus DP-SGD as a mechanism of the auditor's protocol (:mod:`dpverify.audit.core`).

    ``run(dataset, n, rng) -> (n, steps, d)``: the released iterates of ``n`` independent trainings (module
    docstring); ``claim(dataset)``: Opacus' accountant for the same run; ``account(delta)``: dpverify's PLD
    accountant of the description ``steps x GaussianStep(C, sigma C, PoissonSampling(q))`` (add/remove, path);
    ``pair_privacy_loss`` / ``exact_epsilon``: the canary pair's own PLD (the description with sensitivity ``c``)
    when both sides get the same divisor, else for full-batch null pairs the closed form of
    :func:`averaged_gaussian_epsilon`; ``log_likelihood_ratio(dataset, neighbour)``: the white-box privacy loss of
    the path on the canary coordinate under the description (the Neyman-Pearson statistic of the pair when
    Opacus does what its accountant assumes).
    """

    def __init__(self, config: DPSGDConfig, *, whitebox: bool = True, delta: float = DEFAULT_DELTA):
        self.config = config
        self.delta = check_delta(delta, allow_zero=False)
        self.whitebox = whitebox

    # -- the mechanism -------------------------------------------------------------------------------------------
    def __call__(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        records = _records(dataset)
        n = check_positive_int(n, "n")
        M, d = records.shape[0], records.shape[1] - 1
        params = opacus_parameters(M, self.config)
        chunk = max(1, min(n, MAX_CHUNK, int(math.sqrt(CHUNK_FLOATS / (M * d)))))
        out = np.empty((n, self.config.steps, d))
        for start in range(0, n, chunk):
            k = min(chunk, n - start)
            data_seed, noise_seed = rng.integers(0, 2**62, size=2)
            seeds = (int(data_seed), int(noise_seed))
            out[start:start + k] = self._chunk(records, k, seeds, params)
        return out

    def _chunk(self, records: np.ndarray, k: int, seeds: tuple[int, int], params: OpacusParameters) -> np.ndarray:
        torch, _ = torch_and_opacus()
        M, d = records.shape[0], records.shape[1] - 1
        features = torch.zeros(k * M, k * d, dtype=torch.float64)
        x = torch.as_tensor(records[:, :d])
        for j in range(k):  # copy j's records in block j (k small: at most sqrt(CHUNK_FLOATS / (M d)))
            features[j * M:(j + 1) * M, j * d:(j + 1) * d] = x
        labels = torch.as_tensor(records[:, d]).repeat(k)
        with _quiet():
            _, model, optimizer, loader = _make_private(self.config, features, labels, k * self.config.batch_size,
                                                        k * d, seeds)
            if loader.batch_sampler.sample_rate != params.sample_rate:  # pragma: no cover - guards the emulation
                raise RuntimeError("batched Opacus run has a different sample rate than the single-model run")
            optimizer.expected_batch_size = params.expected_batch_size
            path = _train(model, optimizer, loader, self.config)
        return path.reshape(self.config.steps, k, d).transpose(1, 0, 2)

    # -- claims and accountants ----------------------------------------------------------------------------------
    def claim(self, dataset) -> Claimed:
        """Opacus' own epsilon at ``self.delta`` (default :data:`DEFAULT_DELTA`) for one real single-model run on
        ``dataset`` (the same call and number of optimizer steps): ``privacy_engine.accountant.get_epsilon(delta)``."""
        torch, _ = torch_and_opacus()
        records = _records(dataset)
        d = records.shape[1] - 1
        with _quiet():
            engine, model, optimizer, loader = _make_private(
                self.config, torch.as_tensor(records[:, :d]), torch.as_tensor(records[:, d]), self.config.batch_size,
                d, (0, 1))
            _train(model, optimizer, loader, self.config)
            eps = float(engine.accountant.get_epsilon(delta=self.delta))
        return Claimed(eps, self.delta, f"opacus {type(engine.accountant).__name__}.get_epsilon")

    def _sampling(self, records: int):
        q = opacus_parameters(records, self.config).sample_rate
        return FullBatch() if q >= 1.0 else PoissonSampling(q)

    def description(self, records: int, sensitivity: float | None = None):
        """The run as dpverify describes it: ``steps`` Gaussian steps of noise ``sigma C`` on a sum of
        sensitivity ``sensitivity`` (default C), Poisson rate Opacus' ``sample_rate`` for ``records`` records."""
        c = self.config
        sens = c.max_grad_norm if sensitivity is None else sensitivity
        step = GaussianStep(sens, c.noise_multiplier * c.max_grad_norm, self._sampling(records))
        return MechanismDescription((Repeated(step, c.steps),), "add_remove", Release.PATH,
                                    source="Abadi et al. 2016, Alg. 1 (Opacus make_private, loss_reduction="
                                           f"'{c.loss_reduction}')")

    def account_records(self, records: int, delta: float):
        """dpverify's PLD accountant (:meth:`MechanismDescription.account`) of the run on ``records`` records."""
        return self.description(records).account(delta)

    def _pair(self, dataset, neighbour):
        """(with canary, without, clipped canary norm c) or None when the pair is not a canary pair."""
        a, b = _records(dataset), _records(neighbour)
        if abs(a.shape[0] - b.shape[0]) != 1 or a.shape[1] != b.shape[1]:
            return None
        big, small = (a, b) if a.shape[0] > b.shape[0] else (b, a)
        if not np.array_equal(big[1:], small) or np.any(small[:, 0] != 0) or np.any(big[0, 1:-1] != 0):
            return None
        R = abs(big[0, 0])
        C = self.config.max_grad_norm
        c = R * min(1.0, C / (R + OPACUS_CLIP_EPS))
        return big, small, c

    def _divisors(self, big: np.ndarray, small: np.ndarray) -> tuple[float, float]:
        if self.config.loss_reduction == "sum":
            return 1.0, 1.0
        return (float(opacus_parameters(big.shape[0], self.config).expected_batch_size),
                float(opacus_parameters(small.shape[0], self.config).expected_batch_size))

    def pair_privacy_loss(self, dataset, neighbour):
        """The canary pair's privacy loss (:class:`~dpverify.calculus.mechanism_description.PairPrivacyLoss`, exact for the
        path) when both sides get the same divisor and sample rate; None otherwise (not a canary pair, or a pair
        whose divisors differ: its law is not a subsampled Gaussian; see :meth:`exact_epsilon`)."""
        found = self._pair(dataset, neighbour)
        if found is None:
            return None
        big, small, c = found
        if self._divisors(big, small)[0] != self._divisors(big, small)[1]:
            return None
        if self._sampling(big.shape[0]) != self._sampling(small.shape[0]):
            return None
        return PairPrivacyLoss(self.description(big.shape[0], c).pld(),
                               f"canary pair PLD (exact, path): clipped canary gradient {c:.6g}", exact=True)

    def exact_epsilon(self, dataset, neighbour, delta: float) -> float | None:
        """The pair's epsilon at ``delta``: from its PLD (:meth:`pair_privacy_loss`), or, when the two sides are
        divided by different expected batch sizes, full batches and null other records, the closed form of
        :func:`averaged_gaussian_epsilon`. None when unknown."""
        if not delta > 0:
            return None
        pl = self.pair_privacy_loss(dataset, neighbour)
        if pl is not None:
            return pl.epsilon(delta)
        found = self._pair(dataset, neighbour)
        if found is None:
            return None
        big, small, c = found
        b_big, b_small = self._divisors(big, small)
        null = not np.any(small[:, :-1])
        full = opacus_parameters(big.shape[0], self.config).sample_rate >= 1.0 and \
            opacus_parameters(small.shape[0], self.config).sample_rate >= 1.0
        if not (null and full):
            return None
        mu = c / (self.config.noise_multiplier * self.config.max_grad_norm)
        return averaged_gaussian_epsilon(mu, b_small / b_big, big.shape[1] - 1, self.config.steps, delta)

    @property
    def log_likelihood_ratio(self) -> WhiteBoxStatistic | None:
        """The white-box statistic (:meth:`_log_likelihood_ratio`), or None when the run was made with
        ``whitebox=False`` (the auditor uses a white-box statistic whenever this is callable)."""
        return self._log_likelihood_ratio if self.whitebox else None

    def _log_likelihood_ratio(self, dataset, neighbour):
        """The white-box statistic: ``sum_t log(1 - q + q exp(mu w_t - mu^2 / 2))`` (``q = 1``: ``mu w_t -
        mu^2/2``) with ``w_t`` the canary coordinate of the step's normalised gradient ``(w_{t-1} - w_t) b /
        (lr sigma C)`` (``b`` the divisor of the dataset with the canary) and ``mu = c / (sigma C)``: the privacy
        loss of the path when Opacus does what its description says (oriented: large when the canary is in)."""
        found = self._pair(dataset, neighbour)
        if found is None:
            raise ValueError("log_likelihood_ratio needs a canary pair (canary_pair): the two datasets must differ "
                             "by the first record of the larger one, a canary on coordinate 0")
        big, small, c = found
        b = self._divisors(big, small)[0]
        cfg = self.config
        noise = cfg.noise_multiplier * cfg.max_grad_norm
        mu = c / noise
        q = opacus_parameters(big.shape[0], cfg).sample_rate
        sign = 1.0 if _records(dataset).shape[0] == big.shape[0] else -1.0

        def llr(outputs: np.ndarray) -> np.ndarray:
            theta = np.asarray(outputs, dtype=float)[:, :, 0]
            prev = np.concatenate([np.zeros((theta.shape[0], 1)), theta[:, :-1]], axis=1)
            w = (prev - theta) * b / (cfg.lr * noise)
            step = mu * w - mu * mu / 2
            if q < 1.0:
                step = np.logaddexp(math.log1p(-q), math.log(q) + step)
            return sign * step.sum(axis=1)

        llr.description = "white-box subsampled-Gaussian privacy loss of the path on the canary coordinate"
        return llr

    def bind(self, records: int) -> "BoundRun":
        """This run with its accountant read at ``records`` records (the auditor calls ``account(delta)`` without
        a dataset)."""
        return BoundRun(self, records)


class BoundRun:
    """An :class:`OpacusRun` with the record count its accountant is read at (the auditor calls
    ``mechanism.account(delta)`` without the dataset)."""

    def __init__(self, run: OpacusRun, records: int):
        self.run = run
        self.records = records

    def __call__(self, dataset, n, rng):
        return self.run(dataset, n, rng)

    def account(self, delta: float):
        return self.run.account_records(self.records, delta)

    def pair_privacy_loss(self, dataset, neighbour):
        return self.run.pair_privacy_loss(dataset, neighbour)

    def exact_epsilon(self, dataset, neighbour, delta):
        return self.run.exact_epsilon(dataset, neighbour, delta)

    @property
    def log_likelihood_ratio(self) -> WhiteBoxStatistic | None:
        """The run's white-box statistic, or None when the run was made with ``whitebox=False``."""
        return self.run.log_likelihood_ratio


# -- the expected-averaged Gaussian pair (closed form) -------------------------------------------------------------
def averaged_gaussian_delta(epsilon: float, mu: float, ratio: float, dim: int, steps: int = 1) -> float:
    """The hockey-stick divergence at ``epsilon`` (larger of both directions) of ``steps`` full-batch Gaussian steps
    in ``dim`` coordinates whose two sides are divided by different numbers.

    Per step, normalised by the noise std of the side with the canary: ``P = N(mu e_0, I_dim)`` vs
    ``Q = N(0, rho^2 I_dim)`` with ``rho = b / b'`` the ratio of the divisors (``ratio`` = ``b' / b``, the
    neighbour's divisor over the canary side's, so ``rho = 1 / ratio``). With ``r = ratio^2`` the privacy loss of
    the path under P is ``L = A + k X + k Z^2 + beta sqrt(T) Z`` with ``X ~ chi^2_{T dim - 1}``, ``Z ~ N(0, 1)``
    independent, ``k = (r - 1)/2``, ``beta = r mu`` and a constant ``A`` (rotate the path so that the sum of the
    canary coordinates over the steps is one coordinate; Wang et al. 2026 analyse this mechanism, the
    expected-averaged subsampled Gaussian, in f-DP). ``E_P[(1 - e^{eps - L})_+]`` is computed in closed form in X
    (the chi-square cdf and its exponential tilt) and by quadrature in Z; the reverse direction likewise.
    """
    epsilon = check_real("epsilon", epsilon, low=0.0)
    mu = check_real("mu", mu, low=0.0)
    ratio = check_real("ratio", ratio, low=0.0, low_inclusive=False)
    dim = check_positive_int(dim, "dim")
    steps = check_positive_int(steps, "steps")
    return max(_averaged_direction(epsilon, mu, ratio, dim, steps, forward=True),
               _averaged_direction(epsilon, mu, ratio, dim, steps, forward=False))


def _averaged_direction(epsilon: float, mu: float, ratio: float, dim: int, steps: int, forward: bool) -> float:
    """One direction of :func:`averaged_gaussian_delta`.

    Normalise so the side with the canary is ``P = N(m, s^2 I)`` with ``s = 1``, ``m = mu e_0`` and the other
    ``Q = N(0, t^2 I)`` with ``t = 1 / ratio`` (the noise std scales as 1 / divisor). Per step
    ``L = log p - log q = dim log t - ||v - m||^2 / 2 + ||v||^2 / (2 t^2)``.
    forward: ``v = m + xi`` under P; backward (the loss of Q against P, ``-L``): ``v = t xi`` under Q.
    In both, ``L_dir = a + k ||xi||^2 + beta xi_0 + g`` per step; over T steps, rotating the canary coordinates
    so that ``S = sum_t xi_0t / sqrt(T)`` is one of them: ``L_dir = T (a + g) + k X + k S^2 + beta sqrt(T) S``.
    """
    T, d = steps, dim
    t = 1.0 / ratio
    if forward:  # L = d log t - ||xi||^2/2 + ||m + xi||^2 / (2 t^2)
        a = d * math.log(t)
        k = -0.5 + 0.5 / t**2
        beta = mu / t**2
        g = mu * mu / (2 * t**2)
    else:  # -L with v = t xi: -d log t + ||t xi - m||^2 / 2 - ||xi||^2 / 2
        a = -d * math.log(t)
        k = t * t / 2 - 0.5
        beta = -t * mu
        g = mu * mu / 2
    dof = T * d - 1
    # Z ~ N(0, 1) by the trapezoid rule on [-20, 20] (the integrand has kinks where L crosses eps, which a
    # Gauss-Hermite rule resolves badly; step 0.002: the Gaussian case (ratio 1) matches dpverify's PLD to 1e-7)
    z = np.linspace(-20.0, 20.0, 20001)
    wz = np.exp(-z * z / 2) / math.sqrt(2 * math.pi) * (z[1] - z[0])
    base = T * (a + g) + k * z * z + beta * math.sqrt(T) * z  # L = base + k X
    if dof == 0 or k == 0:
        gap = base - epsilon
        vals = np.where(gap > 0, -np.expm1(-np.clip(gap, 0, None)), 0.0)
        return float(np.clip(np.sum(wz * vals), 0.0, 1.0))
    # E_X[(1 - e^{eps - base - k X})_+]
    if k < 0:  # L decreasing in X: positive part on X < x* = (base - eps) / (-k)
        lam = -k  # E[e^{lam X} 1{X < x*}] = (1 - 2 lam)^{-dof/2} F(x* (1 - 2 lam)) when lam < 1/2
        xs = np.maximum((base - epsilon) / lam, 0.0)
        F = stats.chi2.cdf(xs, dof)
        if lam < 0.5:
            log_tilt = -dof / 2 * math.log1p(-2 * lam) + stats.chi2.logcdf(xs * (1 - 2 * lam), dof)
        else:
            log_tilt = np.array([_log_truncated_mgf(lam, x, dof) for x in xs])
        vals = F - np.exp(np.minimum(epsilon - base + log_tilt, 50.0))
    else:  # L increasing in X: positive part on X > x*
        xs = np.maximum((epsilon - base) / k, 0.0)
        S = stats.chi2.sf(xs, dof)  # E[e^{-k X} 1{X > x*}] = (1 + 2k)^{-dof/2} S(x* (1 + 2k))
        log_tilt = -dof / 2 * math.log1p(2 * k) + stats.chi2.logsf(xs * (1 + 2 * k), dof)
        vals = S - np.exp(np.minimum(epsilon - base + log_tilt, 50.0))
    return float(np.clip(np.sum(wz * np.clip(vals, 0.0, 1.0)), 0.0, 1.0))


def _log_truncated_mgf(lam: float, x: float, dof: int) -> float:
    """log E[e^{lam X} 1{X < x}] for X ~ chi^2_dof, by quadrature (the tilt is not a chi-square when lam >= 1/2)."""
    if x <= 0:
        return -math.inf
    val, _ = integrate.quad(lambda u: math.exp(lam * u + stats.chi2.logpdf(u, dof)), 0.0, x, limit=200)
    return math.log(val) if val > 0 else -math.inf


def averaged_gaussian_epsilon(mu: float, ratio: float, dim: int, steps: int, delta: float) -> float:
    """The smallest epsilon >= 0 with :func:`averaged_gaussian_delta` <= ``delta`` (bisection on the decreasing
    hockey-stick curve, to 1e-6)."""
    delta = check_delta(delta, allow_zero=False)
    f = lambda e: averaged_gaussian_delta(e, mu, ratio, dim, steps) - delta  # noqa: E731
    if f(0.0) <= 0:
        return 0.0
    hi = 1.0
    while f(hi) > 0:
        hi *= 2
        if hi > 1e4:
            return math.inf
    return float(optimize.brentq(f, 0.0, hi, xtol=1e-6))


# -- the catalogue -------------------------------------------------------------------------------------------------
#: (name, config, pair arguments, whitebox, expected) of every audited call.
CASES: dict[str, tuple] = {
    "sum_full_batch_1_step": (DPSGDConfig(noise_multiplier=1.0, batch_size=8, steps=1, loss_reduction="sum"),
                              dict(others=7, dim=2), True, ""),
    "sum_poisson_10_steps": (DPSGDConfig(noise_multiplier=1.0, batch_size=2, steps=10, loss_reduction="sum"),
                             dict(others=7, dim=2), True, ""),
    # 11 and 10 records, batch_size 4: the same sample rate 1/3 and expected batch size int(11/3) = int(10/3) = 3
    "mean_poisson_10_steps": (DPSGDConfig(noise_multiplier=1.0, batch_size=4, steps=10, loss_reduction="mean"),
                              dict(others=10, dim=2), True, ""),
    # 4 and 3 records, batch_size 4: full batches (sample rate 1), divided by 4 and by 3
    "mean_full_batch_divisor_differs": (
        DPSGDConfig(noise_multiplier=2.0, batch_size=4, steps=1, loss_reduction="mean"),
        dict(others=3, dim=64, null=True), False,
        "known issue: with loss_reduction='mean' Opacus divides by int(len(dataset) * sample_rate), computed from "
        "the private dataset's size, so add/remove neighbours are divided by different numbers and the noise scale "
        "of every coordinate tells them apart (meta-pytorch/opacus#571, #819; Wang et al. 2026, arXiv:2605.15648)"),
    # 12 and 11 records, batch_size 4: the same sample rate 1/3, divided by int(12/3) = 4 and int(11/3) = 3
    "mean_poisson_divisor_differs": (
        DPSGDConfig(noise_multiplier=2.0, batch_size=4, steps=3, loss_reduction="mean"),
        dict(others=11, dim=64, null=True), False,
        "known issue: Opacus' default loss_reduction='mean' divides by int(len(dataset) * sample_rate), computed from "
        "the private dataset's size (meta-pytorch/opacus#571, #819; Wang et al. 2026, arXiv:2605.15648)"),
}


#: relative cost of one release per entry (LibraryFunction.cost: 1 is about 0.2 ms; measured 0.6 ms for one step,
#: 1.3 ms for ten, 2 ms for one step in 64 coordinates, on 2 busy cores)
COSTS = {"sum_full_batch_1_step": 3.0, "sum_poisson_10_steps": 7.0, "mean_poisson_10_steps": 7.0,
         "mean_full_batch_divisor_differs": 10.0, "mean_poisson_divisor_differs": 25.0}

_SNIPPET = """import numpy as np, torch
from opacus import PrivacyEngine
from torch.utils.data import DataLoader, TensorDataset


def release(records, seed):
    \"\"\"One DP-SGD run of Opacus alone: linear model at 0, loss -y <w, x>, every iterate returned.\"\"\"
    x, y = torch.tensor(records[:, :-1]), torch.tensor(records[:, -1])
    model = torch.nn.Linear(x.shape[1], 1, bias=False, dtype=torch.float64)
    torch.nn.init.zeros_(model.weight)
    optimizer = torch.optim.SGD(model.parameters(), lr={lr!r})
    loader = DataLoader(TensorDataset(x, y), batch_size={batch_size!r}, generator=torch.Generator().manual_seed(seed))
    model, optimizer, loader = PrivacyEngine(accountant={accountant!r}).make_private(
        module=model, optimizer=optimizer, data_loader=loader, noise_multiplier={noise_multiplier!r},
        max_grad_norm={max_grad_norm!r}, loss_reduction={loss_reduction!r}, poisson_sampling=True,
        noise_generator=torch.Generator().manual_seed(seed + 1))
    path = []
    while len(path) < {steps!r}:
        for xb, yb in loader:
            optimizer.zero_grad()
            losses = -yb * model(xb).squeeze(-1)
            losses.{loss_reduction}().backward()  # loss_reduction={loss_reduction!r}
            optimizer.step()
            path.append(model._module.weight.detach().reshape(-1).clone().numpy())
            if len(path) == {steps!r}:
                break
    return np.stack(path)


dataset = {dataset}
neighbour = {neighbour}
print(release(dataset, 0))
print(release(neighbour, 0))
"""


def snippet_for(config: DPSGDConfig, dataset, neighbour) -> str:
    """Python that reproduces one release on each side with torch and Opacus alone (no dpverify): the same calls
    as :meth:`OpacusRun.__call__` for one copy (``rng``-derived seeds replaced by 0 and 1)."""
    return _SNIPPET.format(dataset=array_code(np.asarray(dataset, dtype=float)),
                           neighbour=array_code(np.asarray(neighbour, dtype=float)), **config.__dict__)


def _function(name: str) -> LibraryFunction:
    config, pair_kwargs, whitebox, expected = CASES[name]
    run = OpacusRun(config, whitebox=whitebox)
    with_canary, without = canary_pair(**pair_kwargs)
    mechanism = run.bind(with_canary.shape[0])
    test = "auto" if whitebox else _norm_statistic
    kind = "null records" if pair_kwargs.get("null") else "ordinary records on coordinates 1..d-1"
    pair = LabelledPair(with_canary, without, "canary:remove",
                        f"{without.shape[0]} {kind} with and without the gradient canary ({CANARY_NORM:g} e_0, -1)")
    return LibraryFunction(library="opacus", version=version(), name=f"make_private[{name}]", mechanism=mechanism,
                           claim=run.claim, pairs=(pair,), adjacency="add_remove", expected=expected,
                           snippet=lambda d, n: snippet_for(config, d, n), test=test, tags=("dp-sgd", name),
                           cost=COSTS[name], ledger=lambda data, seed: opacus_ledger(run, data, seed),
                           options={"loss_reduction": config.loss_reduction, "steps": config.steps,
                                    "batch_size": config.batch_size})


def opacus_ledger(run: OpacusRun, dataset, seed: int = 0):
    """The budget ledger (:mod:`dpverify.libraries.ledger`) of one real single-model run of ``run`` on ``dataset``:
    every Gaussian noise addition Opacus makes (``opacus.optimizers.optimizer._generate_noise``: the noise std, the
    clipping norm as the declared sensitivity, the library's ``file:line``), and the divisor the optimizer is built
    with (``DPOptimizer(expected_batch_size=...)``, recorded with the site that passes it; it scales the noisy sum
    when ``loss_reduction="mean"``). ``spent``: dpverify's PLD accountant of the recorded noise additions (their
    std and sensitivity, Opacus' sample rate); ``recorded``: ``privacy_engine.accountant.get_epsilon(delta)`` at
    the run's delta; ``asked``: none (make_private is given a noise multiplier, not a budget)."""
    torch, opacus = torch_and_opacus()
    import opacus.optimizers.optimizer as om

    pkg = os.path.dirname(opacus.__file__)
    records = _records(dataset)
    d = records.shape[1] - 1
    led = Ledger("opacus", adjacency="add_remove", package_dir=pkg)
    original_noise, original_init = om._generate_noise, om.DPOptimizer.__init__

    def noise(std, reference, *args, **kwargs):
        opt = sys._getframe(1).f_locals.get("self")
        site, func, stack, _ = library_site(pkg, depth=2)
        sens = float(getattr(opt, "max_grad_norm", math.nan))
        led.entries.append(LedgerEntry("Gaussian", math.nan, 0.0, sens, float(std), site, func, stack))
        return original_noise(std, reference, *args, **kwargs)

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        if self.loss_reduction == "mean":
            site, func, stack, _ = library_site(pkg, depth=2)
            led.entries.append(LedgerEntry("divide by expected_batch_size", 0.0, 0.0, None,
                                           float(self.expected_batch_size), site, func, stack))

    om._generate_noise, om.DPOptimizer.__init__ = noise, init  # type: ignore[method-assign]
    try:
        with _quiet():
            engine, model, optimizer, loader = _make_private(
                run.config, torch.as_tensor(records[:, :d]), torch.as_tensor(records[:, d]), run.config.batch_size,
                d, (seed, seed + 1))
            _train(model, optimizer, loader, run.config)
            led.recorded = ApproxDP(float(engine.accountant.get_epsilon(delta=run.delta)), run.delta)
    finally:
        om._generate_noise, om.DPOptimizer.__init__ = original_noise, original_init  # type: ignore[method-assign]
    steps = [e for e in led.entries if e.mechanism == "Gaussian"]
    if steps and len({(e.sensitivity, e.scale) for e in steps}) == 1:
        sensitivity, scale = steps[0].sensitivity, steps[0].scale
        if sensitivity is None or scale is None:  # not reached: noise() records both for every Gaussian entry
            raise RuntimeError("a Gaussian entry of the ledger has no sensitivity or scale")
        step = GaussianStep(sensitivity, scale, run._sampling(records.shape[0]))
        acc = MechanismDescription((Repeated(step, len(steps)),), "add_remove", Release.PATH,
                                   source="the ledger's Gaussian steps").account(run.delta)
        led.accounted = ApproxDP(float(acc.epsilon), run.delta)
    return led


def _norm_statistic(outputs: np.ndarray) -> np.ndarray:
    """Squared norm of the released path (the scale test: the noise variance per coordinate differs when the
    divisors differ; fixed before any sample is seen)."""
    x = np.asarray(outputs, dtype=float)
    return np.sum(x.reshape(x.shape[0], -1) ** 2, axis=1)


def catalogue() -> list[LibraryFunction]:
    """Every audited Opacus call (:data:`CASES`) as a :class:`~dpverify.libraries.base.LibraryFunction` (ImportError
    with the install hint when torch or opacus is missing)."""
    torch_and_opacus()
    return [_function(name) for name in CASES]


class scaled_noise:
    """Context manager: Opacus with its Gaussian noise multiplied by ``factor`` (``opacus.optimizers.optimizer.
    _generate_noise`` wrapped; the accountant and the claim are untouched) -- a deliberately broken Opacus, to
    check that the audit flags it."""

    def __init__(self, factor: float):
        self.factor = check_real("factor", factor, low=0.0)

    def __enter__(self):
        torch_and_opacus()
        import opacus.optimizers.optimizer as module

        self._module, self._original = module, module._generate_noise
        original, factor = self._original, self.factor
        module._generate_noise = lambda std, **kw: original(std=std * factor, **kw)
        return self

    def __exit__(self, *exc):
        self._module._generate_noise = self._original
        return False


def measure(name: str, *, samples: int = 20_000, seed: int = 0, confidence: float = 0.95, noise_factor: float = 1.0,
            delta: float = DEFAULT_DELTA) -> dict:
    """One row of the comparison table (docs/opacus.md) for the catalogue entry ``name`` (:data:`CASES`): Opacus'
    claimed epsilon at ``delta``, dpverify's PLD accountant of the same run, the exact epsilon of the canary pair,
    and the certified lower bound of :func:`dpverify.audit.audit` with ``samples`` releases per side and ``seed``.
    ``noise_factor`` != 1 audits a deliberately broken Opacus (:class:`scaled_noise`) against the honest claim."""
    if name not in CASES:
        raise ValueError(f"name must be one of {tuple(CASES)}; got {name!r}")
    config, pair_kwargs, whitebox, _ = CASES[name]
    run = OpacusRun(config, whitebox=whitebox, delta=delta)
    dataset, neighbour = canary_pair(**pair_kwargs)
    claimed = run.claim(dataset)
    start = time.perf_counter()
    with scaled_noise(noise_factor):
        result = audit(run.bind(dataset.shape[0]), dataset, neighbour, claim=claimed, samples=samples, seed=seed, test="auto" if whitebox else _norm_statistic,
                       confidence=confidence)
    elapsed = time.perf_counter() - start
    return {
        "case": name if noise_factor == 1 else f"{name} (noise x {noise_factor:g})", "steps": config.steps,
        "loss_reduction": config.loss_reduction,
        "q": opacus_parameters(len(dataset), config).sample_rate, "sigma": config.noise_multiplier,
        "delta": claimed.delta, "opacus_epsilon": claimed.epsilon, "claim_source": claimed.source,
        "dpverify_accountant": result.epsilon_accountant, "exact_canary_epsilon": result.epsilon_exact,
        "certified": result.epsilon_lower, "budget_ceiling": result.budget_ceiling, "verdict": result.verdict,
        "test": result.test, "samples": samples, "seed": seed, "seconds": elapsed,
    }

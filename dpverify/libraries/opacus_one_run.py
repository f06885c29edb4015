"""A one-run audit of Opacus: ``PrivacyEngine.make_private`` training on real data with m canaries, one run.

**What runs** (all privacy-relevant work by Opacus' public API: per-sample gradients, flat clipping to C, Gaussian
noise ``N(0, (sigma C)^2)``, Poisson batches, its accountant). A softmax classifier with two ``nn.Linear`` blocks at
zero, ``logits = W [x; 1] + (u . z) e_0`` (``W``: ``classes x (d + 1)``; ``u``: one weight per canary), is trained by
SGD on cross-entropy for ``steps`` steps. A real record has features ``x`` (and the constant 1, the classifier's bias)
and ``z = 0``. Canary j has ``x = 0``, ``z = e_j`` and label 0: its gradient lives in ``u_j`` only, a weight no other
record moves (the Dirac canaries of Steinke, Nasr, Jagielski 2023, Sec. 5, as an input a user's model can take: no
canary interferes with another or with the data). An excluded canary is a null record (all inputs 0: zero gradient,
no bias term), so the dataset has N = n + m records whatever the coins, and Opacus' ``sample_rate`` and
``expected_batch_size`` do not depend on them (add/remove adjacency with N public).

**Scores.** White-box: the displacement of ``u_j`` (its descent direction is +1: the canary's loss
``log(e^{u_j} + classes - 1) - u_j`` falls as ``u_j`` grows). Black-box: minus the canary's loss at the end,
``u_j - log(e^{u_j} + classes - 1)``, what a user with only the trained model's outputs on the canary computes; it is
monotone in ``u_j``, so both scores rank the canaries alike here (they differ for canaries that share weights).

**Accountants.** :meth:`OpacusCanaryRun.account`: dpverify's PLD accountant of the declared run (``steps`` x the
Poisson-subsampled Gaussian with rate ``sample_rate``, add/remove; the path's epsilon, an upper bound for the final
model). :meth:`OpacusCanaryRun.opacus_epsilon`: Opacus' own accountant (``opacus.accountants.create_accountant``,
"prv" by default) stepped the same way. The canary's release (a Poisson shift mixture through a non-linear softmax)
has no exact curve here: the f-DP method tests the (eps, delta) curve.
"""
from __future__ import annotations

import contextlib
import math
import warnings

import numpy as np

from dpverify.calculus.guarantees import Conversion
from dpverify.calculus.mechanism_description import GaussianStep, MechanismDescription, PoissonSampling, Repeated
from dpverify.calculus.tradeoff import TradeOffCurve
from dpverify.calculus.vocabulary import Release
from dpverify.libraries.opacus import DPSGDConfig, opacus_parameters, torch_and_opacus
from dpverify.validation import check_finite_array, check_positive_int

__all__ = ["OpacusCanaryRun", "SCORES"]

#: ``OpacusCanaryRun(score=...)``.
SCORES = ("whitebox", "loss")


@contextlib.contextmanager
def _quiet():
    """Opacus' advisory warnings (secure RNG off, hooks) are not findings of the audit."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        warnings.filterwarnings("ignore", category=FutureWarning)
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"opacus\.")
        yield


def _classifier(torch, inputs: int, m: int, classes: int):
    """``logits = W [x; 1] + (u . z) e_0`` (module docstring), both blocks ``nn.Linear`` at zero, no bias."""

    class CanaryClassifier(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inputs = inputs
            self.features = torch.nn.Linear(inputs, classes, bias=False)
            self.canaries = torch.nn.Linear(m, 1, bias=False)
            self.register_buffer("first", torch.nn.functional.one_hot(torch.tensor(0), classes).float())
            with torch.no_grad():
                self.features.weight.zero_()
                self.canaries.weight.zero_()

        def forward(self, inp):
            return self.features(inp[:, :self.inputs]) + self.canaries(inp[:, self.inputs:]) * self.first

    return CanaryClassifier()


class OpacusCanaryRun:
    """Opacus DP-SGD on ``features`` (``(n, d)``) / ``labels`` (``(n,)`` in 0..classes-1) with ``m`` canaries
    (module docstring); ``config`` a :class:`~dpverify.libraries.opacus.DPSGDConfig` (``loss_reduction`` "mean" is
    Opacus' default), ``score`` "whitebox" or "loss"."""

    def __init__(self, features, labels, m: int, config: DPSGDConfig, *, score: str = "whitebox",
                 name: str = "opacus_digits") -> None:
        self.features = check_finite_array(features, "features", ndim=2)
        self.labels = np.asarray(labels, dtype=np.int64)
        if self.labels.shape != (self.features.shape[0],) or self.labels.min() < 0:
            raise ValueError("labels must be one non-negative class index per row of features")
        if score not in SCORES:
            raise ValueError(f"score must be one of {SCORES}; got {score!r}")
        self.m = check_positive_int(m, "m")
        self.config = config
        self.score = score
        self.classes = int(self.labels.max()) + 1
        self.N = self.features.shape[0] + self.m
        self.params = opacus_parameters(self.N, config)
        self.name = name
        self.weights: np.ndarray | None = None
        self.canary_weights: np.ndarray | None = None

    # -- the run ----------------------------------------------------------------------------------------------------
    def _inputs(self, included: np.ndarray):
        n, d = self.features.shape
        X = np.zeros((self.N, d + 1 + self.m), dtype=np.float32)
        X[:n, :d] = self.features
        X[:n, d] = 1.0
        slots = np.flatnonzero(included)
        X[n + slots, d + 1 + slots] = 1.0
        Y = np.concatenate([self.labels, np.zeros(self.m, dtype=np.int64)])
        return X, Y

    def run(self, included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Train once (Opacus) with canary j present exactly when ``included[j]``; the m canaries' scores."""
        torch, opacus = torch_and_opacus("the Opacus one-run audit")
        from torch.utils.data import DataLoader, TensorDataset

        included = np.asarray(included, dtype=bool)
        if included.shape != (self.m,):
            raise ValueError(f"included must be a bool array of the experiment's m = {self.m} canaries")
        X, Y = self._inputs(included)
        seeds = rng.integers(0, 2**62, size=2)
        c = self.config
        model = _classifier(torch, self.features.shape[1] + 1, self.m, self.classes)
        optimizer = torch.optim.SGD(model.parameters(), lr=c.lr)
        loader = DataLoader(TensorDataset(torch.from_numpy(X), torch.from_numpy(Y)), batch_size=c.batch_size,
                            generator=torch.Generator().manual_seed(int(seeds[0])))
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # small tensors: thread hand-offs cost more than they save (10x on 2 busy cores)
        try:
            self._make_private_and_train(torch, opacus, model, optimizer, loader, seeds)
        finally:
            torch.set_num_threads(threads)
        inner = self._trained._module
        self.weights = inner.features.weight.detach().numpy().astype(float).copy()
        self.canary_weights = inner.canaries.weight.detach().numpy().astype(float).reshape(-1).copy()
        return self.scores(self.canary_weights)

    def _make_private_and_train(self, torch, opacus, model, optimizer, loader, seeds) -> None:
        c = self.config
        with _quiet():
            engine = opacus.PrivacyEngine(accountant=c.accountant)
            model, optimizer, loader = engine.make_private(
                module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=c.noise_multiplier,
                max_grad_norm=c.max_grad_norm, loss_reduction=c.loss_reduction, poisson_sampling=True,
                noise_generator=torch.Generator().manual_seed(int(seeds[1])))
            self._train(torch, model, optimizer, loader)
        self._trained = model

    def _train(self, torch, model, optimizer, loader) -> None:
        loss_fn = torch.nn.CrossEntropyLoss(reduction=self.config.loss_reduction)
        done = 0
        while done < self.config.steps:
            for xb, yb in loader:
                optimizer.zero_grad()
                if len(yb):  # an empty Poisson batch still takes the noisy step
                    loss_fn(model(xb), yb).backward()
                else:
                    (model(xb).sum() * 0.0).backward()
                optimizer.step()
                done += 1
                if done == self.config.steps:
                    return

    def scores(self, canary_weights: np.ndarray) -> np.ndarray:
        """The canaries' scores from the trained canary weights ``u`` (module docstring)."""
        u = np.asarray(canary_weights, dtype=float)
        if self.score == "whitebox":
            return u.copy()
        return u - np.logaddexp(u, math.log(self.classes - 1))

    def test_accuracy(self, features, labels) -> float:
        """Accuracy of the last run's classifier on held-out ``features`` / ``labels``."""
        if self.weights is None:
            raise ValueError("run the experiment first")
        d = self.features.shape[1]
        logits = np.asarray(features, dtype=float) @ self.weights[:, :d].T + self.weights[:, d]
        return float(np.mean(logits.argmax(axis=1) == np.asarray(labels)))

    # -- accountants --------------------------------------------------------------------------------------------------
    def description(self) -> MechanismDescription:
        """``steps`` x GaussianStep(C, sigma C, Poisson(sample_rate)), add/remove, final release."""
        c = self.config
        step = GaussianStep(c.max_grad_norm, c.noise_multiplier * c.max_grad_norm,
                            PoissonSampling(self.params.sample_rate))
        return MechanismDescription((Repeated(step, c.steps),), "add_remove", Release.FINAL,
                                   "Opacus DP-SGD (make_private)")

    def account(self, delta: float) -> Conversion:
        return self.description().account(delta)

    def opacus_epsilon(self, delta: float) -> float:
        """Opacus' own accountant for the same run: ``create_accountant(config.accountant)`` stepped ``steps`` times
        at (noise_multiplier, sample_rate), then ``get_epsilon(delta)``."""
        _, opacus = torch_and_opacus("the Opacus one-run audit")
        from opacus.accountants import create_accountant

        accountant = create_accountant(self.config.accountant)
        with _quiet():
            for _ in range(self.config.steps):
                accountant.step(noise_multiplier=self.config.noise_multiplier, sample_rate=self.params.sample_rate)
            return float(accountant.get_epsilon(delta=delta))

    def release_account(self, delta: float) -> Conversion | None:
        return None

    def canary_curve(self) -> TradeOffCurve | None:
        return None

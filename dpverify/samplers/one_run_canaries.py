"""One DP-SGLD run with m canaries, scored per canary: the experiments that ``dpverify.audit.one_run`` audits.

:class:`DPSGLDCanaryRun` -- DP-SGLD (Li et al. 2019, Alg. 1) on a base model and real data, extended by m Dirac
gradient canaries (:mod:`dpverify.models.dirac_canaries`: canary j's gradient is ``min(G, L) e_{d0+j}``, a coordinate
no other record moves). The coins decide which canaries are records of the dataset (the others are null records, so
N = n + m whatever the coins: add/remove adjacency with N public, the sampler's own relation). One chain is run
once, as one sampler call, and canary j's white-box score is the released final iterate's displacement along its
gradient direction, ``theta_T[d0 + j] - theta_0[d0 + j]`` (its black-box score, minus its loss ``-G c_j``, orders
the canaries the same way). ``defect`` runs a known-bad DP-SGLD (:mod:`dpverify.samplers.broken`, e.g.
``"half_noise"``) that declares -- and is accounted as -- the correct one.

:class:`InputCanaryRun` -- the same run with *input-space* canaries instead: canary j is a record ``(R u_j, y_j)`` of
the base logistic model (u_j a random unit vector, y_j a random label), so canaries share the parameters w with each
other and with the data: the interference that limits one-run audits (Keinan, Shenfeld, Ligett 2025). Its white-box
score is the final iterate's projection on the canary's gradient direction at theta_0, ``y_j u_j . theta_T``
(minus its loss, ``log sigmoid(y_j R u_j . theta_T)``, is monotone in it: the same ranking).

What each offers the auditor (``dpverify.audit.one_run.OneRunExperiment``): ``account(delta)`` -- the sampler's
accountant (PLD of the path; an upper bound for the final iterate); ``release_account(delta)`` -- for Dirac canaries,
the exact privacy of the final iterate along a canary coordinate (a one-dimensional linear-Gaussian chain:
contraction ``1 - eta_t / (N s^2)`` from the prior, :func:`dpverify.calculus.accounting.release.release_privacy`);
``canary_curve()`` -- that release's Gaussian curve when the batches are full (rate 1), else None.
"""
from __future__ import annotations

import math

import numpy as np

from dpverify.calculus.guarantees import Conversion
from dpverify.calculus.linear_dynamics import LinearDynamics
from dpverify.calculus.mechanism_description import MechanismDescription
from dpverify.calculus.tradeoff import GaussianDP, TradeOffCurve
from dpverify.calculus.vocabulary import Release
from dpverify.models.base import Model
from dpverify.models.dirac_canaries import DiracCanaryModel, canary_dataset
from dpverify.models.logistic import LogisticRegression
from dpverify.samplers.broken import BrokenDPSGLD
from dpverify.samplers.sgld import DPSGLDLi
from dpverify.validation import check_finite_array, check_positive_int, check_probability, check_real

__all__ = ["DPSGLDCanaryRun", "InputCanaryRun", "calibrated_step_size", "accuracy"]


def calibrated_step_size(mu: float, N: int, steps: int, clip: float) -> float:
    """The step size eta at which a full-batch DP-SGLD (Li et al. 2019, Alg. 1 with tau = N) is mu-GDP: each step
    releases ``(eta/N) sum clip(g)`` (sensitivity ``eta L / N``) with noise ``sqrt(eta / N)``, so the T steps compose
    to ``mu = L sqrt(T eta / N)`` (DRS 2022, Cor. 3.3), i.e. ``eta = mu^2 N / (T L^2)``."""
    return mu * mu * N / (steps * clip * clip)


def accuracy(rows: np.ndarray, weights: np.ndarray) -> float:
    """Share of LogisticRegression rows ``(x, y)`` with ``sign(x . w) = y``."""
    margin = rows[:, :-1] @ np.asarray(weights, dtype=float) * rows[:, -1]
    return float(np.mean(margin > 0))


class _LiRun:
    """The shared setup: data, DP-SGLD parameters, the sampler and the last run's parameters."""

    name: str
    model: Model
    sampler: DPSGLDLi

    def _setup(self, rows, m: int, steps: int, step_size: float, clip: float, batch_rate: float, delta: float,
               defect: str | None) -> None:
        self.rows = check_finite_array(rows, "rows", ndim=2)
        self.m = check_positive_int(m, "m")
        self.N = self.rows.shape[0] + self.m
        self.steps = check_positive_int(steps, "steps")
        self.clip = check_real("clip", clip, low=0.0, low_inclusive=False)
        self.batch_rate = check_probability(batch_rate, "batch_rate", open_low=True)
        self.step_size = check_real("step_size", step_size, low=0.0, low_inclusive=False)
        args = dict(N=self.N, tau=self.batch_rate * self.N, T=self.steps, delta=delta, step_size=self.step_size,
                    L=self.clip, release="final")
        if defect is None:
            self.sampler = DPSGLDLi(self.model, epsilon=None, claim="accountant", **args)
        else:
            self.sampler = BrokenDPSGLD(self.model, defect=defect, **args)
        self.defect = defect
        self.last_theta: np.ndarray | None = None

    def _train(self, dataset: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        state, _ = self.sampler.run(dataset, 1, rng)
        self.last_theta = state.theta[0]
        return self.last_theta

    def account(self, delta: float) -> Conversion:
        """The sampler's accountant (PLD of the path; an upper bound for the final iterate)."""
        return self.sampler.account(delta)

    def test_accuracy(self, test_rows: np.ndarray) -> float:
        """Accuracy of the last run's model parameters w on ``test_rows`` (LogisticRegression rows)."""
        if self.last_theta is None:
            raise ValueError("run the experiment first")
        return accuracy(test_rows, self.last_theta[:test_rows.shape[1] - 1])


class DPSGLDCanaryRun(_LiRun):
    """DP-SGLD (Li et al. 2019, Alg. 1) logistic regression on ``rows`` with ``m`` Dirac canaries (module docstring).

    ``rows``: LogisticRegression rows ``(x, y)`` with ``||x|| <= R``. ``steps`` (T), ``step_size`` (eta), ``clip``
    (L; also the canary gradient norm G), ``batch_rate`` (q = tau / N; 1 = full batches), ``prior_variance`` of the
    Gaussian prior, ``defect`` (None, or a known-bad variant of :data:`dpverify.samplers.broken.DEFECTS`).
    """

    model: DiracCanaryModel

    def __init__(self, rows, m: int, *, steps: int, step_size: float, clip: float = 1.0, batch_rate: float = 1.0,
                 R: float = 1.0, prior_variance: float = 1.0, delta: float = 1e-5, defect: str | None = None,
                 name: str = "dp_sgld_dirac_canaries") -> None:
        rows = check_finite_array(rows, "rows", ndim=2)
        base = LogisticRegression(rows.shape[1] - 1, R=R, prior_variance=prior_variance)
        self.model = DiracCanaryModel(base, m, G=clip)
        self._setup(rows, m, steps, step_size, clip, batch_rate, delta, defect)
        self.name = name

    def run(self, included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One chain on the rows plus the included canaries; scores ``theta_T[d0 + j] - theta_0[d0 + j]``."""
        included = np.asarray(included, dtype=bool)
        if included.shape != (self.m,):
            raise ValueError(f"included must be a bool array of the experiment's m = {self.m} canaries")
        theta = self._train(canary_dataset(self.rows, included), rng)
        return self.model.canary_coordinates(theta) - self.model.canary_coordinates(self.sampler.theta0)

    def release_description(self) -> MechanismDescription:
        """The run's description along one canary coordinate: the canary's gradient ``min(G, L)`` against the
        sensitivity of the description, the final release, and the contraction ``1 - c_t w_prior / s^2`` of the
        prior on that coordinate (a one-dimensional linear-Gaussian chain)."""
        described = self.sampler.mechanism()
        shift = min(self.model.G, self.clip) / self.sampler.record_sensitivity
        coef = self.sampler.eta / 2 if self.sampler.half_drift else self.sampler.eta
        rho = 1.0 - coef / (self.N * self.model.prior_variance)
        dynamics = LinearDynamics.contraction(rho, source="Li et al. 2019, Alg. 1 on a Dirac canary coordinate")
        scaled = described.scaled(shift)
        return MechanismDescription(scaled.steps, scaled.neighbouring, Release.FINAL, scaled.source, dynamics=dynamics)

    def release_account(self, delta: float) -> Conversion | None:
        """The exact privacy of the final iterate along a canary coordinate (module docstring)."""
        exact = self.release_description().release_privacy()
        lo, hi = exact.epsilon_bounds(delta)
        return Conversion(hi, delta, None, "exact final release along a canary coordinate (linear-Gaussian)",
                          epsilon_lower=lo)

    def canary_curve(self) -> TradeOffCurve | None:
        """G_mu of the final iterate along a canary coordinate when every batch is full (then the release is one
        Gaussian pair, ``mu`` = mean gap / std); None for Poisson batches (a shift mixture, not Gaussian)."""
        if self.batch_rate < 1.0:
            return None
        windows = self.release_description().release_privacy().windows
        return GaussianDP(math.sqrt(sum(w.mu ** 2 for w in windows)))


class InputCanaryRun(_LiRun):
    """The same DP-SGLD with input-space canaries ``(R u_j, y_j)`` sharing the parameters (module docstring);
    ``canary_seed`` fixes the canaries (not the run)."""

    def __init__(self, rows, m: int, *, steps: int, step_size: float, clip: float = 1.0, batch_rate: float = 1.0,
                 R: float = 1.0, prior_variance: float = 1.0, delta: float = 1e-5, defect: str | None = None,
                 canary_seed: int = 0, name: str = "dp_sgld_input_canaries") -> None:
        rows = check_finite_array(rows, "rows", ndim=2)
        d = rows.shape[1] - 1
        self.model = LogisticRegression(d, R=R, prior_variance=prior_variance)
        self._setup(rows, m, steps, step_size, clip, batch_rate, delta, defect)
        gen = np.random.default_rng(canary_seed)
        u = gen.standard_normal((self.m, d))
        self.directions = u / np.linalg.norm(u, axis=1, keepdims=True)
        self.labels = np.where(gen.random(self.m) < 0.5, 1.0, -1.0)
        self.canaries = np.column_stack([R * self.directions, self.labels])
        self.null = np.zeros(d + 1)
        self.null[-1] = 1.0
        self.name = name

    def run(self, included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        included = np.asarray(included, dtype=bool)
        if included.shape != (self.m,):
            raise ValueError(f"included must be a bool array of the experiment's m = {self.m} canaries")
        slots = np.where(included[:, None], self.canaries, self.null[None, :])
        theta = self._train(np.vstack([self.rows, slots]), rng)
        return (self.directions * self.labels[:, None]) @ (theta - self.sampler.theta0)

    def release_account(self, delta: float) -> Conversion | None:
        return None  # canaries interfere: no exact per-canary release privacy

    def canary_curve(self) -> TradeOffCurve | None:
        return None

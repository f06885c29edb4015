"""The shared part of the gradient samplers: a kernel and its schedule run over a batch of chains, and what every
private gradient sampler offers the auditor.

- :class:`StochasticGradientSampler` -- the common ``init`` / ``step`` / ``run`` / ``sample`` of a sampler built from a
  :class:`~dpverify.samplers.kernels.Kernel` (gradient estimator + integrator) and a
  :class:`~dpverify.samplers.schedules.Schedule` (per-step step sizes and noise scales), composed here:
  ``state = kernel.step(rng, state, data, **schedule.at(t))``; the loop is over time steps only;
- :class:`GradientMechanism` -- the budget side (a :class:`StochasticGradientSampler` with a privacy budget): the
  accountant's epsilon of the run from the sampler's :meth:`mechanism` description, the canary check and the pair's
  privacy-loss distribution;
- :class:`LangevinSampler` -- the samplers whose released state moves by one Langevin update (DP-SGLD, ULA, noisy
  SGD): their declared mechanism, the kernel that runs it, and the white-box path statistic.

The pieces live in their own modules: gradient estimators (:mod:`~dpverify.samplers.gradients`), update rules
(:mod:`~dpverify.samplers.integrators`), schedules (:mod:`~dpverify.samplers.schedules`), Wang et al. 2015's budget
(:mod:`~dpverify.samplers.budgets`), claims through the catalogue (:mod:`~dpverify.samplers.claims`). The names they
used to have here are re-exported.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpverify.backends import backend_of, is_device_generator
from dpverify.samplers.device import output_bytes, sample_on_device
from dpverify.validation import check_finite_array, check_positive_int
from dpverify.calculus.linear_dynamics import LinearDynamics
from dpverify.calculus.mechanism_description import (
    FixedSizeSampling,
    FullBatch,
    GaussianStep,
    MechanismDescription,
    PairPrivacyLoss,
    PoissonSampling,
    Sampling,
    describe_gaussian_steps,
)
from dpverify.calculus.releases import SampleSet, check_release, parse_release, release_name, released_indices
from dpverify.models.base import Model, clip_gradients
from dpverify.samplers.base import Sampler
from dpverify.samplers.budgets import WangBudget, wang_iterations
from dpverify.samplers.claims import catalogue_theorem, claim_from, evaluate_theorem
from dpverify.samplers.gradients import (
    Data,
    estimator_for_sampling,
    full_gradient_sum,
    minibatch_gradient_sum,
    per_record_gradients,
)
from dpverify.samplers.integrators import EulerMaruyama
from dpverify.samplers.kernels import ChainState, Kernel
from dpverify.samplers.minibatch import draw_minibatches, draw_poisson_minibatches
from dpverify.samplers.schedules import MAX_STEPS, Schedule, check_steps

__all__ = [
    "draw_minibatches",
    "draw_poisson_minibatches",
    "minibatch_gradient_sum",
    "per_record_gradients",
    "full_gradient_sum",
    "Data",
    "ChainState",
    "StochasticGradientSampler",
    "evaluate_theorem",
    "catalogue_theorem",
    "claim_from",
    "GradientMechanism",
    "PathLogLikelihoodRatio",
    "CanaryCheck",
    "LangevinSampler",
    "MAX_STEPS",
    "MAX_OUTPUT_ELEMENTS",
    "check_steps",
    "wang_iterations",
]

#: Elements of the per-block margins of the white-box path statistic on a device (2^26 float64: 512 MiB).
DEVICE_BLOCK_ELEMENTS = 2**26
#: The most float64 values one call may allocate for outputs (2 GiB); the auditor asks for chunks well below it.
MAX_OUTPUT_ELEMENTS = 2**28


def is_device_array(x) -> bool:
    """Whether ``x`` is an array of another backend than numpy (a torch tensor)."""
    return not isinstance(x, np.ndarray) and type(x).__module__.split(".")[0] == "torch"


def _step_log_likelihood_ratio(r_x, r_y, r_o, var2, log_q: float, log_1mq: float, logaddexp):
    """Per-step log-likelihood ratio of the white-box path statistic from the squared residuals of the next iterate
    against the step mean with the differing record in the batch on each side (``r_x``, ``r_y``) and without it
    (``r_o``; ``None`` for full batches), ``var2 = 2 s^2``: ``(r_y - r_x) / var2`` for full batches, else
    ``log[q e^{-r_x/var2} + (1-q) e^{-r_o/var2}] - log[q e^{-r_y/var2} + (1-q) e^{-r_o/var2}]``. Arrays of either
    backend, with its ``logaddexp``."""
    if r_o is None:
        return (r_y - r_x) / var2
    return logaddexp(log_q - r_x / var2, log_1mq - r_o / var2) - logaddexp(log_q - r_y / var2, log_1mq - r_o / var2)


class StochasticGradientSampler(Sampler):
    """Common loop of the gradient-based samplers: ``init``, ``step``, ``run``, ``sample``.

    A subclass sets its kernel and schedule once at construction (:meth:`_set_kernel`); then ``init`` puts every
    chain at ``theta0`` (data-independent, Wang et al. 2015, Theorem 4; default 0) and each step is
    ``kernel.step(rng, state, data, **schedule.at(t))``. (OPS by MALA adapts its step and overrides ``init`` and
    ``_step``; the hybrid sampler overrides ``init``.) ``n_steps`` is the length of a run.
    """

    model: Model
    N: int
    n_steps: int
    theta0: np.ndarray
    #: the privacy budget's numbers (:meth:`_set_wang_budget`, or the sampler's own: DP-SGLD of Li et al. 2019 has
    #: a real ``tau = q N`` and, when it claims the accountant's epsilon, no target ``epsilon``)
    tau: float
    T: float
    epsilon: float | None
    delta: float
    _kernel: Kernel | None = None
    _schedule: Schedule | None = None
    _budget: WangBudget | None = None

    def _setup_common(self, model, N: int, theta0, unguaranteed: bool) -> None:
        self.model = model
        self.N = check_positive_int(N, "N")
        d = model.dim
        self.theta0 = np.zeros(d) if theta0 is None else check_finite_array(theta0, "theta0", shape=(d,))
        self.unguaranteed = bool(unguaranteed)

    def _set_wang_budget(self, budget: WangBudget) -> None:
        """Wang et al. 2015's budget (:class:`~dpverify.samplers.budgets.WangBudget`), its numbers as attributes."""
        self._budget = budget
        self.tau, self.T, self.epsilon, self.delta = budget.tau, budget.T, budget.epsilon, budget.delta
        self.n_steps = budget.n_steps

    def _set_kernel(self, kernel: Kernel, schedule: Schedule | None) -> None:
        """The kernel that runs the chains and its per-step parameters (one entry per step of the run; None when the
        sampler chooses them as it runs, e.g. OPS by MALA adapting its step, and overrides ``_step``)."""
        if schedule is not None and schedule.n_steps != self.n_steps:
            raise ValueError(f"the schedule has {schedule.n_steps} steps; the run has {self.n_steps}")
        self._kernel, self._schedule = kernel, schedule

    def _require_kernel(self) -> Kernel:
        """The kernel :meth:`_set_kernel` set (a ``RuntimeError`` if the constructor never set one)."""
        if self._kernel is None:
            raise RuntimeError(f"{type(self).__name__} has no kernel: its constructor must call _set_kernel")
        return self._kernel

    @property
    def budget(self) -> WangBudget | None:
        """Wang et al. 2015's budget (:class:`~dpverify.samplers.budgets.WangBudget`) of the samplers built on it
        (DP-SGLD of Alg. 2, DP-SGHMC, DP-SGNHT, DP-SGFS); None for the others."""
        return self._budget

    @property
    def kernel(self) -> Kernel | None:
        """The sampling kernel (gradient estimator + integrator, :mod:`dpverify.samplers.kernels`)."""
        return self._kernel

    @property
    def kernel_schedule(self) -> Schedule | None:
        """The per-step parameters the kernel is run with (:mod:`dpverify.samplers.schedules`); None when the sampler
        adapts them as it runs (OPS by MALA)."""
        return self._schedule

    # -- data -----------------------------------------------------------------
    def prepare_data(self, dataset) -> Data:
        """Validate ``dataset`` with the model (clear errors) and check it has the ``N`` records the privacy
        parameters were set for."""
        if isinstance(dataset, Data):
            return dataset
        raw = self.model.validate_dataset(dataset)
        if raw.shape[0] != self.N:
            raise ValueError(f"dataset must have N = {self.N} records (the sampler was built for N = {self.N}); got {raw.shape[0]}")
        return Data(raw, self.model.prepare(raw), raw.shape[0])

    # -- kernel ---------------------------------------------------------------
    def init(self, dataset, n_chains: int, rng) -> ChainState:
        """``n_chains`` chains at :meth:`start` of ``theta0``: the kernel's initial state (its integrator's typed
        state) at step 0."""
        n_chains = check_positive_int(n_chains, "n_chains")
        self._rng(rng)
        data = self.prepare_data(dataset)
        theta = self.start(np.broadcast_to(self.theta0, (n_chains, self.model.dim)).copy(), data, rng)
        return ChainState(self._require_kernel().init(theta), 0)

    def start(self, theta, data, rng):
        """The chains' first iterate from ``theta0`` broadcast to ``(chains, d)``: ``theta`` itself, a
        data-independent start as every theorem of the catalogue assumes. ``data`` is the prepared dataset, as
        :class:`~dpverify.samplers.gradients.Data` on numpy or :class:`~dpverify.samplers.device.DeviceData` on another
        backend, and ``rng`` the run's generator (the device path calls this too); a subclass that starts elsewhere
        (the hybrid sampler's OPS draws, a known-bad warm start) overrides this, for both."""
        return theta

    def step(self, state: ChainState, dataset, rng) -> ChainState:
        """One transition of every chain (pure: returns a new state): the kernel's step from ``state.state`` (the
        integrator's typed state, passed as it is) with the schedule's parameters of step ``state.t``."""
        return self._step(state, self.prepare_data(dataset), self._rng(rng))

    def _step(self, state: ChainState, data: Data, rng: np.random.Generator) -> ChainState:
        kernel, schedule = self._require_kernel(), self._schedule
        if schedule is None:
            raise RuntimeError(f"{type(self).__name__} has no kernel schedule: a sampler that chooses its step "
                               "parameters as it runs must override _step")
        return ChainState(kernel.step(rng, state.state, data, **schedule.at(state.t)), state.t + 1)

    def run(self, dataset, n: int, rng, record_path: bool = False, record: list[int] | None = None):
        """Run ``n`` chains for ``n_steps``; returns the final state and, if asked, the path ``(n, n_steps+1, d)``
        (``record_path``) or the iterates ``theta_t`` at the indices ``record`` only, ``(n, len(record), d)``."""
        rng = self._rng(rng)
        data = self.prepare_data(dataset)
        if record_path:
            record = list(range(self.n_steps + 1))
        kept = 1 if record is None else len(record)
        size = n * kept * self.model.dim
        if size > MAX_OUTPUT_ELEMENTS:
            raise ValueError(f"n = {n} runs of {self.n_steps} steps in dimension {self.model.dim} would need {size} "
                             f"values (more than {MAX_OUTPUT_ELEMENTS}); ask for fewer runs per call")
        state = self.init(data, n, rng)
        path: np.ndarray | None = None
        slot: dict[int, int] = {}
        if record is not None:
            slot = {t: j for j, t in enumerate(record)}
            path = np.empty((state.theta.shape[0], len(record), self.model.dim))
            if 0 in slot:
                path[:, slot[0]] = state.theta
        for k in range(self.n_steps):
            state = self._step(state, data, rng)
            if path is not None and k + 1 in slot:
                path[:, slot[k + 1]] = state.theta
        return state, path

    def output_bytes(self) -> float:
        """Bytes one output and its step temporaries take on a device (:func:`dpverify.samplers.device.output_bytes`):
        what the auditor sizes its chunks by on another backend."""
        return output_bytes(self)

    def sample(self, dataset, n: int, rng) -> np.ndarray:
        """``n`` independent runs: final states ``(n, d)``, paths ``(n, n_steps + 1, d)`` or sample sets
        ``(n, count, d)`` (the iterates a :class:`~dpverify.calculus.releases.SampleSet` keeps) per ``output``. With
        ``rng`` a generator of another backend (:mod:`dpverify.backends`, e.g. torch on CUDA) the chains run on that
        backend and the outputs are its arrays (:mod:`dpverify.samplers.device`)."""
        n = check_positive_int(n, "n")
        if is_device_generator(rng):  # another backend's generator: run there (dpverify.samplers.device)
            return sample_on_device(self, dataset, n, rng, MAX_OUTPUT_ELEMENTS)
        if isinstance(self.output, SampleSet):
            return self.run(dataset, n, rng, record=released_indices(self.output, self.n_steps))[1]
        state, path = self.run(dataset, n, rng, record_path=self.output == "path")
        return path if self.output == "path" else state.theta


# -- Langevin-type samplers: one update form, its mechanism description, the pair's privacy loss -----------------


@dataclass(frozen=True)
class CanaryCheck:
    """The outcome of :meth:`GradientMechanism.verify_canary`: the constant gradient difference ``difference`` of a
    verified canary pair (None if the pair is not one) and, if not, ``reason``."""

    difference: np.ndarray | None
    reason: str

    @property
    def ok(self) -> bool:
        return self.difference is not None

    @property
    def shift(self) -> float | None:
        """``||difference||``: the canary's gradient difference (None if not a canary)."""
        return None if self.difference is None else float(np.linalg.norm(self.difference))


class GradientMechanism(StochasticGradientSampler):
    """A private gradient sampler: a :class:`StochasticGradientSampler` (its ``model``, ``theta0``, ``output``,
    :meth:`prepare_data`, ...) and what it offers the auditor, given its :meth:`mechanism` description and the
    attributes declared here, ``neighbouring``, ``_sampling`` (the batch scheme) and ``_clip``:

    - :meth:`account` -- the accountant's epsilon of the run (PLD of the path; an upper bound for a final release);
    - :meth:`canary_shift` / :meth:`pair_privacy_loss` -- the privacy-loss distribution of an audited pair when it
      is a verified gradient canary (:mod:`dpverify.models.canary`), for the audit's budget ceiling.

    (A subclass, not a mixin: everything its methods read is declared here or on the base; the method resolution
    order of its subclasses is the one the mixin gave, ``GradientMechanism`` then ``StochasticGradientSampler``.)
    """

    neighbouring: str
    #: the batch scheme and the per-record clip level (None: no clipping) the gradient sums use
    _sampling: Sampling
    _clip: float | None

    def mechanism(self):  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    @property
    def record_sensitivity(self) -> float:
        """The model's per-record gradient sensitivity under ``neighbouring``, after clipping."""
        return self.model.gradient_sensitivity(self.neighbouring, self._clip)

    def account(self, delta: float, method: str = "pld"):
        """The accountant's (epsilon, delta) of the run (:meth:`MechanismDescription.account`)."""
        return self.mechanism().account(delta, method=method)


    # -- the audited pair ----------------------------------------------------------------------------------------
    def _pair(self, dataset, neighbour):
        """``(X, Y, i)``: both datasets prepared and the index of the one record where they differ (None if they
        differ in no record or in more than one)."""
        X, Y = self.prepare_data(dataset), self.prepare_data(neighbour)
        rows = np.flatnonzero(np.any(X.raw != Y.raw, axis=tuple(range(1, X.raw.ndim))))
        return X, Y, (int(rows[0]) if rows.size == 1 else None)

    def _record_gradients(self, data: Data, rows: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """Clipped gradients of records ``rows`` at each theta: ``(len(theta), len(rows), d)``."""
        idx = np.broadcast_to(np.asarray(rows), (theta.shape[0], len(rows)))
        g = per_record_gradients(self.model, data, idx, theta)
        return g if self._clip is None else clip_gradients(g, self._clip)

    def _probe_thetas(self) -> np.ndarray:
        d = self.model.dim
        offsets = np.vstack([np.zeros(d), 0.1 * np.eye(d), -0.1 * np.eye(d), 0.05 * np.ones(d)])
        return self.theta0 + offsets

    def verify_canary(self, dataset, neighbour) -> "CanaryCheck":
        """Whether (dataset, neighbour) is a *verified canary pair* for this sampler, and why not (a
        :class:`CanaryCheck`).

        A canary pair differs in one record i whose (clipped) gradient difference ``u = g_D(x_i) - g_D'(x_i)`` is
        the same at every probe point (theta0 and nearby points), and whose other records make the mini-batch
        mixture collapse to the dominating pair of the description: for the full batch nothing more; for
        fixed-size batches every other record equals the differing record on one side (its gradient then cancels
        exactly); for Poisson batches every other record, and the differing record on one side, has zero gradient
        (a null record, so the pair behaves as add/remove). Then each step's pair is exactly
        ``((1-q) N(m, s^2) + q N(m + c w u, s^2), N(m, s^2))`` (or its reverse), and the path's privacy loss is the
        description's with the sensitivity ``c w ||u||``.
        """
        X, Y, i = self._pair(dataset, neighbour)
        if i is None:
            return CanaryCheck(None, "the datasets must differ in exactly one record")
        probes = self._probe_thetas()
        gx = self._record_gradients(X, np.arange(X.N), probes)  # (probes, N, d)
        gy_i = self._record_gradients(Y, np.array([i]), probes)[:, 0]
        u = gx[:, i] - gy_i
        if not np.allclose(u, u[0], rtol=1e-9, atol=1e-12):
            spread = float(np.max(np.linalg.norm(u - u[0], axis=1)))
            return CanaryCheck(None, f"the gradient difference of record {i} changes with theta (by up to {spread:.3g} "
                               "over the probe points near theta0): not a canary")
        others = np.delete(gx, i, axis=1)
        if isinstance(self._sampling, FullBatch) or others.shape[1] == 0:
            pass
        elif isinstance(self._sampling, FixedSizeSampling):
            same_as = [np.allclose(others, side[:, None, :], rtol=1e-12, atol=1e-14) for side in (gx[:, i], gy_i)]
            if not any(same_as):
                return CanaryCheck(None, "with fixed-size batches every other record must have the gradient of the "
                                   f"differing record on one side (record {i} of the dataset or of the neighbour)")
        else:  # Poisson: null others and a null record on one side
            null_side = any(np.allclose(side, 0.0, atol=1e-14) for side in (gx[:, i], gy_i))
            if not (np.allclose(others, 0.0, atol=1e-14) and null_side):
                return CanaryCheck(None, "with Poisson batches every other record, and the differing record on one "
                                   "side, must have a zero gradient (null records)")
        return CanaryCheck(u[0], "")

    def canary_vector(self, dataset, neighbour) -> np.ndarray | None:
        """``u`` if (dataset, neighbour) is a verified canary pair for this sampler (:meth:`verify_canary`), else
        None."""
        return self.verify_canary(dataset, neighbour).difference

    def canary_deterministic_side(self, dataset, neighbour) -> str:
        """``"neighbour"`` or ``"dataset"``: the side of a verified canary pair whose batches all contribute the same
        (its other records are copies of its differing record, or null records with a null differing record; full
        batches: both, and the neighbour is returned)."""
        X, Y, i = self._pair(dataset, neighbour)
        if i is None:
            raise ValueError("the pair must differ in exactly one record")
        if isinstance(self._sampling, FullBatch) or X.N == 1:
            return "neighbour"
        probes = self._probe_thetas()
        gx = self._record_gradients(X, np.arange(X.N), probes)
        gy_i = self._record_gradients(Y, np.array([i]), probes)[:, 0]
        if isinstance(self._sampling, FixedSizeSampling):
            others = np.delete(gx, i, axis=1)
            return "neighbour" if np.allclose(others, gy_i[:, None, :], rtol=1e-12, atol=1e-14) else "dataset"
        return "neighbour" if np.allclose(gy_i, 0.0, atol=1e-14) else "dataset"

    def canary_shift(self, dataset, neighbour) -> float | None:
        """``||u||`` of a verified canary pair (:meth:`canary_vector`), else None."""
        u = self.canary_vector(dataset, neighbour)
        return None if u is None else float(np.linalg.norm(u))

    def canary_description(self, shift: float, direction: np.ndarray | None = None, *,
                           mechanism: MechanismDescription | None = None) -> MechanismDescription:
        """The description of the run on a canary pair with gradient difference ``shift``: every data term's
        sensitivity scaled by ``shift / record_sensitivity``; with ``direction`` (the difference vector), the linear
        dynamics along it (:meth:`linear_dynamics`), so that a final iterate or a sample set has its exact privacy.
        ``mechanism``: the run's description, when the caller has it already."""
        base = self.mechanism() if mechanism is None else mechanism
        dynamics = None if direction is None else self.linear_dynamics(direction)
        return base.scaled(shift / self.record_sensitivity, dynamics=dynamics)

    def linear_dynamics(self, direction: np.ndarray | None = None) -> LinearDynamics | None:
        """The run's :class:`~dpverify.calculus.linear_dynamics.LinearDynamics` along ``direction`` (None: along
        every direction, which needs an isotropic prior) when the model's potential is quadratic
        (:meth:`~dpverify.models.base.Model.quadratic_structure`) and the update is linear; None otherwise.
        Samplers with a linear update override :meth:`_dynamics_for`."""
        structure = self.model.quadratic_structure()
        if structure is None:
            return None
        precision = (structure.isotropic_precision() if direction is None
                     else structure.precision_along(direction))
        if precision is None:
            return None
        return self._dynamics_for(precision, structure.record_curvature)

    def _dynamics_for(self, prior_precision: float, record_curvature: float) -> LinearDynamics | None:
        """The dynamics for a quadratic potential with these curvatures (None: the update is not linear)."""
        return None

    def pair_privacy_loss(self, dataset, neighbour):
        """The pair's privacy loss for the budget ceiling (a
        :class:`~dpverify.calculus.mechanism_description.PairPrivacyLoss`): for a verified canary pair
        (:meth:`canary_vector`) the description's PLD with the canary's sensitivity -- exact for a path release, and
        for a final iterate or a sample set the exact privacy of the release when the chain is linear-Gaussian
        (:meth:`linear_dynamics`); else the mechanism's worst-case PLD of the path (an upper bound). None for a run
        without noise. Cached per pair."""
        key = (self._pair_key(dataset), self._pair_key(neighbour))
        cache = self.__dict__.setdefault("_pair_pld_cache", {})
        if key not in cache:
            cache[key] = self._canary_pld(dataset, neighbour)
        return cache[key]

    def __getstate__(self) -> dict:
        """Pickled without the per-pair cache of :meth:`pair_privacy_loss` (a PLD: about 2.8 MB for ``dp_sgld_path``'s
        pair), which a worker that draws and counts chunks never reads; where it is needed it is computed again. With
        it every Dask chunk task of a sampler audit carried the PLD to the workers."""
        state = dict(self.__dict__)
        state.pop("_pair_pld_cache", None)
        return state

    @staticmethod
    def _pair_key(data) -> tuple:
        arr = np.ascontiguousarray(np.asarray(getattr(data, "raw", data), dtype=float))
        return arr.shape, hash(arr.tobytes())

    def _canary_pld(self, dataset, neighbour):
        mechanism = self.mechanism()
        if not mechanism.is_private:
            return None
        u = self.canary_vector(dataset, neighbour)
        path = self.output == "path"
        what = release_name(self.output)
        if u is None:
            return PairPrivacyLoss(mechanism.pld(), "upper bound: the mechanism's worst-case PLD (the pair is "
                                   "not a verified canary)" + ("" if path else ", of the path"), exact=False)
        shift = float(np.linalg.norm(u))
        description = self.canary_description(shift, None if path else u, mechanism=mechanism)
        about = f"gradient difference {shift:.4g} of the sensitivity {self.record_sensitivity:.4g}"
        if path:
            return PairPrivacyLoss(description.pld(), f"canary pair PLD (exact): {about}", exact=True)
        exact = self._exact_release(description)
        if exact is not None:
            return PairPrivacyLoss(exact.pld, f"canary pair, exact {what} release (linear-Gaussian chain): {about}",
                                   exact=True)
        what = "final iterate" if self.output == "final" else what
        return PairPrivacyLoss(description.pld(), f"canary pair PLD (of the path: an upper bound for the {what}): "
                               f"{about}", exact=False)

    @staticmethod
    def _exact_release(description: MechanismDescription):
        """The description's exact release privacy, or None when it cannot be computed (no dynamics, a hidden
        momentum state with several windows, gains that change sign)."""
        if description.dynamics is None:
            return None
        try:
            return description.release_privacy()
        except ValueError:
            return None

    def release_log_likelihood_ratio(self, dataset, neighbour):
        """The white-box statistic of a released final iterate or sample set on a verified canary pair of a
        linear-Gaussian chain (:mod:`dpverify.samplers.release_statistic`)."""
        from dpverify.samplers.release_statistic import release_statistic

        return release_statistic(self, dataset, neighbour)

    def pair_guarantee(self, dataset, neighbour):
        """The pair's exact privacy-loss distribution (a path, or a final iterate / sample set of a linear-Gaussian
        chain, on a verified canary pair: :meth:`pair_privacy_loss` when it is exact); None otherwise."""
        loss = self.pair_privacy_loss(dataset, neighbour)
        return loss.pld if loss is not None and loss.exact else None

    def exact_epsilon(self, dataset, neighbour, delta: float) -> float | None:
        """On a verified canary pair, the pair's epsilon at ``delta`` from its privacy-loss distribution: the path
        (exact up to the PLD's discretisation), or a final iterate / sample set of a linear-Gaussian chain (the
        exact release privacy; the upper end of its bracket). None otherwise (the value is then unknown: the path's
        number is only an upper bound)."""
        if not delta > 0:
            return None
        loss = self.pair_privacy_loss(dataset, neighbour)
        return loss.epsilon(delta) if loss is not None and loss.exact else None


class LangevinSampler(GradientMechanism):
    """Samplers whose released state moves as

        theta_{t+1} = theta_t + c_t (w_prior grad log prior(theta_t) + w_data sum_{i in B_t} clip(grad log p(x_i | theta_t)))
                      + s_t xi_t,        xi_t ~ N(0, I_d),

    with B_t drawn by ``sampling`` (all records, Poisson with rate q, or b of N without replacement): DP-SGLD (Wang et
    al. 2015, Alg. 2; Li et al. 2019, Alg. 1), ULA and noisy SGD (Bertazzi et al. 2025, eqs. 25 and 31). The pieces
    are declared once by ``_setup_langevin``; the same numbers build the kernel that runs the chains (the batch's
    gradient estimator and :class:`~dpverify.samplers.integrators.EulerMaruyama` with the schedule ``(c_t, s_t)``)
    and give

    - :meth:`mechanism` -- the :class:`~dpverify.calculus.mechanism_description.MechanismDescription` of the run: step t
      releases a data term of sensitivity ``c_t w_data S`` (``S`` = the model's per-record gradient sensitivity under
      the neighbouring relation, clipped) with noise ``s_t``;
    - :meth:`account` -- the accountant's epsilon of the run (PLD of the path; an upper bound for a final release);
    - :meth:`pair_privacy_loss` -- the privacy-loss distribution of an audited pair when it is a verified canary;
    - ``log_likelihood_ratio`` -- for path releases, the white-box per-step mixture likelihood ratio of the path.
    """

    neighbouring: str

    def _setup_langevin(self, *, coefficients, noise_std, prior_weight: float, data_weight: float, sampling,
                        clip: float | None, neighbouring: str, source: str, release: str | None = None) -> None:
        """The declared mechanism (drift coefficients ``c_t``, noise scales ``s_t``, weights, batch scheme, clip
        level, neighbouring relation, release: ``"final"``, ``"path"`` or a
        :class:`~dpverify.calculus.releases.SampleSet` of exactly ``n_steps`` steps), then the kernel that runs it
        (:meth:`_langevin_kernel`)."""
        self._coef = np.broadcast_to(np.asarray(coefficients, dtype=float), (self.n_steps,)).copy()
        self._noise_std = np.broadcast_to(np.asarray(noise_std, dtype=float), (self.n_steps,)).copy()
        self._prior_weight = float(prior_weight)
        self._data_weight = float(data_weight)
        if not isinstance(sampling, (FullBatch, PoissonSampling, FixedSizeSampling)):
            raise TypeError(f"sampling must be a dpverify.calculus.mechanism_description sampling scheme; got {sampling!r}")
        self._sampling = sampling
        self._clip = clip
        self.neighbouring = neighbouring
        self._source = source
        if release is not None:
            self.output = parse_release(release)
        if isinstance(self.output, SampleSet) and self.output.n_steps != self.n_steps:
            raise ValueError(f"release {self.output.describe()} needs a run of burn_in + thin * count = "
                             f"{self.output.n_steps} steps; this run has n_steps = {self.n_steps}")
        self._set_kernel(*self._langevin_kernel())

    def _langevin_kernel(self) -> tuple[Kernel, Schedule]:
        """The kernel and schedule that run the declared mechanism: the batch scheme's gradient estimator with the
        declared weights and clip level, the Euler-Maruyama update, step sizes ``c_t`` and noise scales ``s_t``.
        (The known-bad variants of :mod:`dpverify.samplers.broken` override this and :meth:`start`, and only these.)"""
        estimator = estimator_for_sampling(self.model, self._sampling, prior_weight=self._prior_weight,
                                       data_weight=self._data_weight, clip=self._clip)
        return Kernel(estimator, EulerMaruyama()), Schedule(self.n_steps, step_size=self._coef, noise_std=self._noise_std)

    # -- mechanism description --------------------------------------------------------------------------------
    def mechanism(self):
        """The :class:`~dpverify.calculus.mechanism_description.MechanismDescription` of one run (class docstring),
        with its linear dynamics when the model's potential is quadratic and its prior isotropic
        (:meth:`linear_dynamics`)."""
        sens = self.record_sensitivity * self._data_weight
        # (run-length encoded from the arrays: a run of 10^6 steps builds one object per run of equal steps)
        steps = describe_gaussian_steps(np.asarray(self._coef, dtype=float) * sens, self._noise_std, self._sampling)
        return MechanismDescription(steps, self.neighbouring, check_release(self.output), self._source,
                                    dynamics=self.linear_dynamics())

    def _dynamics_for(self, prior_precision: float, record_curvature: float) -> LinearDynamics | None:
        """Euler-Maruyama on a quadratic potential: ``rho_t = 1 - c_t (w_prior lam_0 + w_data n_batch kappa)``
        (:mod:`dpverify.calculus.linear_dynamics`). A per-record curvature ``kappa > 0`` needs a fixed batch size
        (full or fixed-size batches) and no clipping, or the update is not linear with data-independent
        coefficients; then None."""
        if record_curvature > 0:
            if self._clip is not None or isinstance(self._sampling, PoissonSampling):
                return None
            n_batch = self.N if isinstance(self._sampling, FullBatch) else self._sampling.batch_size
        else:
            n_batch = 0
        lam = self._prior_weight * prior_precision + self._data_weight * n_batch * record_curvature
        return LinearDynamics.contraction(1.0 - self._coef * lam, source=f"{self._source}, Euler-Maruyama")

    # -- white-box statistics --------------------------------------------------------------------------------------
    @property
    def log_likelihood_ratio(self):
        """``(dataset, neighbour) -> statistic``: for path releases the per-step mixture log-likelihood ratio of
        released paths (:meth:`path_log_likelihood_ratio`); for a final iterate or a sample set on a quadratic model,
        the release's exact log-likelihood ratio (:meth:`release_log_likelihood_ratio`, which raises a ``ValueError``
        for a pair that is not a verified canary: the auditor then uses its black-box statistics only); None
        otherwise."""
        if self.output == "path":
            return self.path_log_likelihood_ratio
        return self.release_log_likelihood_ratio if self.model.quadratic_structure() is not None else None


    def path_log_likelihood_ratio(self, dataset, neighbour) -> PathLogLikelihoodRatio:
        """The white-box Neyman-Pearson statistic of a released path ``(theta_0, ..., theta_T)``:

            sum_t log [q phi_s(theta_{t+1} - m_in^D) + (1-q) phi_s(theta_{t+1} - m_out)]
                  - log [q phi_s(theta_{t+1} - m_in^D') + (1-q) phi_s(theta_{t+1} - m_out)],

        where ``m_in`` is the step mean when the differing record i is in the batch and ``m_out`` when it is not,
        with the other records' contribution replaced by its expectation (their mean clipped gradient times the
        expected number of them in the batch). For the full batch (q = 1) it is the Gaussian log-likelihood ratio.
        Exact for verified canary pairs (:meth:`canary_shift`); a valid (if less powerful) statistic for any pair.
        Needs the pair to differ in exactly one record. Returns a :class:`PathLogLikelihoodRatio`.
        """
        return PathLogLikelihoodRatio(self, dataset, neighbour)


class PathLogLikelihoodRatio:
    """The white-box path statistic of :meth:`LangevinSampler.path_log_likelihood_ratio` for one pair: a
    callable ``paths (n, T + 1, d) -> (n,)`` on numpy paths (in blocks of about 2 x 10^6 elements) or on another
    backend's paths, which stay on their device (``backend_generic``; in blocks of :data:`DEVICE_BLOCK_ELEMENTS`). Both
    evaluate the same sum with the same terms: the step means with the differing record in the batch on either side
    and without it (:func:`_step_log_likelihood_ratio`), the other records' clipped gradients at the current iterate
    summed once per distinct record with its multiplicity."""

    description = "white-box path log-likelihood ratio (per-step Gaussian mixture)"
    #: takes torch paths too, and keeps them on their device (:class:`dpverify.audit.chunk_work.DeviceChunk`)
    backend_generic = True

    def __init__(self, sampler: LangevinSampler, dataset, neighbour):
        X, Y, i = sampler._pair(dataset, neighbour)
        if i is None:
            raise ValueError("the white-box path statistic needs a pair that differs in exactly one record")
        self.sampler, self.X, self.Y, self.i = sampler, X, Y, i
        self.T, self.d = sampler.n_steps, sampler.model.dim
        self.others = np.delete(np.arange(X.N), i)
        _, first, self.counts = np.unique(X.raw[self.others], axis=0, return_index=True, return_counts=True)
        self.rep = self.others[first]  # one index per distinct other record, with its multiplicity
        s = sampler._sampling
        q = s.rate
        if isinstance(s, FullBatch):
            self.k_in = self.k_out = X.N - 1
        elif isinstance(s, FixedSizeSampling):
            self.k_in, self.k_out = s.batch_size - 1, s.batch_size
        else:
            self.k_in = self.k_out = (X.N - 1) * q
        self.q = q
        self.log_q = math.log(q) if q < 1 else 0.0
        self.log_1mq = math.log1p(-q) if q < 1 else -math.inf

    def __call__(self, paths):
        if is_device_array(paths):
            return self._on_device(paths)
        return self._on_host(paths)

    def _check_shape(self, shape) -> None:
        if len(shape) != 3 or tuple(shape[1:]) != (self.T + 1, self.d):
            raise ValueError(f"outputs must be paths of shape (n, {self.T + 1}, {self.d}); got {tuple(shape)}")

    def _on_host(self, paths) -> np.ndarray:
        paths = np.asarray(paths, dtype=float)
        self._check_shape(paths.shape)
        sm, X, Y, i, T, d = self.sampler, self.X, self.Y, self.i, self.T, self.d
        coef, std, w = sm._coef, sm._noise_std, sm._data_weight
        block = max(1, 2_000_000 // max(1, (len(self.rep) + 2) * d * T))
        out = np.empty(paths.shape[0])
        for lo in range(0, paths.shape[0], block):
            p = paths[lo:lo + block]
            theta = p[:, :-1].reshape(-1, d)
            nxt = p[:, 1:].reshape(-1, d)
            c = np.tile(coef, p.shape[0])[:, None]
            var2 = 2.0 * np.tile(std, p.shape[0]) ** 2
            prior = sm._prior_weight * sm.model.grad_log_prior(theta)
            g_o = ((sm._record_gradients(X, self.rep, theta) * self.counts[None, :, None]).sum(axis=1)
                   / max(1, len(self.others)))
            g_x = sm._record_gradients(X, np.array([i]), theta)[:, 0]
            g_y = sm._record_gradients(Y, np.array([i]), theta)[:, 0]
            base_in = theta + c * (prior + w * self.k_in * g_o)
            r_x = np.sum((nxt - base_in - c * w * g_x) ** 2, axis=1)
            r_y = np.sum((nxt - base_in - c * w * g_y) ** 2, axis=1)
            r_o = None if self.q >= 1 else np.sum((nxt - theta - c * (prior + w * self.k_out * g_o)) ** 2, axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                llr = _step_log_likelihood_ratio(r_x, r_y, r_o, var2, self.log_q, self.log_1mq, np.logaddexp)
            out[lo:lo + block] = llr.reshape(p.shape[0], T).sum(axis=1)
        return out

    def _on_device(self, paths):
        """The same sum on another backend's paths (:mod:`dpverify.backends`): the other records' mean gradient as
        the model's dense weighted sum over the distinct records (weights = multiplicities), in blocks of chains
        whose ``(block T, distinct records)`` margins fit :data:`DEVICE_BLOCK_ELEMENTS`."""
        xp = backend_of(paths)
        self._check_shape(paths.shape)
        sm, X, Y, i, T, d = self.sampler, self.X, self.Y, self.i, self.T, self.d
        model, clip, w = sm.model, sm._clip, sm._data_weight
        z_rep = xp.asarray(X.prepared[self.rep])
        mult = xp.asarray(self.counts.astype(float))[None, :]
        z_x, z_y = xp.asarray(X.prepared[i:i + 1]), xp.asarray(Y.prepared[i:i + 1])
        coef_t, var2_t = xp.asarray(sm._coef)[None, :], xp.asarray(2.0 * sm._noise_std**2)[None, :]
        dev_block = max(1, DEVICE_BLOCK_ELEMENTS // max(1, (len(self.rep) + 2 + d) * T))
        out = xp.zeros((paths.shape[0],))
        for lo in range(0, paths.shape[0], dev_block):
            p = paths[lo:lo + dev_block]
            nb = p.shape[0]
            theta = p[:, :-1].reshape(-1, d)
            nxt = p[:, 1:].reshape(-1, d)
            c = coef_t.expand(nb, T).reshape(-1, 1)
            var2 = var2_t.expand(nb, T).reshape(-1)
            prior = sm._prior_weight * model.dense_grad_log_prior(theta)
            g_o = (model.dense_gradient_sum(z_rep, theta, mult.expand(theta.shape[0], -1), clip)
                   / max(1, len(self.others)))
            g_x = model.dense_gradient_sum(z_x, theta, None, clip)
            g_y = model.dense_gradient_sum(z_y, theta, None, clip)
            base_in = theta + c * (prior + w * self.k_in * g_o)
            r_x = ((nxt - base_in - c * w * g_x) ** 2).sum(1)
            r_y = ((nxt - base_in - c * w * g_y) ** 2).sum(1)
            r_o = None if self.q >= 1 else ((nxt - theta - c * (prior + w * self.k_out * g_o)) ** 2).sum(1)
            llr = _step_log_likelihood_ratio(r_x, r_y, r_o, var2, self.log_q, self.log_1mq, xp.logaddexp)
            out[lo:lo + nb] = llr.reshape(nb, T).sum(1)
        return out

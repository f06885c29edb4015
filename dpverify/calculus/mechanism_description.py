"""What a released output is made of: mechanism descriptions, in the spirit of dp_accounting's ``DpEvent`` algebra.

A description is a small immutable value that says, for one run of a sampler, which private releases its output
is built from, so that several calculators can consume the same data: a numeric accountant (RDP or PLD), the
budget ceiling of an audit, a cross-check against dp-accounting. It is computed by the sampler from the very
numbers its update uses (step sizes, batch weights, clip level or Lipschitz constant, noise standard deviations),
so the description cannot drift from the code.

Vocabulary (one word per concept):

- a **step** releases a data term plus Gaussian noise, :class:`GaussianStep`
  ``(sensitivity, noise_std, sampling)``: the L2 sensitivity of the data term under the description's
  neighbouring relation (add/remove: the largest norm of one record's term; replace-one: the largest norm of the
  difference of two records' terms), the standard deviation of the isotropic noise, and how the records entering
  the step are chosen (:class:`FullBatch`, :class:`PoissonSampling` with a rate, :class:`FixedSizeSampling`
  without replacement); or a release with a pure-DP guarantee only, :class:`PureDPStep` (e.g. a one-posterior-
  sample draw);
- a **run** composes steps adaptively, in order: :class:`MechanismDescription` holds them run-length encoded
  (:class:`Repeated`), with the ``neighbouring`` relation and the ``release`` (:mod:`dpverify.calculus.releases`):
  ``"path"`` (every iterate is published: the run *is* the adaptive composition), ``"final"`` (only the last
  iterate) or a :class:`~dpverify.calculus.releases.SampleSet` (the iterates kept after burn-in and thinning). A
  final iterate or a sample set is a post-processing of the path, so any accountant of the path is an upper bound
  (Dwork & Roth 2014, Prop. 2.1);
- a run on a quadratic potential also carries its **dynamics** (:class:`~dpverify.calculus.linear_dynamics.LinearDynamics`:
  how each step's data term reaches the released coordinate); then the exact privacy of a final iterate or a sample
  set is computable (:mod:`dpverify.calculus.accounting.release`), and :meth:`MechanismDescription.account` returns
  it where it is the mechanism's worst case.

Dominating pairs (per step, noise scaled to 1, ``mu = sensitivity / noise_std``):

- full batch: ``N(mu, 1)`` vs ``N(0, 1)`` under either relation;
- Poisson sampling with rate q, add/remove: ``(1 - q) N(0,1) + q N(mu,1)`` vs ``N(0,1)`` and the reverse
  (Mironov, Talwar, Zhang 2019; Zhu, Dong, Wang 2022, AISTATS);
- fixed-size sampling of b out of N without replacement, replace-one: the same mixture with ``q = b/N`` and the
  replace-one sensitivity (Balle, Barthe, Gaboardi 2018, NeurIPS, Thm 9; Zhu, Dong, Wang 2022).

Poisson sampling under replace-one and fixed-size sampling under add/remove are refused with a clear error
(dp-accounting's RDP accountant refuses the same combinations).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Iterator, Union

import numpy as np

from dpverify.validation import check_positive_int, check_real, check_sampling_rate
from dpverify.calculus.linear_dynamics import LinearDynamics
from dpverify.calculus.releases import ReleaseSpec, check_release, release_name
from dpverify.calculus.vocabulary import NeighbouringRelation, Release

if TYPE_CHECKING:
    from dpverify.calculus.accounting.pld import PrivacyLossDistribution
    from dpverify.calculus.accounting.release import ReleasePrivacy
    from dpverify.calculus.guarantees import Conversion

__all__ = [
    "NEIGHBOURING",
    "RELEASES",
    "FullBatch",
    "PoissonSampling",
    "FixedSizeSampling",
    "GaussianStep",
    "PureDPStep",
    "Repeated",
    "MechanismDescription",
    "PairPrivacyLoss",
    "describe_steps",
    "describe_gaussian_steps",
]

#: Neighbouring relations: add or remove one record; replace one record (dataset size public)
#: (:class:`~dpverify.calculus.vocabulary.NeighbouringRelation`).
NEIGHBOURING = NeighbouringRelation.values()
#: What a chain releases, by name (:class:`~dpverify.calculus.vocabulary.Release`; a
#: :class:`~dpverify.calculus.releases.SampleSet` is the third kind).
RELEASES = Release.values()


@dataclass(frozen=True)
class FullBatch:
    """Every record enters every step."""

    @property
    def rate(self) -> float:
        return 1.0

    def describe(self) -> str:
        return "full batch"


@dataclass(frozen=True)
class PoissonSampling:
    """Each record enters each step independently with probability ``rate`` (Li et al. 2019, Alg. 1 step 2)."""

    rate: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", check_sampling_rate(self.rate, "rate"))

    def describe(self) -> str:
        return f"Poisson rate {self.rate:.4g}"


@dataclass(frozen=True)
class FixedSizeSampling:
    """A uniform ``batch_size``-subset of the ``population`` records, without replacement
    (Wang et al. 2015, Alg. 2 step 1; Bertazzi et al. 2025, eq. 31)."""

    batch_size: int
    population: int

    def __post_init__(self) -> None:
        b = check_positive_int(self.batch_size, "batch_size")
        n = check_positive_int(self.population, "population")
        if b > n:
            raise ValueError(f"batch_size must be <= population = {n}; got {b}")
        object.__setattr__(self, "batch_size", b)
        object.__setattr__(self, "population", n)

    @property
    def rate(self) -> float:
        return self.batch_size / self.population

    def describe(self) -> str:
        return f"{self.batch_size} of {self.population} without replacement"


Sampling = Union[FullBatch, PoissonSampling, FixedSizeSampling]


@dataclass(frozen=True)
class GaussianStep:
    """One release: a data term of L2 ``sensitivity`` plus ``N(0, noise_std^2 I)``, on the records ``sampling``
    chooses. ``noise_std = 0`` is allowed (no privacy: infinite privacy loss). ``label`` names the released
    quantity when a step releases several (e.g. DP-SGFS's gradient and covariance)."""

    sensitivity: float
    noise_std: float
    sampling: Sampling = FullBatch()
    label: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "sensitivity", check_real("sensitivity", self.sensitivity, low=0.0))
        object.__setattr__(self, "noise_std", check_real("noise_std", self.noise_std, low=0.0))
        if not isinstance(self.sampling, (FullBatch, PoissonSampling, FixedSizeSampling)):
            raise TypeError(f"sampling must be FullBatch, PoissonSampling or FixedSizeSampling; got {self.sampling!r}")

    @property
    def mu(self) -> float:
        """sensitivity / noise_std (the Gaussian privacy parameter of the step; inf without noise)."""
        if self.sensitivity == 0:
            return 0.0
        return math.inf if self.noise_std == 0 else self.sensitivity / self.noise_std

    @property
    def noise_multiplier(self) -> float:
        """noise_std / sensitivity (dp-accounting's and Abadi et al.'s sigma)."""
        return 1.0 / self.mu if self.mu else math.inf

    def scaled(self, factor: float) -> "GaussianStep":
        """The same step with the sensitivity multiplied by ``factor`` (e.g. a pair attaining part of it)."""
        return GaussianStep(self.sensitivity * factor, self.noise_std, self.sampling, self.label)


@dataclass(frozen=True)
class PureDPStep:
    """A release with an epsilon-DP guarantee and nothing more known (e.g. one posterior sample,
    Wang et al. 2015, Thm 1); accounted as the worst pair of pure epsilon-DP (randomized response)."""

    epsilon: float
    label: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_real("epsilon", self.epsilon, low=0.0))

    def scaled(self, factor: float) -> "PureDPStep":
        return self


Step = Union[GaussianStep, PureDPStep]


@dataclass(frozen=True)
class Repeated:
    """``count`` consecutive identical steps."""

    step: Step
    count: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "count", check_positive_int(self.count, "count"))


@dataclass(frozen=True)
class PairPrivacyLoss:
    """The privacy-loss distribution of one audited pair, with what it is: ``exact`` (the pair's own law, e.g. a
    verified canary's path) or an upper bound (``exact=False``: the mechanism's worst case, or the path's law for a
    final release) -- an upper bound on the privacy loss gives an upper bound on the budget ceiling, which can only
    prove an audit inconclusive, never conclusive. ``masses()`` feeds :mod:`dpverify.audit.ceiling`."""

    pld: PrivacyLossDistribution
    basis: str
    exact: bool

    def masses(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
        return self.pld.masses()

    def epsilon(self, delta: float) -> float:
        return float(self.pld.epsilon(delta))


def describe_steps(steps: Iterable[Step]) -> tuple[Repeated, ...]:
    """Run-length encode a sequence of steps (equal consecutive steps become one :class:`Repeated`)."""
    out: list[Repeated] = []
    for s in steps:
        if out and out[-1].step == s:
            out[-1] = Repeated(s, out[-1].count + 1)
        else:
            out.append(Repeated(s, 1))
    return tuple(out)


def describe_gaussian_steps(sensitivities, noise_stds, sampling: Sampling = FullBatch(),
                            label: str = "") -> tuple[Repeated, ...]:
    """``describe_steps(GaussianStep(d, s, sampling, label) for d, s in zip(sensitivities, noise_stds))``, without
    building one object per step: the arrays are run-length encoded with numpy and one :class:`GaussianStep` is built
    per run of equal steps. The same values, in the same order (each number is the float the generator would pass);
    a run of 10^6 steps is described in milliseconds instead of seconds. A value :class:`GaussianStep` rejects is
    rejected with its message."""
    try:
        d = np.asarray(sensitivities, dtype=float).reshape(-1)
        s = np.asarray(noise_stds, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        return describe_steps(GaussianStep(a, b, sampling, label) for a, b in zip(sensitivities, noise_stds))
    if d.shape != s.shape or not (np.all(np.isfinite(d) & (d >= 0)) and np.all(np.isfinite(s) & (s >= 0))):
        return describe_steps(GaussianStep(float(a), float(b), sampling, label) for a, b in zip(d, s))
    if d.size == 0:
        return ()
    d, s = d + 0.0, s + 0.0  # -0.0 reads as 0.0, as check_real returns it
    starts = np.flatnonzero(np.concatenate(([True], (d[1:] != d[:-1]) | (s[1:] != s[:-1]))))
    counts = np.diff(np.append(starts, d.size))
    return tuple(Repeated(GaussianStep(float(d[i]), float(s[i]), sampling, label), int(n))
                 for i, n in zip(starts.tolist(), counts.tolist()))


@dataclass(frozen=True)
class MechanismDescription:
    """The privacy-relevant structure of one run (module docstring).

    ``steps``: the releases in order (run-length encoded); ``neighbouring``: the relation under which the
    sensitivities hold; ``release``: ``"path"``, ``"final"`` or a :class:`~dpverify.calculus.releases.SampleSet`;
    ``source``: the paper and item the update comes from; ``per_iteration``: releases per chain iteration (2 for
    DP-SGFS: gradient and covariance); ``dynamics``: the run's linear dynamics when the potential is quadratic (one
    step per Gaussian step), else None.
    ``neighbouring`` and a named ``release`` are stored as members of
    :class:`~dpverify.calculus.vocabulary.NeighbouringRelation` and :class:`~dpverify.calculus.vocabulary.Release`
    (strings equal to their values).
    The accountants consume a description as dp_accounting's consume a ``DpEvent``
    (``PldAccountant().compose(description)``, ``RdpAccountant().compose(description)``); the description calls none
    of them: :meth:`pld`, :meth:`rdp`, :meth:`release_privacy`, :meth:`exact_release` and :meth:`account` delegate
    to :mod:`dpverify.calculus.accounting.descriptions`, which reads the description and asks the accountants.
    """

    steps: tuple
    neighbouring: str
    release: ReleaseSpec
    source: str = ""
    per_iteration: int = 1
    notes: tuple = field(default_factory=tuple)
    dynamics: LinearDynamics | None = None

    def __post_init__(self) -> None:
        if self.neighbouring not in NEIGHBOURING:
            raise ValueError(f"neighbouring must be one of {NEIGHBOURING}; got {self.neighbouring!r}")
        check_release(self.release)
        steps = tuple(s if isinstance(s, Repeated) else Repeated(s) for s in self.steps)
        if not steps:
            raise ValueError("a mechanism description needs at least one step")
        for r in steps:
            if isinstance(r.step, GaussianStep):
                self._check_supported(r.step.sampling)
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "notes", tuple(self.notes))
        if self.dynamics is not None:
            if not isinstance(self.dynamics, LinearDynamics):
                raise TypeError(f"dynamics must be a LinearDynamics or None; got {self.dynamics!r}")
            n = sum(r.count for r in steps)
            if self.dynamics.n_steps != n:
                raise ValueError(f"the dynamics has {self.dynamics.n_steps} steps; the run has {n}")
        object.__setattr__(self, "neighbouring", NeighbouringRelation(self.neighbouring))
        object.__setattr__(self, "release", check_release(self.release))

    def _check_supported(self, sampling: Sampling) -> None:
        if isinstance(sampling, PoissonSampling) and self.neighbouring == "replace_one" and sampling.rate < 1:
            raise ValueError("Poisson sampling is described under add/remove adjacency only (its replace-one "
                             "dominating pair depends on the record domain); use neighbouring='add_remove'")
        if isinstance(sampling, FixedSizeSampling) and self.neighbouring == "add_remove" and sampling.rate < 1:
            raise ValueError("fixed-size sampling without replacement is described under replace-one adjacency "
                             "only (Balle, Barthe, Gaboardi 2018); use neighbouring='replace_one'")

    # -- reading -------------------------------------------------------------------------------------------------
    def __iter__(self) -> Iterator[Step]:
        for r in self.steps:
            for _ in range(r.count):
                yield r.step

    @property
    def n_releases(self) -> int:
        return sum(r.count for r in self.steps)

    @property
    def is_private(self) -> bool:
        """False when some Gaussian step has no noise but a positive sensitivity (infinite privacy loss)."""
        return all(not (isinstance(r.step, GaussianStep) and math.isinf(r.step.mu)) for r in self.steps)

    def scaled(self, factor: float, *, dynamics: LinearDynamics | None = None) -> "MechanismDescription":
        """Every Gaussian sensitivity multiplied by ``factor`` (a pair that attains that fraction of it); with
        ``dynamics``, those dynamics instead of the run's (e.g. along the pair's own direction)."""
        factor = check_real("factor", factor, low=0.0)
        return MechanismDescription(tuple(Repeated(r.step.scaled(factor), r.count) for r in self.steps),
                                    self.neighbouring, self.release, self.source, self.per_iteration, self.notes,
                                    self.dynamics if dynamics is None else dynamics)

    def with_release(self, release: Release) -> "MechanismDescription":
        """The same run with another release (e.g. the final iterate of a path-releasing sampler)."""
        return MechanismDescription(self.steps, self.neighbouring, check_release(release), self.source,
                                    self.per_iteration, self.notes, self.dynamics)

    def summary(self) -> str:
        """One line: the steps, compressed."""
        parts = []
        for r in self.steps:
            s = r.step
            if isinstance(s, PureDPStep):
                parts.append(f"{r.count} x pure {s.epsilon:.4g}-DP{' ' + s.label if s.label else ''}")
            else:
                parts.append(f"{r.count} x Gaussian(mu={s.mu:.4g}, {s.sampling.describe()}"
                             f"{', ' + s.label if s.label else ''})")
        if len(parts) > 4:
            parts = parts[:2] + [f"... ({len(parts) - 3} more groups)"] + parts[-1:]
        dyn = "" if self.dynamics is None else f"; {self.dynamics.describe()}"
        return f"{release_name(self.release)} of " + " + ".join(parts) + f" [{self.neighbouring}{dyn}]"

    def to_dict(self) -> dict:
        return {"release": release_name(self.release), "neighbouring": self.neighbouring, "source": self.source,
                "releases": self.n_releases, "per_iteration": self.per_iteration, "summary": self.summary(),
                "notes": list(self.notes),
                "dynamics": None if self.dynamics is None else self.dynamics.describe()}

    # -- what the accountants answer (delegations: the description calls no accountant) --------------------------
    def rdp(self, orders) -> np.ndarray:
        """RDP of the path at each order: per step ``alpha mu^2 / 2`` (full batch) or the exact RDP of the
        subsampled Gaussian (:func:`dpverify.calculus.accounting.sampled_gaussian.rdp_sampled_gaussian`), summed
        (Mironov 2017, Prop. 1); pure epsilon-DP steps contribute ``min(eps, alpha eps^2 / 2)`` (Bun & Steinke
        2016, Prop. 1.4 with Mironov 2017, Prop. 3's bound eps at every order). The same as
        :func:`dpverify.calculus.accounting.descriptions.description_rdp` (the
        :class:`~dpverify.calculus.accounting.accountant.RdpAccountant` composing this description)."""
        from dpverify.calculus.accounting.descriptions import description_rdp

        return description_rdp(self, orders)

    def pld(self, *, interval: float | None = None) -> PrivacyLossDistribution:
        """The privacy-loss distribution of the path (:mod:`dpverify.calculus.accounting.pld`): the composition, in
        order, of every step's dominating pair (module docstring), by the
        :class:`~dpverify.calculus.accounting.pld.PldAccountant`; an upper bound for a final release. Computed
        once per distinct run (:func:`dpverify.calculus.accounting.descriptions.description_pld`)."""
        from dpverify.calculus.accounting.descriptions import description_pld

        return description_pld(self, interval=interval)

    def release_privacy(self, **kwargs) -> ReleasePrivacy:
        """The exact privacy of this run's release when the run has linear dynamics (a
        :class:`~dpverify.calculus.accounting.release.ReleasePrivacy`: PLD with a rigorous bracket, and whether it is
        the mechanism's worst case); a ``ValueError`` says why when it cannot be computed (no dynamics, a path release,
        a hidden momentum state with several windows, a pure-DP step). ``kwargs``: the PLD's ``interval``,
        ``tail_mass``, ``shift_tolerance``
        (:func:`dpverify.calculus.accounting.descriptions.description_release_privacy`)."""
        from dpverify.calculus.accounting.descriptions import description_release_privacy

        return description_release_privacy(self, **kwargs)

    def steps_expanded(self) -> tuple:
        """Every step of the run in order (the run-length encoding undone)."""
        return tuple(self)

    def exact_release(self) -> ReleasePrivacy | None:
        """:meth:`release_privacy` when it is the mechanism's worst case, else None (never raises;
        :func:`dpverify.calculus.accounting.descriptions.exact_release`)."""
        from dpverify.calculus.accounting.descriptions import exact_release

        return exact_release(self)

    def account(self, delta: float, *, method: str = "pld") -> Conversion:
        """The accountant's (epsilon, delta) of this run as a :class:`~dpverify.calculus.guarantees.Conversion`:
        ``method="pld"`` (tight, with ``epsilon_lower`` the lower end of its error bracket) or ``"rdp"``
        (exact RDP over :data:`dpverify.calculus.accounting.DEFAULT_ORDERS`, Balle et al. 2020 conversion).

        For a final iterate or a sample set: with ``method="pld"``, the exact privacy of the release when the run has
        linear dynamics and the computed pair is the mechanism's worst case (:meth:`exact_release`; ``method`` then
        reads "exact final release ..."); otherwise the path's number, an upper bound (post-processing of the path),
        and ``method`` says so (:func:`dpverify.calculus.accounting.descriptions.account`)."""
        from dpverify.calculus.accounting.descriptions import account

        return account(self, delta, method=method)

    def to_dp_event(self):
        """The same run as a dp-accounting ``DpEvent`` (for cross-checks; needs the ``dp-accounting`` package).
        Fixed-size steps become ``SampledWithoutReplacementDpEvent``, Poisson steps ``PoissonSampledDpEvent``,
        pure-DP steps ``EpsilonDeltaDpEvent``."""
        import dp_accounting as dpa

        events = []
        for r in self.steps:
            s = r.step
            if isinstance(s, PureDPStep):
                ev = dpa.EpsilonDeltaDpEvent(s.epsilon, 0.0)
            else:
                base = dpa.GaussianDpEvent(s.noise_multiplier)
                if isinstance(s.sampling, PoissonSampling):
                    ev = dpa.PoissonSampledDpEvent(s.sampling.rate, base)
                elif isinstance(s.sampling, FixedSizeSampling):
                    ev = dpa.SampledWithoutReplacementDpEvent(s.sampling.population, s.sampling.batch_size, base)
                else:
                    ev = base
            events.append(dpa.SelfComposedDpEvent(ev, r.count) if r.count > 1 else ev)
        return events[0] if len(events) == 1 else dpa.ComposedDpEvent(events)

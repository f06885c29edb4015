"""The sampler interface: pure init/step kernels over a batch of chains, and the mechanism call.

Every sampler is a small object built from a model and its parameters. Shapes: the leading
axis is always the chain (independent run) axis.

- ``init(dataset, n_chains, rng) -> state``: the initial state of ``n_chains`` chains.
- ``step(state, dataset, rng) -> state``: one transition of every chain at once (pure: returns
  a new state, never mutates; randomness only from ``rng``, a ``numpy.random.Generator``).
- ``sample(dataset, n, rng) -> np.ndarray``: ``n`` independent outputs stacked on axis 0: the final
  state (``output == "final"``), the whole path (``"path"``, shape ``(n, steps + 1, d)``), one
  posterior draw (``"sample"``) or a released statistic (``"statistic"``).
- ``__call__(dataset, n, rng)`` is ``sample``: a sampler *is* an audit mechanism.
- ``guarantee() -> Claim``: the privacy the theorem(s) in ``theorems`` promise for these
  parameters, evaluated through the theorem catalogue with the hypotheses checked. A
  :class:`~dpverify.calculus.guarantees.Claim` *is* an (epsilon, delta) guarantee of the calculus, with its
  provenance.

The gradient samplers build their ``init``/``step`` from a kernel (:mod:`dpverify.samplers.kernels`: a gradient
estimator and an integrator, run under a step-size schedule) and keep their privacy budget apart from it.

Construction validates parameters; parameters that break a theorem's hypotheses raise
``ValueError`` naming the hypothesis, unless ``unguaranteed=True`` (then ``guarantee()``
returns a claim with ``guaranteed=False``).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from dpverify.calculus.guarantees import Claim
from dpverify.calculus.releases import SampleSet

__all__ = ["Claim", "Sampler", "OUTPUT_KINDS"]

OUTPUT_KINDS = ("final", "path", "sample", "statistic")


class Sampler(ABC):
    """Base class of the reference samplers.

    Subclasses set the class attributes ``id`` (registry ID), ``theorems`` (catalogue IDs),
    ``output`` (one of :data:`OUTPUT_KINDS`) and ``description``.
    """

    id: ClassVar[str]
    theorems: ClassVar[tuple[str, ...]]
    #: one of :data:`OUTPUT_KINDS`, set on the class; a gradient sampler built with a ``release`` sets its own on the
    #: instance (``"final"``, ``"path"`` or a :class:`~dpverify.calculus.releases.SampleSet`)
    output: str | SampleSet
    description: ClassVar[str] = ""

    @staticmethod
    def _rng(rng: Any) -> np.random.Generator:
        if isinstance(rng, np.random.Generator):
            return rng
        if rng is None or isinstance(rng, (int, np.integer)):
            return np.random.default_rng(rng)
        raise TypeError(f"rng must be a numpy.random.Generator or an integer seed; got {type(rng).__name__}")

    @abstractmethod
    def sample(self, dataset, n: int, rng) -> np.ndarray:
        """``n`` independent outputs on ``dataset``, stacked on axis 0."""

    @abstractmethod
    def guarantee(self) -> Claim:
        """The claimed privacy for these parameters (through the theorem catalogue)."""

    def __call__(self, dataset, n: int, rng) -> np.ndarray:
        return self.sample(dataset, n, rng)

    def pair_guarantee(self, dataset, neighbour):
        """The exact privacy of this sampler's output on the pair (dataset, neighbour) as a guarantee object of the
        calculus (a :class:`~dpverify.calculus.tradeoff.GaussianDP` or :class:`~dpverify.calculus.tradeoff.LaplaceDP`
        curve, the pair's :class:`~dpverify.calculus.accounting.pld.PrivacyLossDistribution`, ...) when it is known;
        None otherwise (the default). What the audit suite tests an implementation against
        (:func:`dpverify.interfaces.suite.run_case`)."""
        return None

    def params(self) -> dict:
        """The parameters this sampler was built with (for reports)."""
        return {k: v for k, v in vars(self).items() if not k.startswith("_") and not callable(v)}

"""The privacy accountants dp-accounting and prv-accountant, audited against dpverify's rigorous accounting.

An accountant releases no data, so there is nothing to sample: each catalogue entry (:class:`AccountantQuery`) is
one *query* of the library (a mechanism, a composition, a target delta) and its answer, an epsilon, is checked
against dpverify's *bracket* ``[lower, upper]`` of the true epsilon(delta) of the same mechanism:

- the Gaussian mechanism (noise multiplier ``sigma``, sensitivity 1, mu = 1/sigma): the exact epsilon(delta) of
  Balle and Wang (2018, ICML, "Improving the Gaussian mechanism for differential privacy", Theorem 8), solved to
  ``rtol`` 1e-13 (:func:`dpverify.calculus.mechanisms.gaussian.gaussian_epsilon`); the bracket is that root
  widened by 1e-10 relative;
- the Laplace mechanism (scale b, sensitivity 1, eps0 = 1/b), once: exactly ``eps0 + 2 log(1 - delta)``, from
  delta(eps) = 1 - exp((eps - eps0)/2) on [0, eps0] (the hockey-stick divergence of Lap(0, b) vs Lap(1, b),
  integrated in closed form; the law is in the docstring of :func:`laplace_pld`);
- compositions (Laplace k times, Poisson-subsampled Gaussian k times, heterogeneous mixes): dpverify's PLD
  accountant (:mod:`dpverify.calculus.accounting.pld`), whose ``epsilon_bounds`` bracket is rigorous up to
  floating point; the Laplace steps enter as :func:`laplace_pld` (the P-law of the Laplace loss on the grid,
  rounded up for the upper law and down for the lower, facts 2 and 1 of that module).

Verdicts (one :class:`~dpverify.libraries.runner.LibraryResult` per query, no sampling):

- the library's answer below dpverify's lower end is **under-reporting** (verdict "violation", label
  "finding"): the library states a guarantee the mechanism does not have. For prv-accountant the answer audited
  is its ``eps_upper`` (what it states as an upper bound); its estimate and its ``eps_lower`` are reported too, and
  an ``eps_lower`` above dpverify's upper end is labelled "inaccurate" (an overstated lower bound: not a privacy
  bug, the bracket it states is wrong);
- an answer more than :data:`LOOSE` (relative) above dpverify's upper end is **loose** (label "loose": sound, and
  the library's method (an RDP conversion, say) gives away that much epsilon);
- otherwise "consistent".

The reference setting of the issue (noise 1.1, q = 256/60000, 14062 steps, delta 1e-5: DP-SGD on MNIST, Abadi et
al. 2016): dp-accounting 0.6.0 answers 2.596556 with its RDP accountant and 2.381686 with its PLD accountant;
prv-accountant 0.2.0 answers (2.37160, 2.38160, 2.39160) at ``eps_error`` 0.01; dpverify's bracket is
[2.381548, 2.381689].
"""
from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, field
from importlib.metadata import version as dist_version
from typing import Any, Callable

import numpy as np

from dpverify.calculus.accounting.pld import (
    DEFAULT_TAIL_MASS,
    PldAccountant,
    PrivacyLossDistribution,
    gaussian_pld,
    grid_law_pld,
    subsampled_gaussian_pld,
)
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.libraries.base import Claimed, LabelledPair, LibraryFunction
from dpverify.libraries.runner import LibraryResult
from dpverify.validation import check_delta, check_positive_int, check_real

__all__ = ["DP_ACCOUNTING", "PRV_ACCOUNTANT", "AccountantQuery", "LOOSE", "INTERVAL", "laplace_pld", "reference_bracket", "Reference",
           "dp_accounting_catalogue", "prv_catalogue", "catalogue_for", "LIBRARY_NAMES"]

#: Relative excess over dpverify's upper end above which an answer is labelled "loose".
LOOSE = 0.05
#: Grid width of dpverify's PLD brackets here (dp-accounting's default value_discretization_interval).
INTERVAL = 1e-4
#: Command-line name -> distribution name.
LIBRARY_NAMES = {"dp_accounting": "dp-accounting", "prv_accountant": "prv-accountant"}

#: The reference setting of DP-SGD on MNIST (Abadi et al. 2016): noise multiplier, sampling rate, steps, delta.
REFERENCE = (1.1, 256 / 60000, 14062, 1e-5)


def laplace_pld(epsilon0: float, *, interval: float = INTERVAL,
                tail_mass: float = DEFAULT_TAIL_MASS) -> PrivacyLossDistribution:
    """The rigorous PLD bracket of one Laplace mechanism with ``epsilon0`` = sensitivity / scale.

    With P = Lap(0, b), Q = Lap(1, b) (b = 1/epsilon0) the loss L(x) = (|x - 1| - |x|)/b under P has an atom 1/2
    at +epsilon0 (x <= 0), an atom e^{-epsilon0}/2 at -epsilon0 (x >= 1) and between them the CDF
    ``P(L <= l) = e^{(l - epsilon0)/2} / 2`` (x = b (epsilon0 - l)/2 is exponential). The law of -L under Q is the
    same (reflect x -> 1 - x). On the grid of width h, the mass of each cell (kh, (k+1)h] goes to (k+1)h in the
    upper law and to kh in the lower law (fact 2 of :mod:`dpverify.calculus.accounting.pld`: moving mass to a
    larger loss raises the hockey-stick curve pointwise); the atoms likewise to the grid point above / below.
    Check: epsilon(delta) = epsilon0 + 2 log(1 - delta) lies in the bracket (tests/test_libraries_accountants.py)."""
    e0 = check_real("epsilon0", epsilon0, low=0.0, low_inclusive=False)
    h = check_real("interval", interval, low=0.0, low_inclusive=False)
    lo_k, hi_k = math.floor(-e0 / h), math.ceil(e0 / h)
    k = np.arange(lo_k, hi_k, dtype=float)  # cells (k h, (k+1) h]
    a, b = np.maximum(k * h, -e0), np.minimum((k + 1) * h, e0)
    cell = 0.5 * np.exp((a - e0) / 2) * np.expm1(np.maximum(b - a, 0.0) / 2)  # mass of L in (a, b], continuous part
    size = hi_k - lo_k + 1
    up, low = np.zeros(size), np.zeros(size)
    up[1:] += cell  # to the grid point above
    low[:-1] += cell  # to the grid point below
    up[math.ceil(e0 / h) - lo_k] += 0.5
    low[math.floor(e0 / h) - lo_k] += 0.5
    up[math.ceil(-e0 / h) - lo_k] += 0.5 * math.exp(-e0)
    low[lo_k - lo_k] += 0.5 * math.exp(-e0)
    return grid_law_pld((lo_k, up, 0.0), (lo_k, low, 0.0), (lo_k, up, 0.0), (lo_k, low, 0.0), interval=h,
                        tail_mass=tail_mass, component=("Laplace", f"eps0={e0:g}", 1))


@dataclass(frozen=True)
class Reference:
    """A mechanism, as dpverify brackets it: ``steps`` of ``("gaussian", sigma)``, ``("laplace", scale)`` or
    ``("poisson_gaussian", sigma, q)``, each with a count: ``((kind, *params), count)``; sensitivity 1."""

    steps: tuple

    def describe(self) -> str:
        parts = []
        for (kind, *p), n in self.steps:
            if kind == "poisson_gaussian":
                what = f"Poisson-subsampled Gaussian(noise {p[0]:g}, q={p[1]:.6g})"
            else:
                what = f"{kind.capitalize()}({'noise' if kind == 'gaussian' else 'scale'} {p[0]:g})"
            parts.append(what + (f" x{n}" if n != 1 else ""))
        return " + ".join(parts)


def reference_bracket(ref: Reference, delta: float, *, interval: float = INTERVAL) -> tuple[float, float, str]:
    """dpverify's ``(lower, upper, method)`` for the true epsilon at ``delta`` of ``ref`` (module docstring): the
    closed forms for one Gaussian or one Laplace step, else the PLD accountant's bracket."""
    d = check_delta(delta, allow_zero=False)
    if len(ref.steps) == 1 and ref.steps[0][1] == 1 and ref.steps[0][0][0] in ("gaussian", "laplace"):
        (kind, param), _ = ref.steps[0]
        if kind == "gaussian":
            e = gaussian_epsilon(d, 1.0 / param)
            return e * (1 - 1e-10) - 1e-12, e * (1 + 1e-10) + 1e-12, "exact Gaussian (Balle-Wang 2018)"
        e = max(0.0, 1.0 / param + 2 * math.log1p(-d))
        return e * (1 - 1e-12), e * (1 + 1e-12), "exact Laplace (eps0 + 2 log(1 - delta))"
    acc = PldAccountant(interval=interval)
    for (kind, *p), n in ref.steps:
        count = check_positive_int(n, "count")
        if kind == "gaussian":
            acc.compose(gaussian_pld(1.0 / p[0], interval=interval), count)
        elif kind == "laplace":
            acc.compose(laplace_pld(1.0 / p[0], interval=interval), count)
        elif kind == "poisson_gaussian":
            acc.compose(subsampled_gaussian_pld(p[1], 1.0 / p[0], interval=interval), count)
        else:
            raise ValueError(f"step kind must be gaussian, laplace or poisson_gaussian; got {kind!r}")
    c = acc.get_epsilon(d)
    assert c.epsilon_lower is not None  # the PLD accountant brackets its answer
    return float(c.epsilon_lower), float(c.epsilon), f"dpverify PLD bracket (interval {interval:g})"


def _never_sampled(dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    raise RuntimeError("an accountant query is checked against dpverify's bracket, never sampled")


#: The one "pair" of every query: an accountant has no datasets; the dominating pair of a sensitivity-1 mechanism
#: is the record 0 against the record 1 (what the bracket is computed on).
_PAIR = (LabelledPair(np.zeros(1), np.ones(1), "dominating:replace", "the sensitivity-1 pair the bracket is for"),)


@dataclass(frozen=True)
class AccountantQuery(LibraryFunction):
    """One accountant query (module docstring): ``answer() -> (epsilon, lower or None, estimate or None)``
    calls the library; ``reference`` and ``delta`` say what dpverify brackets. The runner calls :meth:`evaluate`
    instead of sampling (:func:`dpverify.libraries.runner.run_function`)."""

    answer: Callable[[], tuple[float, float | None, float | None]] = field(default=lambda: (math.nan, None, None))
    reference: Reference = field(default_factory=lambda: Reference(()))
    delta: float = 1e-5
    interval: float = INTERVAL

    def evaluate(self) -> LibraryResult:
        """The report row: the library's answer, dpverify's bracket, the verdict and label (module docstring)."""
        start = time.perf_counter()
        row = LibraryResult(case=self.qualified_name, library=self.library, version=self.version,
                            function=self.name, adjacency=str(self.adjacency), tags=tuple(self.tags),
                            reproducible=True, options=dict(self.options))
        try:
            eps, lower, estimate = self.answer()
            row.claimed = self.claim(None)
        except Exception as exc:  # the library call fails here: not a verdict
            row.verdict = row.label = "unavailable"
            row.error, row.seconds = f"{type(exc).__name__}: {exc}", time.perf_counter() - start
            return row
        lo, hi, method = reference_bracket(self.reference, self.delta, interval=self.interval)
        row.certified = lo
        row.pair = f"dpverify [{lo:.6g}, {hi:.6g}]"
        row.options.update(query=self.reference.describe(), delta=self.delta, answer=eps, library_lower=lower,
                           library_estimate=estimate, bracket=[lo, hi], reference=method,
                           excess=(eps - hi) / hi if hi > 0 else math.inf)
        if not eps >= lo:  # NaN included: an answer that is no number is no guarantee
            row.verdict, row.label = "violation", "finding"
            row.error = (f"under-reporting: the library answers epsilon {eps:.6g}, below dpverify's rigorous "
                         f"lower bound {lo:.6g} ({method})")
        else:
            row.verdict = "consistent"
            if lower is not None and lower > hi:
                row.label = "inaccurate"
                row.error = f"the library's lower bound {lower:.6g} is above dpverify's upper bound {hi:.6g}"
            elif eps > hi * (1 + LOOSE):
                row.label = "loose"
        row.seconds = time.perf_counter() - start
        return row


def _query(library: str, ver: str, name: str, answer: Callable[[], tuple[float, float | None, float | None]],
           ref: Reference, delta: float, source: str) -> AccountantQuery:
    cache: dict = {}

    def cached() -> tuple[float, float | None, float | None]:
        if "a" not in cache:
            cache["a"] = answer()
        return cache["a"]

    def claim(dataset: Any) -> Claimed:
        eps = cached()[0]
        return Claimed(eps if eps >= 0 else math.nan, delta, source)

    return AccountantQuery(library, ver, name, _never_sampled, claim, _PAIR, adjacency="replace_one",
                           tags=("accountant",), answer=cached, reference=ref, delta=delta,
                           options={"query": ref.describe(), "delta": delta})


# ------------------------------------------------------------------------------------------- dp-accounting

def _dpa():
    try:
        import dp_accounting
        from dp_accounting import pld, rdp
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError("dp-accounting is not installed: pip install 'dp-accounting>=0.4' "
                          "(or pip install -e '.[test]')") from exc
    return dp_accounting, pld, rdp


def _dpa_event(ref: Reference) -> Any:
    dpa, _, _ = _dpa()
    events = []
    for (kind, *p), n in ref.steps:
        if kind == "gaussian":
            ev = dpa.GaussianDpEvent(p[0])
        elif kind == "laplace":
            ev = dpa.LaplaceDpEvent(p[0])
        else:
            ev = dpa.PoissonSampledDpEvent(p[1], dpa.GaussianDpEvent(p[0]))
        events.append(ev if n == 1 else dpa.SelfComposedDpEvent(ev, n))
    return events[0] if len(events) == 1 else dpa.ComposedDpEvent(events)


#: dp-accounting's queries: (accountant, reference, delta). "rdp": ``rdp.RdpAccountant()`` (its default orders);
#: "pld": ``pld.PLDAccountant()`` (its default interval 1e-4).
DP_ACCOUNTING_QUERIES: tuple[tuple[str, Reference, float], ...] = (
    ("pld", Reference(((("gaussian", 1.0), 1),)), 1e-5),
    ("rdp", Reference(((("gaussian", 1.0), 1),)), 1e-5),
    ("pld", Reference(((("laplace", 1.0), 1),)), 1e-5),
    ("pld", Reference(((("laplace", 1.0), 10),)), 1e-5),
    ("rdp", Reference(((("laplace", 1.0), 10),)), 1e-5),
    ("pld", Reference(((("poisson_gaussian", 0.8, 0.01), 1000),)), 1e-6),
    ("rdp", Reference(((("poisson_gaussian", 0.8, 0.01), 1000),)), 1e-6),
    ("pld", Reference(((("gaussian", 2.0), 1), (("poisson_gaussian", 1.0, 0.01), 1000))), 1e-5),
    ("rdp", Reference(((("poisson_gaussian", REFERENCE[0], REFERENCE[1]), REFERENCE[2]),)), REFERENCE[3]),
    ("pld", Reference(((("poisson_gaussian", REFERENCE[0], REFERENCE[1]), REFERENCE[2]),)), REFERENCE[3]),
)


def dp_accounting_answer(kind: str, ref: Reference, delta: float, *, scale: float = 1.0
                         ) -> tuple[float, float | None, float | None]:
    """dp-accounting's epsilon at ``delta`` for ``ref`` with its RDP (``kind="rdp"``) or PLD accountant (``scale``:
    multiplies the answer, for mutation tests of the check)."""
    _, pld, rdp = _dpa()
    acc = rdp.RdpAccountant() if kind == "rdp" else pld.PLDAccountant()
    acc.compose(_dpa_event(ref))
    return float(acc.get_epsilon(delta)) * scale, None, None


def dp_accounting_catalogue(*, scale: float = 1.0) -> list[LibraryFunction]:
    """dp-accounting's queries (:data:`DP_ACCOUNTING_QUERIES`); ``scale`` multiplies every answer (a broken
    wrapper for the mutation tests)."""
    _dpa()
    ver = dist_version("dp-accounting")
    out: list[LibraryFunction] = []
    for kind, ref, delta in DP_ACCOUNTING_QUERIES:
        cls = "RdpAccountant" if kind == "rdp" else "PLDAccountant"
        name = f"{cls}: {ref.describe()}, delta {delta:g}"
        answer = functools.partial(dp_accounting_answer, kind, ref, delta, scale=scale)
        out.append(_query("dp-accounting", ver, name, answer, ref, delta,
                          f"dp_accounting {kind}.{cls}.get_epsilon({delta:g})"))
    return out


# ------------------------------------------------------------------------------------------ prv-accountant

def _prv():
    try:
        import prv_accountant
        from prv_accountant import privacy_random_variables as prvs
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError("prv-accountant is not installed: pip install 'prv-accountant==0.2.0' "
                          "(or pip install -e '.[prv]')") from exc
    return prv_accountant, prvs


#: prv-accountant's queries (reference, delta, eps_error) with ``PRVAccountant(prvs, max_self_compositions,
#: eps_error, delta_error=1e-10)``.
PRV_QUERIES: tuple[tuple[Reference, float, float], ...] = (
    (Reference(((("gaussian", 1.0), 1),)), 1e-5, 0.01),
    (Reference(((("laplace", 1.0), 1),)), 1e-5, 0.01),
    (Reference(((("laplace", 1.0), 10),)), 1e-5, 0.05),
    (Reference(((("poisson_gaussian", 0.8, 0.01), 1000),)), 1e-6, 0.05),
    (Reference(((("gaussian", 2.0), 1), (("poisson_gaussian", 1.0, 0.01), 1000))), 1e-5, 0.05),
    (Reference(((("poisson_gaussian", REFERENCE[0], REFERENCE[1]), REFERENCE[2]),)), REFERENCE[3], 0.01),
)


def prv_answer(ref: Reference, delta: float, eps_error: float, *, scale: float = 1.0
               ) -> tuple[float, float | None, float | None]:
    """prv-accountant's ``(eps_upper, eps_lower, eps_estimate)`` at ``delta`` for ``ref`` (each times ``scale``,
    for mutation tests)."""
    prv, prvs = _prv()
    mechs, counts = [], []
    for (kind, *p), n in ref.steps:
        if kind == "gaussian":
            mechs.append(prvs.GaussianMechanism(noise_multiplier=p[0]))
        elif kind == "laplace":
            mechs.append(prvs.LaplaceMechanism(mu=1.0 / p[0]))
        else:
            mechs.append(prvs.PoissonSubsampledGaussianMechanism(sampling_probability=p[1], noise_multiplier=p[0]))
        counts.append(int(n))
    acc = prv.PRVAccountant(prvs=mechs, max_self_compositions=counts, eps_error=eps_error, delta_error=1e-10)
    lower, estimate, upper = acc.compute_epsilon(delta=delta, num_self_compositions=counts)
    return float(upper) * scale, float(lower) * scale, float(estimate) * scale


def prv_catalogue(*, scale: float = 1.0) -> list[LibraryFunction]:
    """prv-accountant's queries (:data:`PRV_QUERIES`); ``scale`` multiplies every answer (mutation tests)."""
    _prv()
    ver = dist_version("prv-accountant")
    out: list[LibraryFunction] = []
    for ref, delta, err in PRV_QUERIES:
        name = f"PRVAccountant(eps_error={err:g}): {ref.describe()}, delta {delta:g}"
        answer = functools.partial(prv_answer, ref, delta, err, scale=scale)
        out.append(_query("prv-accountant", ver, name, answer, ref, delta,
                          f"prv_accountant PRVAccountant.compute_epsilon({delta:g}) eps_upper"))
    return out


def catalogue_for(library: str) -> list[LibraryFunction]:
    """The catalogue of ``library`` ("dp_accounting" or "prv_accountant")."""
    if library == "dp_accounting":
        return dp_accounting_catalogue()
    if library == "prv_accountant":
        return prv_catalogue()
    raise ValueError(f"library must be one of {', '.join(LIBRARY_NAMES)}; got {library!r}")


@dataclass(frozen=True)
class _AccountantLibrary:
    """What :func:`dpverify.libraries.runner.load` returns for an accountant: ``catalogue()`` and ``version()``, as
    a library module has."""

    library: str

    def catalogue(self) -> list[LibraryFunction]:
        return catalogue_for(self.library)

    def version(self) -> str:
        (_dpa if self.library == "dp_accounting" else _prv)()
        return dist_version(LIBRARY_NAMES[self.library])


DP_ACCOUNTING = _AccountantLibrary("dp_accounting")
PRV_ACCOUNTANT = _AccountantLibrary("prv_accountant")

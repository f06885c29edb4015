"""A corpus of real reported DP bugs, each a seeded check (``dpverify audit-library corpus [--json]``).

Every case cites the upstream report it comes from (each reference was checked on the project's public tracker
before it was cited) and runs one seeded check with dpverify's own tools (the budget ledger, the sampling audit,
the curve estimator). A case is one of two kinds:

- ``library``: the check runs on the *installed* library. ``reproduced`` means the installed version still has the
  defect; ``fixed`` means it no longer shows it (then the case documents a fix). Where no fixed release exists
  (the upstream fix is unmerged or unreleased) the case says so instead of checking a fixed version.
- ``re-implementation``: the library is not installable here, so the defective computation and its fix are
  re-implemented from the report (labelled as such) and both run through the same check: the defective one must
  be flagged and the fixed one must pass (``ok``).

A case whose check misbehaves (a re-implemented defect not flagged, a fix flagged, an error) is ``failed``; a
missing library is ``unavailable``. Each case takes seconds (the target is under 60 s each on 2 cores).

Cases (:data:`CASES`):

1. ``diffprivlib#105``: ``models.LinearRegression`` declares the sensitivity of its X^T X coefficient from the
   lower bound twice (0 for ``bounds_X=([0], [1])``): the ledger sees a noise addition of sensitivity 0 whose
   statistic differs between neighbours.
2. ``diffprivlib#104`` (item 2): ``models.LinearRegression`` spends ``epsilon / (n_features + 1)`` on each of its
   two centring means on accountants made inside ``fit``: the ledger's composition exceeds the accountant's record.
3. ``opacus#571``: ``loss_reduction="mean"`` divides by an expected batch size computed from the private dataset's
   size: neighbours of 4 and 3 records are divided by 4 and 3, and the sampling audit certifies far above the
   accountant's epsilon.
4. ``opacus#585`` (PR #844): the RDP and PRV accountants return a negative epsilon (and the GDP accountant fails)
   at a large noise multiplier and a large delta; a negative epsilon is no guarantee at all.
5. ``opacus PR #829``: ``len(accountant)`` returns the number of distinct (noise, sample rate) settings, not the
   number of steps its docstring promises.
6. ``jax_privacy PR #270`` (re-implementation): an auditor's GDP estimator took the absolute value of a negative
   ``mu`` as evidence and reported epsilon ~ 3.5 on identical (null) score distributions; the fixed estimator and
   dpverify's own :func:`dpverify.audit.curve.curve_audit` report 0 on the same scores.
7. ``opacus#616``: ``secure_mode=True`` still adds floating-point noise: with a float32 summed gradient of 0 the
   release keeps bits below 2^-24 (16% of releases at noise std 1), with 1 it never does; the sampling audit on that
   statistic certifies epsilon ~6.5 against the Gaussian mechanism's 4.38 (delta 1e-5).
8. ``opendp#2638`` (re-implementation): OpenDP's additive noise samplers divide a rational by an integer with
   dashu's ``RBig / UBig`` (cmpute/dashu#57: denominator ``(b / g) * k`` instead of ``b * (k / g)``). OpenDP's Rust
   sampler is not reachable from Python, and OpenDP 0.16.0's integer and float Laplace and Gaussian showed no
   deviation in our probes (100k-300k draws at scales 0.75-3), so the division is re-implemented in the discrete
   Laplace sampler of Canonne, Kamath and Steinke (2020, Algorithms 1-2), written from the paper: with the reported
   division the exact law of scale 3 has privacy loss 0.504 on a count (claimed 1/3); with the fixed one, 1/3.
9. ``dp_accounting#378`` (google/differential-privacy, PR #464): under ``REPLACE_ONE`` the RDP accountant treats a
   ``GaussianDpEvent``'s noise multiplier (``s / C``) as if neighbouring sums differed by C, not 2C: epsilon 2.17
   for noise multiplier 2 at delta 1e-5, below the exact epsilon 4.38 of the Gaussian mechanism at sensitivity 2C
   (which dp_accounting's own PLD accountant reports).
"""
from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from importlib.metadata import version
from typing import Any, ClassVar

import numpy as np
from scipy.stats import norm

from dpverify.audit import audit
from dpverify.audit.bounds import clopper_pearson_upper
from dpverify.audit.curve import curve_audit, epsilon_assuming_gaussian
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.libraries import diffprivlib as dpl
from dpverify.libraries import opacus as lib
from dpverify.libraries.causes import locate
from dpverify.libraries.ledger import diff
from dpverify.vocabulary import CaseKind, RowKind

__all__ = ["CASES", "CorpusCase", "CorpusResult", "failed", "run_case", "run_corpus"]


@dataclass(frozen=True)
class CorpusCase:
    """One reported bug: ``id``, ``library``, ``title``, ``refs`` (upstream URLs, checked), ``upstream_status``
    (their state when checked), ``kind`` ("library" or "re-implementation") and ``check() -> dict`` (the seeded
    check; keys ``status``, ``detail`` and any numbers)."""

    id: str
    library: str
    title: str
    refs: tuple[str, ...]
    upstream_status: str
    kind: str
    check: Callable[[], dict]

    #: the case model's kind (:class:`dpverify.cases.model.Case`; ``kind`` says how the bug is reproduced)
    case_kind: ClassVar[CaseKind] = CaseKind.CORPUS


def _version(dist: str) -> str:
    return version(dist)


# -- diffprivlib ----------------------------------------------------------------------------------------------------

def _linear_regression(fit_intercept: bool):
    return next(f for f in dpl.catalogue() if f.name.startswith("models.LinearRegression")
                and f.options.get("bounds") == "given" and f.options.get("fit_intercept") is fit_intercept
                and f.options["bounds_X"][0][0] == 0.0)


def _dpl_105() -> dict:
    fn = _linear_regression(False)
    pair = fn.pairs[0]
    d, n = pair
    a, b = fn.ledger(d, 0), fn.ledger(n, 0)
    zero = [x for x in diff(a, b) if x.get("zero_sensitivity_on")]

    causes = [c for c in locate(fn.library, fn.version, a.package_dir, [(pair.label, a, b)])
              if c["kind"] == "sensitivity"]
    where = causes[0]["site"] if causes else "-"
    return {"status": "reproduced" if zero else "fixed", "version": fn.version, "site": where,
            "source": causes[0]["source"] if causes else "",
            "detail": (f"{len(zero)} noise addition(s) of declared sensitivity 0 whose statistic differs between D "
                       f"and D' (at {zero[0]['site']}; sensitivity computed at {where})") if zero else
                      "no noise addition of sensitivity 0: the installed diffprivlib declares this one right"}


def _dpl_104() -> dict:
    fn = _linear_regression(True)
    led = fn.ledger(fn.pairs[0][0], 0)
    spent, rec = led.spent_least, led.recorded
    mm = led.mismatch.get("spent_over_recorded")
    return {"status": "reproduced" if mm else "fixed", "version": fn.version,
            "spent": None if spent is None else spent.epsilon, "recorded": None if rec is None else rec.epsilon,
            "unrecorded_sites": led.unrecorded_sites,
            "detail": (f"the calls compose to epsilon {spent.epsilon:.6g}, the accountant records {rec.epsilon:.6g}; "
                       f"spends on accountants made inside fit at {', '.join(led.unrecorded_sites)}") if mm else
                      "the ledger's composition equals the accountant's record"}


# -- Opacus ---------------------------------------------------------------------------------------------------------

def _opacus_571() -> dict:
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


# -- OpenDP #2638 (re-implementation: dashu's rational division in a CKS20 sampler) ------------------------------

def _div_fixed(x: Fraction, k: int) -> Fraction:
    """A rational divided by a positive integer: ``a/b / k = (a/g) / (b * (k/g))`` with ``g = gcd(a, k)``."""
    g = math.gcd(x.numerator, k)
    return Fraction(x.numerator // g, x.denominator * (k // g))


def _div_dashu57(x: Fraction, k: int) -> Fraction:
    """The same division as reported in cmpute/dashu#57 (the RBig / UBig routine OpenDP's samplers call): the
    denominator is ``(b / g) * k`` (integer division of b by g) instead of ``b * (k / g)``: wrong whenever
    ``gcd(a, k) > 1``, e.g. (-2/3) / 4 gives -1/4, not -1/6."""
    g = math.gcd(x.numerator, k)
    return Fraction(x.numerator // g, (x.denominator // g) * k)


def _bernoulli_exp(gamma: Fraction, div: Callable[[Fraction, int], Fraction], terms: int = 60) -> float:
    """P(1) of Canonne, Kamath and Steinke (2020), Algorithm 1, Bernoulli(exp(-gamma)) for gamma in [0, 1]: K = the
    first k with A_k = 0, A_k ~ Bernoulli(gamma / k) (computed with ``div``); return 1 iff K is odd. Exact up to
    the factorially small tail after ``terms``."""
    total, run = 0.0, 1.0
    for k in range(1, terms + 1):
        p = float(div(gamma, k))
        if k % 2:
            total += run * (1.0 - p)
        run *= p
        if run < 1e-300:
            break
    return total


def _discrete_laplace_pmf(t: int, div: Callable[[Fraction, int], Fraction], support: int = 60) -> dict[int, float]:
    """The exact law of CKS20 Algorithm 2 (discrete Laplace of scale ``t``, s = 1) whose Bernoulli(exp(-gamma))
    calls use ``div``: U uniform on {0..t-1} kept with Bernoulli(exp(-U/t)); V counts Bernoulli(exp(-1)) successes;
    Y = U + t V; a fair sign, rejecting (negative, 0). Returns P(z) for |z| <= ``support``."""
    keep = [_bernoulli_exp(Fraction(u, t), div) for u in range(t)]
    c = _bernoulli_exp(Fraction(1), div)
    py = {}
    for y in range(support + 1):
        u, v = y % t, y // t
        py[y] = keep[u] * c ** v * (1 - c)
    law = {z: 0.5 * py[abs(z)] for z in range(-support, support + 1)}
    total = sum(law.values())
    return {z: p / total for z, p in law.items()}


def _opendp_2638(scale: int = 3) -> dict:
    law = {"dashu#57 division": _discrete_laplace_pmf(scale, _div_dashu57),
           "fixed division": _discrete_laplace_pmf(scale, _div_fixed)}
    claim = 1.0 / scale  # a count (sensitivity 1) released with discrete Laplace noise of scale t
    eps, tv = {}, {}
    ideal = {z: math.exp(-abs(z) / scale) for z in law["fixed division"]}
    norm = sum(ideal.values())
    for name, pmf in law.items():
        zs = [z for z in pmf if z - 1 in pmf and pmf[z] > 1e-12 and pmf[z - 1] > 1e-12]
        eps[name] = max(abs(math.log(pmf[z] / pmf[z - 1])) for z in zs)
        tv[name] = 0.5 * sum(abs(pmf[z] - ideal[z] / norm) for z in pmf)
    bad, good = eps["dashu#57 division"], eps["fixed division"]
    ok = bad > claim * (1 + 1e-6) and abs(good - claim) < 1e-9
    return {"status": "ok" if ok else "failed", "claimed": claim, "epsilon": eps, "total_variation": tv,
            "detail": (f"discrete Laplace of scale {scale} (CKS20, re-implemented), a count 0 vs 1: exact privacy "
                       f"loss {bad:.4g} with the dashu#57 division (law {tv['dashu#57 division']:.3g} from the ideal "
                       f"in total variation) vs {good:.4g} with the fixed division; claimed {claim:.4g}")}


# -- dp_accounting (google/differential-privacy #378) ---------------------------------------------------------------

def _dp_accounting_378(noise_multiplier: float = 2.0, delta: float = 1e-5) -> dict:
    """google/differential-privacy#378: ``GaussianDpEvent.noise_multiplier`` is ``s / C`` (C the per-record norm
    bound); under ``REPLACE_ONE`` two neighbouring sums differ by up to 2C, yet the RDP accountant uses the noise
    multiplier as if the sensitivity were C. The exact epsilon of the Gaussian mechanism at sensitivity 2C (mu =
    2 / noise_multiplier, dpverify's :func:`~dpverify.calculus.mechanisms.gaussian.gaussian_epsilon`) is a floor
    that no valid accountant may go below."""
    import dp_accounting as dpa
    from dp_accounting import pld, rdp

    replace = dpa.NeighboringRelation.REPLACE_ONE
    event = dpa.GaussianDpEvent(noise_multiplier)
    acc = rdp.RdpAccountant(neighboring_relation=replace)
    acc.compose(event)
    got = float(acc.get_epsilon(delta))
    p = pld.PLDAccountant(neighboring_relation=replace)
    p.compose(event)
    pld_eps = float(p.get_epsilon(delta))
    exact = gaussian_epsilon(delta, 2.0 / noise_multiplier)
    under = got < exact * (1 - 1e-6)
    return {"status": "reproduced" if under else "fixed", "version": _version("dp-accounting"),
            "rdp_epsilon": got, "pld_epsilon": pld_eps, "exact_epsilon": exact, "delta": delta,
            "detail": (f"GaussianDpEvent({noise_multiplier:g}) under REPLACE_ONE at delta {delta:g}: RdpAccountant "
                       f"{got:.4g}, PLDAccountant {pld_eps:.4g}, exact epsilon of the Gaussian mechanism at "
                       f"sensitivity 2C {exact:.4g}" + ("; the RDP accountant is below the exact epsilon" if under
                                                         else ""))}


# -- jax_privacy PR #270 (re-implementation) -----------------------------------------------------------------------

def _gdp_estimators(null_seed: int = 0, n: int = 1000, delta: float = 1e-5) -> dict:
    """The estimator before PR #270 (absolute value of the forward mu over every threshold), the fixed one (both
    directions, each mu guarded at 0) and dpverify's curve_audit, on identical score distributions."""
    rng = np.random.default_rng(null_seed)
    s0, s1 = rng.normal(size=n), rng.normal(size=n)  # null: the same law on both sides
    thresholds = np.quantile(np.r_[s0, s1], np.linspace(0.01, 0.99, 99))
    alpha = 0.05 / (2 * thresholds.size)  # one Bonferroni budget over every threshold's two rates

    def rates(pos, neg):
        fp = np.array([np.count_nonzero(neg >= t) for t in thresholds])  # negatives called positive
        fn = np.array([np.count_nonzero(pos < t) for t in thresholds])  # positives missed
        return clopper_pearson_upper(fp, neg.size, alpha), clopper_pearson_upper(fn, pos.size, alpha)

    fpr, fnr = rates(s0, s1)
    forward = norm.isf(fpr) - norm.ppf(fnr)
    buggy_mu = float(np.max(np.abs(forward)))  # the shortcut: a negative mu read as reverse evidence
    rfpr, rfnr = rates(s1, s0)
    reverse = norm.isf(rfpr) - norm.ppf(rfnr)
    fixed_mu = max(float(np.max(forward)), float(np.max(reverse)), 0.0)
    half = n // 2
    cert = curve_audit(s0[:half], s1[:half], s0[half:], s1[half:], alpha=0.05)
    eps = {k: (epsilon_assuming_gaussian(mu, delta) if mu > 0 else 0.0)
           for k, mu in (("before PR #270", buggy_mu), ("after PR #270", fixed_mu),
                         ("dpverify curve_audit", cert.mu_lower))}
    return {"mu": {"before PR #270": buggy_mu, "after PR #270": fixed_mu, "dpverify curve_audit": cert.mu_lower},
            "epsilon": eps, "delta": delta, "n": n}


def _jax_270() -> dict:
    r = _gdp_estimators()
    e = r["epsilon"]
    ok = e["before PR #270"] > 0.5 and e["after PR #270"] == 0.0 and e["dpverify curve_audit"] == 0.0
    return {"status": "ok" if ok else "failed", **r,
            "detail": (f"null scores ({r['n']} per side, seed 0), epsilon at delta {r['delta']:g} assuming a "
                       "Gaussian curve: " + ", ".join(f"{k} {v:.3g}" for k, v in e.items()))}


CASES: tuple[CorpusCase, ...] = (
    CorpusCase("diffprivlib#105", "diffprivlib",
               "LinearRegression: sensitivity of the X^T X coefficient from the lower bound twice",
               ("https://github.com/IBM/differential-privacy-library/issues/105",
                "https://github.com/IBM/differential-privacy-library/pull/110",
                "https://github.com/IBM/differential-privacy-library/issues/104"),
               "issue open; fix PR #110 open (unreleased): no fixed version to install", "library", _dpl_105),
    CorpusCase("diffprivlib#104", "diffprivlib",
               "LinearRegression: centring means spend budget the accountant never records",
               ("https://github.com/IBM/differential-privacy-library/issues/104",),
               "issue open (item 2): no fixed version to install", "library", _dpl_104),
    CorpusCase("opacus#571", "opacus",
               "loss_reduction='mean' divides by an expected batch size computed from the private dataset's size",
               ("https://github.com/meta-pytorch/opacus/issues/571",
                "https://github.com/meta-pytorch/opacus/issues/819"),
               "issues open: no fixed version to install", "library", _opacus_571),
    CorpusCase("opacus#585", "opacus", "RDP/PRV accountants return a negative epsilon, GDP fails, at large delta",
               ("https://github.com/meta-pytorch/opacus/pull/844", "https://github.com/meta-pytorch/opacus/issues/585"),
               "fix PR #844 open (unreleased): no fixed version to install", "library", _opacus_negative_epsilon),
    CorpusCase("opacus-pr829", "opacus", "len(accountant) counts distinct settings, not steps",
               ("https://github.com/meta-pytorch/opacus/pull/829",),
               "PR #829 closed after Opacus 1.6.0: no fixed release here", "library", _opacus_len),
    CorpusCase("opacus#616", "opacus",
               "secure_mode noise is still floating-point: the release's low-order bits reveal the gradient",
               ("https://github.com/meta-pytorch/opacus/issues/616",),
               "issue closed; Opacus still adds float32 noise in _generate_noise: no fixed version to install",
               "library", _opacus_616),
    CorpusCase("opendp#2638", "opendp",
               "additive noise samplers biased by a wrong rational division (RBig / UBig) in dashu",
               ("https://github.com/opendp/opendp/issues/2638", "https://github.com/cmpute/dashu/issues/57"),
               "OpenDP issue open, dashu#57 closed as no longer relevant in the latest dashu-ratio; OpenDP's Rust "
               "sampler is not reachable from Python: the division is re-implemented in a CKS20 discrete Laplace "
               "sampler", "re-implementation", _opendp_2638),
    CorpusCase("dp_accounting#378", "dp_accounting",
               "RDP accountant: Gaussian sensitivity not doubled under REPLACE_ONE (epsilon below the exact one)",
               ("https://github.com/google/differential-privacy/issues/378",
                "https://github.com/google/differential-privacy/pull/464"),
               "issue open; fix PR #464 open (unreleased): no fixed version to install", "library",
               _dp_accounting_378),
    CorpusCase("jax_privacy-pr270", "jax_privacy",
               "GDP estimator reads a negative mu as evidence: epsilon ~ 3.5 on null scores",
               ("https://github.com/google-deepmind/jax_privacy/pull/270",),
               "PR #270 closed; jax_privacy is not installed here: re-implemented from the PR", "re-implementation",
               _jax_270),
)


@dataclass
class CorpusResult:
    """One corpus case's check as a report row. The case: ``id``, ``library``, ``title``, ``refs``,
    ``upstream_status`` and ``check_kind`` (how the bug is reproduced: "library" or "re-implementation"; the JSON's
    ``kind``). The check: ``status`` (reproduced, fixed, ok, failed or unavailable), ``detail`` (one sentence; None
    if the check gave none), the installed ``version`` it ran on (None for a re-implementation), its numbers
    (``numbers``: the check's other entries, in its order) and ``seconds``.

    :meth:`to_dict` is its JSON form (``corpus.json``, ``--json``); :meth:`from_dict` reads it back."""

    kind: ClassVar[RowKind] = RowKind.CORPUS

    id: str
    library: str
    title: str
    refs: tuple[str, ...]
    upstream_status: str
    check_kind: str
    status: str
    detail: str | None = None
    version: str | None = None
    numbers: dict = field(default_factory=dict)
    seconds: float = 0.0

    #: the JSON keys that are not the check's numbers
    FIELDS: ClassVar[tuple[str, ...]] = ("id", "library", "title", "refs", "upstream_status", "kind", "status",
                                          "version", "detail", "seconds")

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"id": self.id, "library": self.library, "title": self.title, "refs": list(self.refs),
                               "upstream_status": self.upstream_status, "kind": self.check_kind,
                               "status": self.status}
        if self.version is not None:
            out["version"] = self.version
        out.update(self.numbers)
        if self.detail is not None:
            out["detail"] = self.detail
        out["seconds"] = self.seconds
        return out

    @classmethod
    def from_dict(cls, d: dict) -> CorpusResult:
        """The row of ``d`` (:meth:`to_dict`, read back)."""
        return cls(d["id"], d["library"], d["title"], tuple(d["refs"]), d["upstream_status"], d["kind"], d["status"],
                   d.get("detail"), d.get("version"), {k: v for k, v in d.items() if k not in cls.FIELDS},
                   d.get("seconds", 0.0))


def run_case(case: CorpusCase) -> CorpusResult:
    """One case as a report row: the case's fields, the check's status, detail, version and numbers, and
    ``seconds``."""
    start = time.perf_counter()
    try:
        numbers = dict(case.check())
        status, detail, version = numbers.pop("status"), numbers.pop("detail", None), numbers.pop("version", None)
    except ImportError as exc:
        numbers, status, detail, version = {}, "unavailable", f"{case.library} is not installed: {exc}", None
    except Exception as exc:  # noqa: BLE001 - a check that errs is reported, never hidden
        numbers, status, detail, version = {}, "failed", f"{type(exc).__name__}: {exc}", None
    return CorpusResult(case.id, case.library, case.title, tuple(case.refs), case.upstream_status, case.kind, status,
                        detail, version, numbers, time.perf_counter() - start)


def run_corpus(only: str | None = None, progress: Callable[[str], None] | None = None) -> list[CorpusResult]:
    """Every case (or those whose id contains ``only``), in order."""
    rows = []
    for case in CASES:
        if only and only not in case.id:
            continue
        if progress:
            progress(f"{case.id}: {case.title}")
        rows.append(run_case(case))
    return rows


def failed(rows: list[CorpusResult]) -> bool:
    """True when a case's check misbehaved or erred (exit status 1)."""
    return any(r.status == "failed" for r in rows)

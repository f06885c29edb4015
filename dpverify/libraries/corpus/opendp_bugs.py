"""Reported bugs of OpenDP (opendp/opendp), each a corpus case (:mod:`dpverify.libraries.corpus`).
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from dpverify.audit import audit
from dpverify.libraries.corpus.model import CorpusCase, installed_version


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
    """OpenDP#2638 (re-implementation): the exact law of a CKS20 discrete Laplace of scale ``scale`` whose
    Bernoulli(exp(-gamma)) steps divide with the reported ``RBig / UBig`` routine (:func:`_div_dashu57`) and with the
    fixed one (:func:`_div_fixed`), on a count 0 vs 1: the privacy loss is the largest log-ratio of neighbouring
    probabilities, claimed 1/scale. "ok" when the reported division's loss exceeds the claim and the fixed one's
    equals it (to 1e-9)."""
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


# -- OpenDP #2923: the sum of squared deviations ignores the rounding of its mean ---------------------------------

def _ssd_transformation(n: int, bounds: tuple[float, float]) -> Any:
    """OpenDP's sum of squared deviations of ``n`` float64 records in ``bounds`` (pairwise summation): from 0.8.0
    ``make_sum_of_squared_deviations(vector_domain(atom_domain(bounds), size=n), symmetric_distance())`` (``nan=False``
    where the domain takes it, since 0.13), before it ``make_sized_bounded_sum_of_squared_deviations(n, bounds)``."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    if hasattr(dp.t, "make_sum_of_squared_deviations"):
        try:
            element = dp.atom_domain(bounds=bounds, nan=False)
        except TypeError:
            element = dp.atom_domain(bounds=bounds)
        return dp.t.make_sum_of_squared_deviations(dp.vector_domain(element, size=n), dp.symmetric_distance())
    return getattr(dp.t, "make_sized_bounded_sum_of_squared_deviations")(n, bounds)  # 0.7


def _opendp_2923(n: int = 1024) -> dict:
    """OpenDP#2923: ``make_sum_of_squared_deviations`` (rust/src/transformations/sum_of_squared_deviations/mod.rs:
    97-120 in 0.15.1, the same code since 0.5.0) pads its stability map for the rounding of the *sum of squared
    deviations* ([CSVW22] relaxation) but subtracts a rounded mean ``sum / n`` from every record: near 2^50 the
    float64 grid is 1/4, so moving one record by 1/4 moves the rounded mean by a whole grid step and every
    deviation with it. With n = 1024 records M + 1/4 (M = 2^50, bounds [M, M + 1]) the SSD is 0; replace one
    record by M + 1/2 and the SSD is 63.94, above the 40.60 the stability map declares at d_in = 2 (one record
    replaced, symmetric distance 2). Noise calibrated to 40.60 then does not cover the change: the guarantee
    OpenDP states for this transformation (it needs no ``idealized-numerics`` feature) fails.

    Neighbours: the 1024 records above, one replaced (symmetric distance 2). The check is exact: both outputs and
    the declared sensitivity ``map(2)`` come from the installed OpenDP; reproduced when ``|f(x) - f(y)| > map(2)``."""
    m = 2.0 ** 50
    ssd = _ssd_transformation(n, (m, m + 1.0))
    x = [m + 0.25] * n
    y = [m + 0.5] + [m + 0.25] * (n - 1)
    claimed, fx, fy = float(ssd.map(2)), float(ssd(x)), float(ssd(y))
    diff_ = abs(fx - fy)
    return {"status": "reproduced" if diff_ > claimed else "fixed", "version": installed_version("opendp"),
            "claimed": claimed, "difference": diff_, "on_d": fx, "on_d_prime": fy,
            "detail": (f"sum of squared deviations of {n} records in [2^50, 2^50 + 1], one record moved from "
                       f"2^50 + 0.25 to 2^50 + 0.5: outputs {fx:.6g} vs {fy:.6g}, a change of {diff_:.6g} against the "
                       f"stability map's {claimed:.6g} at d_in 2")}


# -- OpenDP #2941: a Polars cast to Float32 is given a float64 domain ----------------------------------------------

_BIG = 1e38


def _opendp_2941_measurement() -> Any:
    """The report's release: ``col("x").cast(Float32).fill_nan(0).clip(-1e38, 1e38).sum()`` with Laplace noise of
    scale 1e38, on frames of at most 11 rows (``make_private_lazyframe``, pure DP; the 0.14+ frame API)."""
    import opendp.prelude as dp
    import polars as pl

    dp.enable_features("contrib")
    query = pl.LazyFrame(schema={"x": pl.Float64}).select(
        pl.col("x").cast(pl.Float32).fill_nan(0.0).clip(-_BIG, _BIG).sum()
        .dp.noise(scale=_BIG))  # type: ignore[attr-defined]  # OpenDP registers the .dp namespace at import
    domain = dp.with_margin(dp.lazyframe_domain([dp.series_domain("x", dp.atom_domain(T=float, nan=False))]),
                            dp.polars.Margin(max_length=11))
    return dp.m.make_private_lazyframe(domain, dp.frame_distance(dp.symmetric_distance()), dp.max_divergence(),
                                       query)


def _opendp_2941(samples: int = 1000) -> dict:
    """OpenDP#2941: ``SeriesDomain::new_element_domain`` maps ``DataType::Float32`` to ``AtomDomain::<f64>``
    (rust/src/domains/polars/series/mod.rs:138 in 0.15.1; the same mapping since the cast expression arrived in
    0.12.0), so a column cast to Float32 is treated as float64 and the sum's overflow guard is computed for f64:
    eleven values of magnitude 1e38 sum in f32, whose largest finite value is 3.4e38. Four 1e38's before seven
    -1e38's overflow to +inf; remove one 1e38 and the running sum passes through -3e38 the other way. OpenDP's map
    claims epsilon 1 at scale 1e38 (sensitivity 1e38), but the released sums are +inf-like vs -inf-like.

    Neighbours (add/remove one row): x = [1e38] * 4 + [-1e38] * 7, y = [1e38] * 3 + [-1e38] * 7. The check is a
    sampling audit of the installed ``make_private_lazyframe`` measurement (:func:`dpverify.audit.audit`,
    ``samples`` releases per side, test: the release exceeds 1.7e38, the report's event), against the measurement's
    own ``map``: reproduced when the certified lower bound exceeds it. OpenDP draws its noise from the operating
    system, so the releases are not seeded; the separation (about 0.94 vs 0.004 of releases) leaves the verdict
    far from the threshold."""
    import opendp.prelude as dp
    import polars as pl

    meas = _opendp_2941_measurement()
    claim = float(meas.map([dp.polars.Bound(per_group=1)]))

    def mechanism(dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        frame = pl.LazyFrame({"x": [float(v) for v in np.asarray(dataset, dtype=float)]})
        out = np.array([meas(frame).collect().item() for _ in range(n)], dtype=float)
        return np.nan_to_num(out, nan=0.0, posinf=4e38, neginf=-4e38)  # the audit takes finite outputs

    def high(outputs: np.ndarray) -> np.ndarray:
        return (np.asarray(outputs, dtype=float).reshape(len(outputs), -1)[:, 0] > 1.7e38).astype(float)

    x = np.array([_BIG] * 4 + [-_BIG] * 7)
    y = np.array([_BIG] * 3 + [-_BIG] * 7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = audit(mechanism, x, y, epsilon=claim, delta=0.0, samples=samples, seed=0, test=high)
    return {"status": "reproduced" if r.is_violation else "fixed", "version": installed_version("opendp"),
            "claimed": claim, "certified": r.epsilon_lower,
            "detail": (f"noisy Float32 sum (scale 1e38) of 4 x 1e38 + 7 x -1e38 vs one 1e38 fewer: certified epsilon "
                       f"{r.epsilon_lower:.3g} against OpenDP's {claim:.4g} ({samples} releases per side, event "
                       "'release > 1.7e38')")}


# -- OpenDP PR #2708: randomized response on a bit vector never flips the last bit ---------------------------------

def _rr_bitvec_mechanism(f: float) -> Any:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp.m.make_randomized_response_bitvec(dp.bitvector_domain(max_weight=1), dp.discrete_distance(), f=f)


def _opendp_pr2708(samples: int = 2000, f: float = 0.5) -> dict:
    """OpenDP PR #2708 ("RR bitvec randomization is off-by-one"): ``make_randomized_response_bitvec`` drew its noise
    vector as ``(1..n).map(...)``, n - 1 Bernoulli(f/2) bits for an n-bit input (rust/src/measurements/
    randomized_response_bitvec/mod.rs:59-60 in 0.14.2; the measurement arrived in 0.12.0), and XORed it into the
    input: the last bit (bit 7 of the last byte, the most significant) was released as it is. The map still claims
    epsilon ``2 m ln((2 - f) / f)`` (2.197 at f = 1/2, max weight m = 1), but that bit reveals the input exactly.
    Fixed by drawing ``0..n`` bits, released in 0.15.0.

    Neighbours (discrete distance 1): the one-byte inputs 0x00 and 0x80 (the last bit 0 vs 1). The check is a
    sampling audit (:func:`dpverify.audit.audit`, ``samples`` releases per side, test: the last bit of the release)
    against the measurement's own ``map(1)``: reproduced when the certified lower bound exceeds it (on a fixed
    release the bit flips with probability 1/4 and the true epsilon of that bit is ln 3 = 1.10). OpenDP draws from
    the operating system; the defect shows as a bit that never flips, far from the threshold."""
    meas = _rr_bitvec_mechanism(f)
    claim = float(meas.map(1))

    def mechanism(dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        data = bytes([int(np.asarray(dataset).ravel()[0])])
        return np.array([np.frombuffer(meas(data), dtype=np.uint8)[-1] >> 7 for _ in range(n)], dtype=float)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = audit(mechanism, np.array([0]), np.array([0x80]), epsilon=claim, delta=0.0, samples=samples, seed=0)
        rates = [float(mechanism(np.array([v]), 400, np.random.default_rng(1)).mean()) for v in (0, 0x80)]
    return {"status": "reproduced" if r.is_violation else "fixed", "version": installed_version("opendp"),
            "claimed": claim, "certified": r.epsilon_lower, "last_bit_rates": rates,
            "detail": (f"randomized response on a bit vector (f = {f:g}, max weight 1), input 0x00 vs 0x80: the last "
                       f"bit is 1 in {rates[0]:.3f} vs {rates[1]:.3f} of 400 releases; certified epsilon "
                       f"{r.epsilon_lower:.3g} against the map's {claim:.4g} ({samples} releases per side)")}


_ODP = "https://github.com/opendp/opendp"

CASES: tuple[CorpusCase, ...] = (
    CorpusCase("opendp#2638", "opendp",
               "additive noise samplers biased by a wrong rational division (RBig / UBig) in dashu",
               ("https://github.com/opendp/opendp/issues/2638", "https://github.com/cmpute/dashu/issues/57"),
               "OpenDP issue open, dashu#57 closed as no longer relevant in the latest dashu-ratio; OpenDP's Rust "
               "sampler is not reachable from Python: the division is re-implemented in a CKS20 discrete Laplace "
               "sampler", "re-implementation", _opendp_2638, method="exact",
               datasets="a count 0 vs 1 (sensitivity 1) released with discrete Laplace noise of scale 3"),
    CorpusCase("opendp#2923", "opendp",
               "make_sum_of_squared_deviations: the rounding of the mean is not in the stability map",
               (f"{_ODP}/issues/2923",),
               "issue open: no fixed version to install", "library", _opendp_2923,
               affected=">=0.5.0", fixed_in=None, method="exact",
               datasets="1024 records 2^50 + 0.25 in [2^50, 2^50 + 1] vs one of them replaced by 2^50 + 0.5 "
                        "(symmetric distance 2)",
               releases=("0.8.0", "0.16.0")),
    CorpusCase("opendp#2941", "opendp",
               "Polars: a cast to Float32 gets a float64 domain, so the sum's overflow guard is wrong",
               (f"{_ODP}/issues/2941",),
               "issue open: no fixed version to install", "library", _opendp_2941,
               affected=">=0.12.0", fixed_in=None, method="statistical",
               datasets="a column of 4 x 1e38 and 7 x -1e38 vs one 1e38 fewer (add/remove one row)",
               releases=("0.15.0", "0.16.0"), requirements=("polars==1.36.1", "pyarrow"), isolation="venv"),
    CorpusCase("opendp-pr2708", "opendp",
               "randomized response on a bit vector leaves the last bit unrandomized",
               (f"{_ODP}/pull/2708",),
               "fixed by PR #2708 (commit f25a6cd), released in 0.15.0", "library", _opendp_pr2708,
               affected=">=0.12.0,<0.15.0", fixed_in="0.15.0", method="statistical",
               datasets="the one-byte bit vectors 0x00 and 0x80 (last bit 0 vs 1; discrete distance 1)",
               releases=("0.14.2", "0.15.0")),
)

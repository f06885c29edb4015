"""The standard suite's cases: mechanisms, witness pairs, claims and (computed) exact epsilons.

Parameters and witness pairs follow DP-Sniper (Bichsel, Steffen, Bogunovic & Vechev 2021, "DP-Sniper: black-box
discovery of differential privacy violations using classifiers", IEEE S&P; eth-sri/dp-sniper,
``dpsniper/experiments/exp_default.py`` for the mechanisms and their parameters and
``eval_sp2021/reference-results/dd_search_reg_data.log`` for the best input pair it found per mechanism), so the
rows are comparable with its published numbers. The exact epsilons are computed when ``cases()`` is first called
(3-6 s on one core; the sparse vector tables dominate) and cached.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from dpverify.audit.known_bad import RandomizedResponse, SparseVector
from dpverify.audit.standard import additive, local, noisy_max, sparse_vector
from dpverify.audit.standard.case import BenchmarkCase

__all__ = ["cases", "get", "names"]

EPS = 0.1
LINF = ("every query answer may move by at most 1, in any direction (sensitivity-1 queries; the answer vectors "
        "of two datasets differing in one record, replace-one or add/remove)")
MONOTONE = ("every answer moves by at most 1 and all in the same direction (counting queries under add/remove "
            "of one record)")
ONE = "one answer (one histogram count) changes by at most 1 (add/remove of one record)"
LOCAL = "the single user's value is replaced by any other value (local DP)"


def _vec(*parts) -> np.ndarray:
    return np.array([x for count, value in parts for x in [float(value)] * count])


ONES5, RNM_WORST = np.ones(5), _vec((1, 0), (4, 2))
SVT_SWAP_A, SVT_SWAP_B = _vec((5, 0), (5, 1)), _vec((5, 1), (5, 0))
ONES10, HALF_HALF = np.ones(10), _vec((5, 2), (5, 0))
ONE_ABOVE = _vec((1, 2), (9, 0))


def _case(name, mechanism, dataset, neighbour, claim, private, adjacency, adjacency_text, source, output,
          dpsniper_ratio=None, notes="", delta=0.0) -> BenchmarkCase:
    exact = mechanism.exact_epsilon(dataset, neighbour, delta)
    if exact is None:
        raise RuntimeError(f"{name}: no exact epsilon at delta = {delta}")
    return BenchmarkCase(name=name, mechanism=mechanism, dataset=dataset, neighbour=neighbour,
                         epsilon_claimed=float(claim), delta=delta, epsilon_exact=float(exact), private=private,
                         adjacency=adjacency, adjacency_text=adjacency_text, source=source, output=output,
                         dpsniper_ratio=dpsniper_ratio, notes=notes)


def _svt(variant: str, epsilon: float = EPS, threshold: float = 1.0):
    svt = SparseVector(epsilon, variant, threshold=threshold, c=1)
    return sparse_vector.SVTWithValues(svt) if variant == "alg3" else sparse_vector.TabulatedSVT(svt)


@functools.lru_cache(maxsize=1)
def _build() -> tuple[BenchmarkCase, ...]:
    lyu = "Lyu, Su & Li 2017 (PVLDB), Fig. 1 Alg. {}; DP-Sniper SparseVectorTechnique{}"
    ding = "Ding et al. 2018 (CCS), Alg. {}; DP-Sniper {}"
    geo = local.GeoSample(k=math.ceil(math.log(2.0 / EPS)), n=5)
    rappor, one_time = local.Rappor(f=0.75, p=0.45, q=0.55), local.Rappor(f=0.95, instantaneous=False)
    out = [
        _case("laplace_0.1", additive.laplace(0.1), np.array([1.0]), np.array([2.0]), 0.1, True, "l1_shift",
              "the answer changes by at most 1", "Dwork, McSherry, Nissim & Smith 2006; DP-Sniper LaplaceMechanism",
              "scalar", 0.81),
        _case("laplace_1", additive.laplace(1.0), np.array([1.0]), np.array([2.0]), 1.0, True, "l1_shift",
              "the answer changes by at most 1", "Dwork et al. 2006 (Laplace mechanism at epsilon 1)", "scalar", 0.99),
        _case("truncated_geometric", geo, np.array([2]), np.array([1]), geo.claimed_epsilon, True, "add_remove",
              "the count changes by 1 (add/remove one record), counts in {0..5}",
              "Balcer & Vadhan 2018, Alg. 4.8 GeoSample, Thm 4.7; DP-Sniper TruncatedGeometricMechanism", "discrete",
              notes="k = ceil(ln(2/0.1)) = 3 as in DP-Sniper (natural log): log(1 + 2^-3) = 0.118-DP, above its "
                    "nominal 0.1; Balcer & Vadhan's k = ceil(log2(2/eps)) would give 5"),
        _case("noisy_hist1", additive.noisy_histogram(EPS), _vec((1, 0), (4, 1)), np.ones(5), EPS, True,
              "add_remove", ONE, ding.format(9, "NoisyHist1"), "vector", 0.83),
        _case("noisy_hist2", additive.noisy_histogram(EPS, wrong_scale=True), _vec((1, 0), (4, 1)), np.ones(5), EPS,
              False, "add_remove", ONE, ding.format(10, "NoisyHist2") + " (noise Lap(eps) instead of Lap(1/eps))",
              "vector"),
        _case("report_noisy_max1", noisy_max.NoisyMax(EPS, "laplace", "index"), ONES5, RNM_WORST, EPS, True,
              "linf_shift", LINF, ding.format(5, "ReportNoisyMax1"), "discrete", 0.83),
        _case("report_noisy_max2", noisy_max.NoisyMax(EPS, "exponential", "index"), ONES5, RNM_WORST, EPS, True,
              "linf_shift", LINF, ding.format(6, "ReportNoisyMax2"), "discrete"),
        _case("report_noisy_max3", noisy_max.NoisyMax(EPS, "laplace", "value"), np.zeros(5), np.ones(5), EPS, False,
              "linf_shift", LINF, ding.format(7, "ReportNoisyMax3") + " (releases the noisy maximum)", "scalar", 0.80),
        _case("report_noisy_max4", noisy_max.NoisyMax(EPS, "exponential", "value"), ONES5, 2 * ONES5, EPS, False,
              "linf_shift", LINF, ding.format(8, "ReportNoisyMax4") + " (releases the noisy maximum)", "scalar"),
        _case("report_noisy_max_half_noise_add_remove", noisy_max.NoisyMax(EPS, "laplace", "index", 1.0), ONES5,
              _vec((1, 1), (4, 2)), EPS, True, "monotone_shift", MONOTONE,
              "Dwork & Roth 2014, Claim 3.9 (Lap(1/eps) suffices for monotone counting queries)", "discrete"),
        _case("report_noisy_max_half_noise_replace", noisy_max.NoisyMax(EPS, "laplace", "index", 1.0), ONES5,
              RNM_WORST, EPS, False, "linf_shift", LINF,
              "Dwork & Roth 2014, Claim 3.9 applied outside its monotone assumption", "discrete",
              notes="same mechanism as the row above: the adjacency decides whether Lap(1/eps) is enough"),
        _case("svt1", _svt("alg1", threshold=0.5), SVT_SWAP_A, SVT_SWAP_B, EPS, True, "linf_shift", LINF,
              lyu.format(1, 1), "discrete", 0.32),
        _case("svt2", _svt("alg2"), SVT_SWAP_A, SVT_SWAP_B, EPS, True, "linf_shift", LINF, lyu.format(2, 2),
              "discrete"),
        _case("svt3", _svt("alg3"), ONES10, HALF_HALF, EPS, False, "linf_shift", LINF,
              lyu.format(3, 3) + " (outputs the noisy answer)", "mixed", 0.27),
        _case("svt4", _svt("alg4"), ONES10, HALF_HALF, EPS, False, "linf_shift", LINF,
              lyu.format(4, 4) + " (query noise without the factor c; (1+6c)/4 eps-DP)", "discrete"),
        _case("svt5", _svt("alg5"), HALF_HALF, ONES10, EPS, False, "linf_shift", LINF,
              lyu.format(5, 5) + " (no query noise)", "discrete"),
        _case("svt6", _svt("alg6"), _vec((5, 1), (5, 0)), SVT_SWAP_A, EPS, False, "linf_shift", LINF,
              lyu.format(6, 6) + " (no cutoff)", "discrete"),
        # StatDP numbering (Ding et al. 2018, Sec. 6): the same algorithms as Lyu's 5, 6, 4, 3; witness pair: the
        # StatDP input pattern (dpsniper/input/pattern_generator.py) with the largest exact epsilon
        _case("isvt1", _svt("alg5", epsilon=0.05), ONES10, ONE_ABOVE, 0.05, False, "linf_shift", LINF,
              "Ding et al. 2018 (StatDP) iSVT1 = Lyu Alg. 5 (no query noise), at StatDP's epsilon 0.05", "discrete"),
        _case("isvt2", _svt("alg6"), ONES10, HALF_HALF, EPS, False, "linf_shift", LINF,
              "Ding et al. 2018 (StatDP) iSVT2 = Lyu Alg. 6 (no cutoff)", "discrete"),
        _case("isvt3", _svt("alg4"), SVT_SWAP_B, SVT_SWAP_A, EPS, False, "linf_shift", LINF,
              "Ding et al. 2018 (StatDP) iSVT3 = Lyu Alg. 4 (query noise without c)", "discrete"),
        _case("isvt4", _svt("alg3"), ONES10, 2 * ONES10, EPS, False, "linf_shift", LINF,
              "Ding et al. 2018 (StatDP) iSVT4 = Lyu Alg. 3 (outputs the noisy answer)", "mixed"),
        _case("numerical_svt", sparse_vector.NumericalSVT(EPS, c=2, threshold=1.0), 2 * ONES10, ONES10, EPS, True,
              "linf_shift", LINF, "Wang et al. 2019 (PLDI), NumericalSVT; DP-Sniper NumericalSVT", "mixed"),
        _case("prefix_sum", additive.PrefixSum(EPS), ONES10, np.zeros(10), 10 * EPS, True, "linf_shift", LINF,
              "Wang et al. 2019 (PLDI), PrefixSum; DP-Sniper PrefixSum", "vector", 0.46,
              notes="Lap(1/0.1) per answer on 10 answers that may all move: 1.0-DP (basic composition), tight"),
        _case("laplace_parallel", additive.laplace_parallel(0.005, 20), np.array([1.0]), np.array([0.0]), 0.1, True,
              "l1_shift", "the answer changes by at most 1",
              "DP-Sniper LaplaceParallel (20 x Laplace at eps 0.005; basic composition)", "vector", 0.02),
        _case("rappor", rappor, np.array([1]), np.array([0]), rappor.claimed_epsilon, True, "value_change", LOCAL,
              "Erlingsson et al. 2014 (CCS), RAPPOR steps 1-3, eps_1; DP-Sniper Rappor", "vector",
              notes="values 1 and 0 share one Bloom bit of four: 6 differing bits, 0.30 of the 0.40 claim"),
        _case("one_time_rappor", one_time, np.array([1]), np.array([0]), one_time.claimed_epsilon, True,
              "value_change", LOCAL, "Erlingsson et al. 2014 (CCS), RAPPOR steps 1-2, eps_inf; DP-Sniper OneTimeRappor",
              "vector"),
        _case("randomized_response", RandomizedResponse(EPS), np.array([0]), np.array([1]), EPS, True,
              "value_change", LOCAL, "Warner 1965; Dwork & Roth 2014, Sec. 3.2", "discrete"),
        _case("exponential", noisy_max.ExponentialSelection(EPS, 1.0), ONES5, RNM_WORST, EPS, True, "linf_shift",
              "every utility moves by at most 1 (utility sensitivity 1)", "McSherry & Talwar 2007, Thm 6", "discrete"),
    ]
    return tuple(out)


def cases() -> list[BenchmarkCase]:
    """All cases of the standard suite, in a fixed order."""
    return list(_build())


def names() -> list[str]:
    """The case names, in order."""
    return [c.name for c in _build()]


def get(name: str) -> BenchmarkCase:
    """The case called ``name``; ValueError listing the valid names otherwise."""
    for c in _build():
        if c.name == name:
            return c
    raise ValueError(f"name must be one of {names()}; got {name!r}")

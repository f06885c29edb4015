"""Implementation mode (issue 12, section 4): the floating-point statistics of dpverify.audit.floating_point.

The naive float Laplace mechanism ``fl(mu + n)`` is not epsilon-DP for any epsilon (Mironov 2012, CCS): some
doubles are reachable from one query value and not from the other. Implementation mode must find it (large
certified epsilon at a modest budget, a verdict that names the floating-point cause), mathematical mode must not
(it audits the idealised Laplace, which is 0.1-DP), and the statistics must not flag mechanisms without such
artefacts (integer outputs, an exact sampler on a grid). Statistical validity over many seeds is in
``test_audit_validity_floating_point.py``.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dpverify.audit import audit
from dpverify.audit.core import MODES
from dpverify.audit.floating_point import (
    FLOAT_STATISTICS,
    TRAILING_ZERO_CAP,
    bit_classes,
    implementation_statistics,
    reachability_classes,
    violation_note,
)
from dpverify.audit.known_bad import laplace_query
from dpverify.audit.likelihood_ratio import log_likelihood_ratio

EPS = 0.1
D0, D1 = np.array([1.0]), np.array([2.0])
SAMPLES = 20_000  # 16000 estimation outputs per side


def dp_sniper_laplace(dataset, n, rng):
    """DP-Sniper's Laplace mechanism, ``laplace(value, 1/eps)`` with the location inside numpy's sampler (Bichsel
    et al. 2021, eth-sri/dp-sniper ``dpsniper/mechanisms/laplace.py``), drawn from the audit's generator. Black box:
    no query value, no density."""
    return rng.laplace(float(np.sum(dataset)), 1.0 / EPS, size=n)


class GridLaplace:
    """An exact sampler: ``mu + Z / 8`` with Z two-sided geometric (discrete Laplace, ``P[Z = k] ~ exp(-t |k|)``,
    t = EPS / 8 so that the shift mu = 1 -> 2 of 8 grid steps costs exactly EPS; Ghosh, Roughgarden & Sundararajan
    2012; Canonne, Kamath & Steinke 2020, Sec. 2). mu and Z / 8 are dyadic and small, so the float64 sum is exact:
    the released double is the real output, and the mechanism is EPS-DP in floats too. Integer draws from numpy's
    geometric sampler (inversion in floats) only approximate exp(-t |k|) in the far tails."""

    def query_value(self, dataset):
        return float(np.sum(dataset))

    def __call__(self, dataset, n, rng):
        p = -math.expm1(-EPS / 8)
        z = rng.geometric(p, n) - rng.geometric(p, n)
        return self.query_value(dataset) + z / 8.0


def two_sided_geometric(dataset, n, rng):
    """Integer outputs: the count plus discrete Laplace noise of parameter exp(-EPS) (EPS-DP on a shift of 1)."""
    p = -math.expm1(-EPS)
    return int(np.sum(dataset)) + rng.geometric(p, n) - rng.geometric(p, n)


def test_implementation_mode_flags_the_naive_float_laplace():
    """numpy's float Laplace ``mu + Laplace(10)``, claimed 0.1-DP on 1 vs 2: about 6% of M(1)'s outputs (the
    doubles near 0 with a low bit that fl(2 + n) cannot set) are unreachable from 2, so the reachability event has
    counts about (960, 0) of 16000: certificate log(L/U) ~ log((960 - 2 sqrt(960)) / 3.7) = 5.5. Required > 4:
    K - 2 sqrt(K) > 3.7 e^4 = 202 needs K > 232 of a Binomial(16000, 0.06) count (mean 960, sd 30), so only a
    statistic that lost most of its power fails. Mathematical mode on the same draws audits the idealised
    Laplace: its bound exceeds the exact 0.1 with probability <= 5%."""
    mech = laplace_query(EPS)
    impl = audit(mech, D0, D1, epsilon=EPS, samples=SAMPLES, seed=0, mode="implementation")
    assert impl.mode == "implementation"
    assert impl.verdict == "violation" and impl.epsilon_lower > 4.0, impl
    assert impl.test in FLOAT_STATISTICS
    assert impl.counts["neighbour_in_event"] == 0  # an output M(2) cannot produce
    assert "not private as claimed" in impl.verdict_reason
    assert "floating-point leak" in impl.verdict_reason  # the plain-words cause, from violation_note
    note = violation_note(impl.test)
    assert note.startswith("floating-point leak: the set of floating-point values it can output depends on the data")
    assert "Mironov 2012" in note and violation_note("likelihood_ratio") is None

    math_mode = audit(mech, D0, D1, epsilon=EPS, samples=SAMPLES, seed=0)
    assert math_mode.mode == "mathematical"
    assert math_mode.verdict != "violation" and math_mode.epsilon_lower <= EPS
    assert math_mode.test not in FLOAT_STATISTICS


def test_issue_budget_certifies_above_the_issue_number():
    """The issue's setting at its budget, 10^6 samples per side (800000 estimation outputs): the reachability
    event holds ~6.1% of M(1)'s outputs (measured 48915) and none of M(2)'s, so the certificate is about
    log(48915 / 3.7) = 9.5. Required > 8.45 (the issue's unrounded-ratio figure): needs K > 3.7 e^8.45 + 2 sqrt(K)
    ~ 17500 of a count with mean ~48900 and sd ~215. About 1 s."""
    r = audit(laplace_query(EPS), D0, D1, epsilon=EPS, samples=1_000_000, seed=0, mode="implementation")
    assert r.test == "fp:reachable" and r.epsilon_lower > 8.45, r


def test_black_box_bit_classes_flag_dp_sniper_laplace():
    """Without query value or density only the bit classes are left (fp:ulp_pattern); the doubles in [0.5, 1) with
    the last bit set come only from mu = 1 (about 4.8% of M(1)'s outputs are in classes M(2) never reaches at
    10^5 draws). Same bound as above: > 4 needs > 232 of ~770 expected event counts."""
    r = audit(dp_sniper_laplace, D0, D1, epsilon=EPS, samples=SAMPLES, seed=1, mode="implementation")
    assert r.verdict == "violation" and r.test == "fp:ulp_pattern" and r.epsilon_lower > 4.0, r
    assert "low-order bits" in violation_note(r.test)
    assert audit(dp_sniper_laplace, D0, D1, epsilon=EPS, samples=SAMPLES, seed=1).verdict != "violation"


def float32_laplace(dataset, n, rng):
    """The naive Laplace mechanism in single precision: ``float32(mu) + float32(noise)``, black box."""
    return np.float32(np.sum(dataset)) + rng.laplace(0.0, 1.0 / EPS, size=n).astype(np.float32)


def test_float32_outputs_are_read_in_their_own_format():
    """float32 outputs widened to float64 would have >= 29 trailing zero bits (all in the capped class), hiding
    the pattern; read as binary32 the classes M(2) cannot reach hold ~5% of M(1)'s outputs (measured 777 of 16000
    estimation outputs at seed 0; > 4 needs > 232, as above)."""
    x = float32_laplace(D0, 1000, np.random.default_rng(4))
    assert len(np.unique(bit_classes(x) % (TRAILING_ZERO_CAP + 1))) > 5  # not all capped
    r = audit(float32_laplace, D0, D1, epsilon=EPS, samples=SAMPLES, seed=0, mode="implementation")
    assert r.verdict == "violation" and r.test == "fp:ulp_pattern" and r.epsilon_lower > 4.0, r


@pytest.mark.parametrize("mechanism", [two_sided_geometric, GridLaplace()], ids=["integer", "exact_grid"])
def test_no_flag_without_float_artefacts(mechanism):
    """Integer outputs and the exact grid sampler are EPS-DP as run: in implementation mode, a certificate above
    EPS has probability <= 5% (the audit's confidence); the seed is fixed. Integer outputs get no floating-point
    statistic at all."""
    r = audit(mechanism, D0, D1, epsilon=EPS, samples=SAMPLES, seed=2, mode="implementation")
    assert r.verdict != "violation" and r.epsilon_lower <= EPS, r
    rng = np.random.default_rng(0)
    f0, f1 = mechanism(D0, 1000, rng), mechanism(D1, 1000, rng)
    names = [s.name for s in implementation_statistics(f0, f1, mechanism=mechanism, dataset=D0, neighbour=D1)]
    if mechanism is two_sided_geometric:
        assert names == []
    else:
        assert names == ["fp:ulp_pattern", "fp:reachable"]


def test_bit_classes_and_reachability_by_hand():
    """IEEE 754 binary64: 1.0 = sign 0, biased exponent 1023, fraction 0 (trailing zeros 52 -> cap);
    1 + 2^-52 has its lowest fraction bit set; -0.75 = sign 1, exponent 1022, fraction 2^51 (51 zeros -> cap);
    0.5 + 2^-53 (last bit of [0.5, 1)) is fl(1 + n) for n = -0.5 + 2^-53 but no fl(2 + n): x - 2 rounds to the
    2^-52 grid of [1, 2)."""
    cap = TRAILING_ZERO_CAP + 1
    x = np.array([1.0, 1.0 + 2.0 ** -52, -0.75, 3.0 * 2.0 ** -60])
    expected = [1023 * cap + TRAILING_ZERO_CAP, 1023 * cap + 0, (2048 + 1022) * cap + TRAILING_ZERO_CAP,
                (1023 - 59) * cap + TRAILING_ZERO_CAP]
    assert bit_classes(x).ravel().tolist() == expected
    # 3 * 2^-60 = 1.5 * 2^-59: fraction 2^51 -> 51 trailing zeros (capped); check an uncapped one as well
    assert bit_classes(np.array([1.0 + 2.0 ** -40])).item() == 1023 * cap + min(12, TRAILING_ZERO_CAP)
    y = np.array([[0.5 + 2.0 ** -53], [3.0]])
    assert reachability_classes(y, np.array(1.0), np.array(2.0)).ravel().tolist() == [2, 3]


def test_statistics_shapes_and_vector_outputs():
    """Each statistic returns one finite value per output, for scalars and for vector outputs (naive-Bayes sum over
    coordinates); outputs of another width after fitting are an error."""
    rng = np.random.default_rng(3)
    mech = laplace_query(EPS)
    f0, f1 = mech(D0, 500, rng), mech(D1, 500, rng)
    stats = implementation_statistics(f0, f1, mechanism=mech, dataset=D0, neighbour=D1)
    assert [s.name for s in stats] == ["fp:ulp_pattern", "fp:reachable", "likelihood_ratio:unrounded"]
    for s in stats:
        assert np.isfinite(s(mech(D0, 200, rng))).all()
    v0, v1 = rng.laplace(size=(300, 3)), 1.0 + rng.laplace(size=(300, 3))
    (ulp,) = implementation_statistics(v0, v1)
    assert ulp(v0).shape == (300,)
    with pytest.raises(ValueError, match="changed shape"):
        ulp(rng.laplace(size=(10, 2)))


def test_bad_mode_and_decimals_are_clear_errors():
    with pytest.raises(ValueError, match="mode must be one of"):
        audit(laplace_query(EPS), D0, D1, epsilon=EPS, samples=100, mode="float")
    with pytest.raises(ValueError, match="decimals"):
        log_likelihood_ratio(laplace_query(EPS).log_density, D0, D1, decimals=-1)
    # the default is still the rounded ratio of mathematical mode
    s = log_likelihood_ratio(laplace_query(EPS).log_density, D0, D1)
    assert s.name == "likelihood_ratio" and s(np.array([[0.3]]))[0] == pytest.approx(0.1, abs=1e-9)


def test_cli_mode_flag(capsys):
    """``dpverify audit ID --mode implementation`` reaches the audit (reported in the JSON and the text); the
    suite's reference Laplace sampler (numpy floats, eps 1 on counts 2 vs 3) is flagged at 20000 samples (measured
    5.5); an unknown mode is an argparse error (exit 2)."""
    from dpverify.interfaces.cli import main
    from dpverify.interfaces.cli.audit import MODES as CLI_MODES

    assert CLI_MODES == MODES
    assert main(["audit", "laplace_mechanism", "--samples", "20000", "--mode", "implementation", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "implementation" and out["verdict"] == "violation" and out["test"] in FLOAT_STATISTICS
    assert "floating-point leak" in out["verdict_reason"]
    assert main(["audit", "laplace_mechanism", "--samples", "20000", "--mode", "implementation"]) == 1
    assert "mode: implementation; test: fp:" in capsys.readouterr().out
    assert main(["audit", "laplace_mechanism", "--mode", "float"]) == 2  # argparse's usage error, returned
    assert "invalid choice: 'float'" in capsys.readouterr().err

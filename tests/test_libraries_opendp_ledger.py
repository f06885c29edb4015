"""The OpenDP budget ledger (dpverify.libraries.opendp_ledger): every noise measurement invoked in one release.

No sampling: a ledger is one release per side (milliseconds). The catalogue's measurements must agree with their
privacy maps (no false mismatch); deliberately broken releases must be flagged: a release invoked twice, a user
measurement whose privacy map under-reports, a transformation whose stability map under-declares the sensitivity.
"""
import math

import pytest

from dpverify.calculus.guarantees import ApproxDP
from dpverify.libraries.ledger import diff
from dpverify.libraries.runner import LibraryResult, _add_ledger, ledger_cell, ledger_text, load

pytest.importorskip("opendp", reason="needs the peers extra: pip install -e '.[peers]'")

odp = load("opendp")
_F = "(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance())"
LAPLACE_SUM = f"{_F} >> dp.t.then_clamp((0.0, 1.0)) >> dp.t.then_sum() >> dp.m.then_laplace(scale=1.0)"


@pytest.fixture(scope="module")
def catalogue():
    return {f.name: f for f in odp.catalogue()}


def test_every_catalogue_release_spends_what_its_map_records(catalogue):
    """The ledger's own calculus (Laplace d/scale, Gaussian rho converted at delta, noisy max 2d/scale,
    randomized response ln(p/(1-p))) agrees with OpenDP's privacy map on every catalogue entry."""
    for name, fn in catalogue.items():
        led = fn.ledger(fn.pairs[0][0], 0)
        assert len(led.entries) == 1 and led.mismatch == {}, name
        claim = fn.claim(None)
        assert led.recorded.epsilon == pytest.approx(claim.epsilon, rel=1e-12), name
        assert led.spent.epsilon == pytest.approx(claim.epsilon, rel=1e-4), name  # zCDP conversions: ~1e-6 apart
        e = led.entries[0]
        assert e.site.startswith("opendp/measurements.py:") and e.sensitivity is not None, name
    lap = catalogue["clamp+sum+laplace"].ledger([0.5, 0.25], 0).entries[0]
    # the sum's stability map adds float slack above 1; the statistic handed to the noise is the clamped sum
    assert lap.mechanism == "make_laplace" and 1.0 < lap.sensitivity < 1 + 1e-6 and lap.scale == 1.0
    assert lap.value == 0.75
    mean = catalogue["clamp+resize+mean+laplace"].ledger([0.5] * 20, 0).entries[0]
    assert mean.value is None and mean.sensitivity == pytest.approx(0.125)  # resize samples: no statistic
    nm = catalogue["noisy_max(linf scores)"].ledger(catalogue["noisy_max(linf scores)"].pairs[0][0], 0).entries[0]
    assert nm.epsilon == 2.0 and "own map" not in nm.mechanism  # non-monotonic scores: 2 d_in / scale
    q = catalogue["private_quantile(median)"]
    assert "(own map)" in q.ledger(q.pairs[0][0], 0).entries[0].mechanism  # no independent formula: said so


def test_gaussian_spent_is_dpverify_s_conversion():
    from dpverify.libraries.opendp_ledger import zcdp_to_approx

    src = f"dp.c.make_zCDP_to_approxDP({_F} >> dp.t.then_clamp((0.0, 1.0)) >> dp.t.then_sum() >> " \
          "dp.m.then_gaussian(scale=4.0))"
    led = odp.release_ledger(src, [0.5], releases=3)
    rho = led.entries[0].sensitivity ** 2 / (2 * 16.0)
    # three releases: rho adds up (3 rho), not three (epsilon, delta) pairs
    assert led.spent == zcdp_to_approx(3 * rho, odp.DELTA) and led.spent.delta == odp.DELTA
    # sub-linear in epsilon (1.81 times one release), far above the record of one release
    assert 1.5 < led.mismatch["spent_over_recorded"]["ratio"] < 2
    with pytest.raises(ValueError, match="rho"):
        zcdp_to_approx(-1.0, 1e-6)
    # make_fix_delta at another delta than the ledger's: spent is converted at the delta the record states
    fixed = odp.release_ledger(f"dp.c.make_fix_delta({src}, 1e-3)", [0.5])
    assert fixed.recorded.delta == 1e-3 and fixed.spent.delta == 1e-3 and fixed.mismatch == {}
    assert fixed.spent.epsilon == pytest.approx(fixed.recorded.epsilon, rel=1e-4)


def test_an_extra_invocation_is_spent_but_not_recorded():
    led = odp.release_ledger(LAPLACE_SUM, [0.5, 0.5], releases=2)
    assert [e.mechanism for e in led.entries] == ["make_laplace", "make_laplace"]
    mm = led.mismatch["spent_over_recorded"]
    assert mm["ratio"] == pytest.approx(2.0) and led.recorded.epsilon == pytest.approx(1.0, rel=1e-6)
    with pytest.raises(ValueError, match="releases"):
        odp.release_ledger(LAPLACE_SUM, [0.5], releases=0)


def test_a_user_measurement_whose_map_under_reports_is_flagged():
    """A user measurement adds Laplace(1) noise through OpenDP's own make_laplace but declares d_in / 2."""
    odp._dp().enable_features("honest-but-curious")
    src = ("dp.m.make_user_measurement(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), "
           "dp.max_divergence(), function=(lambda lap: (lambda x: lap(x)))(dp.m.make_laplace("
           "dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)), "
           "privacy_map=lambda d_in: d_in / 2.0, TO=float)")
    led = odp.release_ledger(src, 0.5, d_in=1.0)
    assert [e.mechanism for e in led.entries] == ["make_laplace"]
    assert led.spent == ApproxDP(1.0, 0.0) and led.recorded == ApproxDP(0.5, 0.0)
    assert led.mismatch["spent_over_recorded"]["epsilon"] == pytest.approx(0.5)
    honest = src.replace("d_in / 2.0", "d_in / 1.0")
    assert odp.release_ledger(honest, 0.5, d_in=1.0).mismatch == {}
    # a user measurement that invokes nothing registered enters with its own map
    own = ("dp.m.make_user_measurement(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), "
           "dp.max_divergence(), function=lambda x: x, privacy_map=lambda d_in: 0.0, TO=float)")
    led = odp.release_ledger(own, 0.5, d_in=1.0)
    assert led.entries[0].mechanism == "make_user_measurement (own map)" and led.mismatch == {}


def test_an_under_declared_sensitivity_shows_in_the_diff():
    """A user transformation sums the clamped records (sensitivity 1) but its stability map declares d_in / 2."""
    odp._dp().enable_features("honest-but-curious")
    src = ("dp.t.make_user_transformation(dp.vector_domain(dp.atom_domain(T=float, nan=False)), "
           "dp.symmetric_distance(), dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), "
           "function=lambda x: float(sum(min(max(v, 0.0), 1.0) for v in x)), stability_map=lambda d_in: 0.5 * d_in)"
           " >> dp.m.then_laplace(scale=1.0)")
    a, b = odp.release_ledger(src, [0.5, 0.5]), odp.release_ledger(src, [0.5, 0.5, 1.0])
    assert a.entries[0].sensitivity == 0.5 and a.mismatch == {}  # the map agrees with the declared sensitivity
    (d,) = diff(a, b)
    assert d["exceeds_declared"] == {"realized": 1.0, "declared": 0.5}
    honest = src.replace("0.5 * d_in", "1.0 * d_in")
    assert diff(odp.release_ledger(honest, [0.5, 0.5]), odp.release_ledger(honest, [0.5, 0.5, 1.0])) == []


def test_the_ledger_restores_opendp():
    import opendp.combinators as oc
    import opendp.core as ocore
    import opendp.measurements as om

    before = (ocore.measurement_invoke, om.make_laplace, oc.make_chain_mt)
    odp.release_ledger(LAPLACE_SUM, [0.5])
    with pytest.raises(Exception):  # noqa: B017 - the library's own error on a bad input, patches undone
        odp.release_ledger(LAPLACE_SUM, ["not a number"])
    assert (ocore.measurement_invoke, om.make_laplace, oc.make_chain_mt) == before
    from dpverify.libraries.opendp_ledger import opendp_ledger

    with pytest.raises(ValueError, match="delta"), opendp_ledger(1, delta=0.0):
        pass


def test_runner_row_carries_the_opendp_ledger(catalogue):
    fn = catalogue["count+gaussian->approxDP"]
    row = LibraryResult(fn.qualified_name, fn.library, fn.version, fn.name, fn.adjacency)
    _add_ledger(row, fn, 0, 0)
    led = row.ledger
    assert led is not None and row.label == "" and row.finding_from is None and ledger_cell(row) == "ok"
    assert led["dataset"]["calls"][0]["mechanism"] == "make_gaussian" and led["mismatch"] == {}
    assert math.isclose(led["dataset"]["recorded"]["epsilon"], fn.claim(None).epsilon)
    # a release invoked twice: the row becomes a ledger finding, and the text names the calls and their site
    twice = fn.__class__(**{**fn.__dict__, "ledger": lambda d, seed: odp.release_ledger(
        LAPLACE_SUM, [float(v) for v in d.ravel()], releases=2)})
    row = LibraryResult("x", fn.library, fn.version, fn.name, fn.adjacency)
    _add_ledger(row, twice, 0, 0)
    assert row.label == "finding" and row.finding_from == ["ledger"]
    assert ledger_cell(row).startswith("spent 2 > rec 1")
    text = "\n".join(ledger_text(row))
    assert "MISMATCH" in text and "make_laplace" in text and "opendp/measurements.py:" in text
    assert "recorded 1 (the measurement's privacy map at d_in = 1)" in text


def test_a_composition_is_expanded_into_its_noise_measurements():
    """make_composition holds two chained Laplace releases (scales 1 and 2): two calls, 1 + 1/2 spent, and the
    composition's own map records the same."""
    s = f"{_F} >> dp.t.then_clamp((0.0, 1.0)) >> dp.t.then_sum()"
    src = f"dp.c.make_composition([{s} >> dp.m.then_laplace(scale=1.0), {s} >> dp.m.then_laplace(scale=2.0)])"
    led = odp.release_ledger(src, [0.5, 0.25])
    assert [e.scale for e in led.entries] == [1.0, 2.0] and [e.value for e in led.entries] == [0.75, 0.75]
    assert led.spent.epsilon == pytest.approx(1.5, rel=1e-6) and led.mismatch == {}
    assert led.recorded.epsilon == pytest.approx(led.spent.epsilon, rel=1e-12)

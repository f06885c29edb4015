"""The accountants consume mechanism descriptions (issue 22, section 3), as dp_accounting's consume DpEvents:
``supports(description)`` and ``compose(description)`` on the PLD and RDP accountants; ``MechanismDescription.pld``,
``.rdp`` and ``.account`` are thin wrappers around them. Also the closed vocabularies of the calculus."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pytest

from dpverify.calculus.accounting import DEFAULT_ORDERS, PldAccountant, RdpAccountant
from dpverify.calculus.accounting.described import Described, UnsupportedDescriptionError, step_kind
from dpverify.calculus.accounting.pld import pure_dp_pld, subsampled_gaussian_pld
from dpverify.calculus.accounting.sampled_gaussian import rdp_sampled_gaussian
from dpverify.calculus.guarantees import RenyiDP
from dpverify.calculus.mechanism_description import (
    FixedSizeSampling,
    GaussianStep,
    MechanismDescription,
    PoissonSampling,
    PureDPStep,
    Repeated,
)
from dpverify.calculus.vocabulary import NeighbouringRelation, Release

POISSON = MechanismDescription((Repeated(GaussianStep(1.0, 2.0, PoissonSampling(0.1)), 20),
                                Repeated(GaussianStep(0.0, 1.0), 3),  # zero sensitivity: no privacy loss
                                Repeated(PureDPStep(0.3), 2)), "add_remove", "path")
NO_NOISE = MechanismDescription((Repeated(GaussianStep(1.0, 0.0), 1),), "replace_one", "final")


@dataclass(frozen=True)
class LaplaceStep:
    """A step kind neither accountant knows."""

    scale: float


def test_pld_accountant_composes_a_description_step_by_step():
    acc = PldAccountant()
    assert acc.supports(POISSON) and acc.compose(POISSON) is acc
    by_hand = subsampled_gaussian_pld(0.1, 0.5).self_compose(20).compose(pure_dp_pld(0.3).self_compose(2))
    lo, hi = acc.pld.epsilon_bounds(1e-5)
    assert (lo, hi) == pytest.approx(by_hand.epsilon_bounds(1e-5), rel=1e-9)
    assert POISSON.pld().epsilon_bounds(1e-5) == (lo, hi)  # the thin wrapper is the accountant
    conv = POISSON.account(1e-5)
    assert (conv.epsilon, conv.epsilon_lower, conv.method) == (hi, lo, "pld")


def test_rdp_accountant_composes_a_description_step_by_step():
    orders = np.array([1.5, 2.0, 8.0, 32.0])
    acc = RdpAccountant(orders)
    assert acc.supports(POISSON)
    expected = 20 * rdp_sampled_gaussian(0.1, 2.0, orders) + 2 * np.minimum(0.3, orders * 0.09 / 2)
    np.testing.assert_allclose(acc.compose(POISSON).rdp, expected, rtol=1e-12)
    np.testing.assert_array_equal(POISSON.rdp(orders), acc.rdp)
    conv = POISSON.account(1e-5, method="rdp")
    assert conv.epsilon == RdpAccountant(DEFAULT_ORDERS).compose(POISSON).get_epsilon(1e-5).epsilon
    assert conv.method == "rdp (balle2020)"


def test_a_step_without_noise_is_infinite_rdp_and_no_pld():
    assert np.all(np.isinf(RdpAccountant().compose(NO_NOISE).rdp))
    assert not PldAccountant().supports(NO_NOISE)
    with pytest.raises(UnsupportedDescriptionError, match="privacy loss is infinite"):
        PldAccountant().compose(NO_NOISE)
    assert math.isinf(NO_NOISE.account(1e-5).epsilon)  # account() answers before asking the accountant


def test_unsupported_steps_are_a_clear_error_naming_the_step():
    @dataclass(frozen=True)
    class Run:
        steps: tuple

    run = Run((Repeated(GaussianStep(1.0, 1.0), 2), Repeated(LaplaceStep(1.0), 1)))  # type: ignore[arg-type]
    assert isinstance(run, Described) and step_kind(LaplaceStep(1.0)) is None
    for acc in (PldAccountant(), RdpAccountant()):
        assert not acc.supports(run)
        with pytest.raises(UnsupportedDescriptionError, match=r"LaplaceStep\(scale=1.0\).*does not support"):
            acc.compose(run)
    with pytest.raises(TypeError, match="pld must be a PrivacyLossDistribution or a mechanism description"):
        PldAccountant().compose(1.0)
    with pytest.raises(TypeError, match="guarantee must be a RenyiDP or a mechanism description"):
        RdpAccountant().compose(1.0)


def test_supports_also_covers_the_older_inputs():
    assert PldAccountant().supports(pure_dp_pld(1.0))
    assert not PldAccountant(interval=1e-3).supports(pure_dp_pld(1.0))  # another grid
    assert RdpAccountant([2.0, 3.0]).supports(RenyiDP((2.0, 3.0, 4.0), (0.1, 0.2, 0.3)))
    assert not RdpAccountant([2.0, 5.0]).supports(RenyiDP((2.0, 3.0), (0.1, 0.2)))
    assert not RdpAccountant().supports(pure_dp_pld(1.0))  # a PLD's ``steps`` is a count, not a description's
    with pytest.raises(TypeError, match="guarantee must be a RenyiDP or a mechanism description"):
        RdpAccountant().compose(pure_dp_pld(1.0))


def test_fixed_size_sampling_reads_as_its_rate():
    step = GaussianStep(1.0, 1.0, FixedSizeSampling(10, 100))
    run = MechanismDescription((Repeated(step, 5),), "replace_one", "path")
    expected = subsampled_gaussian_pld(0.1, 1.0).self_compose(5).epsilon_bounds(1e-5)
    assert PldAccountant().compose(run).pld.epsilon_bounds(1e-5) == pytest.approx(expected, rel=1e-9)


def test_vocabulary_members_are_their_strings():
    assert POISSON.release is Release.PATH and POISSON.neighbouring is NeighbouringRelation.ADD_REMOVE
    assert Release.PATH == "path" and hash(Release.PATH) == hash("path") and f"{Release.FINAL}" == "final"
    assert {"path": 1}[Release.PATH] == 1 and json.dumps([Release.FINAL]) == '["final"]'
    assert POISSON.to_dict()["release"] == "path" and "[add_remove]" in POISSON.summary()
    assert Release.values() == ("path", "final")
    with pytest.raises(ValueError, match=r"release must be one of \('path', 'final'\); got 'paht'"):
        Release.parse("paht", "release")
    with pytest.raises(ValueError, match="neighbouring must be one of"):
        MechanismDescription((GaussianStep(1.0, 1.0),), "swap", "path")

"""One accountant base class (issue 36, part A): :class:`~dpverify.calculus.accounting.base.PrivacyAccountant`, after
dp_accounting's ``PrivacyAccountant`` -- ``supports`` / ``compose(item, count)`` (a template method that refuses an
unsupported item, composes, and keeps a ledger) / ``get_epsilon`` / ``get_delta``. Both accountants derive from it,
dispatch on the types of description steps (no string step kinds), and give the numbers they gave before."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

import dpverify.calculus.accounting as accounting
from dpverify.calculus.accounting import (
    LedgerEntry,
    PldAccountant,
    PrivacyAccountant,
    RdpAccountant,
    SampledGaussianSteps,
    gaussian_pld,
    pure_dp_pld,
)
from dpverify.calculus.accounting.described import UnsupportedDescriptionError, is_gaussian_release, step_kind
from dpverify.calculus.guarantees import Conversion, RenyiDP
from dpverify.calculus.mechanism_description import (
    GaussianStep,
    MechanismDescription,
    PoissonSampling,
    PureDPStep,
    Repeated,
)

POISSON = MechanismDescription((Repeated(GaussianStep(1.0, 2.0, PoissonSampling(0.1)), 20),
                                Repeated(GaussianStep(0.0, 1.0), 3),  # zero sensitivity: no privacy loss
                                Repeated(PureDPStep(0.3), 2)), "add_remove", "path")


@dataclass(frozen=True)
class LaplaceStep:
    """A step type neither accountant accounts."""

    scale: float


@dataclass(frozen=True)
class Run:
    """A bare description: run-length encoded steps."""

    steps: tuple


UNSUPPORTED = Run((Repeated(GaussianStep(1.0, 1.0), 2), Repeated(LaplaceStep(1.0), 1)))  # type: ignore[arg-type]


# -- one base class ---------------------------------------------------------------------------------------------------


def test_both_accountants_are_privacy_accountants():
    assert accounting.PrivacyAccountant is PrivacyAccountant and "PrivacyAccountant" in accounting.__all__
    for acc in (RdpAccountant(), PldAccountant()):
        assert isinstance(acc, PrivacyAccountant) and acc.ledger == ()
    assert PrivacyAccountant.__abstractmethods__ == {"supports", "_compose", "get_epsilon", "get_delta", "_state_text"}
    assert PrivacyAccountant.compose is RdpAccountant.compose is PldAccountant.compose  # one template


def test_a_subclass_missing_an_abstract_method_cannot_be_instantiated():
    class NoAnswers(PrivacyAccountant):
        def supports(self, item):
            return True

        def _compose(self, item, count):
            pass

        def _state_text(self):
            return ""

    with pytest.raises(TypeError, match="abstract"):
        NoAnswers()  # type: ignore[abstract]
    with pytest.raises(TypeError, match="abstract"):
        PrivacyAccountant()  # type: ignore[abstract]


class BasicComposition(PrivacyAccountant):
    """The smallest accountant: pure epsilon-DP steps, epsilons added (basic composition, Dwork & Roth 2014,
    Thm 3.16)."""

    name = "basic"
    item_noun = "epsilon"
    item_types = (float,)
    expected_items = "a float or a mechanism description"

    def __init__(self) -> None:
        super().__init__()
        self.epsilon = 0.0

    def _state_text(self) -> str:
        return f"epsilon={self.epsilon:g}"

    def supports(self, item: object) -> bool:
        return isinstance(item, float) and item >= 0

    def _compose(self, item, count: int) -> None:
        self.epsilon += count * item

    def get_epsilon(self, delta: float) -> Conversion:
        return Conversion(self.epsilon, delta, None, "basic")

    def get_delta(self, epsilon: float) -> Conversion:
        return Conversion(epsilon, 0.0 if epsilon >= self.epsilon else 1.0, None, "basic")


def test_the_template_checks_composes_and_records():
    acc = BasicComposition()
    assert acc.compose(0.5, 3) is acc and acc.compose(0.25) is acc
    assert acc.ledger == (LedgerEntry(0.5, 3), LedgerEntry(0.25, 1))
    assert acc.get_epsilon(0.0).epsilon == 1.75 and repr(acc) == "BasicComposition(epsilon=1.75)"
    with pytest.raises(ValueError, match="count must be an integer >= 1; got 0"):
        acc.compose(0.5, 0)
    with pytest.raises(TypeError, match="epsilon must be a float or a mechanism description; got str"):
        acc.compose("0.5")
    with pytest.raises(UnsupportedDescriptionError, match="the basic accountant cannot compose -1.0"):
        acc.compose(-1.0)
    with pytest.raises(UnsupportedDescriptionError, match=r"LaplaceStep\(scale=1.0\).*does not support"):
        acc.compose(UNSUPPORTED)
    assert acc.epsilon == 1.75 and len(acc.ledger) == 2  # refusals change nothing


# -- the ledger -------------------------------------------------------------------------------------------------------


def test_the_rdp_ledger_records_items_and_counts():
    curve = RdpAccountant().compose_sampled_gaussian(0.02, 1.3, 5).guarantee
    acc = RdpAccountant()
    assert acc.compose_sampled_gaussian(0.01, 1.1, 100) is acc
    assert acc.compose_sampled_gaussian_schedule(0.01, [2.0, 1.5, 2.0]) is acc
    assert acc.compose(curve, 2) is acc and acc.compose(POISSON) is acc
    assert acc.ledger == (LedgerEntry(SampledGaussianSteps(0.01, (1.1,), (1,)), 100),
                          LedgerEntry(SampledGaussianSteps(0.01, (1.5, 2.0), (1, 2)), 1),
                          LedgerEntry(curve, 2), LedgerEntry(POISSON, 1))
    replay = RdpAccountant()
    for entry in acc.ledger:
        replay.compose(entry.item, entry.count)
    np.testing.assert_array_equal(replay.rdp, acc.rdp)  # the state is the composition of the ledger
    single = RdpAccountant().compose(POISSON).rdp
    np.testing.assert_allclose(RdpAccountant().compose(POISSON, 3).rdp, 3 * single, rtol=1e-15)


def test_the_pld_ledger_records_items_and_counts():
    acc = PldAccountant(interval=1e-3)
    assert acc.compose_gaussian(0.5, count=4) is acc and acc.compose_pure_dp(0.1, count=2) is acc
    (g, n_g), (p, n_p) = ((e.item, e.count) for e in acc.ledger)
    assert (n_g, n_p) == (4, 2)
    assert g.basis == gaussian_pld(0.5, interval=1e-3).basis and p.basis == pure_dp_pld(0.1, interval=1e-3).basis
    replay = PldAccountant(interval=1e-3).compose(g, n_g).compose(p, n_p)
    assert replay.get_epsilon(1e-5) == acc.get_epsilon(1e-5)
    acc.compose(POISSON)
    assert acc.ledger[-1] == LedgerEntry(POISSON, 1) and len(acc.ledger) == 3
    twice = PldAccountant(interval=1e-3).compose(POISSON, 2).get_epsilon(1e-5)
    again = PldAccountant(interval=1e-3).compose(POISSON).compose(POISSON).get_epsilon(1e-5)
    assert twice.epsilon == pytest.approx(again.epsilon, rel=1e-6)
    assert twice.epsilon_lower == pytest.approx(again.epsilon_lower, rel=1e-6)


# -- refusals ---------------------------------------------------------------------------------------------------------


def test_an_unsupported_item_is_refused_by_name_and_changes_nothing():
    rdp = RdpAccountant([2.0, 5.0]).compose_sampled_gaussian(0.1, 1.0, 3)
    pld = PldAccountant(interval=1e-3).compose_gaussian(0.5)
    before_rdp, before_pld = rdp.rdp, pld.pld
    for acc in (rdp, pld):
        assert not acc.supports(UNSUPPORTED)
        with pytest.raises(UnsupportedDescriptionError,
                           match=rf"the {acc.name} accountant cannot compose this description: step "
                                 r"LaplaceStep\(scale=1.0\) is of a type .* does not support"):
            acc.compose(UNSUPPORTED)
    with pytest.raises(UnsupportedDescriptionError, match=r"this curve: it has no RDP value at .* \[5.0\]"):
        rdp.compose(RenyiDP((2.0, 3.0), (0.1, 0.2)))
    with pytest.raises(UnsupportedDescriptionError,
                       match=r"another grid \(interval 0.0001; the accountant's is 0.001\)"):
        pld.compose(gaussian_pld(1.0))
    with pytest.raises(TypeError, match="guarantee must be a RenyiDP or a mechanism description"):
        rdp.compose(gaussian_pld(1.0))
    with pytest.raises(TypeError, match="pld must be a PrivacyLossDistribution or a mechanism description"):
        pld.compose(RenyiDP((2.0,), (0.1,)))
    with pytest.raises(ValueError, match="count must be an integer >= 1"):
        pld.compose(gaussian_pld(1.0, interval=1e-3), count=0)
    np.testing.assert_array_equal(rdp.rdp, before_rdp)
    assert pld.pld is before_pld and len(rdp.ledger) == 1 and len(pld.ledger) == 1


def test_steps_are_read_by_type():
    """A step that reads as both a Gaussian and a pure-DP release is accounted as Gaussian (as before issue 36); a
    step with neither shape is of no kind."""

    @dataclass(frozen=True)
    class Both:
        mu: float
        sampling: PoissonSampling
        epsilon: float

    both = Both(0.5, PoissonSampling(0.1), 100.0)
    assert is_gaussian_release(both) and step_kind(both) == "gaussian" and step_kind(LaplaceStep(1.0)) is None
    as_gaussian = RdpAccountant([2.0, 8.0]).compose(Run((Repeated(GaussianStep(0.5, 1.0, PoissonSampling(0.1)), 1),)))
    np.testing.assert_array_equal(RdpAccountant([2.0, 8.0]).compose(Run((Repeated(both, 1),))).rdp, as_gaussian.rdp)
    no_noise = Run((Repeated(GaussianStep(1.0, 0.0), 1),))
    assert RdpAccountant().supports(no_noise) and not PldAccountant().supports(no_noise)


# -- the numbers did not change ---------------------------------------------------------------------------------------
# The literals below were computed with the accountants as they were before issue 36 (commit 0e801b1, RdpAccountant
# and PldAccountant without a common base), by the same calls; the new code gives them bit for bit on the machine
# that wrote them (the tolerance only allows for another BLAS or FFT build).

EXACT = dict(rel=1e-12, abs=0.0)


def test_rdp_numbers_are_unchanged():
    # RdpAccountant docstring: 2.5966 at q = 256/60000, sigma = 1.1, 14062 steps, delta = 1e-5
    # (dp-accounting 0.6: 2.596556)
    acc = RdpAccountant().compose_sampled_gaussian(256 / 60000, 1.1, 14062)
    c = acc.get_epsilon(1e-5)
    assert (c.epsilon, c.order, c.method) == (pytest.approx(2.5965558689532964, **EXACT), 8.1, "balle2020")
    c = acc.get_epsilon(1e-5, method="mironov2017")
    assert (c.epsilon, c.order) == (pytest.approx(3.008272082533035, **EXACT), 8.8)
    c = acc.get_delta(2.0)
    assert (c.delta, c.order) == (pytest.approx(0.00045423165043254814, **EXACT), 6.7)
    # Li et al. 2019 schedule, sigma_t = 1.1 t^(1/6), q = 0.02, 200 steps
    c = RdpAccountant().compose_sampled_gaussian_schedule(0.02, 1.1 * np.arange(1, 201) ** (1 / 6)).get_epsilon(1e-5)
    assert (c.epsilon, c.order) == (pytest.approx(1.0372787732692463, **EXACT), 10.1)
    # a description: 20 subsampled Gaussian steps, 3 without sensitivity, 2 pure-DP steps
    acc = RdpAccountant().compose(POISSON)
    c = acc.get_epsilon(1e-5)
    assert (c.epsilon, c.order) == (pytest.approx(1.8271095836208038, **EXACT), 12.0)
    assert acc.rdp[[0, 9, 50, 100, 155]].tolist() == pytest.approx(
        [0.12946340733059547, 0.23672456532527245, 0.7446312636621822, 1.093391977412049, 2514.503281813765], **EXACT)
    c = POISSON.account(1e-5, method="rdp")
    assert (c.epsilon, c.order, c.method) == (pytest.approx(1.8271095836208038, **EXACT), 12.0, "rdp (balle2020)")


def test_pld_numbers_are_unchanged():
    # PldAccountant docstring: 100 subsampled Gaussian steps, q = 0.01, mu = 1, interval 1e-3
    acc = PldAccountant(interval=1e-3).compose_subsampled_gaussian(q=0.01, mu=1.0, count=100)
    assert repr(acc) == "PldAccountant(PLD of 100 Poisson-subsampled Gaussian steps (q=0.01, mu=1), interval=0.001)"
    c = acc.get_epsilon(1e-5)
    assert (c.epsilon, c.epsilon_lower) == (pytest.approx(0.718139873748547, **EXACT),
                                            pytest.approx(0.7178842878871275, **EXACT))
    c = acc.get_delta(1.0)
    assert (c.delta, c.delta_lower) == (pytest.approx(6.676341400043923e-07, **EXACT),
                                        pytest.approx(6.664041385508705e-07, **EXACT))
    # tests/test_accounting_pld.py: 4 Gaussian steps (mu = 0.5) then 2 pure-DP steps (epsilon = 0.1)
    c = PldAccountant(interval=1e-3).compose_gaussian(0.5, count=4).compose_pure_dp(0.1, count=2).get_epsilon(1e-5)
    assert (c.epsilon, c.epsilon_lower) == (pytest.approx(4.426198716853559, **EXACT),
                                            pytest.approx(4.426196193030811, **EXACT))
    # a schedule of 60 steps, q = 0.02, mu from 0.5 to 1
    c = PldAccountant().compose_schedule(0.02, np.linspace(0.5, 1.0, 60)).get_epsilon(1e-5)
    assert (c.epsilon, c.epsilon_lower) == (pytest.approx(0.7976989268513273, **EXACT),
                                            pytest.approx(0.7976980919748936, **EXACT))
    # the description, by the accountant and by account() (default interval 1e-4)
    acc = PldAccountant().compose(POISSON)
    assert repr(acc) == ("PldAccountant(PLD of 20 Poisson-subsampled Gaussian steps (q=0.1, mu=0.5) + 2 pure-DP steps "
                         "(epsilon=0.3), interval=0.0001)")
    for c in (acc.get_epsilon(1e-5), POISSON.account(1e-5)):
        assert (c.epsilon, c.epsilon_lower, c.method) == (pytest.approx(1.577202713677987, **EXACT),
                                                          pytest.approx(1.5772024212769953, **EXACT), "pld")
    assert math.isinf(MechanismDescription((Repeated(GaussianStep(1.0, 0.0), 1),), "replace_one", "path")
                      .account(1e-5).epsilon)

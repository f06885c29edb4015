"""What a mechanism can do for the auditor (dpverify.audit.abilities): the protocols, the ``*_of`` readers that treat an
ability set to None as absent, ``read_facts``, and how often one audit asks a mechanism for each thing -- including,
for a sampler, how many mechanism descriptions are built and how many accountant runs an audit costs."""
from __future__ import annotations

import collections
import traceback

import numpy as np
import pytest

import dpverify.calculus.mechanism_description as md
from dpverify.audit import audit
from dpverify.audit.abilities import (
    HasAccountant,
    HasExactEpsilon,
    HasLogDensity,
    HasPairPrivacyLoss,
    HasWhiteBoxStatistic,
    Mechanism,
    PairLoss,
    log_density_of,
    query_of,
    read_facts,
    white_box_statistic_of,
)
from dpverify.audit.known_bad import laplace_query
from dpverify.calculus.accounting import descriptions
from dpverify.calculus.accounting.pld import PldAccountant, PrivacyLossDistribution, gaussian_pld
from dpverify.calculus.guarantees import Conversion
from dpverify.calculus.mechanism_description import PairPrivacyLoss

D0, D1 = np.array([0.0]), np.array([1.0])


class Counting:
    """A Gaussian mechanism (sigma = 1, shift = the dataset) with every optional ability, counting the calls."""

    def __init__(self):
        self.calls = collections.Counter()

    def __call__(self, dataset, n, rng):
        return float(dataset[0]) + rng.normal(size=n)

    def log_likelihood_ratio(self, dataset, neighbour):
        self.calls["log_likelihood_ratio"] += 1
        a, b = float(dataset[0]), float(neighbour[0])
        return lambda x: (a - b) * np.asarray(x, dtype=float).reshape(-1) - (a * a - b * b) / 2

    def exact_epsilon(self, dataset, neighbour, delta):
        self.calls["exact_epsilon"] += 1
        return None

    def account(self, delta):
        self.calls["account"] += 1
        return Conversion(3.0, delta, None, "counting accountant")

    def pair_privacy_loss(self, dataset, neighbour):
        self.calls["pair_privacy_loss"] += 1
        return PairPrivacyLoss(gaussian_pld(abs(float(dataset[0]) - float(neighbour[0]))), "exact", exact=True)


class FinalRelease:
    """A mechanism that has the attribute but sets it to None: "no white-box statistic here"."""

    log_likelihood_ratio = None
    log_density = None

    def __call__(self, dataset, n, rng):
        return rng.normal(size=n)


def test_protocols_recognise_abilities_by_their_methods():
    assert isinstance(lambda d, n, rng: None, Mechanism) and not isinstance("not callable", Mechanism)
    lap = laplace_query(1.0)
    assert isinstance(lap, HasLogDensity) and isinstance(lap, HasExactEpsilon)
    assert not isinstance(lap, HasAccountant) and not isinstance(lap, HasPairPrivacyLoss)
    c = Counting()
    assert all(isinstance(c, p) for p in (HasWhiteBoxStatistic, HasAccountant, HasPairPrivacyLoss, HasExactEpsilon))


def test_an_ability_set_to_none_is_absent():
    assert white_box_statistic_of(FinalRelease()) is None and log_density_of(FinalRelease()) is None
    assert white_box_statistic_of(Counting()) is not None
    assert log_density_of(laplace_query(1.0)) is not None


def test_query_of_prefers_query_value():
    class Both:
        def query_value(self, d):
            return 1

        def query(self, d):
            return 2

    assert query_of(Both())(None) == 1
    assert query_of(laplace_query(1.0)) is not None  # AdditiveNoise.query
    assert query_of(FinalRelease()) is None


def test_read_facts_asks_once_and_given_values_win():
    c = Counting()
    facts = read_facts(c, D0, D1, 1e-5)
    assert c.calls == {"exact_epsilon": 1, "account": 1, "pair_privacy_loss": 1}
    assert facts.accountant.epsilon == 3.0 and facts.privacy_loss.exact and facts.exact_epsilon is None
    c = Counting()
    given = Conversion(1.0, 1e-5, None, "given")
    facts = read_facts(c, D0, D1, 1e-5, exact_epsilon=0.7, accountant=given,
                       privacy_loss=PairPrivacyLoss(gaussian_pld(1.0), "given", exact=False))
    assert c.calls == {} and facts.exact_epsilon == 0.7 and facts.accountant is given
    assert facts.privacy_loss.basis == "given" and not facts.privacy_loss.exact
    with pytest.raises(ValueError, match="exact_epsilon"):
        read_facts(c, D0, D1, 1e-5, exact_epsilon=-1.0)


def test_a_privacy_loss_without_basis_or_exactness_is_an_upper_bound():
    class MassesOnly:
        def masses(self):
            return gaussian_pld(1.0).masses()

    loss = PairLoss.read(MassesOnly())
    assert (loss.basis, loss.exact) == ("", False)
    with pytest.raises(TypeError, match="privacy_loss must have masses"):
        PairLoss.read(object())


@pytest.mark.parametrize("mode,white_box_calls", [("mathematical", 1), ("implementation", 2)])
def test_one_audit_asks_the_mechanism_once_for_each_fact(mode, white_box_calls):
    """The facts once each; the white-box statistic once per statistic built from it (implementation mode adds its
    unrounded twin)."""
    c = Counting()
    r = audit(c, D0, D1, epsilon=1.0, delta=1e-5, samples=3_000, seed=1, mode=mode)
    assert c.calls == {"exact_epsilon": 1, "account": 1, "pair_privacy_loss": 1,
                       "log_likelihood_ratio": white_box_calls}
    # the white-box event and the privacy-loss event: the best black-box event (the output itself, a monotone
    # function of the log-likelihood ratio here) is the white-box event's set and is counted once
    # (select.SelectionEvidence.distinct)
    # (implementation mode adds the best floating-point event first: a black-box statistic of its own)
    assert r.epsilon_accountant == 3.0 and r.ceiling_exact
    tests = [c["test"] for c in r.candidates]
    assert tests[-2:] == ["whitebox_llr", "whitebox_llr"]
    assert tests[:-2] == ([] if mode == "mathematical" else ["fp:ulp_pattern"])


def test_descriptions_built_and_accountant_runs_per_sampler_audit(monkeypatch):
    """One audit of the DP-SGLD path case (a gradient canary: the pair's PLD is the description's, scaled). Measured
    before the auditor was split into stages: 4 descriptions built, 1 ``account`` call, 1 PLD accountant run (the
    canary's scaled description equals the run's here, so its PLD is the cached one). The auditor itself builds
    none: it asks ``account(delta)`` and ``pair_privacy_loss`` once each; the 4 are built inside the sampler
    (1 in ``account``, 3 in ``pair_privacy_loss``: ``mechanism()`` twice and ``scaled()`` once)."""
    from dpverify.interfaces import suite

    case = suite.get_case("dp_sgld_path")
    sampler = case.build()
    claim = sampler.guarantee()
    d0, d1 = case.dataset(), case.neighbour()
    counts = collections.Counter()
    post_init, account, compose = md.MechanismDescription.__post_init__, md.MechanismDescription.account, \
        PldAccountant.compose

    def counting_post_init(self):
        counts["descriptions"] += 1
        counts[f"built in {_builder()}"] += 1
        post_init(self)

    def counting_account(self, *args, **kwargs):
        counts["account"] += 1
        return account(self, *args, **kwargs)

    def counting_compose(self, pld):
        if not isinstance(pld, PrivacyLossDistribution):  # a description: one accountant run
            counts["PLD accountant runs"] += 1
        return compose(self, pld)

    monkeypatch.setattr(md.MechanismDescription, "__post_init__", counting_post_init)
    monkeypatch.setattr(md.MechanismDescription, "account", counting_account)
    monkeypatch.setattr(PldAccountant, "compose", counting_compose)
    descriptions.composed_pld.cache_clear()
    audit(sampler, d0, d1, epsilon=claim.epsilon, delta=claim.delta, samples=1_000, seed=0)
    assert counts["account"] == 1
    assert counts["PLD accountant runs"] == 1
    assert counts["descriptions"] <= 4
    assert counts["built in samplers"] == counts["descriptions"] and counts["built in audit"] == 0


def _builder() -> str:
    """The part of dpverify (``audit``, ``samplers``...) whose code asked for the description being built: the
    innermost dpverify frame outside the calculus."""
    for frame in reversed(traceback.extract_stack()[:-2]):
        if "/dpverify/calculus/" in frame.filename or "/dpverify/" not in frame.filename:
            continue
        return frame.filename.split("/dpverify/")[-1].split("/")[0]
    return "elsewhere"


def test_declared_output_bytes_reads_each_form_of_the_declaration():
    """``output_bytes()`` is read as is; ``output_bytes(dataset)`` on each audited dataset (the larger), and as
    undeclared (None) without one; a default or ``*args`` parameter accepts both calls; no method is None."""
    from dpverify.audit.abilities import declared_output_bytes

    class Fixed:
        def output_bytes(self):
            return 300

    class PerAnswer:
        def output_bytes(self, dataset):
            return 10.0 * len(dataset)

    class Optional:
        def output_bytes(self, dataset=None):
            return 64.0 if dataset is None else 8.0 * len(dataset)

    class Starred:
        def output_bytes(self, *dataset):
            return 8.0 * (len(dataset[0]) if dataset else 1)

    pair = ([1, 2, 3], [1, 2, 3, 4])
    assert declared_output_bytes(Fixed(), pair) == declared_output_bytes(Fixed()) == 300.0
    assert declared_output_bytes(PerAnswer(), pair) == 40.0
    assert declared_output_bytes(PerAnswer()) is None
    assert (declared_output_bytes(Optional(), pair), declared_output_bytes(Optional())) == (32.0, 64.0)
    assert (declared_output_bytes(Starred(), pair), declared_output_bytes(Starred())) == (32.0, 8.0)
    assert declared_output_bytes(object(), pair) is None

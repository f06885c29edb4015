"""The provable forms of the DP-penalty / DP-HMC items (dpverify/prove/forms/penalty.py; issue 39): the Gaussian step's
RDP and DP-penalty's delta(epsilon) proved as identities against comparators computed by sympy's integration, and each
able to refute a halved claim, the witness re-checked in floating point by code the prover does not use (dpverify's
calculus: gaussian_delta; the closed-form Gaussian RDP typed again).

Which bug would make these fail: a comparator integral over the wrong set (not the likelihood-ratio set), a mu that is
not the composition of the run's releases, a form that cannot refute a wrong claim, a certificate the checker
rejects."""
from __future__ import annotations

import math

import pytest

from dpverify.calculus.mechanisms.gaussian import gaussian_delta
from dpverify.prove import Proof, Refutation, certificate, check_certificate
from dpverify.prove.catalogue import form, prove_item
from dpverify.prove.search import Limits
from dpverify.theorems import registry
from dpverify.theorems.mutation import TheoremVariant


def _halved(theorem_id: str, part: str) -> TheoremVariant:
    theorem = registry.get(theorem_id)
    return TheoremVariant(theorem.id, dict(theorem.symbols), list(theorem.hypotheses),
                          {**theorem.conclusion, part: theorem.conclusion[part] / 2})


@pytest.mark.parametrize("item", ["yildirim2019.thm_penalty_step_gaussian", "raisa2021.thm_dp_penalty_privacy"])
def test_proved_as_an_identity(item):
    proof = prove_item(item, limits=Limits(max_seconds=60))
    assert proof.outcome == "proved", proof.summary()
    (_, result), = proof.parts
    assert isinstance(result, Proof) and result.problem.margin == 0 and result.problem.comparator_source
    report = check_certificate(certificate(result))
    assert report.valid and report.outcome == "proved", report.errors


def test_halved_step_rdp_is_refuted():
    proof = prove_item("yildirim2019.thm_penalty_step_gaussian",
                       item=_halved("yildirim2019.thm_penalty_step_gaussian", "rdp"), limits=Limits(max_seconds=20))
    assert proof.outcome == "refuted", proof.summary()
    (_, result), = proof.parts
    assert isinstance(result, Refutation)
    w = {k: float(v) for k, v in result.witness.items()}
    exact = w["alpha"] * w["sensitivity"] ** 2 / (2 * w["sigma"] ** 2)  # the Gaussian RDP, typed again
    assert w["alpha"] > 1 and exact > 1e-12  # the halved claim exact / 2 is strictly below the truth there


def test_halved_penalty_delta_is_refuted_and_re_checks():
    proof = prove_item("raisa2021.thm_dp_penalty_privacy", item=_halved("raisa2021.thm_dp_penalty_privacy", "delta"),
                       limits=Limits(max_seconds=30))
    assert proof.outcome == "refuted", proof.summary()
    (_, result), = proof.parts
    w = {k: float(v) for k, v in result.witness.items()}
    mu = math.sqrt(w["k"] / (w["tau_l"] ** 2 * w["N"]))
    exact = gaussian_delta(w["epsilon"], mu)  # dpverify's calculus, not the prover
    assert exact > 1e-300  # the halved claim exact / 2 is strictly below the truth there


def test_not_provable_items_say_why():
    for item in ("yildirim2019.lem_clipped_ratio_sensitivity", "yildirim2019.cor_penalty_composition",
                 "raisa2021.lem_gradient_sensitivity"):
        assert form(item).not_provable
    assert form("raisa2021.thm_dp_hmc_privacy").parts

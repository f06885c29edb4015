"""The one case path (dpverify.cases, issue 36): a case is prepared once (the sampler built and its accountant and
pair privacy loss read once, then handed to the audit), its result is typed up to the writer, and its JSON says what
the claim promises at the delta the audit tested."""
from __future__ import annotations

import json

import pytest

from dpverify.cases import CaseResult, ClaimCheck, Reference, get_case, prepare_case, run_case


@pytest.fixture
def counted(monkeypatch):
    """Counts of registry.make and of the audit's own accounting (read_facts asking the sampler)."""
    from dpverify.audit import abilities
    from dpverify.samplers import registry

    counts = {"make": 0, "audit_accounts": 0}
    make = registry.make

    def counting_make(*args, **kwargs):
        counts["make"] += 1
        return make(*args, **kwargs)

    read_facts = abilities.read_facts

    def counting_read_facts(mechanism, dataset, neighbour, delta, **given):
        if given.get("accountant") is None:
            counts["audit_accounts"] += 1
        return read_facts(mechanism, dataset, neighbour, delta, **given)

    monkeypatch.setattr(registry, "make", counting_make)
    monkeypatch.setattr(abilities, "read_facts", counting_read_facts)
    import dpverify.audit.core as core

    monkeypatch.setattr(core, "read_facts", counting_read_facts)
    return counts


def test_a_case_is_built_once_and_the_audit_reuses_its_accounting(counted):
    """Issue 36: ``dpverify audit dp_sgld_path`` built the sampler twice and accounted it three times."""
    result = run_case("dp_sgld_path", budget=2_000, seed=0)
    assert result.error is None, result.error
    assert counted == {"make": 1, "audit_accounts": 0}
    assert result.audit.epsilon_accountant == pytest.approx(1.6149524, rel=1e-6)


def test_results_are_typed_up_to_the_writer():
    result = run_case("laplace_mechanism", budget=2_000, seed=0)
    assert isinstance(result, CaseResult) and isinstance(result.reference, Reference)
    assert isinstance(result.claim_check, ClaimCheck) and not result.claim_check.breach
    assert result.claim.epsilon == 1.0 and result.claim_check.looseness == pytest.approx(1.0)
    row = json.loads(json.dumps(result.to_dict()))  # plain JSON only at the writer
    assert row["claim_check"] == {"claimed": 1.0, "exact": 1.0, "delta": 0.0, "looseness": 1.0, "breach": False}
    assert row["reference"]["kind"] == "exact" and row["audit"]["claim_epsilon"] == 1.0


def test_the_json_claim_says_what_it_promises_at_the_tested_delta():
    """Issue 36: at --delta 1e-6 the audit tests the run's exact 2.93, but the JSON's nested claim showed only the
    sampler's (1.615 at delta 1e-3), as if it applied. It now names the tested delta and what the claim says there
    (nothing: an (epsilon, delta0) claim promises nothing below delta0)."""
    row = run_case("dp_sgld_path", budget=2_000, seed=0, delta=1e-6).to_dict()
    assert row["audit"]["delta"] == 1e-6 and row["audit"]["epsilon_claimed"] == pytest.approx(2.93244, rel=1e-4)
    assert row["claim"]["delta"] == 1e-3 and row["claim"]["tested_delta"] == 1e-6
    assert row["claim"]["epsilon_at_tested_delta"] is None
    same = run_case("dp_sgld_path", budget=2_000, seed=0).to_dict()
    assert "tested_delta" not in same["claim"]


def test_an_explicit_claim_is_the_claim_the_tables_show():
    row = run_case("laplace_mechanism", budget=2_000, seed=0, epsilon=100.0).to_dict()
    assert row["audit"]["claim_epsilon"] == 100.0 and row["audit"]["tested_kind"] == "given"


def test_prepare_case_reads_the_reference_once_for_every_caller():
    prepared = prepare_case(get_case("ula_final"))
    assert prepared.reference.kind == "exact" and prepared.claim_check is not None
    assert prepared.claim_check.looseness > 100  # Bertazzi's Thm 5.2 against the release's exact epsilon
    assert set(prepared.audit_facts()) <= {"accountant", "privacy_loss"}


def test_an_error_is_a_row_not_a_lost_result():
    row = run_case("laplace_mechanism", budget=2_000, params={"epsilon": -1.0}).to_dict()
    assert row["verdict"] == "error" and "epsilon" in row["error"] and row["claim"] == {}

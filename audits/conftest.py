"""The audit suite's fixture: ``audit_case(case_id)`` audits one reference sampler through the plugin.

Each audit runs through the ``dp_auditor`` fixture of the dpverify pytest plugin, so it shows in the
session's summary table and in ``--dp-report``; ``--dp-samples`` raises the budget of every case
(default: the case's quick budget, see :mod:`dpverify.interfaces.suite`), ``--dp-seed`` and ``--dp-confidence``
apply as everywhere.
"""
import pytest

from dpverify.cases import prepare_case


@pytest.fixture
def audit_case(dp_auditor, request):
    """Audit a suite case's implementation against the privacy its declared algorithm has on the case's pair (the
    suite's reference: the pair's exact privacy where known, else the tightest of the accountant's bound and the
    claim; :func:`dpverify.cases.declared_reference`), prepared as ``dpverify audit`` prepares it
    (:func:`dpverify.cases.prepare_case`: the sampler built and accounted once); returns (claim, reference, audit
    result)."""

    def run(case_id: str, **params):
        prepared = prepare_case(case_id, params)
        case, claim, reference = prepared.case, prepared.claim, prepared.reference
        unguaranteed = bool(case.params.get("unguaranteed"))
        assert claim.guaranteed or unguaranteed, (
            f"{case_id}: the claim must rest on a theorem whose hypotheses hold, or the case must say it does not: {claim}")
        overrides = {"claim": reference.guarantee, "delta": prepared.delta, "test": case.test,
                     **prepared.audit_facts()}
        if request.config.getoption("--dp-samples") is None:
            overrides["samples"] = case.samples("quick")
        result = dp_auditor(prepared.sampler, prepared.dataset, prepared.neighbour, name=case_id, **overrides)
        # Claimed >= exact >= certified: the first inequality is the theorem (where its hypotheses hold), the second
        # the auditor's soundness.
        check = prepared.claim_check
        if check is not None and not unguaranteed:
            assert not check.breach, f"{case_id}: the pair's exact epsilon exceeds the claim: {check}"
        # Gradient samplers: the accountant's epsilon of the run is an upper bound on the pair's epsilon.
        if result.epsilon_accountant is not None and reference.kind == "exact":
            assert reference.epsilon <= result.epsilon_accountant * (1 + 1e-6) + 1e-9
        # Soundness at this seed: the certificate never exceeds the pair's exact epsilon (probability >= 0.95 per seed;
        # the seeds are fixed, so a failure here is a change in the auditor or the sampler, not bad luck).
        if reference.kind == "exact":
            assert result.epsilon_lower <= reference.epsilon, result
        return claim, reference, result

    return run


@pytest.fixture
def negative_result():
    """Must-fail audits of the published negative results (issue 39; cases ``known_bad`` in
    dpverify.cases.catalogue): ``negative_result(case_id)`` runs the case as ``dpverify verify`` does. Each
    sampler claims the naive epsilon the paper refutes; at the case's quick budget the audit must certify more
    than that claim (a lower bound valid with probability >= 0.95, so the violation is shown with that
    confidence), never more than the pair's exact epsilon (soundness at this fixed seed), and reach at least 0.8
    of the budget ceiling (the issue's target). (That the plugin's auditor fails a test making the naive claim is
    audits/test_known_bad_gradient.py's, which runs every known-bad case.)"""
    from dpverify.cases import CaseOptions, get_case, run_case

    def run(case_id: str):
        case = get_case(case_id)
        assert case.known_bad
        row = run_case(case_id, CaseOptions(budget="quick", seed=0))
        assert row.error is None, row.error
        audit = row.audit
        assert row.verdict == "violation" and row.passed
        claim = row.claim.epsilon
        assert not row.claim.guaranteed  # the claim is the naive one, marked as such
        assert audit.epsilon_lower > claim  # the violation, certified at confidence 0.95
        assert audit.epsilon_exact is not None and audit.epsilon_lower <= audit.epsilon_exact  # soundness
        assert audit.budget_ceiling is not None and audit.epsilon_lower >= 0.8 * audit.budget_ceiling
        assert row.claim_check is None or row.claim_check.breach  # the pair's exact epsilon is above the claim
        return row

    return run

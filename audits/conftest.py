"""The audit suite's fixture: ``audit_case(case_id)`` audits one reference sampler through the plugin.

Each audit runs through the ``dp_auditor`` fixture of the dpverify pytest plugin, so it shows in the
session's summary table and in ``--dp-report``; ``--dp-samples`` raises the budget of every case
(default: the case's quick budget, see :mod:`dpverify.interfaces.suite`), ``--dp-seed`` and ``--dp-confidence``
apply as everywhere.
"""
import pytest

from dpverify.interfaces.suite import get_case


@pytest.fixture
def audit_case(dp_auditor, request):
    """Audit a suite case against its sampler's claimed guarantee; returns (claim, audit result)."""

    def run(case_id: str, **params):
        case = get_case(case_id)
        sampler = case.build(**params)
        claim = sampler.guarantee()
        assert claim.guaranteed, f"{case_id}: the claim must rest on a theorem whose hypotheses hold: {claim}"
        overrides = {"epsilon": claim.epsilon, "delta": claim.delta, "test": case.test}
        if request.config.getoption("--dp-samples") is None:
            overrides["samples"] = case.samples("quick")
        result = dp_auditor(sampler, case.dataset(), case.neighbour(), name=case_id, **overrides)
        # Claimed >= exact >= certified: the first inequality is the theorem, the second the auditor's soundness.
        if result.epsilon_exact is not None:
            assert result.epsilon_exact <= claim.epsilon * (1 + 1e-9), (
                f"{case_id}: exact pair epsilon {result.epsilon_exact} exceeds the claim {claim.epsilon}")
        # Gradient samplers: the accountant's epsilon of the run is an upper bound on the pair's epsilon, and the
        # certificate is (typically; the ceiling is an expected value) below the budget ceiling.
        if result.epsilon_accountant is not None and result.epsilon_exact is not None:
            assert result.epsilon_exact <= result.epsilon_accountant * (1 + 1e-6)
        # Soundness at this seed: the certificate never exceeds the pair's exact epsilon (probability >= 0.95 per seed;
        # the seeds are fixed, so a failure here is a change in the auditor or the sampler, not bad luck).
        if result.epsilon_exact is not None:
            assert result.epsilon_lower <= result.epsilon_exact, result
        return claim, result

    return run

"""Known-bad gradient samplers (cases marked ``known_bad`` in dpverify.interfaces.suite): each must be flagged.

Each declares a correct mechanism (and its claim) and implements a defect (dpverify.samplers.broken, and Wang et
al.'s DP-SGLD without its privacy noise). At the quick budget the audit must certify more than the claim."""
import pytest

from dpverify.interfaces.suite import cases

KNOWN_BAD = [c.id for c in cases() if c.known_bad]


def test_the_suite_has_the_known_bad_variants():
    assert len(KNOWN_BAD) == 6


@pytest.mark.parametrize("case_id", KNOWN_BAD)
def test_known_bad_gradient_sampler_is_flagged(case_id, dp_auditor, request):
    from dpverify.interfaces.suite import get_case

    case = get_case(case_id)
    sampler = case.build()
    claim = sampler.guarantee()
    overrides = {"epsilon": claim.epsilon, "delta": claim.delta, "test": case.test}
    if request.config.getoption("--dp-samples") is None:
        overrides["samples"] = case.samples("quick")
    with pytest.raises(AssertionError, match="is not .*-DP on this pair"):
        dp_auditor(sampler, case.dataset(), case.neighbour(), name=case_id, **overrides)

"""Known-bad gradient samplers (cases marked ``known_bad`` in dpverify.interfaces.suite): each must be flagged.

Each declares a correct mechanism (and its claim) and implements a defect (dpverify.samplers.broken, and Wang et
al.'s DP-SGLD without its privacy noise). At the quick budget the audit must certify more than the claim."""
import pytest

from dpverify.interfaces.suite import cases

KNOWN_BAD = [c.id for c in cases() if c.known_bad]


def test_the_suite_has_the_known_bad_variants():
    from dpverify.interfaces.suite import KNOWN_BAD_DEFECTS
    from dpverify.samplers.broken import DEFECTS

    assert KNOWN_BAD_DEFECTS == DEFECTS  # the suite's cheap list and the samplers' agree
    # the eight defects (path releases), the shared-noise defect's final release (issue 38), Wang et al.'s DP-SGLD
    # without its privacy noise, DP-penalty without its ratio noise (the authors' documented misuse) and the three
    # published negative results (issue 39: Heller & Fetaya 2023, Annamalai 2024, Cebere et al. 2025)
    assert len(KNOWN_BAD) == 15
    assert {"dp_penalty_no_ll_noise", "sgld_interim", "dp_sgd_nonconvex_last_iterate",
            "dp_sgd_crafted_gradient_last_iterate"} <= set(KNOWN_BAD)


@pytest.mark.parametrize("case_id", KNOWN_BAD)
def test_known_bad_gradient_sampler_is_flagged(case_id, dp_auditor, request):
    from dpverify.interfaces.suite import get_case

    case = get_case(case_id)
    sampler = case.build()
    claim = sampler.guarantee()
    from dpverify.interfaces.suite import declared_reference

    reference = declared_reference(sampler, case.dataset(), case.neighbour(), claim, claim.delta)
    overrides = {"claim": reference.guarantee, "delta": claim.delta, "test": case.test}
    if request.config.getoption("--dp-samples") is None:
        overrides["samples"] = case.samples("quick")
    with pytest.raises(AssertionError, match="is not .*(-DP|private as claimed) on this pair|claimed trade-off curve"):
        dp_auditor(sampler, case.dataset(), case.neighbour(), name=case_id, **overrides)

"""The versioned corpus cases of Opacus and the privacy accountants (issue 37, section 3).

Each check runs on the installed release and must give the verdict its case's ``affected`` range predicts for that
release; where the defective release cannot be installed here, a power test shows that the check's comparison flags
the defective computation (computed with the installed libraries, not typed from the report).
"""
import math

import pytest

from dpverify.libraries import corpus
from dpverify.libraries.corpus import accountant_bugs
from dpverify.libraries.corpus.model import installed_version

NEW_CASES = ("opacus#813", "opacus#819", "opacus-pr807", "opacus#601", "dp_accounting-0e99a6f",
             "tensorflow_privacy-d5d60e2")


def _case(case_id: str) -> corpus.CorpusCase:
    return corpus.find(case_id)


def _agrees(case_id: str) -> corpus.CorpusResult:
    case = _case(case_id)
    row = corpus.run_case(case)
    assert row.status in ("reproduced", "fixed"), row.detail
    expected = case.expected(installed_version(case.pip_name))
    assert (row.status == "reproduced") == (expected == "bad"), (row.status, expected, row.detail)
    return row


def test_every_case_of_these_libraries_carries_its_versions():
    for case in corpus.CASES:
        if case.library not in ("opacus", "dp_accounting", "tensorflow_privacy") or case.kind != "library":
            continue
        assert case.affected and case.method and case.datasets and case.releases, case.id
        assert any(case.expected(r) == "bad" for r in case.releases), case.id
        if case.fixed_in:
            assert case.fixed_in in case.releases and case.expected(case.fixed_in) == "good", case.id
    for case_id in NEW_CASES:
        assert _case(case_id).refs, case_id
    assert _case("dp_accounting-0e99a6f").pip_name == "dp-accounting"
    assert _case("tensorflow_privacy-d5d60e2").pip_name == "tensorflow-privacy"


# -- Opacus (installed: 1.6.0) -------------------------------------------------------------------------------------

@pytest.mark.opacus
def test_opacus_813_sample_rate_from_the_sampler():
    row = _agrees("opacus#813")
    assert row.numbers["recorded_sample_rate"] == pytest.approx(1 / 8)
    assert row.numbers["intended_sample_rate"] == pytest.approx(16 / 10_000)
    assert row.numbers["weights_kept"] is False


@pytest.mark.opacus
def test_opacus_819_divisor_leak_grows_with_the_dimension():
    row = _agrees("opacus#819")
    assert row.numbers["divisors"] == [4.0, 3.0]
    # the released noise std is sigma C / divisor: 256 coordinates, relative sampling error about 1 / sqrt(512)
    assert row.numbers["noise_stds"][0] == pytest.approx(1 / 4, rel=0.15)
    assert row.numbers["noise_stds"][1] == pytest.approx(1 / 3, rel=0.15)
    assert row.numbers["exact"] > 4 * row.numbers["exact_16_coordinates"] > 4 * row.numbers["claimed"]


@pytest.mark.opacus
def test_opacus_pr807_adaclip_accounting_fixed_in_1_6():
    row = _agrees("opacus-pr807")
    assert row.numbers["recorded_noise_multiplier"] == 1.0
    # power: the multiplier the affected releases recorded, (1 - 1/4)^(-1/2), gives a smaller epsilon
    from opacus.accountants import RDPAccountant

    acc = RDPAccountant()
    acc.history = [((1.0 - 0.25) ** -0.5, 0.1, 1)]
    assert acc.get_epsilon(delta=1e-5) < row.numbers["correct"] * 0.9


@pytest.mark.opacus
def test_opacus_601_prv_accountant_answers_since_1_4_1():
    row = _agrees("opacus#601")
    assert isinstance(row.numbers["prv_epsilon"], float)
    assert 0 < row.numbers["prv_epsilon"] <= row.numbers["rdp_epsilon"]


# -- dp-accounting (installed: 0.6.0) ------------------------------------------------------------------------------

def test_exact_epsilon_of_a_finite_pair():
    p, q = {0: 0.9, 1: 0.1}, {0: 0.5, 1: 0.5}
    # at delta 1e-9 the ADD direction needs e^eps >= 5 - 1e-8: log 5 less 2e-9
    assert accountant_bugs._exact_epsilon(p, q, 1e-9) == pytest.approx(math.log(5.0 - 1e-8), abs=1e-12)
    assert accountant_bugs._exact_epsilon(p, p, 1e-9) == 0.0
    assert accountant_bugs._hockey_stick(q, p, math.log(5.0)) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.dp_accounting
def test_dp_accounting_asymmetric_pld_fixed_in_0_5():
    row = _agrees("dp_accounting-0e99a6f")
    assert row.numbers["pld_epsilon"] == pytest.approx(math.log(5.0), abs=1e-3)
    # power: the REMOVE direction alone (what the symmetric PLD of the same PMFs describes) is flagged
    from dp_accounting.pld import privacy_loss_distribution as pld

    remove_only = pld.from_two_probability_mass_functions({0: math.log(0.5), 1: math.log(0.5)},
                                                          {0: math.log(0.9), 1: math.log(0.1)},
                                                          value_discretization_interval=1e-4)
    assert remove_only.get_epsilon_for_delta(1e-6) < row.numbers["exact_epsilon"] - 1.0


@pytest.mark.dp_accounting
def test_the_microbatching_floor_flags_the_old_report():
    """The tensorflow_privacy case's floor (dp_accounting's optimistic PLD at sigma / 2) is above the epsilon the
    affected releases reported (the RDP epsilon at sigma itself, what compute_dp_sgd_privacy computed)."""
    import dp_accounting as dpa

    q, steps = 256 / 60_000, math.ceil(60 * 60_000 / 256)
    acc = dpa.rdp.RdpAccountant()
    acc.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(1.1)), steps)
    old_report = acc.get_epsilon(1e-5)
    assert old_report == pytest.approx(2.597, abs=0.01)  # compute_dp_sgd_privacy's answer in 0.8.8
    from dp_accounting.pld import privacy_loss_distribution as pld

    floor = pld.from_gaussian_mechanism(standard_deviation=0.55, sensitivity=1.0, pessimistic_estimate=False,
                                        sampling_prob=q, value_discretization_interval=1e-3,
                                        use_connect_dots=False).self_compose(steps).get_epsilon_for_delta(1e-5)
    assert floor > 2 * old_report


# -- tensorflow-privacy (not in the main environment: its own marker and environment) -----------------------------

@pytest.mark.tensorflow_privacy
def test_tensorflow_privacy_statement_counts_microbatching():
    import sys

    sys.skip_tf_privacy_import = True  # tensorflow_privacy's own switch: the analysis modules without TensorFlow
    import tensorflow_privacy  # noqa: F401 - a missing library fails here, never skips

    row = _agrees("tensorflow_privacy-d5d60e2")
    assert row.numbers["floor_epsilon"] > 5.0

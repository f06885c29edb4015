"""The corpus cases added for issue 25: Opacus #616, OpenDP #2638 (re-implementation), dp_accounting #378.

Each case must flag its defect on the affected computation and (for the re-implementation) pass the fixed one; the
numbers asserted are computed by the checks, not typed from the report.
"""
import math
from fractions import Fraction

import pytest

from dpverify.libraries import corpus
from dpverify.libraries.corpus import opendp_bugs


def _row(case_id):
    return corpus.run_case(next(c for c in corpus.CASES if c.id == case_id))


def test_the_new_cases_cite_their_trackers():
    ids = {c.id: c for c in corpus.CASES}
    assert "https://github.com/meta-pytorch/opacus/issues/616" in ids["opacus#616"].refs
    assert "https://github.com/opendp/opendp/issues/2638" in ids["opendp#2638"].refs
    assert ids["opendp#2638"].kind == "re-implementation"
    assert "https://github.com/google/differential-privacy/issues/378" in ids["dp_accounting#378"].refs


def test_dashu57_division_and_the_discrete_laplace_it_breaks():
    # the report's failing example: (-2/3) / 4 is -1/6; the reported routine gives -1/4
    assert opendp_bugs._div_fixed(Fraction(-2, 3), 4) == Fraction(-1, 6)
    assert opendp_bugs._div_dashu57(Fraction(-2, 3), 4) == Fraction(-1, 4)
    assert opendp_bugs._div_dashu57(Fraction(1, 3), 4) == Fraction(1, 12)  # gcd 1: both agree
    # the fixed sampler's exact law is the discrete Laplace: Bernoulli(exp(-gamma)) exact, ratios exp(-1/t)
    assert opendp_bugs._bernoulli_exp(Fraction(2, 3), opendp_bugs._div_fixed) == pytest.approx(math.exp(-2 / 3), rel=1e-12)
    assert opendp_bugs._bernoulli_exp(Fraction(2, 3), opendp_bugs._div_dashu57) > math.exp(-2 / 3) + 0.05
    row = _row("opendp#2638")
    assert row.status == "ok", row.detail
    assert row.numbers["epsilon"]["fixed division"] == pytest.approx(1 / 3, abs=1e-12)
    assert row.numbers["epsilon"]["dashu#57 division"] > 1.4 / 3
    assert row.numbers["total_variation"]["fixed division"] < 1e-9
    assert row.seconds < 60


def test_dp_accounting_rdp_replace_one_is_below_the_exact_gaussian():
    pytest.importorskip("dp_accounting")
    row = _row("dp_accounting#378")
    assert row.status == "reproduced", row.detail
    # the exact epsilon at sensitivity 2C (mu = 1) is what dp_accounting's own PLD accountant gives
    assert row.numbers["pld_epsilon"] == pytest.approx(row.numbers["exact_epsilon"], rel=1e-2)
    assert row.numbers["rdp_epsilon"] < 0.6 * row.numbers["exact_epsilon"] and row.seconds < 60


@pytest.mark.opacus
def test_opacus_secure_mode_noise_leaks_low_order_bits():
    pytest.importorskip("opacus")
    row = _row("opacus#616")
    assert row.status == "reproduced", row.detail
    zero, one = row.numbers["fine_bit_rates"]
    assert zero > 0.1 and one == 0.0  # 1 + noise is always a multiple of 2^-24 in float32
    assert row.numbers["certified"] > row.numbers["claimed"] and row.seconds < 60

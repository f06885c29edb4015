"""The OpenDP and diffprivlib corpus cases with versions (issue 37, section 3).

Each case's check runs on the installed library (diffprivlib 0.6.6, OpenDP 0.16.0 in the main environment) and must
give the status its ``affected`` range predicts for that version; the by-version runs themselves (other releases,
installed from the index) are not run here: no test downloads anything. The one check whose fixed release is the
installed one (OpenDP PR #2708) is also shown to have power: the defect, put back around the installed measurement,
flips its verdict. The Polars case (opendp#2941) needs polars and lives in ``test_corpus_opendp_polars.py``.
"""
from __future__ import annotations

import numpy as np
import pytest

from dpverify.libraries import corpus
from dpverify.libraries.corpus import opendp_bugs
from dpverify.libraries.corpus.model import installed_version

NEW = ("diffprivlib#106", "diffprivlib#94", "opendp#2923", "opendp#2941", "opendp-pr2708")
INSTALLED = ("diffprivlib#105", "diffprivlib#104", "diffprivlib#106", "diffprivlib#94", "opendp#2923",
             "opendp-pr2708")


def _case(case_id: str) -> corpus.CorpusCase:
    return corpus.find(case_id)


def _expected_status(case: corpus.CorpusCase) -> str:
    return "reproduced" if case.expected(installed_version(case.pip_name)) == "bad" else "fixed"


def test_every_case_has_its_versions_and_cites_its_tracker():
    for case_id in (*NEW, "diffprivlib#105", "diffprivlib#104"):
        case = _case(case_id)
        assert case.kind == "library" and case.affected and case.datasets and case.method in corpus.METHODS
        assert 2 <= len(case.releases) <= 3
        assert any(case.expected(r) == "bad" for r in case.releases)
        if case.fixed_in:
            assert case.fixed_in in case.releases and case.expected(case.fixed_in) == "good"
        assert all(ref.startswith(("https://github.com/opendp/opendp/", "https://github.com/IBM/"))
                   for ref in case.refs)


def test_the_fixed_boundaries():
    rr = _case("opendp-pr2708")
    assert rr.fixed_in == "0.15.0" and rr.expected("0.12.0") == "bad" and rr.expected("0.14.2") == "bad"
    assert rr.expected("0.15.0") == "good" and rr.expected("0.16.0") == "good"
    assert _case("opendp#2923").expected("0.16.0") == "bad" and _case("opendp#2923").fixed_in is None
    assert _case("diffprivlib#106").expected("0.1.1") == "bad" and _case("diffprivlib#106").fixed_in is None


@pytest.mark.parametrize("case_id", INSTALLED)
def test_the_installed_version_shows_what_its_range_predicts(case_id):
    case = _case(case_id)
    row = corpus.run_case(case)
    assert row.status == _expected_status(case), row.detail
    assert row.version == installed_version(case.pip_name) and row.agrees is True
    assert row.seconds < 60


def test_opendp_2923_numbers():
    out = opendp_bugs._opendp_2923()
    # n = 1024 records at 2^50 + 1/4 (grid 1/4): moving one by 1/4 moves the rounded mean a whole step
    assert out["on_d"] == 0.0 and out["on_d_prime"] == pytest.approx(63.9375)
    assert out["difference"] > out["claimed"] > 40.0


def test_diffprivlib_94_fine_bits_separate_the_inputs():
    row = corpus.run_case(_case("diffprivlib#94"))
    zero, one = row.numbers["fine_bit_rates"]
    # 1 - L is always a multiple of 2^-53; -L keeps finer bits in about a fifth of 2000 draws (binomial sd ~0.009)
    assert one == 0.0 and 0.15 < zero < 0.27
    assert row.numbers["certified"] > row.numbers["claimed"]


def test_diffprivlib_106_flags_the_label_set():
    row = corpus.run_case(_case("diffprivlib#106"))
    assert "control_flow" in row.numbers["flags"]
    assert row.numbers["calls"] == [3, 1]  # one-vs-rest over {0, 1, 2} on D, one binary fit on D'


class _LastBitKept:
    """The installed (fixed) measurement with PR #2708's defect put back: the last bit of the release is the input's."""

    def __init__(self, meas):
        self.meas = meas

    def map(self, d_in):
        return self.meas.map(d_in)

    def __call__(self, data: bytes) -> bytes:
        out = bytearray(self.meas(data))
        out[-1] = (out[-1] & 0x7F) | (data[-1] & 0x80)
        return bytes(out)


def test_opendp_pr2708_check_has_power(monkeypatch):
    fixed = opendp_bugs._opendp_pr2708()
    assert fixed["status"] == "fixed"
    # a correct bit flips with probability f/2 = 1/4: rates 1/4 and 3/4 (400 draws, sd ~0.022)
    assert abs(fixed["last_bit_rates"][0] - 0.25) < 0.1 and abs(fixed["last_bit_rates"][1] - 0.75) < 0.1
    original = opendp_bugs._rr_bitvec_mechanism
    monkeypatch.setattr(opendp_bugs, "_rr_bitvec_mechanism", lambda f: _LastBitKept(original(f)))
    broken = opendp_bugs._opendp_pr2708()
    assert broken["status"] == "reproduced" and broken["last_bit_rates"] == [0.0, 1.0]
    assert broken["certified"] > broken["claimed"] == pytest.approx(2 * np.log(3))

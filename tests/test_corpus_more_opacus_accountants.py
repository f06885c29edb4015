"""More versioned corpus cases of Opacus (issue 37, section 3): opacus#346 and opacus PR #751.

Each check runs on the installed release (Opacus 1.6.0, where both are fixed) and must give the verdict its case's
``affected`` range predicts; a power test then feeds the check's comparison the defective computation (the 1.0.x
bisection, the 1.5.3 bias norm), computed here with the installed libraries, and shows it is flagged.
"""
import math
import warnings

import pytest

from dpverify.libraries import corpus
from dpverify.libraries.corpus.model import installed_version


def _agrees(case_id: str) -> corpus.CorpusResult:
    case = corpus.find(case_id)
    row = corpus.run_case(case)
    assert row.status in ("reproduced", "fixed"), row.detail
    expected = case.expected(installed_version(case.pip_name))
    assert (row.status == "reproduced") == (expected == "bad"), (row.status, expected, row.detail)
    return row


def test_the_new_cases_carry_their_versions():
    for case_id, fixed in (("opacus#346", "1.1.0"), ("opacus-pr751", "1.5.4")):
        case = corpus.find(case_id)
        assert case.kind == "library" and case.method == "exact" and case.refs and case.datasets, case_id
        assert case.fixed_in == fixed and case.expected(fixed) == "good" and fixed in case.releases, case_id
        assert any(case.expected(r) == "bad" for r in case.releases), case_id


def _legacy_bisection(target: float, delta: float, q: float, steps: int) -> float:
    """The search of Opacus 1.0.2 (opacus/accountants/utils.py ``get_noise_multiplier``): double sigma_max from 10
    until epsilon < target, bisect until the interval is below 0.01 and return the last midpoint, as it did."""
    from opacus.accountants import RDPAccountant

    def eps(sigma: float) -> float:
        acc = RDPAccountant()
        acc.history = [(sigma, q, steps)]
        with warnings.catch_warnings():  # "optimal order is the largest alpha" at the first, large sigmas
            warnings.simplefilter("ignore")
            return acc.get_epsilon(delta=delta)

    lo, hi, e, sigma = 0.01, 10.0, math.inf, 10.0
    while e > target:
        hi *= 2
        e = eps(hi)
    while hi - lo > 0.01:
        sigma = (lo + hi) / 2
        if eps(sigma) < target:
            hi = sigma
        else:
            lo = sigma
    return sigma


@pytest.mark.opacus
def test_opacus_346_sigma_search_is_conservative_since_1_1():
    row = _agrees("opacus#346")
    assert row.numbers["rdp_epsilon"] <= 8.0
    # dpverify's RDP and Opacus' own accountant agree on the returned sigma (same exact RDP, same conversion)
    assert row.numbers["rdp_epsilon"] == pytest.approx(row.numbers["opacus_epsilon"], rel=1e-6)
    low, high = row.numbers["pld_epsilon"]
    assert low <= high <= row.numbers["rdp_epsilon"]
    # power: the 1.0.2 search returns 0.78110 here (measured on 1.0.2 too), whose RDP epsilon is 8.23 > 8
    from dpverify.calculus.accounting import epsilon_sampled_gaussian

    legacy = _legacy_bisection(8.0, 1e-5, 0.04, 250)
    assert legacy == pytest.approx(0.7810986328, abs=1e-9)
    assert epsilon_sampled_gaussian(legacy, 0.04, 250, 1e-5).epsilon > 8.2


@pytest.mark.opacus
def test_opacus_751_ghost_bias_norm_fixed_in_1_5_4():
    row = _agrees("opacus-pr751")
    assert row.numbers["ghost_norms"] == pytest.approx(row.numbers["exact_norms"], rel=1e-5)
    assert max(row.numbers["clipped_norms"]) <= 0.25 * 1.001
    # power: the 1.5.3 bias norm sqrt(sum (g g^T)^2) of one record (8 tokens, output gradients 0.05 in 2 outputs)
    import torch

    g = torch.full((1, 8, 2), 0.05)
    ggT = torch.einsum("nik,njk->nij", g, g)
    old = float(torch.sqrt(torch.einsum("n...i,n...i->n", ggT, ggT)))
    true = float(g.sum(dim=1).norm())
    assert old == pytest.approx(8 * 0.005) and true == pytest.approx(8 * math.sqrt(0.005))
    assert old < 0.25 < true  # the old norm leaves the record unclipped at C = 0.25, the true one does not

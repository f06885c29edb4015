"""Agreement of dpverify's encoding of Heikkilä et al. (NeurIPS 2019) with the authors' public code.

Repository DPBayes/DP-MCMC-NeurIPS2019, commit bf5349835b2044135749ea6dbedea2e310d7d2f2, file ``gmm_code/exact_rdp.py``
(functions ``rd_approx``, ``amplified_RDP``, ``from_RDP_to_DP``, ``get_privacy_spent``) and ``gmm_code/mog_main.py``
(the clip ``0.99 * sqrt(batch_size) / temp_scale / N``). The formulas are re-typed below in plain Python (the
repository is not read at test time) and compared with the catalogue items and :mod:`dpverify.calculus.barker` on
grids of at least 50 points, to 1e-9 relative.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from dpverify.calculus import barker as cb
from dpverify.theorems import registry


# --- the authors' exact_rdp.py, re-typed (same control flow, plain floats) -----------------------------------------
def _rd_approx(alpha: float, b: float) -> float:
    return 5 / (2 * b) + 1 / (2 * (alpha - 1)) * math.log(2 * b / (b - 5 * alpha)) + 2 * alpha / (b - 5 * alpha)


def _amplified(eps_list: list[float], alpha: int, q: float) -> float:
    """``eps_list`` begins with eps(2)."""
    with np.errstate(over="ignore", invalid="ignore"):  # numpy floats as in the original: inf or nan ends the search
        term1 = q**2 * math.comb(alpha, 2) * min(4 * (np.exp(eps_list[0]) - 1), np.exp(eps_list[0]) * 2)
        term2 = sum(q**j * float(math.comb(alpha, j)) * np.exp((j - 1) * eps_list[j - 2]) * 2
                    for j in range(3, alpha + 1))
        return float(1 / (alpha - 1) * np.log(1 + term1 + term2))


def _from_rdp_to_dp(eps_rdp: float, alpha: float, delta: float) -> float:
    return eps_rdp - math.log(delta) / (alpha - 1)


def _privacy_spent(b: int, N: int, T: int, max_alpha: int = 10, delta: float | None = None) -> float:
    max_alpha = min(max_alpha, b // 5)
    if delta is None:
        delta = 1 / N
    best = math.inf
    q = b / N
    for top in range(3, max_alpha):
        eps_list = [_rd_approx(a, b) for a in range(2, top + 1)]
        amp = _amplified(eps_list, top, q)
        if not math.isfinite(amp):
            break
        best = min(best, _from_rdp_to_dp(T * amp, top, delta))
    return best


def _grid_step() -> list[tuple[float, int]]:
    out = []
    for b in (20, 50, 100, 300, 1000, 5000, 10000):
        for frac in np.linspace(0.02, 0.98, 9):
            out.append((1 + frac * (b / 5 - 1), b))
    return out


def test_step_bound_agrees_with_rd_approx_on_63_points():
    """The per-iteration bound (calculus and, at every third point, the catalogue item through sympy) against
    ``rd_approx``: 63 points, b in [20, 1e4], orders over (1, b/5); rel 1e-9."""
    grid = _grid_step()
    assert len(grid) >= 50
    item = registry.get("heikkila2019.thm_barker_step_rdp")
    for i, (a, b) in enumerate(grid):
        want = _rd_approx(a, b)
        assert float(cb.barker_step_rdp(a, b)) == pytest.approx(want, rel=1e-9)
        if i % 3 == 0:
            assert item.evaluate(alpha=a, tau=b).rdp == pytest.approx(want, rel=1e-9)


def test_amplification_agrees_with_amplified_rdp_on_60_points():
    """The amplified RDP (calculus, log-space) against ``amplified_RDP``: integer orders 2..40 (below b/5), q from
    1e-4 to 0.9, b in {20, 100, 1000, 10000}: 60 points, rel 1e-9."""
    count = 0
    for b in (20, 100, 1000, 10000):
        for q in (1e-4, 1e-3, 0.01, 0.1, 0.9):
            for a in (2, 3, 5, 10, 20, 40):
                if b <= 5 * a:
                    continue
                want = _amplified([_rd_approx(j, b) for j in range(2, a + 1)], a, q)
                got = cb.amplified_rdp(a, q, cb.barker_step_rdp(np.arange(2, a + 1), b))
                assert got == pytest.approx(want, rel=1e-9), (a, q, b)
                count += 1
    assert count >= 50


def test_privacy_spent_agrees_with_get_privacy_spent_on_72_points():
    """The whole pipeline (order search, amplification, composition, conversion with delta = 1/N) against
    ``get_privacy_spent(b, N, T, max_alpha)``: b in {20, 100, 1000}, q in {1e-3, 1e-2, 0.1, 0.5}, T in {10, 1000,
    20000}, max_alpha in {10, 200}: 72 settings, rel 1e-9 (the authors' Figures 1-2 use such grids)."""
    count = 0
    for b in (20, 100, 1000):
        for q in (1e-3, 1e-2, 0.1, 0.5):
            N = int(round(b / q))
            for T in (10, 1000, 20000):
                for max_alpha in (10, 200):
                    want = _privacy_spent(b, N, T, max_alpha)
                    got, _ = cb.heikkila_epsilon(b, N, T, max_alpha=max_alpha)
                    assert got == pytest.approx(want, rel=1e-9), (b, N, T, max_alpha)
                    count += 1
    assert count >= 50


def test_sampler_claim_and_mironov_account_reproduce_the_authors_epsilon():
    """``dp_barker``'s claim is the authors' epsilon; its RDP accountant (orders from 2, the authors' search starts at
    3) with Mironov's conversion is the smaller of the authors' epsilon and the order-2 value typed again; Balle et
    al.'s conversion of the same curve is smaller still."""
    from dpverify.samplers.barker import DPBarker

    for N, b, T in ((40, 20, 5), (1000, 100, 50), (2000, 200, 20)):
        s = DPBarker(N=N, batch_size=b, T=T, delta=1 / N, max_alpha=10)
        want = _privacy_spent(b, N, T, 10)
        assert s.guarantee().epsilon == pytest.approx(want, rel=1e-9)
        order2 = _from_rdp_to_dp(T * _amplified([_rd_approx(2, b)], 2, b / N), 2, 1 / N)
        assert s.account(1 / N, method="mironov2017").epsilon == pytest.approx(min(want, order2), rel=1e-9)
        assert s.account(1 / N).epsilon < want


def test_paper_setting_clip():
    """The authors' GMM run: N = 1e6, b = 1000, temp = 100/N; their clip is 0.99 of the bound sqrt(b)/(N temp)."""
    N, b, temp = 1_000_000, 1000, 100 / 1_000_000
    authors = 0.99 * math.sqrt(b) / temp / N
    assert cb.clip_bound(b, N, temp) == pytest.approx(authors / 0.99, rel=1e-12)
    item = registry.get("heikkila2019.cond_clip_and_noise")
    assert item.evaluate(tau=b, N=N, temperature=temp, sigma=math.sqrt(2)).C_max == pytest.approx(authors / 0.99)


def test_the_authors_search_stops_at_float_overflow_and_the_full_search_is_smaller():
    """b = 1000, N = 1e6, T = 10, max_alpha = 200: the authors' float64 amplification overflows at a moderate order
    and their loop stops there (0.07845); dpverify's log-space amplification can search every order (0.07527, a valid
    and smaller bound). Where nothing overflows the two searches agree."""
    authors = _privacy_spent(1000, 1_000_000, 10, 200)
    assert cb.heikkila_epsilon(1000, 1_000_000, 10, max_alpha=200)[0] == pytest.approx(authors, rel=1e-9)
    full = cb.heikkila_epsilon(1000, 1_000_000, 10, max_alpha=200, authors_search=False)[0]
    assert full == pytest.approx(0.075265, abs=1e-5) and full < authors - 0.003
    assert cb.heikkila_epsilon(100, 10_000, 50, max_alpha=10, authors_search=False)[0] == pytest.approx(
        _privacy_spent(100, 10_000, 50, 10), rel=1e-9)

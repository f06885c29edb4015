"""The heikkila2019 catalogue items (DP MCMC with the Barker test, NeurIPS 2019): every check passes, the items are
registered with their rows, reconstructed and linked to the dp_barker audit, and their hypotheses bite."""
from __future__ import annotations

import math

import pytest

from dpverify.theorems import catalogue, registry
from dpverify.theorems.base import HypothesisError

IDS = ["heikkila2019.thm_barker_step_rdp", "heikkila2019.thm_subsampled_amplification",
       "heikkila2019.cor_composed_dp", "heikkila2019.cond_clip_and_noise"]


def test_rows_and_registration():
    assert catalogue.ids("heikkila2019") == IDS
    for tid in IDS:
        th = registry.get(tid)
        assert th.reconstructed and th.source.confidence in ("R-high", "R-med")
        assert [e.sampler for e in th.empirical] == ["dp_barker"]
        kinds = {c.kind for c in th.checks}
        assert kinds == {"symbolic", "numeric"}
        assert any(c.pins for c in th.checks)


@pytest.mark.parametrize("tid", IDS)
def test_every_check_passes(tid):
    failed = [(r.name, r.detail) for r in registry.get(tid).run_checks() if not r.passed]
    assert not failed


def test_values_and_hypotheses():
    step = registry.get(IDS[0])
    # b = 1000, alpha = 10: 5/2000 + log(2000/950)/18 + 20/950
    assert step.evaluate(alpha=10, tau=1000).rdp == pytest.approx(
        0.0025 + math.log(2000 / 950) / 18 + 20 / 950, rel=1e-12)
    with pytest.raises(HypothesisError, match="batch_above_five_alpha"):
        step.evaluate(alpha=4, tau=20)
    with pytest.raises(HypothesisError, match="clip_within_sqrt_batch"):
        step.evaluate(alpha=3, tau=100, N=1000, temperature=1.0, C=0.011)
    assert step.evaluate(alpha=3, tau=100, N=1000, temperature=1.0, C=0.01).guaranteed
    assert not step.evaluate(alpha=3, tau=100).guaranteed  # the clip hypothesis was not checked
    amp = registry.get(IDS[1])
    with pytest.raises(HypothesisError, match="integer_order"):
        amp.evaluate(alpha=2.5, q=0.1, tau=100)
    composed = registry.get(IDS[2])
    ev = composed.evaluate(alpha=3, q=0.5, tau=20, T=10, delta=1e-5)
    assert ev.epsilon == pytest.approx(19.6443, abs=1e-3) and ev.delta == 1e-5
    cond = registry.get(IDS[3])
    with pytest.raises(HypothesisError, match="noise_below_logistic_variance"):
        cond.evaluate(tau=100, N=1000, temperature=1.0, sigma=2.0)
    with pytest.raises(ValueError, match="tau"):
        step.evaluate(alpha=3, tau=-5)

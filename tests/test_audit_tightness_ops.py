"""Tightness of the auditor on conjugate OPS, measured against what any event-based audit can reach.

For OPS on a truncated beta-Bernoulli the privacy loss log p(theta|D) - log p(theta|D') is monotone in theta
and its supremum (the exact pair epsilon) sits at an end of the support [a0, 1 - a0]. Events near that end
have little mass, so with n samples no test can certify the supremum. The *oracle* below knows both laws
exactly and picks the best threshold event {theta > t} or {theta < t} with the auditor's own
Clopper-Pearson bounds (one-sided, alpha/2 each) at the auditor's estimation sample size: it is the most
an event-based audit can certify. Measured at 10^6 samples per side, seeds 0-3:

- pair [0, 1] -> [1, 1] (a0 = 0.05, no tempering): exact 3.498, oracle 3.148 (0.90 of exact), auditor
  2.96-3.18, i.e. 0.94-1.01 of the oracle and 0.85-0.91 of exact;
- the pair with the largest exact epsilon for N <= 6 ([1,1,1,1,1,0] -> six ones): exact 4.423, oracle 2.493
  (0.56 of exact), auditor 2.21-2.43 (0.89-0.98 of the oracle). There the issue's 0.9-of-exact target is out
  of reach of any event-based auditor at this budget, so the test pins the auditor against the oracle.
"""
import numpy as np
import pytest
from scipy.stats import beta as beta_dist

from dpverify.audit import audit
from dpverify.samplers.registry import make


def oracle_certified(p, q, n: int, alpha: float = 0.05, grid: int = 4000) -> float:
    """Best epsilon lower bound over threshold events, with exact probabilities in place of counts."""
    t = np.linspace(p.lo, p.hi, grid + 2)[1:-1]
    best = 0.0
    for upper in (True, False):  # {theta > t} favours the law with more mass on the right, {theta < t} the other
        pa = p.interval_probability(t, p.hi) if upper else p.interval_probability(p.lo, t)
        qa = q.interval_probability(t, q.hi) if upper else q.interval_probability(q.lo, t)
        for hi_p, lo_p in ((pa, qa), (qa, pa)):
            k_hi, k_lo = np.floor(hi_p * n), np.ceil(lo_p * n)
            ok = (k_hi > 0) & (k_lo < n)
            lower = beta_dist.ppf(alpha / 2, k_hi[ok], n - k_hi[ok] + 1)
            upper_q = beta_dist.ppf(1 - alpha / 2, k_lo[ok] + 1, n - k_lo[ok])
            if lower.size:
                best = max(best, float(np.max(np.log(lower / upper_q))))
    return best


@pytest.mark.parametrize("D, D2", [([0, 1], [1, 1]), ([1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1])])
def test_auditor_reaches_the_oracle_on_conjugate_ops(D, D2):
    sampler = make("ops_beta_bernoulli", a0=0.05)
    D, D2 = np.array(D), np.array(D2)
    samples = 10**6
    result = audit(sampler, D, D2, epsilon=sampler.guarantee().epsilon, samples=samples, seed=0)
    p, q = sampler.model.posterior(D), sampler.model.posterior(D2)
    oracle = oracle_certified(p, q, result.counts["n_estimation"])
    assert result.epsilon_lower <= result.epsilon_exact
    assert oracle <= result.epsilon_exact
    # 0.85: seeds 0-3 give auditor/oracle 0.89-1.01 (the auditor can exceed the oracle's grid by chance);
    # selecting the event on 20% of the samples costs a little against an oracle that needs no selection.
    assert result.epsilon_lower >= 0.85 * oracle, (result.epsilon_lower, oracle, result.epsilon_exact)

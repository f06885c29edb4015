"""Hybrid posterior sampling, Wang et al. 2015, Algorithm 3: OPS at eps/2, then DP-SGLD from that point.

1. Draw ``theta_0`` by OPS (Algorithm 1) with privacy eps/2 -- here by a long MALA run
   (:class:`~dpverify.samplers.ops_mcmc.OPSMCMCLogistic`);
2. run DP-SGLD (Algorithm 2) with privacy (eps/2, delta) from ``theta_0``;

output: all samples -- the path ``(theta_0, theta_1, ..., theta_n)``, shape ``(n, steps + 1, d)``. The start is
the OPS draw, so the DP-SGLD burn-in (where its privacy noise is largest) is not needed and a small constant step
can be used. Privacy: basic composition of the two halves (``wang2015.alg3_hybrid``; the DP-SGLD half also needs
Theorem 4's hypotheses at eps/2, checked through ``wang2015.thm4_dp_sgld``).
"""
from __future__ import annotations

import numpy as np

from dpverify.backends import backend_of
from dpverify.validation import check_epsilon, check_positive_int
from dpverify.calculus.mechanism_description import MechanismDescription, PairPrivacyLoss, PureDPStep, Repeated
from dpverify.calculus.vocabulary import Release
from dpverify.samplers.base import Claim
from dpverify.samplers.claims import claim_from, evaluate_theorem
from dpverify.samplers.ops_mcmc import OPSMCMCLogistic
from dpverify.samplers.registry import register
from dpverify.samplers.sgld import DPSGLDWang
from dpverify.samplers.sgmcmc import StochasticGradientSampler

__all__ = ["HybridOPSSGLD"]


@register
class HybridOPSSGLD(StochasticGradientSampler):
    """Wang et al. 2015, Algorithm 3 (OPS at eps/2 by MCMC, then DP-SGLD at eps/2); releases the whole path.
    ``start`` draws the OPS starts (on the run's backend); every step is the DP-SGLD half's kernel and schedule."""

    id = "hybrid_ops_sgld"
    theorems = ("wang2015.alg3_hybrid", "wang2015.thm4_dp_sgld")
    output = "path"
    description = "Hybrid (Wang et al. 2015, Alg. 3): OPS at eps/2 (MALA) then DP-SGLD at eps/2; path from the OPS draw"

    #: the target epsilon, split between the two halves (always given)
    epsilon: float

    def __init__(self, model, N: int, tau: int, T: float, epsilon: float, delta: float, step_size,
                 ops_steps: int = 2000, unguaranteed: bool = False):
        self.epsilon = check_epsilon(epsilon)
        self.ops = OPSMCMCLogistic(model, N, self.epsilon / 2, n_steps=check_positive_int(ops_steps, "ops_steps", minimum=8),
                                   unguaranteed=unguaranteed)
        self.sgld = DPSGLDWang(model, N, tau, T, self.epsilon / 2, delta, step_size, unguaranteed=unguaranteed)
        self._setup_common(model, N, None, unguaranteed)
        self.delta = self.sgld.delta
        self.n_steps = self.sgld.n_steps
        # step 2: DP-SGLD's kernel at (eps/2, delta)
        self._set_kernel(self.sgld._require_kernel(), self.sgld.kernel_schedule)
        self._evaluation(self.unguaranteed)

    def _evaluation(self, allow: bool):
        return evaluate_theorem("wang2015.alg3_hybrid", {"B": self.ops.B, "epsilon": self.epsilon, "delta": self.delta}, allow)

    # -- mechanism description and the audited pair ------------------------------------------------------------
    def mechanism(self) -> MechanismDescription:
        """The OPS draw as a pure (eps/2)-DP release (its claim; the MALA draw is approximate, Wang et al. 2015,
        Prop. 3), then the DP-SGLD steps of Algorithm 2 at (eps/2, delta); the whole path is released."""
        sgld = self.sgld.mechanism()
        steps = (Repeated(PureDPStep(self.epsilon / 2, "OPS draw (Alg. 1 by MALA)")),) + sgld.steps
        return MechanismDescription(steps, "replace_one", Release.PATH, "Wang et al. 2015, Alg. 3")

    def account(self, delta: float, method: str = "pld"):
        return self.mechanism().account(delta, method=method)

    def pair_privacy_loss(self, dataset, neighbour):
        """The OPS part at the worst pure (eps/2)-DP pair (its exact law is not known: an upper bound) composed with
        the DP-SGLD part's canary PLD; None unless the pair is a verified canary of the DP-SGLD part."""
        shift = self.sgld.canary_shift(dataset, neighbour)
        if shift is None:
            return PairPrivacyLoss(self.mechanism().pld(), "upper bound: the mechanism's worst-case PLD", exact=False)
        sgld = self.sgld.canary_description(shift)
        description = MechanismDescription((Repeated(PureDPStep(self.epsilon / 2, "OPS draw")),) + sgld.steps,
                                           "replace_one", Release.PATH, "Wang et al. 2015, Alg. 3")
        return PairPrivacyLoss(description.pld(), "upper bound: the OPS draw at the worst pure (eps/2)-DP pair, "
                               f"then the DP-SGLD steps at the canary's gradient difference {shift:.4g}", exact=False)

    @property
    def log_likelihood_ratio(self):
        return self.path_log_likelihood_ratio

    def path_log_likelihood_ratio(self, dataset, neighbour):
        """White-box statistic of the released path: the tempered log-likelihood ratio of the OPS draw,
        ``rho (sum_i log p(x_i | theta_0) - sum_i log p(x'_i | theta_0))`` (the normalising constants only shift
        the statistic by a constant, which changes no threshold event), plus the DP-SGLD part's per-step mixture
        log-likelihood ratio (:meth:`LangevinSampler.path_log_likelihood_ratio`)."""
        X, Y = self.prepare_data(dataset), self.prepare_data(neighbour)
        steps = self.sgld.path_log_likelihood_ratio(dataset, neighbour)
        rho = float(self.ops.rho)

        model = self.model

        def statistic(paths):
            if not isinstance(paths, np.ndarray) and backend_of(paths).name != "numpy":
                xp = backend_of(paths)  # another backend's paths stay on their device
                theta0 = xp.asarray(paths)[:, 0]
                ops = rho * (model.dense_full_data_terms(xp.asarray(X.prepared), theta0)[0]
                             - model.dense_full_data_terms(xp.asarray(Y.prepared), theta0)[0])
                return ops + steps(paths)
            paths = np.asarray(paths, dtype=float)
            theta0 = paths[:, 0]
            ops = rho * (model.log_likelihood(X.raw, theta0).sum(axis=-1)
                         - model.log_likelihood(Y.raw, theta0).sum(axis=-1))
            return ops + steps(paths)

        statistic.description = "white-box: tempered log-likelihood ratio of the OPS draw + DP-SGLD path mixture ratio"
        # on a device: the OPS term from the model's backend-generic full-data terms (equal to numpy's up to the
        # rounding of log(1 + e^-m) against scipy's log_expit), the steps' term on the device as for DP-SGLD
        statistic.backend_generic = "dense_full_data_terms" in model.dense_capabilities()  # type: ignore[attr-defined]
        return statistic

    def start(self, theta, data, rng):
        """Step 1: one independent OPS draw at eps/2 per chain (diagnostics in ``self.ops.diagnostics``), on
        ``rng``'s backend; ``theta`` (``theta0``) is not used."""
        starts, _ = self.ops.sample_with_diagnostics(data, theta.shape[0], rng)
        return starts

    def guarantee(self) -> Claim:
        ev = self._evaluation(True)
        sgld = self.sgld.guarantee()
        claim = claim_from(ev, ops=self.ops.guarantee().to_dict(), sgld=sgld.to_dict())
        if not sgld.guaranteed:
            return Claim(claim.epsilon, claim.delta, claim.theorem, False, {**claim.hypotheses, **sgld.hypotheses}, claim.details)
        return claim

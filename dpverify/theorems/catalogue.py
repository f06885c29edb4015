"""The catalogue: which items of the four papers dpverify encodes, and how each one is checked.

This is the repository's own list (written for dpverify; nothing outside the repository is read). The
registry (:mod:`dpverify.theorems.registry`) refuses to register an ID that is not listed here, and the
catalogue tests (``theorems/test_*.py``, ``tests/test_catalogue_*.py``) compare every registered
theorem with its row: the IDs must match one to one, and each theorem must carry the kinds of check
its row asks for.

Check kinds of a row:

- ``S`` -- a *symbolic* check: a step of the argument re-done with sympy, with no sampled points;
- ``N`` -- a *numeric* check: a published number reproduced, or the conclusion evaluated at points and
  compared with an independent computation (quadrature, simulation, exact accountant, ...);
- ``E`` -- an *empirical* link: a reference sampler (``dpverify samplers list``) and the audit file that
  tests it statistically (:class:`~dpverify.theorems.base.EmpiricalLink`).

Independently of the row, every theorem with a conclusion carries at least one check that pins that
conclusion at points (:meth:`~dpverify.theorems.base.Theorem.add_pin`); ``tests/test_catalogue_mutation.py``
perturbs each conclusion and asserts a check of that theorem fails.

Sources (the papers themselves):

- wang2015 -- Wang, Fienberg, Smola, ICML 2015, main text and supplement;
- li2019 -- Li, Chen, Liu, Carin, AISTATS 2019, main text and appendices;
- bertazzi2025 -- Bertazzi, Johnston, Roberts, Durmus, ICML 2025 (arXiv:2502.17150 v1 numbering); the
  statements are reconstructed from the proofs (the text available to the project lost the displayed
  formulas), each marked ``reconstructed`` with a confidence grade;
- foulds2016 -- Foulds, Geumlek, Welling, Chaudhuri, UAI 2016;
- balle2018 -- Balle, Wang, ICML 2018, Theorem 8: a supporting item (not one of the four papers): the exact
  (epsilon, delta) of the Gaussian mechanism, which the catalogue checks Wang et al.'s Gaussian mechanism against and
  the ``analytic_gaussian_mechanism`` sampler claims.
- chourasia2021 -- Chourasia, Ye, Shokri, NeurIPS 2021 (arXiv:2102.05855): Theorem 2 only, the RDP of noisy
  gradient descent's last iterate (see :mod:`dpverify.theorems.chourasia2021` for the text it was encoded from);
- geumlek2017 -- Geumlek, Song, Chaudhuri, NeurIPS 2017 (arXiv:1710.00892), reconstructed: the paper's text was not
  read, so its items are named by section and content and graded (see :mod:`dpverify.theorems.geumlek2017`);
- ponnoprat2022 -- Ponnoprat, arXiv:2110.01984 v2 (2022): Theorem 1, encoded from the author's code (see
  :mod:`dpverify.theorems.ponnoprat2022`);
- the field's other private samplers (issue 39), each package saying what of its paper was read (for most only the
  abstract: the items are then *reconstructed*, from the authors' public code where it exists, with a confidence
  grade): yildirim2019 (DP-penalty), raisa2021 (DP-HMC), heikkila2019 (DP MCMC with the Barker test), minami2016
  (the Gibbs posterior), gopi2022 (the regularised exponential mechanism), bok2024 (noisy GD's last iterate by
  shifted interpolation); and three published negative results, each a must-fail case of ``dpverify verify``:
  heller2023 (SGLD's interim state), annamalai2024 (a non-convex last iterate), cebere2025 (a crafted gradient at
  every step).
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Iterable

__all__ = ["Item", "CATALOGUE", "CHECK_KINDS", "ids", "item", "check_kinds", "in_order"]

#: What each letter of a row's ``checks`` means.
CHECK_KINDS: dict[str, str] = {
    "S": "symbolic derivation (sympy, no sampled points)",
    "N": "numeric: a published number or the conclusion at points against an independent computation",
    "E": "empirical: a reference sampler and its statistical audit",
}


@dataclass(frozen=True)
class Item:
    """One row: catalogue ID, the paper's item, a one-line summary, and the kinds of check it needs."""

    id: str
    source: str
    summary: str
    checks: str

    @property
    def paper(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def kinds(self) -> frozenset[str]:
        """The check letters of this row, e.g. ``frozenset({"S", "E"})``."""
        return frozenset(k.strip() for k in self.checks.split(","))


def _rows(*rows: tuple[str, str, str, str]) -> tuple[Item, ...]:
    return tuple(Item(*r) for r in rows)


#: Every catalogue item, in catalogue order (paper by paper).
CATALOGUE: tuple[Item, ...] = _rows(
    # --- Wang, Fienberg, Smola 2015 -----------------------------------------------------------------
    ("wang2015.def1_dp", "Definition 1", "(eps, delta)-DP under replace-one adjacency", "S"),
    ("wang2015.lem1_post_processing", "Lemma 1", "post-processing keeps (eps, delta)", "S"),
    ("wang2015.def2_def3_consistency", "Definitions 2, 3", "posterior consistency, Bayesian and frequentist", "S"),
    ("wang2015.def_l2_sensitivity", "L2 sensitivity before Theorem 2",
     "the mini-batch gradient sum has L2 sensitivity 2L", "S,N"),
    ("wang2015.lem2_composition", "Lemma 2", "basic composition adds eps and delta", "S,N"),
    ("wang2015.thm1_ops_pure_dp", "Theorem 1", "one posterior sample with |log-likelihood| <= B is 4B-DP", "S,E"),
    ("wang2015.thm1_ops_lipschitz", "Theorem 1, second part", "Lipschitz log-likelihood on a ball: 4LR-DP", "S,E"),
    ("wang2015.alg1_ops_scaled", "Algorithm 1", "tempering by rho = min(1, eps/(4B)) gives eps-DP", "S,E"),
    ("wang2015.prop1_consistency", "Proposition 1", "one posterior sample is consistent iff the posterior is", "E"),
    ("wang2015.prop2_are_two", "Proposition 2", "one posterior sample has asymptotic relative efficiency 2", "S,E"),
    ("wang2015.prop3_approx_sampling", "Proposition 3", "an L1-delta-close sampler is (eps, (1+e^eps) delta)-DP", "S"),
    ("wang2015.lem3_advanced_composition", "Lemma 3", "advanced composition of k mechanisms", "S,N"),
    ("wang2015.rem1_composition_simplified", "Remark 1",
     "advanced composition gives eps' <= 2c when c <= log(1/delta') (the condition the algebra needs)", "S"),
    ("wang2015.lem4_subsampling", "Lemma 4", "subsampling a fraction gamma: (2 gamma eps, delta) for eps < 1", "S,N"),
    ("wang2015.thm2_gaussian_mechanism", "Theorem 2", "classic Gaussian mechanism calibration", "N,E"),
    ("wang2015.alg2_dp_sgld", "Algorithm 2", "DP-SGLD noise variance max{D eta^2, eta}", "S,E"),
    ("wang2015.thm4_dp_sgld", "Theorem 4", "DP-SGLD privacy; the proof chain re-derived step by step", "S,E"),
    ("wang2015.phase_transition_stepsize", "alpha-phase transition after Theorem 4",
     "with the alpha schedule the data term drops below eta_t after alpha N T/tau iterations", "S,N"),
    ("wang2015.alg3_hybrid", "Algorithm 3", "OPS at eps/2 then DP-SGLD", "S,E"),
    ("wang2015.thm3_weak_convergence", "Theorem 3", "SGLD bias is O(eta_t)", "E"),
    ("wang2015.eq41_sgld_update", "eq. 4.1 and its schedule", "the SGLD update and eta_t = max{1/(t+1), eta_0}", "E"),
    ("wang2015.eq44_sghmc_momentum", "eq. 4.4", "SGHMC as SGD with momentum, noise 2(a - b_hat) eta", "S,E"),
    ("wang2015.sghmc_privacy_condition", "eq. 4.2 and the SGHMC condition",
     "2(A - B_hat)/h >= D carries Theorem 4 over to SGHMC", "S,E"),
    ("wang2015.sgnht_privacy_condition", "eqs. 4.3, 4.5 and the SGNHT condition",
     "2a/eta >= D (the SGLD form; the printed logs differ) carries Theorem 4 over to SGNHT", "S,E"),
    ("wang2015.supp_prop4_are_general_eps", "supplement Proposition 4", "ARE 1 + 4B/eps of tempered OPS", "S,E"),
    ("wang2015.supp_lem5_nonspherical_gaussian", "supplement Lemma 5", "non-spherical Gaussian mechanism", "S,N"),
    ("wang2015.supp_thm5_dp_sgfs", "supplement Theorem 5, Algorithm 4", "DP-SGFS is (2 eps, 2 delta)-DP", "S,E"),
    ("wang2015.supp_lem6_cov_sensitivity", "supplement Lemma 6", "sample covariance sensitivity 7 L^2/(n-1)", "S,N"),
    # --- Li, Chen, Liu, Carin 2019 ------------------------------------------------------------------
    ("li2019.def1_dp", "Definition 1", "(eps, delta)-DP", "S"),
    ("li2019.def2_privacy_loss", "Definition 2", "privacy loss random variable", "S"),
    ("li2019.def3_moments_accountant", "Definition 3", "log moment generating function alpha(lambda)", "S,N"),
    ("li2019.thm1_composability", "Theorem 1, composability", "log moments add under composition", "S,N"),
    ("li2019.thm1_tail_bound", "Theorem 1, tail bound", "delta = min over lambda of exp(alpha - lambda eps)", "S,N"),
    ("li2019.lem2_sampled_gaussian", "Lemma 2", "log moment of the sampled Gaussian mechanism", "S,N"),
    ("li2019.rem1_approx_moments", "Remark 1", "the approximation q^2 lambda(lambda+1)/sigma^2", "S,N"),
    ("li2019.alg1_dp_sgld", "Algorithm 1", "DP-SGLD with clipping and noise N(0, eta/N)", "E"),
    ("li2019.thm3_decreasing_stepsize", "Theorem 3", "step-size conditions, decreasing schedule", "S,N,E"),
    ("li2019.thm4_fixed_stepsize", "Theorem 4", "step-size conditions, fixed step", "S,N,E"),
    ("li2019.wang_bound_quoted", "Sec. 3.1", "Wang et al.'s bound as quoted, and its units", "S,N"),
    ("li2019.example_mnist_stepsize", "Sec. 3.1 example", "0.103 vs 1.54e-6 recomputed", "N"),
    ("li2019.prop5_mse_decreasing", "Proposition 5", "MSE bound for the decreasing schedule", "S"),
    ("li2019.prop6_mse_fixed", "Proposition 6", "MSE bound for a fixed step", "S"),
    ("li2019.prop7_generalization", "Proposition 7", "generalisation bound and its Lambert-W inversion", "S"),
    ("li2019.asm1_asm2", "Assumptions 1, 2", "the hypotheses of Propositions 5-7", "S"),
    ("li2019.logreg_claim", "Sec. 4.2", "eps ~ 0.08 makes DP-SGLD plain SGLD (Adult)", "N"),
    ("li2019.fig1_stepsize_curves", "Figure 1", "step-size bounds against eps", "N"),
    ("li2019.fig2_stepsize_sensitivity", "Figure 2", "bounds against N and L", "N"),
    ("li2019.table1_claims", "Table 1", "MNIST (0.99, 1e-5) and SVHN (2.97, 1e-6) with a modern accountant", "N"),
    # --- Bertazzi, Johnston, Roberts, Durmus 2025 (reconstructed) -----------------------------------
    ("bertazzi2025.def21_dp", "Definition 2.1, eq. (3)", "DP of an algorithm and of a posterior", "S"),
    ("bertazzi2025.def22_renyi_dp", "Definition 2.2, eq. (4)", "Renyi divergence and RDP", "S,N"),
    ("bertazzi2025.asm31_uniform_convergence", "Assumption 3.1", "TV convergence uniform in the data", "S"),
    ("bertazzi2025.prop32_tv_to_dp", "Proposition 3.2 (via A.2)", "TV closeness transfers DP, both directions", "S,E"),
    ("bertazzi2025.cor33_posterior_must_be_dp", "Corollary 3.3", "a chain private at every step needs a private posterior", "S"),
    ("bertazzi2025.prop34_tv_lower_bound", "Proposition 3.4 / A.3", "a DP chain stays TV-far from a non-DP posterior", "S,N,E"),
    ("bertazzi2025.prop37_mc_estimator", "Assumptions 3.5, 3.6, Proposition 3.7", "noisy Monte Carlo estimator", "S,E"),
    ("bertazzi2025.prop310_mc_estimator", "Assumptions 3.8, 3.9, Proposition 3.10",
     "noisy estimator from concentration of the ergodic average", "S,E"),
    ("bertazzi2025.lem41_rn_to_dp", "Lemma 4.1", "tail bound on the Radon-Nikodym derivative gives DP", "S"),
    ("bertazzi2025.lem42_rn_to_rdp", "Lemma 4.2", "moment bound on the Radon-Nikodym derivative gives RDP", "S"),
    ("bertazzi2025.prop45_path", "Proposition 4.5", "privacy of the whole path (Girsanov)", "S,E"),
    ("bertazzi2025.prop46_final_value", "Proposition 4.6", "privacy of the final value", "S,E"),
    ("bertazzi2025.thm52_ula_final", "Theorem 5.2", "ULA final state, uniform in the number of steps", "S,N,E"),
    ("bertazzi2025.thm54_ula_path", "Theorem 5.4", "ULA path", "S,N,E"),
    ("bertazzi2025.thm56_sgld_final", "Theorem 5.6", "noisy SGD / SGLD final state", "S,N,E"),
    ("bertazzi2025.thm57_sgld_strongly_convex", "Theorem 5.7", "affine data term: the bound improves with the batch", "S,N,E"),
    ("bertazzi2025.thm58_sgld_path", "Theorem 5.8", "noisy SGD path", "S,N,E"),
    ("bertazzi2025.lemb1_girsanov", "Lemmas B.1-B.3", "Girsanov change of measure and martingale bounds", "S"),
    # --- Foulds, Geumlek, Welling, Chaudhuri 2016 ---------------------------------------------------
    ("foulds2016.eq3_laplace_mechanism", "eqs. 2-3", "Laplace mechanism", "N,E"),
    ("foulds2016.eq4_exponential_mechanism", "eqs. 4-5", "exponential mechanism", "S,E"),
    ("foulds2016.eq6_9_posterior_sensitivity", "eqs. 6-9", "posterior sampling as the exponential mechanism", "S"),
    ("foulds2016.thm1_composition", "Theorem 1", "composition", "S"),
    ("foulds2016.thm2_posterior_2c", "Theorem 2", "bounded log-likelihood differences C give 2C-DP", "S,E"),
    ("foulds2016.thm3_posterior_4b", "Theorem 3", "bounded log-likelihood B gives 4B-DP", "S"),
    ("foulds2016.eq10_temperature", "eqs. 10, 14", "temperature T = 2 Delta/eps", "S,N"),
    ("foulds2016.eq13_expfam_sensitivity", "eq. 13", "exponential-family sensitivity", "S"),
    ("foulds2016.eq15_beta_bernoulli_truncated", "eq. 15", "truncated beta-Bernoulli sensitivity and temperature", "S,N,E"),
    ("foulds2016.eq16_laplace_sufficient_stats", "eqs. 16-17", "Laplace on the sufficient statistics", "S,E"),
    ("foulds2016.lem1_kl_vanishes", "Lemma 1, Corollary 2", "expected KL of the noised posterior vanishes", "E"),
    ("foulds2016.thm4_are_laplace", "Theorem 4", "one Laplace-posterior draw has ARE 2", "S,E"),
    ("foulds2016.thm5_are_exponential", "Theorem 5", "one OPS draw at temperature T has ARE 1 + T", "S,E"),
    ("foulds2016.rem1_are_mean", "Remark 1", "the privatised posterior mean has ARE 1", "S,E"),
    ("foulds2016.prop3_approx_sampling", "Proposition 3 as restated", "approximate sampling, with the misplaced parenthesis", "S"),
    ("foulds2016.eq19_private_gibbs", "eqs. 18-20", "a Gibbs update is the exponential mechanism; scan costs", "S,E"),
    ("foulds2016.sec4_gibbs_costs", "Secs. 2.2, 4.1, 5", "privacy costs of passes, samples and the HMM run", "S,N"),
    ("foulds2016.table1_comparison", "Table 1", "OPS against the Laplace mechanism", "S"),
    ("foulds2016.fig2_l1_error", "Figure 2", "L1 error against N", "E"),
    # --- Balle, Wang 2018 (a supporting item: the Gaussian mechanism's exact profile) --------------------
    ("balle2018.thm8_analytic_gaussian", "Theorem 8",
     "the Gaussian mechanism is (eps, delta)-DP iff Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps "
     "Phi(-Delta/(2 sigma) - eps sigma/Delta) <= delta", "S,N,E"),
    # --- Chourasia, Ye, Shokri 2021 -----------------------------------------------------------------
    ("chourasia2021.thm2_noisy_gd_rdp", "Theorem 2",
     "RDP of noisy GD's last iterate on a strongly convex smooth loss, converging exponentially in the steps", "S,N"),
    # --- Geumlek, Song, Chaudhuri 2017 (reconstructed: see dpverify.theorems.geumlek2017) ----------------------
    ("geumlek2017.lem_expfam_renyi", "Sec. 3, Rényi divergence of conjugate posteriors",
     "closed-form Rényi divergence of two exponential-family posteriors (beta instance)", "S,N"),
    ("geumlek2017.thm_expfam_rdp_curvature", "Sec. 3, RDP of one posterior draw",
     "(lambda, lambda l Delta^2 / 2)-RDP from a curvature bound l on the log-normaliser", "S,N"),
    ("geumlek2017.alg_diffuse_concentrated_beta", "Sec. 3, Diffuse and Concentrated Posterior, beta-Bernoulli",
     "Beta(a + r n1, b + r n0) is (lambda, lambda r^2 psi_1(a_min - (lambda - 1) r))-RDP below 1 + a_min/r", "S,N,E"),
    # --- Ponnoprat 2022 ---------------------------------------------------------------------------------------
    ("ponnoprat2022.thm1_dirichlet_rdp", "Theorem 1",
     "Dirichlet posterior sampling is (lambda, lambda/2 Delta_2^2 psi_1(a_min - (lambda - 1) Delta_inf))-RDP",
     "S,N,E"),
    # --- Yildirim, Ermis 2019 (reconstructed from the authors' code) ------------------------------------------------
    ("yildirim2019.lem_clipped_ratio_sensitivity", "the clipped log-likelihood ratio (reconstructed)",
     "per-record ratios clipped to [-b d, b d]: the sum's replace-one sensitivity is 2 b d", "S,N,E"),
    ("yildirim2019.thm_penalty_step_gaussian", "the penalty step as a Gaussian mechanism (reconstructed)",
     "one step releasing the noisy clipped ratio is (alpha, alpha Delta^2/(2 sigma^2))-RDP, Delta/sigma-GDP", "S,N,E"),
    ("yildirim2019.cor_penalty_composition", "composition over the chain (reconstructed)",
     "k steps are k Delta^2/(2 sigma^2)-zCDP, (rho + 2 sqrt(rho log(1/delta)), delta)-DP", "S,N,E"),
    # --- Räisä, Koskela, Honkela 2021 (reconstructed from the authors' code) ----------------------------------------
    ("raisa2021.thm_dp_penalty_privacy", "DP-penalty's privacy (reconstructed from the authors' code)",
     "k DP-penalty steps with noise tau sqrt(N) 2 b d: mu = sqrt(k)/(tau sqrt(N))-GDP, tight delta(epsilon)", "S,N,E"),
    ("raisa2021.lem_gradient_sensitivity", "the clipped gradient release (reconstructed from the authors' code)",
     "clipped gradient sums have sensitivity 2 L; noise 2 tau_g sqrt(N) L makes each release 1/(tau_g sqrt(N))-GDP",
     "S,N,E"),
    ("raisa2021.thm_dp_hmc_privacy", "DP-HMC's privacy (reconstructed from the authors' code)",
     "k DP-HMC iterations with L leapfrog steps: rho = k/(2 tau_l^2 N) + k (L + 1)/(2 tau_g^2 N), tight delta",
     "S,N,E"),
    # --- Heikkilä, Jälkö, Dikmen, Honkela 2019 (reconstructed from the authors' code) -------------------------------
    ("heikkila2019.thm_barker_step_rdp", "Sec. 4 (reconstructed from the authors' code)",
     "one DP Barker iteration on a batch of b: (alpha, 5/(2b) + log(2b/(b-5alpha))/(2(alpha-1)) + 2alpha/(b-5alpha))-RDP",
     "S,N,E"),
    ("heikkila2019.thm_subsampled_amplification", "Sec. 4 (reconstructed from the authors' code)",
     "subsampling b of N without replacement amplifies the per-iteration RDP (Wang-Balle-Kasiviswanathan Thm 9)",
     "S,N,E"),
    ("heikkila2019.cor_composed_dp", "Sec. 4 (reconstructed from the authors' code)",
     "T iterations: (T eps'(alpha) + log(1/delta)/(alpha - 1), delta)-DP, minimised over integer orders", "S,N,E"),
    ("heikkila2019.cond_clip_and_noise", "Sec. 3-4 (reconstructed from the authors' code)",
     "clip C <= sqrt(b)/(N tau_T) keeps V_B <= 1; normal part sigma^2 in (1, pi^2/3); the correction is approximate",
     "S,N,E"),
    # --- Minami, Arai, Sato, Nakagawa 2016 (reconstructed) ----------------------------------------------------------
    ("minami2016.thm_gibbs_posterior_dp", "main theorem (reconstructed)",
     "Gibbs posterior, convex L-Lipschitz loss, m-strongly log-concave prior: (epsilon, delta)-DP if beta <= "
     "epsilon/(2L) sqrt(m/(1 + 2 log(1/delta))), epsilon <= 1", "S,N,E"),
    ("minami2016.lem_gibbs_privacy_loss_concentration", "proof of the main theorem (reconstructed)",
     "the same Gibbs posterior is (a^2/2 + a sqrt(2 log(1/delta)), delta)-DP, a = 2 beta L / sqrt(m) (LSI)", "S,N,E"),
    ("minami2016.prop_approximate_sampling", "approximate sampling by Langevin Monte Carlo (reconstructed)",
     "TV(A_D, G_D) <= gamma for every D and an (epsilon, delta)-DP Gibbs posterior: the sampler is (epsilon, delta + "
     "(1 + e^epsilon) gamma)-DP; tight; exact on ULA", "S,N,E"),
    # --- Gopi, Lee, Liu 2022 (reconstructed) ------------------------------------------------------------------------
    ("gopi2022.thm_gdp_strongly_convex_lipschitz", "GDP of the exponential mechanism (reconstructed)",
     "exp(-F) vs exp(-F~), F m-strongly convex, F~ - F L-Lipschitz: the pair is (L / sqrt(m))-GDP", "S,N,E"),
    ("gopi2022.thm_regularized_em_gdp", "regularised exponential mechanism (reconstructed)",
     "exp(-k (F + mu/2 |x|^2)), F the mean of N convex G-Lipschitz losses: (2 G sqrt(k) / (N sqrt(mu)))-GDP",
     "S,N,E"),
    ("gopi2022.lem_excess_risk_of_sampling", "the sampling lemma behind the utility bound (reconstructed; Kalai, "
     "Vempala 2006, Lemma 4.1; Bassily, Smith, Thakurta 2014)",
     "F convex on R^d, x ~ exp(-k F): E F(x) - min F <= d / k; equality for sum |x_i|, d/(2k) for quadratics", "S,N"),
    ("gopi2022.cor_regularized_em_excess_risk", "excess empirical risk of the regularised mechanism (reconstructed; "
     "derived here)", "E F(x) - F(x*) <= d/k + mu R^2/2 for |x*| <= R; calibrated to mu_gdp, best mu: 2 sqrt(2) G R "
     "sqrt(d) / (N mu_gdp)", "S,N"),
    # --- Bok, Su, Altschuler 2024 (reconstructed from the authors' code) --------------------------------------------
    ("bok2024.thm_noisy_gd_strongly_convex_gdp", "NoisyGD, strongly convex (reconstructed from the authors' code)",
     "last iterate mu-GDP, mu = S_g/(n sigma) sqrt((1+c)/(1-c) (1-c^t)/(1+c^t)), c = 1 - eta m; exact on quadratics",
     "S,N,E"),
    ("bok2024.thm_noisy_cgd_strongly_convex_gdp", "NoisyCGD, strongly convex (reconstructed from the authors' code)",
     "cyclic batches of b, E epochs: mu = S_g/(b sigma) sqrt(1 + c^{2l-2}(1-c^2)/(1-c^l)^2 (1-c^{l(E-1)})/"
     "(1+c^{l(E-1)}))", "S,N"),
    ("bok2024.thm_noisy_gd_constrained_convex_gdp", "projected NoisyGD, convex (reconstructed from the authors' code)",
     "diameter D: mu = min(sqrt(t) S_g/(n sigma), sqrt(3 D S_g/(n eta) + (S_g/n)^2 ceil(D n/(S_g eta)))/sigma)",
     "S,N"),
    # --- Heller, Fetaya 2023, a negative result (reconstructed) -----------------------------------------------------
    ("heller2023.prop_posterior_private", "the posterior is private (reconstructed instance)",
     "1-d Bayesian linear regression, prior precision m: the posterior's RDP over replace-one pairs -> 0 as m grows",
     "S,N,E"),
    ("heller2023.thm_interim_unbounded", "SGLD's interim state is not (reconstructed instance)",
     "after t SGLD steps from R the pair's RDP grows like R^2: unbounded privacy loss before convergence", "S,N,E"),
    # --- Annamalai 2024, a negative result (reconstructed) ----------------------------------------------------------
    ("annamalai2024.thm_nonconvex_last_iterate", "no hidden-state amplification, non-convex loss (reconstructed "
     "instance)", "a latching double-well loss: the last iterate of Poisson DP-SGD is not (eps, delta)-DP below "
     "log((pi - delta)/pi'), close to the path's accountant", "S,N,E"),
    # --- Cebere, Bellet, Papernot 2025, a negative result (reconstructed) -------------------------------------------
    ("cebere2025.thm_crafted_gradient_every_step", "crafted gradient at every step (reconstructed, full batch)",
     "the last iterate of T full-batch DP-SGD steps is sqrt(T)/sigma-GDP: exactly the path's privacy", "S,N,E"),
    ("cebere2025.thm_crafted_gradient_subsampled", "crafted gradient at every step, Poisson-subsampled (derived here)",
     "the last iterate is the Binomial(T, q) mixture of N(k, T sigma^2) vs N(0, T sigma^2): below the path's "
     "accountant (equal at q = 1), far above one subsampled step", "S,N,E"),
)

_BY_ID: dict[str, Item] = {it.id: it for it in CATALOGUE}
_POSITION: dict[str, int] = {it.id: i for i, it in enumerate(CATALOGUE)}
if len(_BY_ID) != len(CATALOGUE):  # pragma: no cover - a typo in the table above
    raise RuntimeError("duplicate IDs in dpverify.theorems.catalogue.CATALOGUE")


def ids(paper: str | None = None) -> list[str]:
    """Catalogue IDs (of one paper if given), in catalogue order."""
    return [it.id for it in CATALOGUE if paper is None or it.paper == paper]


def item(theorem_id: str) -> Item:
    """The row of ``theorem_id``; ``KeyError`` (with close matches) for an unknown ID."""
    try:
        return _BY_ID[theorem_id]
    except KeyError:
        close = difflib.get_close_matches(str(theorem_id), list(_BY_ID), n=3, cutoff=0.4)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise KeyError(f"{theorem_id!r} is not a catalogue ID{hint}") from None


def check_kinds(theorem_id: str) -> frozenset[str]:
    """The check letters (``S``, ``N``, ``E``) the catalogue asks of ``theorem_id``."""
    return item(theorem_id).kinds


def in_order(theorems: Iterable[Any]) -> tuple:
    """``theorems`` (objects with an ``id``) sorted in catalogue order; ``KeyError`` for an ID the catalogue does
    not list, ``ValueError`` for an ID given twice. Each paper package builds its ``THEOREMS`` with it."""
    items = list(theorems)
    seen = [t.id for t in items]
    twice = sorted({i for i in seen if seen.count(i) > 1})
    if twice:
        raise ValueError(f"theorem IDs given twice: {twice}")
    for t in items:
        item(t.id)
    return tuple(sorted(items, key=lambda t: _POSITION[t.id]))

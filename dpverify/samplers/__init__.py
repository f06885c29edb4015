"""Reference samplers: every algorithm of the papers, vectorised over independent runs.

Each sampler follows :class:`dpverify.samplers.base.Sampler` and is listed in
:mod:`dpverify.samplers.registry` (``dpverify samplers list``). A gradient sampler is a kernel plus a privacy budget:

- kernels (:mod:`~dpverify.samplers.kernels`): a gradient estimator (:mod:`~dpverify.samplers.gradients`: full
  batch, uniform tau-of-N, Poisson with clipping) composed with an update rule (:mod:`~dpverify.samplers.integrators`:
  Langevin, SGHMC, SGNHT, SGFS), run under a schedule of step sizes and noise scales
  (:mod:`~dpverify.samplers.schedules`); mini-batches are drawn by :mod:`~dpverify.samplers.minibatch`;
- budgets: the theorem's parameters and the noise they calibrate (:mod:`~dpverify.samplers.budgets`, Wang et al.
  2015's shared by DP-SGLD, DP-SGHMC, DP-SGNHT, DP-SGFS), the claim through the theorem catalogue
  (:mod:`~dpverify.samplers.claims`) and the mechanism description (each sampler's ``mechanism()``);
- the samplers, one module per algorithm family: :mod:`~dpverify.samplers.sgld` (Wang Alg. 2, Li Alg. 1),
  :mod:`~dpverify.samplers.sghmc` and :mod:`~dpverify.samplers.sgnht` (on :mod:`~dpverify.samplers.momentum`),
  :mod:`~dpverify.samplers.sgfs`, :mod:`~dpverify.samplers.ula` (Bertazzi), :mod:`~dpverify.samplers.hybrid`,
  :mod:`~dpverify.samplers.ops` / :mod:`~dpverify.samplers.ops_mcmc` (OPS), :mod:`~dpverify.samplers.foulds`,
  :mod:`~dpverify.samplers.baselines`, :mod:`~dpverify.samplers.mc_estimator`, :mod:`~dpverify.samplers.broken`
  (known-bad DP-SGLDs); the shared loop and auditor-facing part in :mod:`~dpverify.samplers.sgmcmc`.
"""

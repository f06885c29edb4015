"""dpverify: verification of the differential privacy of Bayesian posterior sampling and SG-MCMC.

The package, bottom layer first (each layer imports only the ones above it in this list; ``tests/test_architecture.py``
enforces it):

- :mod:`dpverify.calculus` -- the DP calculus: guarantee types (the one vocabulary every other layer speaks),
  conversions, composition, subsampling, mechanisms, mechanism descriptions and accountants;
- :mod:`dpverify.theorems` -- the symbolic theorem catalogue, one package per paper
  (``theorems/wang2015/``, ``li2019/``, ``foulds2016/``, ``bertazzi2025/``);
- :mod:`dpverify.models` -- likelihoods and priors with their privacy constants and capabilities;
- :mod:`dpverify.samplers` -- the reference samplers, vectorised over independent runs, each claiming a theorem's
  guarantee and describing its run for the accountants;
- :mod:`dpverify.audit` -- empirical lower bounds on epsilon for any mechanism (it imports no sampler);
- :mod:`dpverify.libraries` -- regression checks of real DP libraries through the auditor;
- :mod:`dpverify.cases` -- the audit suite's cases and the one path that runs a case (built and accounted once, a
  typed result up to the report writer), on the samplers and the auditor;
- :mod:`dpverify.interfaces` -- the ``dpverify`` command, the pytest plugin and ``assert_dp``, reports, figures.
"""
__version__ = "0.1.0"

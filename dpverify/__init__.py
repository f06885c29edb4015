"""dpverify: verification of the differential privacy of Bayesian posterior sampling and SG-MCMC.

Layers (one concept per module):

- core DP calculus: :mod:`dpverify.guarantees`, :mod:`dpverify.mechanisms`,
  :mod:`dpverify.composition`, :mod:`dpverify.subsampling`, :mod:`dpverify.accounting`,
  :mod:`dpverify.conversions`;
- :mod:`dpverify.theorems` -- the symbolic theorem catalogue (one module per paper);
- :mod:`dpverify.models` and :mod:`dpverify.samplers` -- reference samplers;
- :mod:`dpverify.audit` -- empirical epsilon lower bounds;
- interfaces: :mod:`dpverify.cli`.
"""
__version__ = "0.1.0"

"""dpverify: verification of the differential privacy of Bayesian posterior sampling and SG-MCMC.

Layers (one concept per module):

- core DP calculus: :mod:`dpverify.calculus.guarantees`, :mod:`dpverify.calculus.mechanisms`,
  :mod:`dpverify.calculus.composition`, :mod:`dpverify.calculus.subsampling`, :mod:`dpverify.calculus.accounting`,
  :mod:`dpverify.calculus.conversions`;
- :mod:`dpverify.theorems` -- the symbolic theorem catalogue (one module per paper);
- :mod:`dpverify.models` and :mod:`dpverify.samplers` -- reference samplers;
- :mod:`dpverify.audit` -- empirical epsilon lower bounds;
- interfaces: :mod:`dpverify.interfaces.cli`.
"""
__version__ = "0.1.0"

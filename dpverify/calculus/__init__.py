"""The DP calculus: what a guarantee is, how guarantees convert, compose and amplify, the mechanisms that
produce them, the description of a sampler's run as releases, and the accountants that turn it into a number.

- :mod:`~dpverify.calculus.guarantees` -- the one vocabulary for a privacy guarantee: :class:`PureDP`,
  :class:`ApproxDP` (and :class:`Conversion`, an (epsilon, delta) computed by an accountant), :class:`RenyiDP`,
  :class:`PrivacyProfile`;
- :mod:`~dpverify.calculus.tradeoff` -- trade-off curves (f-DP): :class:`GaussianDP` (mu-GDP), :class:`LaplaceDP`,
  :class:`PiecewiseLinearCurve`, the (epsilon, delta) curve;
- :mod:`~dpverify.calculus.tradeoff_conversions` -- any guarantee (a profile, a PLD, PureDP/ApproxDP, RenyiDP) as a
  trade-off curve or a privacy profile, always toward the weaker claim;
- :mod:`~dpverify.calculus.conversions` -- Rényi DP to (epsilon, delta)-DP;
- :mod:`~dpverify.calculus.composition`, :mod:`~dpverify.calculus.subsampling` -- composition theorems and
  amplification by subsampling;
- :mod:`~dpverify.calculus.mechanisms` -- Laplace, Gaussian and exponential mechanisms with their calibrations;
- :mod:`~dpverify.calculus.mechanism_description` -- what a sampler's run releases (steps, batches, noise), in the
  spirit of dp_accounting's ``DpEvent``;
- :mod:`~dpverify.calculus.accounting` -- RDP, moments and PLD accountants.

Nothing here imports a theorem, a sampler or the auditor.
"""

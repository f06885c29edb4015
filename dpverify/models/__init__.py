"""Models with bounded likelihoods and their privacy constants (B, L, R, sensitivities).

Import each model from its module (``dpverify.models.beta_bernoulli``, ``dpverify.models.logistic``, ...);
every model follows :class:`dpverify.models.base.Model`.
"""

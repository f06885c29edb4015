"""Must-fail audit of a published negative result (issue 39; ``negative_result`` in audits/conftest.py): the crafted
gradient at every step under Poisson subsampling (Cebere et al. 2025; the subsampled case derived here,
``cebere2025.thm_crafted_gradient_subsampled``): one subsampled step's privacy claimed for the last iterate of 16.

Case ``dp_sgd_crafted_gradient_subsampled_last_iterate``: q = 0.5, sigma = 1, T = 16, delta = 1e-5, the canary
(gradient 1) vs a null record. Measured (quick budget, 2e4 samples per side, likelihood-ratio test): claim 3.534
(naive), exact 12.98 (the Binomial(16, 0.5) mixture), path accountant 13.39 (PLD), ceiling 4.966; certified 4.911 /
4.636 / 4.930 at seeds 0 / 1 / 2 (0.99 / 0.93 / 0.99 of the ceiling): a violation at every seed.
"""


def test_dp_sgd_crafted_gradient_subsampled_last_iterate(negative_result):
    negative_result("dp_sgd_crafted_gradient_subsampled_last_iterate")

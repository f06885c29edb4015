"""Must-fail audit of a published negative result (issue 39; ``negative_result`` in audits/conftest.py): the crafted
gradient at every step (Cebere et al. 2025): the last step's privacy claimed for the last iterate.

Measured (seed 0, quick budget): certified 4.917 > claim 1.993 (exact 9.997 = the path's, ceiling 4.63).
"""


def test_dp_sgd_crafted_gradient_last_iterate(negative_result):
    negative_result("dp_sgd_crafted_gradient_last_iterate")

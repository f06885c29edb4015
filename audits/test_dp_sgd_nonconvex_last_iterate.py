"""Must-fail audit of a published negative result (issue 39; ``negative_result`` in audits/conftest.py): a non-convex
loss's last DP-SGD iterate (Annamalai 2024): the linear-loss last iterate's epsilon claimed for it.

Measured (seed 0, quick budget): certified 0.5772 > claim 0.3071 (exact 0.7985, path accountant 0.849, ceiling
0.654, 4e5 samples; seeds 1, 2: 0.564, 0.497).
"""


def test_dp_sgd_nonconvex_last_iterate(negative_result):
    negative_result("dp_sgd_nonconvex_last_iterate")

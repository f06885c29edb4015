"""Must-fail audit of a published negative result (issue 39; ``negative_result`` in audits/conftest.py): SGLD's interim
state (Heller & Fetaya 2023): the posterior's epsilon applied to the chain after t steps.

Measured (seed 0, quick budget): certified 1.974 > claim 0.6956 (exact 4.16, ceiling 1.996).
"""


def test_sgld_interim(negative_result):
    negative_result("sgld_interim")

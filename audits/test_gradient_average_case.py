"""Average-case audits of the gradient samplers: natural data, one record replaced (cases ``*_average``).

The worst-case audits use gradient canaries; these show what an audit on ordinary data certifies (typically far
less: the verdict is then "inconclusive" at this budget, never a violation)."""
import pytest

from dpverify.interfaces.suite import cases

AVERAGE = [c.id for c in cases() if c.average_case]


@pytest.mark.parametrize("case_id", AVERAGE)
def test_average_case(case_id, audit_case):
    claim, reference, result = audit_case(case_id)
    assert result.verdict != "violation"

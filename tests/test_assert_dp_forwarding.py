"""``assert_dp`` forwards ``audit()``'s keyword arguments instead of re-declaring them (issue 16, item 5)."""
import inspect

import numpy as np
import pytest

from dpverify.audit import audit
from dpverify.audit.options import EXECUTION_FIELDS, QUESTION_FIELDS, AuditQuestion
from dpverify.interfaces.testing import _audit_keywords, assert_dp


def laplace(scale):
    def mechanism(dataset, n, rng):
        return rng.laplace(float(np.sum(dataset)), scale, size=n)

    return mechanism


def test_assert_dp_declares_only_its_own_parameters():
    params = inspect.signature(assert_dp).parameters
    assert list(params) == ["mechanism", "dataset", "neighbour", "name", "on_inconclusive", "audit_options"]
    # everything audit() takes by keyword (its two option objects and their fields) is forwarded, so a new audit()
    # option reaches assert_dp with no edit here
    audit_keywords = ("question", "execution", *QUESTION_FIELDS, *EXECUTION_FIELDS)
    assert _audit_keywords() == audit_keywords
    assert {"epsilon", "delta", "samples", "seed", "mode", "workers"} <= set(audit_keywords)


def test_assert_dp_uses_audits_defaults_and_returns_the_same_result():
    D, D2 = [0.0], [1.0]
    direct = audit(laplace(1.0), D, D2, epsilon=2.0, samples=4000)
    through = assert_dp(laplace(1.0), D, D2, epsilon=2.0, samples=4000)
    assert through.to_dict() | {"wall_time": 0} == direct.to_dict() | {"wall_time": 0}
    assert through.seed == AuditQuestion().seed
    assert through.confidence == AuditQuestion().confidence


def test_forwarded_options_take_effect():
    r = assert_dp(laplace(1.0), [0.0], [1.0], epsilon=2.0, samples=4000, seed=7, test="classifier",
                  confidence=0.9, on_inconclusive="ignore")
    assert (r.seed, r.confidence) == (7, 0.9) and r.test.startswith("classifier")


def test_unknown_or_missing_arguments_are_named():
    with pytest.raises(TypeError, match="unknown argument.*sample\\b.*samples"):
        assert_dp(laplace(1.0), [0.0], [1.0], epsilon=2.0, sample=10)
    with pytest.raises(TypeError, match="epsilon"):
        assert_dp(laplace(1.0), [0.0], [1.0], samples=4000)

"""The replay helpers for a maintainer's test suite: ``assert_replay_invariant`` and the ``dp_replay`` fixture of the
pytest plugin, exercised on a toy library in a throw-away pytest session (pytester): a correct function passes, a
buggy one fails with the flag, its ``file:line`` and the replayed difference in the message."""
from __future__ import annotations

import numpy as np
import pytest

from dpverify.interfaces.testing import assert_replay_invariant
from dpverify.libraries.replay import Primitive

TOYLIB = '''
import numpy as np

def laplace(value, sensitivity, epsilon, rng):
    return value + rng.laplace(0.0, sensitivity / epsilon, size=np.shape(value))

def private_sum(x, epsilon, rng):
    return laplace(np.sum(np.clip(x, 0.0, 1.0)), 1.0, epsilon, rng)

def private_sum_unclipped(x, epsilon, rng):
    return laplace(np.sum(x), 1.0, epsilon, rng)
'''

SUITE = '''
import numpy as np
import pytest
import toylib
from dpverify.libraries.replay import Primitive

LAPLACE = Primitive(toylib, "laplace", value_arg="value", sensitivity_arg="sensitivity", epsilon_arg="epsilon")
D, D2 = np.array([0.2, 0.5, 0.9]), np.array([0.2, 0.5, 4.0])

def test_correct(dp_replay):
    result = dp_replay(lambda x, rng: toylib.private_sum(x, 1.0, rng), D, D2, primitives=[LAPLACE])
    assert result.ok and len(result.recording.calls) == 1

def test_broken(dp_replay):
    dp_replay(lambda x, rng: toylib.private_sum_unclipped(x, 1.0, rng), D, D2, primitives=[LAPLACE])

def test_broken_accepted(dp_replay):
    dp_replay(lambda x, rng: toylib.private_sum_unclipped(x, 1.0, rng), D, D2, primitives=[LAPLACE],
              ignore=("sensitivity",))
'''


def test_dp_replay_fixture_passes_and_fails(pytester):
    pytester.makepyfile(toylib=TOYLIB, test_suite=SUITE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--dp-seed", "7")
    result.assert_outcomes(passed=2, failed=1)
    text = result.stdout.str()
    assert "test_broken - AssertionError" in text or "test_broken" in text
    assert "is not replay-invariant: 1 flag(s)" in text and "seed 7" in text
    line = TOYLIB.lstrip("\n").splitlines().index("    return laplace(np.sum(x), 1.0, epsilon, rng)") + 1
    assert f"sensitivity at toylib.py:{line}" in text  # the library's line handing the unclipped sum to the primitive
    assert "moves by 3.1 (l1)" in text and "D: 1.6; D': 4.7" in text


def laplace(value, sensitivity, epsilon, rng):
    return value + rng.laplace(0.0, sensitivity / epsilon)


def test_assert_replay_invariant_directly():
    import sys

    prim = Primitive(sys.modules[__name__], "laplace", value_arg="value", sensitivity_arg="sensitivity")
    d, n = np.array([0.2, 0.5]), np.array([0.2, 3.0])
    result = assert_replay_invariant(lambda x, rng: laplace(np.sum(np.clip(x, 0, 1)), 1.0, 1.0, rng), d, n,
                                     primitives=prim)
    assert result.ok
    with pytest.raises(AssertionError, match=r"sensitivity at test_replay_plugin\.py:\d+: laplace \(call 0\)"):
        assert_replay_invariant(lambda x, rng: laplace(np.sum(x), 1.0, 1.0, rng), d, n, primitives=prim,
                                name="unclipped")
    with pytest.raises(ValueError, match="ignore must hold flag kinds"):
        assert_replay_invariant(lambda x, rng: 0.0, d, n, primitives=prim, ignore=("typo",))

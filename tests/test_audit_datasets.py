"""Adjacent pairs, their validation and hypothesis strategies; worst-case pair search."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dpverify.audit.datasets import add_one, adjacent_pairs, check_adjacent, remove_one, replace_one
from dpverify.audit.known_bad import laplace_query
from dpverify.audit.search import random_pairs, search_audits, search_exact, search_hypothesis


def test_constructors():
    d, n = replace_one([1.0, 2.0, 3.0], 1, 5.0)
    assert n.tolist() == [1.0, 5.0, 3.0] and d.tolist() == [1.0, 2.0, 3.0]
    d, n = add_one(np.zeros((2, 3)), np.ones(3))
    assert n.shape == (3, 3)
    d, n = remove_one([1, 2, 3], 0)
    assert n.tolist() == [2, 3]


@pytest.mark.parametrize("a,b,adjacency,why", [
    ([1, 2], [3, 4], "replace", "exactly one differing record; got 2"),
    ([1, 2], [1, 2], "replace", "exactly one differing record; got 0"),
    ([1, 2, 3], [1, 2], "replace", "equal shapes"),
    ([1, 2, 3], [1], "add_remove", "sizes differing by one"),
    ([1, 2, 3], [1, 4], "add_remove", "removing no single record"),
    ([[1, 2]], [[1, 2, 3]], "add_remove", "sizes differing by one"),
    ([1, 2, 3], [2, 4], "either", "replace-one adjacency needs equal shapes"),
    (5, [5], "replace", "records on axis 0"),
])
def test_non_adjacent_pairs_say_why(a, b, adjacency, why):
    with pytest.raises(ValueError, match=why):
        check_adjacent(a, b, adjacency)
    with pytest.raises(ValueError, match="adjacency must be"):
        check_adjacent([1], [2], "hamming")


def test_either_accepts_both_kinds():
    check_adjacent([1, 2, 3], [2, 3], "either")
    check_adjacent([1, 2, 3], [1, 2, 4], "either")


@pytest.mark.parametrize("adjacency", ["replace", "add_remove", "either"])
@pytest.mark.parametrize("records", [st.floats(-1, 1), st.integers(0, 1), arrays(float, 3, elements=st.floats(-1, 1))])
def test_strategies_generate_adjacent_pairs(adjacency, records):
    @settings(max_examples=40, deadline=None, derandomize=True)
    @given(adjacent_pairs(records, max_size=8, adjacency=adjacency))
    def check(pair):
        check_adjacent(*pair, adjacency)

    check()


# Worst-case pair search on the Laplace sum query: records in [-1, 1] (replace-one sensitivity 2),
# scale 2 (epsilon = 1). Exact pair epsilon = |x_i - x_i'| / 2, maximal (= 1) at x = -1, x' = 1.
MECH = laplace_query(1.0, sensitivity=2.0)


def exact0(d, n):
    return MECH.exact_epsilon(d, n, 0.0)


def test_search_exact_finds_the_extreme_records():
    found = search_exact(exact0, lambda p: (np.array([p[0], 0.3]), np.array([p[1], 0.3])), [(-1, 1), (-1, 1)], seed=0)
    assert found.value == pytest.approx(1.0, abs=1e-3)
    assert abs(found.dataset[0] - found.neighbour[0]) == pytest.approx(2.0, abs=2e-3)


def test_search_hypothesis_targets_the_exact_epsilon():
    # 100 targeted examples over records in [-1, 1]: measured best 0.72-0.98 for seeds 0-7 run alone, but
    # 0.49 for seed 0 inside the full suite (hypothesis' generation is not isolated from earlier tests, so
    # the exact value depends on test order). Robust facts: the best is the maximum of the values it
    # reports, at most the true supremum 1, and better than an average pair (|x - x'| / 2 = 1/3 on average).
    found = search_hypothesis(adjacent_pairs(st.floats(-1, 1), max_size=5), exact0, max_examples=100, seed=0)
    assert found.evaluations == 100 and found.value == max(found.values)
    assert 1 / 3 < found.value <= 1.0
    assert exact0(found.dataset, found.neighbour) == found.value


def test_search_audits_over_random_pairs_is_bonferroni_valid():
    # 8 random pairs x 2*10^4 samples, each audit at confidence 1 - 0.05/8. The best certified bound
    # is below 1 (validity) and belongs to one of the pairs with the largest exact epsilon.
    pairs = random_pairs(lambda rng, k: rng.uniform(-1, 1, k), 5, 8, seed=0)
    found = search_audits(MECH, pairs, epsilon=1.0, samples=20_000, seed=0)
    assert found.evaluations == 8 and found.result.confidence == pytest.approx(1 - 0.05 / 8)
    assert 0 < found.value <= max(exact0(d, n) for d, n in pairs) <= 1.0
    exacts = sorted(exact0(d, n) for d, n in pairs)
    assert exact0(found.dataset, found.neighbour) >= exacts[-3]


def test_search_hypothesis_with_audits():
    found = search_hypothesis(adjacent_pairs(st.floats(-1, 1), max_size=4), mechanism=MECH, epsilon=1.0,
                              samples=5000, max_examples=10, seed=0)
    assert found.evaluations == 10 and found.result.confidence == pytest.approx(1 - 0.05 / 10)
    assert 0 <= found.value <= exact0(found.dataset, found.neighbour)
    with pytest.raises(ValueError, match="score"):
        search_hypothesis(adjacent_pairs(st.floats(-1, 1)))

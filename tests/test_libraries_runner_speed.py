"""What makes the quick library catalogue fit its time budget (issue 25) without changing a result.

- the rng probe (dpverify.audit.split.check_rng_use) runs once per worst-pair search, not once per audit: it draws
  from its own seed child, so the bounds are identical;
- run_function limits the native thread pools to one thread (a model fit on 8 records spent most of its CPU handing
  tiny BLAS calls between OpenBLAS threads).
"""
import numpy as np
import pytest

from dpverify.audit.search import search_then_certify
from dpverify.libraries.base import Claimed, LibraryFunction
from dpverify.libraries.runner import BUDGETS, LIBRARY_THREADS, run_function
from dpverify.libraries.search import record_pairs


class _Counting:
    def __init__(self):
        self.sizes = []

    def __call__(self, dataset, n, rng):
        self.sizes.append(n)
        return np.asarray(dataset, dtype=float).sum() + rng.laplace(size=n)


def test_probe_once_per_search_changes_no_bound():
    pairs = record_pairs(0.0, 1.0, adjacency="replace", families=("bounds", "outlier", "many"))
    runs = {}
    for check in (True, "first"):
        mech = _Counting()
        found = search_then_certify(mech, pairs, epsilon=1.0, search_budget=600, final_samples=400, seed=3,
                                    adjacency="replace", check_rng=check)
        runs[check] = (found, mech.sizes)
    every, first = runs[True][0], runs["first"][0]
    assert every.index == first.index and every.final.epsilon_lower == first.final.epsilon_lower
    assert [s.get("epsilon_lower") for s in every.screening] == [s.get("epsilon_lower") for s in first.screening]
    probes = {k: sizes.count(32) for k, (_, sizes) in runs.items()}
    # 3 or 4 probe calls of 32 outputs per audit (3 screening audits + 1 final) vs one audit's worth
    assert probes[True] >= 3 * 4 and 3 <= probes["first"] <= 4
    with pytest.raises(ValueError, match="check_rng"):
        search_then_certify(_Counting(), pairs, epsilon=1.0, search_budget=600, final_samples=400,
                            check_rng="once")


def test_run_function_runs_with_one_native_thread():
    from threadpoolctl import threadpool_info

    seen = []

    def mechanism(dataset, n, rng):
        seen.append({i["internal_api"]: i["num_threads"] for i in threadpool_info()})
        return np.asarray(dataset, dtype=float).sum() + rng.laplace(size=n)

    fn = LibraryFunction("lib", "0", "sum", mechanism, lambda d: Claimed(1.0, 0.0, "arg"),
                         record_pairs(0.0, 1.0, adjacency="replace", families=("bounds",)), adjacency="replace")
    row = run_function(fn, BUDGETS["quick"], seed=0)
    assert row.verdict in ("consistent", "inconclusive") and seen
    assert LIBRARY_THREADS == 1 and all(pools for pools in seen)  # numpy's BLAS pool at least
    assert all(n == 1 for pools in seen for n in pools.values())

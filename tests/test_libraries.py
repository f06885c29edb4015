"""Library regression checks (dpverify.libraries): pair families, the budgeted search, the catalogues' claims, and
quick audits of diffprivlib and OpenDP through their public APIs.

Budgets here are the runner's smallest (a few hundred samples per side); each statistical assertion says which
sampling error it allows for. The full catalogue run is `dpverify audit-library all --budget full` (docs/libraries.md).
"""
import math
import pickle
import warnings

import numpy as np
import pytest

from dpverify.audit.datasets import check_adjacent
from dpverify.audit.search import search_then_certify
from dpverify.libraries.base import Claimed, LabelledPair, LibraryFunction
from dpverify.libraries.runner import Budget, failed, load, run_function, select
from dpverify.libraries.search import FAMILIES, array_code, record_pairs

TINY = Budget("tiny", search=600, final=600, min_search=200, min_final=200)


# -- pair families --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("adjacency", ["replace", "add_remove"])
def test_record_pairs_are_adjacent_and_labelled(adjacency):
    pairs = record_pairs(0.0, 1.0, adjacency=adjacency)
    for p in pairs:
        check_adjacent(p[0], p[1], adjacency)  # a non-adjacent family would raise here
        assert p.label.split(":")[0] in FAMILIES and p.note
    labels = {p.label.split(":")[0] for p in pairs}
    # "empty" exists only when the size may change
    assert ("empty" in labels) == (adjacency == "add_remove")
    assert {"bounds", "outlier", "many", "float_max", "size1", "duplicates"} <= labels
    many = next(p for p in pairs if p.label.startswith("many"))
    assert max(len(many[0]), len(many[1])) >= 1000


def test_record_pairs_rows_and_bad_input():
    pairs = record_pairs([0.0, 0.0], [1.0, 2.0], adjacency="replace", families=("bounds", "outlier"))
    assert all(np.asarray(p[0]).shape[1:] == (2,) for p in pairs)
    outlier = next(p for p in pairs if p.label.startswith("outlier"))
    assert np.asarray(outlier[1]).max() >= 1e6  # far outside the bounds
    with pytest.raises(ValueError, match="adjacency"):
        record_pairs(0.0, 1.0, adjacency="swap")
    with pytest.raises(ValueError, match="families"):
        record_pairs(0.0, 1.0, families=("nope",))
    with pytest.raises(ValueError, match="same shape"):
        record_pairs([0.0], [1.0, 2.0])


def test_array_code_rebuilds_arrays():
    for a in (np.array([0.0] * 999 + [1.0]), np.array([]), np.array([[0.5, 1.0], [0.5, 1.0], [1e300, 0.0]]),
              np.array([2.0 ** 53, 3.0, 0.0, 0.0])):
        code = array_code(a)
        assert np.array_equal(eval(code, {"np": np}), a.astype(float))
    assert len(array_code(np.zeros(1000))) < 40  # run-length encoded


def test_labelled_pair_is_a_tuple_and_pickles():
    p = LabelledPair(np.zeros(2), np.ones(2), "bounds:replace", "note")
    d, n = p
    assert len(p) == 2 and isinstance(p, tuple) and n[0] == 1.0
    q = pickle.loads(pickle.dumps(p))
    assert q.label == "bounds:replace" and q.note == "note"


def test_library_function_validates():
    mech = lambda d, n, rng: rng.normal(size=n)  # noqa: E731
    claim = lambda d: Claimed(1.0, 0.0, "test")  # noqa: E731
    with pytest.raises(ValueError, match="adjacency"):
        LibraryFunction("lib", "0", "f", mech, claim, [(np.zeros(1), np.ones(1))], adjacency="swap")
    with pytest.raises(ValueError, match="cost"):
        LibraryFunction("lib", "0", "f", mech, claim, [(np.zeros(1), np.ones(1))], cost=0.0)
    with pytest.raises(ValueError, match="pairs"):
        LibraryFunction("lib", "0", "f", mech, claim, [])


# -- the budgeted search ---------------------------------------------------------------------------------------------

def _leaky_sum(dataset, n, rng):
    """Laplace(1) on the sum, but a record above 10 leaks: its sum gets noise scale 0.1 (the kind of data-dependent
    noise scale of Cebere et al. 2026). Vectorised."""
    x = np.asarray(dataset, dtype=float)
    scale = 0.1 if (x > 10).any() else 1.0
    return np.clip(x, 0, 1).sum() + rng.laplace(scale=scale, size=n)


def _pairs():
    return [LabelledPair(np.zeros(4), np.array([0, 0, 0, 1.0]), "bounds", ""),
            LabelledPair(np.zeros(4), np.array([0, 0, 0, 0.5]), "half", ""),
            LabelledPair(np.zeros(4), np.array([0, 0, 0, 1e6]), "outlier", "")]


def test_search_then_certify_finds_the_leaking_pair_and_certifies_on_fresh_samples():
    res = search_then_certify(_leaky_sum, _pairs(), epsilon=1.0, search_budget=6_000, final_samples=4_000, seed=3)
    # the outlier pair has scales 1 vs 0.1: its epsilon is infinite (tails), so it ranks first and the final
    # audit with 3,200 estimation samples certifies far above 1 (the bounds pair is exactly 1)
    assert res.index == 2 and res.final.epsilon_lower > 2.0
    assert res.search_samples == 2_000 and res.final.samples == 4_000
    screen_seeds = set(np.random.SeedSequence([3, 0]).generate_state(3).tolist())
    assert res.final.seed not in screen_seeds  # the certificate uses samples the screening never saw
    assert res.final.confidence == pytest.approx(0.95)


def test_search_then_certify_top_k_pays_bonferroni_and_skips_failing_pairs():
    def picky(dataset, n, rng):
        if len(dataset) == 0:
            raise ValueError("empty dataset")
        return _leaky_sum(dataset, n, rng)

    pairs = [LabelledPair(np.zeros(0), np.zeros(1), "empty", "")] + _pairs()
    res = search_then_certify(picky, pairs, epsilon=1.0, search_budget=2_000, final_samples=1_000, top=2, seed=1)
    assert len(res.finals) == 2 and all(r.confidence == pytest.approx(1 - 0.05 / 2) for r in res.finals)
    skipped = [s for s in res.screening if "skipped" in s]
    assert len(skipped) == 1 and "empty dataset" in skipped[0]["skipped"]
    with pytest.raises(ValueError, match="every candidate pair"):
        search_then_certify(picky, pairs[:1], epsilon=1.0, search_budget=100, final_samples=100)


def test_runner_labels_findings_expected_and_unavailable():
    claim = lambda d: Claimed(1.0, 0.0, "test")  # noqa: E731
    leaky = LibraryFunction("lib", "1.0", "leaky", _leaky_sum, claim, _pairs(), adjacency="replace")
    row = run_function(leaky, TINY, seed=0)
    # 480 estimation samples: the outlier pair certifies > 2 (saturation ~5), and again with a new seed
    assert row.verdict == "violation" and row.label == "finding" and row.confirm_certified > 1.0
    assert row.worst_pair.family == "outlier" and "np.array" in row.worst_pair.neighbour
    documented = LibraryFunction("lib", "1.0", "documented", _leaky_sum, claim, _pairs(), adjacency="replace",
                                 expected="known leak")
    row2 = run_function(documented, TINY, seed=0)
    assert row2.label == "expected" and row2.known_bad and row2.passed

    def broken_claim(d):
        raise TypeError("incompatible dependency")

    row3 = run_function(LibraryFunction("lib", "1.0", "broken", _leaky_sum, broken_claim, _pairs()), TINY)
    assert row3.label == "unavailable" and "incompatible" in row3.error
    # pairs that are not adjacent under the declared relation are an error of the catalogue, not skipped pairs
    row4 = run_function(LibraryFunction("lib", "1.0", "misdeclared", _leaky_sum, claim, _pairs()), TINY)
    assert row4.label == "error" and "not adjacent" in row4.error
    assert failed([row]) and failed([row4]) and not failed([row2, row3])
    assert [f.name for f in select([leaky, documented], "leak*")] == ["leaky"]


def test_run_catalogue_in_forked_workers_gives_the_same_rows():
    from dpverify.libraries.runner import run_catalogue

    claim = lambda d: Claimed(1.0, 0.0, "test")  # noqa: E731
    fns = [LibraryFunction("lib", "1.0", f"leaky{i}", _leaky_sum, claim, _pairs()[:2], adjacency="replace")
           for i in range(2)]
    small = Budget("small", search=200, final=200, min_search=100, min_final=100)
    one = run_catalogue(fns, small, seed=3)
    two = run_catalogue(fns, small, seed=3, jobs=2)

    def strip(rows):  # timings differ, nothing else
        return [{k: ({**v, "wall_time": None} if isinstance(v, dict) and "wall_time" in v else v)
                 for k, v in r.to_dict().items() if k != "seconds"} for r in rows]

    assert [r.case for r in two] == ["lib.leaky0", "lib.leaky1"] and strip(one) == strip(two)
    with pytest.raises(ValueError, match="jobs"):
        run_catalogue(fns, small, jobs=0)


# -- diffprivlib ------------------------------------------------------------------------------------------------------

dpl = load("diffprivlib")


@pytest.fixture(scope="module")
def dpl_catalogue():
    return {f.name: f for f in dpl.catalogue()}


def test_diffprivlib_catalogue_claims_come_from_the_accountant(dpl_catalogue):
    assert len(dpl_catalogue) >= 20
    mean = dpl_catalogue["tools.mean(epsilon=1.0, bounds=(0.0, 1.0))"]
    c = mean.claim(mean.pairs[0][0])
    assert (c.epsilon, c.delta) == (1.0, 0.0) and "BudgetAccountant" in c.source
    nob = dpl_catalogue["tools.mean(epsilon=1.0)"]
    assert "PrivacyLeakWarning" in nob.claim(nob.pairs[0][0]).source and nob.expected
    # the claim is what the accountant recorded, not a number typed in the catalogue
    from diffprivlib import tools

    other = dpl._entry("mean@0.3", lambda X, rs, acc: tools.mean(X, epsilon=0.3, bounds=(0, 1), random_state=rs,
                                                                   accountant=acc), "", mean.pairs, "replace")
    assert other.claim(mean.pairs[0][0]).epsilon == 0.3


def test_diffprivlib_mechanism_is_seeded_from_rng_and_leaves_data_alone(dpl_catalogue):
    pca = next(f for n, f in dpl_catalogue.items() if n.startswith("models.PCA"))
    d = np.array(pca.pairs[0][0])
    before = d.copy()
    a = pca.mechanism(d, 3, np.random.default_rng(5))
    assert np.array_equal(a, pca.mechanism(d, 3, np.random.default_rng(5)))  # reproducible from the seed
    assert not np.array_equal(a, pca.mechanism(d, 3, np.random.default_rng(6)))
    assert np.array_equal(d, before)  # diffprivlib's PCA.fit centres its input in place; we pass copies


def test_diffprivlib_no_bounds_mean_is_certified_far_above_its_claim(dpl_catalogue):
    row = run_function(dpl_catalogue["tools.mean(epsilon=1.0)"], TINY, seed=0)
    # outlier pair: the release is 0.5 vs ~1e5, separated on every sample; with 480 estimation samples per side the
    # Clopper-Pearson bound is log(480 / 3.7) ~ 4.9 (the budget's saturation), so > 3x the claim of 1
    assert row.label == "expected" and row.certified > 3.0 and row.confirm_certified > 3.0
    assert "tools.mean(X, epsilon=1.0, random_state=s)" in row.snippet


def test_diffprivlib_bounded_sum_is_consistent_and_probes_floats(dpl_catalogue):
    fn = dpl_catalogue["tools.sum(epsilon=1.0, bounds=(0.0, 1.0))"]
    assert {p.label.split(":")[0] for p in fn.pairs} >= {"many", "float_max", "outlier"}
    row = run_function(fn, TINY, seed=0)
    # Laplace with the declared sensitivity: a violation at confidence 0.95 has probability <= 5%; seed 0 is fixed
    assert row.verdict != "violation" and row.certified <= 1.0
    probe = dpl.float_sum_probe(sizes=(128,))
    # numpy's pairwise sum rounds 2^53 + 3 up to 2^53 + 4: the realized difference exceeds the declared sensitivity
    # by 16 on 2^53 (ratio 1 + 1.8e-15), a real but negligible underestimate (Casacuberta et al. 2022)
    assert all(r["realized"] > r["declared"] and r["ratio"] < 1 + 1e-12 for r in probe)


# -- OpenDP ---------------------------------------------------------------------------------------------------------

odp = load("opendp")


def test_opendp_claims_come_from_the_privacy_maps():
    fns = {f.name: f for f in odp.catalogue()}
    assert len(fns) >= 12
    lap = fns["clamp+sum+laplace"].claim(None)
    # OpenDP adds the float rounding of the sum to the sensitivity: the claim is just above 1 / scale = 1
    assert 1.0 < lap.epsilon < 1.0 + 1e-6 and "m.map(1)" in lap.source
    g = fns["clamp+sum+gaussian->approxDP"].claim(None)
    rho = 1.0 / (2 * 4.0 ** 2) * (1 + 1e-6)  # sensitivity 1 (+ float slack), scale 4
    # the conversion is at least rho and at most the classical rho + 2 sqrt(rho log(1/delta)) (Bun & Steinke 2016)
    assert g.delta == odp.DELTA and rho < g.epsilon <= rho + 2 * math.sqrt(rho * math.log(1 / g.delta)) + 1e-9
    fixed = fns["clamp+sum+gaussian->fix_delta"].claim(None)
    assert fixed.epsilon == pytest.approx(g.epsilon, rel=1e-6)


def test_opendp_quick_audit_is_consistent_and_warns_deliberately():
    fn = next(f for f in odp.catalogue() if f.name == "count+laplace")
    assert not fn.reproducible
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the runner silences only the reproducibility warning, on purpose
        row = run_function(fn, TINY, seed=0)
    # discrete Laplace at its privacy map: exact pair epsilon 1 on every count pair; a violation has prob. <= 5%
    assert row.verdict in ("consistent", "inconclusive") and row.certified <= row.claimed.epsilon
    assert row.reproducible is False


def test_from_release_adapter_is_seeded_and_finds_a_leak():
    def release(d, seed):  # a "library" whose noise ignores the sensitivity of an unclipped outlier
        x = np.asarray(d, dtype=float)
        return x.sum() + np.random.default_rng(seed).laplace()

    fn = LibraryFunction.from_release("mylib", "0.1", "unclipped_sum", release, lambda d: Claimed(1.0, 0.0, "arg"),
                                      record_pairs(0.0, 1.0, adjacency="replace", families=("bounds", "outlier")),
                                      adjacency="replace")
    d = fn.pairs[0][0]
    assert np.array_equal(fn.mechanism(d, 4, np.random.default_rng(2)), fn.mechanism(d, 4, np.random.default_rng(2)))
    row = run_function(fn, TINY, seed=0)
    # the outlier (1e6) moves the sum by ~1e6 with Laplace(1) noise: separated on every sample, certified near the
    # saturation of 480 estimation samples (~4.9), in both the final audit and its confirmation
    assert row.label == "finding" and row.pair == "outlier:replace" and row.confirm_certified > 3.0


def test_library_audits_hand_the_claim_object_to_the_auditor():
    """Issue 22: no float-pair claim between the libraries and the auditor. The library's Claimed (with where it was
    read) reaches every audit of the search and of the confirmation, and the report says where the claim came from."""
    from dpverify.libraries.search import certify, confirm

    fn = LibraryFunction("lib", "0", "leaky_sum", _leaky_sum, lambda d: Claimed(1.0, 0.0, "the epsilon argument"),
                         _pairs(), adjacency="replace")
    found = certify(fn, search_budget=600, final_samples=400, seed=0)
    again = confirm(fn, found.dataset, found.neighbour, samples=400, seed=0)
    for result in (*found.finals, again):
        assert isinstance(result.claim, Claimed) and result.claim.source == "the epsilon argument"
        assert result.to_dict()["claim"]["source"] == "the epsilon argument"

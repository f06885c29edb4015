"""audit(): argument validation, determinism, result contents, test selection (dpverify.audit.core)."""
import json

import numpy as np
import pytest

from dpverify.audit import AuditResult, audit
from dpverify.audit.known_bad import RandomizedResponse, ReportNoisyMax, laplace_query

D0, D1 = np.array([0.0]), np.array([1.0])
LAPLACE = laplace_query(1.0)


def plain_laplace(dataset, n, rng):
    return np.asarray(dataset, dtype=float)[0] + rng.laplace(0.0, 1.0, n)


def wrong_length(dataset, n, rng):
    return rng.laplace(size=n + 1)


def nan_outputs(dataset, n, rng):
    out = rng.laplace(size=n)
    out[0] = np.nan
    return out


def shape_depends_on_data(dataset, n, rng):
    return rng.laplace(size=(n, 1 + int(np.asarray(dataset)[0])))


def string_outputs(dataset, n, rng):
    return np.array(["a"] * n)


BAD_INPUTS = [
    # (mechanism, keyword overrides, exception, text the message must contain)
    ("not callable", {}, TypeError, "mechanism must be callable"),
    (wrong_length, {}, ValueError, "n outputs stacked on axis 0"),
    (nan_outputs, {}, ValueError, "NaN"),
    (shape_depends_on_data, {}, ValueError, "inconsistent shapes"),
    (string_outputs, {}, ValueError, "numeric or boolean"),
    (plain_laplace, {"samples": 1}, ValueError, "samples"),
    (plain_laplace, {"samples": 2.5}, ValueError, "samples"),
    (plain_laplace, {"confidence": 1.0}, ValueError, "confidence"),
    (plain_laplace, {"confidence": 0.0}, ValueError, "confidence"),
    (plain_laplace, {"epsilon": 0.0}, ValueError, "epsilon"),
    (plain_laplace, {"epsilon": -1.0}, ValueError, "epsilon"),
    (plain_laplace, {"delta": 1.0}, ValueError, "delta"),
    (plain_laplace, {"delta": -0.1}, ValueError, "delta"),
    (plain_laplace, {"test": "magic"}, ValueError, "test must be"),
    (plain_laplace, {"test": "likelihood_ratio"}, ValueError, "log_density"),
    (plain_laplace, {"seed": -1}, ValueError, "seed"),
    (plain_laplace, {"exact_epsilon": -1.0}, ValueError, "exact_epsilon"),
    (plain_laplace, {"adjacency": "replace", "neighbour": D0}, ValueError, "not adjacent.*0"),
    (plain_laplace, {"adjacency": "add_remove"}, ValueError, "not adjacent.*sizes"),
]


@pytest.mark.parametrize("mechanism,overrides,exc,text", BAD_INPUTS)
def test_bad_input_table(mechanism, overrides, exc, text):
    kwargs = dict(epsilon=1.0, samples=200, seed=0, neighbour=D1)
    kwargs.update(overrides)
    with pytest.raises(exc, match=text):
        audit(mechanism, D0, **kwargs)


def test_same_seed_same_result_and_different_seed_different_samples():
    # 10^4 samples per side; the whole result (bound, counts, event) is a function of the seed.
    a = audit(plain_laplace, D0, D1, epsilon=1.0, samples=10_000, seed=7)
    b = audit(plain_laplace, D0, D1, epsilon=1.0, samples=10_000, seed=7)
    c = audit(plain_laplace, D0, D1, epsilon=1.0, samples=10_000, seed=8)
    assert (a.epsilon_lower, a.counts, a.event) == (b.epsilon_lower, b.counts, b.event)
    assert a.counts != c.counts


def test_chunking_changes_nothing_but_the_stream():
    # Chunks of 1000 vs one chunk: different streams (one seed per chunk), same estimator; both
    # certify a sensible bound and count exactly n_estimation outputs per side.
    small = audit(plain_laplace, D0, D1, epsilon=1.0, samples=10_000, seed=1, chunk_size=1000)
    assert small.counts["n_estimation"] == 8000 and small.counts["n_selection"] == 2000
    assert 0.5 < small.epsilon_lower <= 1.0


def test_result_fields_and_to_dict():
    r = audit(LAPLACE, D0, D1, epsilon=1.0, samples=5000, seed=3)
    assert isinstance(r, AuditResult)
    d = r.to_dict()
    for key in ("epsilon_lower", "epsilon_claimed", "delta", "epsilon_exact", "verdict", "samples",
                "confidence", "seed", "test", "event", "counts"):
        assert key in d
    json.dumps(d)  # plain data
    assert r.epsilon_exact == pytest.approx(1.0)  # from mechanism.exact_epsilon
    # auto selects among the Neyman-Pearson statistic (log_density exists) and the black-box ones (never the declared
    # statistic alone); on a Laplace pair the best event of each kind is the same set ({x >= t}: the log-ratio is
    # monotone in x), so it is counted once, at the whole confidence (select.SelectionEvidence.distinct)
    assert len(r.candidates) == 1 and r.test in ("likelihood_ratio", "identity")
    assert r.verdict == ("violation" if r.epsilon_lower > r.epsilon_claimed else
                         "consistent" if r.epsilon_lower > 0 else "inconclusive")
    assert r.verdict_reason and r.saturation > r.epsilon_lower
    with pytest.raises(Exception):
        r.epsilon_lower = 5.0  # frozen


def test_exact_epsilon_argument_wins_over_missing_attribute():
    r = audit(plain_laplace, D0, D1, epsilon=1.0, samples=2000, seed=0, exact_epsilon=1.0)
    assert r.epsilon_exact == 1.0 and r.test == "identity"


def test_verdict_is_violation_exactly_when_bound_exceeds_claim():
    # Laplace at exact epsilon 1 with 10^5 samples certifies ~0.98 (see tightness tests): claiming
    # 0.5 is a violation, claiming 1 is not.
    low = audit(LAPLACE, D0, D1, epsilon=0.5, samples=100_000, seed=0)
    ok = audit(LAPLACE, D0, D1, epsilon=1.0, samples=100_000, seed=0)
    assert low.epsilon_lower == ok.epsilon_lower  # the claim does not enter the bound
    assert low.verdict == "violation" and low.is_violation
    assert ok.verdict == "consistent"


def test_discrete_outputs_use_the_event_search_or_equivalent():
    # Noisy-max indices over answers (0, 0, 3) vs (1, 1, 2): histogram test on the index.
    r = audit(ReportNoisyMax(1.0), np.array([0, 0, 3.0]), np.array([1, 1, 2.0]), epsilon=1.0,
              samples=20_000, seed=0, test="events")
    assert r.test == "events" and 0.0 < r.epsilon_lower <= 1.0


def test_callable_statistic_and_classifier_tests_run():
    rr = RandomizedResponse(1.0)
    r = audit(rr, np.array([0]), np.array([1]), epsilon=1.0, samples=5000, seed=0, test=lambda x: x)
    assert r.test.startswith("custom") and r.epsilon_lower <= 1.0
    for test in ("classifier", "boosting"):
        r = audit(plain_laplace, D0, D1, epsilon=1.0, samples=5000, seed=0, test=test)
        assert r.test.startswith("classifier") and 0.0 <= r.epsilon_lower <= 1.0


def test_vector_and_path_outputs_use_projection():
    def path(dataset, n, rng):  # a random walk of 5 steps with drift dataset[0]
        return np.cumsum(np.asarray(dataset)[0] / 5 + rng.laplace(0, 1, (n, 5, 1)), axis=1)

    r = audit(path, D0, D1, epsilon=5.0, samples=5000, seed=0, test="threshold")
    assert r.test == "projection" and r.epsilon_lower > 0


def test_several_candidates_are_bonferroni_corrected():
    # candidates=3: three events counted on the estimation half; each bound is recomputed from its
    # counts at alpha/3 (two one-sided bounds at alpha/6), and the result is their maximum.
    from dpverify.audit.bounds import epsilon_lower_bound

    r = audit(LAPLACE, D0, D1, epsilon=1.0, samples=20_000, seed=5, candidates=3)
    assert len(r.candidates) == 3
    n = r.counts["n_estimation"]
    for c in r.candidates:
        k_d, k_n = c["dataset_in_event"], c["neighbour_in_event"]
        d_high = "M(dataset)" in c["event"]
        expect = epsilon_lower_bound(k_d, n, k_n, n, alpha=0.05, orientation=(False, d_high), candidates=3)
        assert c["epsilon_lower"] == pytest.approx(float(expect))
    assert r.epsilon_lower == max(c["epsilon_lower"] for c in r.candidates)
    # Same seed, one candidate: the same top event (beside the best event of the other kind, declared or black-box),
    # certified at alpha/2 instead of alpha/3.
    single = audit(LAPLACE, D0, D1, epsilon=1.0, samples=20_000, seed=5)
    assert len(single.candidates) == 2
    assert single.candidates[0]["event"] == r.candidates[0]["event"]
    assert single.candidates[0]["dataset_in_event"] == r.candidates[0]["dataset_in_event"]
    assert single.candidates[0]["epsilon_lower"] > r.candidates[0]["epsilon_lower"]
    with pytest.raises(ValueError, match="candidates"):
        audit(LAPLACE, D0, D1, epsilon=1.0, samples=200, candidates=0)

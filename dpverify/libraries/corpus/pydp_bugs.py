"""Reported bugs of PyDP (python-dp) and PipelineDP (pipeline-dp), each a corpus case
(:mod:`dpverify.libraries.corpus`)."""
from __future__ import annotations

import sys
from typing import Any

import numpy as np

from dpverify.libraries.corpus.model import CorpusCase, installed_version
from dpverify.libraries.replay import Primitive, record_and_replay

# -- pipeline_dp#551: VECTOR_SUM clips the partition's total, not each privacy unit's contribution ------------------

#: The per-privacy-unit bound of the VECTOR_SUM aggregation (``vector_max_norm``, Linf, vector size 1).
_VECTOR_MAX_NORM = 1.0
#: Privacy units in partition 0 of D: enough that private partition selection keeps it with probability 1 (PyDP's
#: truncated geometric strategy keeps 60 units or more with probability 1.0 already at epsilon 1/2 and delta 5e-7,
#: measured with ``probability_of_keep``; the engine gives it at least that). Public partitions are not used: 0.2.1
#: fails on them for VECTOR_SUM (it merges an empty, None, accumulator).
_UNITS = 200


def _vector_sum(rows: np.ndarray) -> list:
    """``DPEngine.aggregate`` (local backend) of VECTOR_SUM over ``rows`` (privacy id, partition, value; vectors of
    size 1), Laplace noise, epsilon 1, delta 1e-6, ``vector_max_norm=1`` in Linf, private partition selection (the
    default truncated geometric) and one contribution per privacy unit: each unit's vector should be clipped to
    [-1, 1] before the sum."""
    import pipeline_dp
    from pipeline_dp.aggregate_params import NormKind

    accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=1.0, total_delta=1e-6)
    engine = pipeline_dp.DPEngine(accountant, pipeline_dp.LocalBackend())
    params = pipeline_dp.AggregateParams(noise_kind=pipeline_dp.NoiseKind.LAPLACE,
                                         metrics=[pipeline_dp.Metrics.VECTOR_SUM], max_partitions_contributed=1,
                                         max_contributions_per_partition=1, vector_size=1,
                                         vector_max_norm=_VECTOR_MAX_NORM, vector_norm_kind=NormKind.Linf)
    extractors = pipeline_dp.DataExtractors(privacy_id_extractor=lambda r: int(r[0]),
                                            partition_extractor=lambda r: int(r[1]),
                                            value_extractor=lambda r: np.array([float(r[2])]))
    result = engine.aggregate([tuple(r) for r in np.asarray(rows)], params, extractors)
    accountant.compute_budgets()
    return list(result)


def _pipeline_dp_551() -> dict:
    """pipeline_dp#551 (PR #556): ``VectorSumCombiner`` summed the privacy units' vectors unclipped and clipped only
    the partition's *total* to ``vector_max_norm`` (``add_noise_vector`` calls ``_clip_vector`` on the aggregated
    vector, dp_computations.py:219 in 0.2.1, :192 in 0.2.0, where VECTOR_SUM came in), while the noise is calibrated
    to one unit's clipped contribution (``vector_max_norm`` C). Clipping the total bounds the total, not each unit's
    share: adding one unit can move the clipped total from -C to +C, twice the declared sensitivity (epsilon doubled).
    0.3.0 clips each unit's sum in ``create_accumulator`` (combiners.py), so a unit moves the total by at most C.

    Neighbours (add/remove one privacy unit): D = 200 units contributing [-5] each to partition 0; D' = D plus a unit
    contributing [+2000]. VECTOR_SUM with ``vector_max_norm=1`` (Linf), vector size 1, one contribution per unit,
    Laplace, epsilon 1, delta 1e-6 (private partition selection keeps the partition surely). The check records
    ``dp_computations.add_noise_vector`` on D and replays it on D' (:func:`dpverify.libraries.replay.record_and_replay`,
    a :class:`~dpverify.libraries.replay.Primitive` whose declared Linf sensitivity is the per-unit bound
    ``noise_params.max_norm`` = 1): reproduced when replay flags ``sensitivity``. In 0.2.1 the vector handed to it is
    the unclipped total, -1000 on D and +1000 on D' (which it clips to -1 and +1: still 2 apart, twice the bound); in
    0.3.0+ it is the sum of clipped contributions, -200 and -199 (1 apart)."""
    d = np.c_[np.arange(_UNITS), np.zeros(_UNITS), np.full(_UNITS, -5.0)]
    d_prime = np.r_[d, [[_UNITS, 0.0, 10.0 * _UNITS]]]
    primitive = Primitive("pipeline_dp.dp_computations", "add_noise_vector", value_arg="vec",
                          sensitivity_arg=lambda a: a["noise_params"].max_norm, metric="linf")
    r = record_and_replay(_vector_sum, d, d_prime, primitives=[primitive], seed=0)
    flags = [f for f in r.flags if f.kind == "sensitivity"]
    values = [[float(v) for v in np.ravel(c.value)] for c in (*r.recording.calls[:1], *r.calls[:1])]
    moved = abs(values[0][0] - values[1][0]) if len(values) == 2 else None
    return {"status": "reproduced" if flags else "fixed", "version": installed_version("pipeline-dp"),
            "flags": sorted({f.kind for f in r.flags}), "values": values, "moved": moved,
            "declared": _VECTOR_MAX_NORM,
            "detail": (f"adding a unit of [+2000] to {_UNITS} of [-5] moves the vector handed to add_noise_vector from "
                       f"{values[0]} to {values[1]} (by {moved:g}), above the per-unit bound {_VECTOR_MAX_NORM:g} "
                       f"the noise is calibrated to (flagged at {flags[0].site})") if flags else
                      (f"adding a unit of [+2000] to {_UNITS} of [-5]: the vector handed to add_noise_vector moves "
                       f"from {values[0]} to {values[1]} (by {moved}), within the per-unit bound {_VECTOR_MAX_NORM:g}")}



# -- google/differential-privacy PR #87 (via PyDP): implicit ApproxBounds ignore the contribution bounds ------------

#: Contributions per privacy unit (``max_contributions_per_partition``) in the re-implemented BoundedSum.
_CONTRIBUTIONS = 3
#: ApproxBounds' histogram: one bin per most significant bit of a non-negative integer entry (0 for 0).
_APPROX_BINS = 64


def _laplace_bins(bins: np.ndarray, epsilon: float, l1_sensitivity: float, rng: np.random.Generator) -> np.ndarray:
    """Laplace noise of scale ``l1_sensitivity / epsilon`` on every bin (the noise primitive replay watches)."""
    return bins + rng.laplace(scale=l1_sensitivity / epsilon, size=bins.shape)


def _approx_bounds_bins(units: np.ndarray, rng: np.random.Generator, *, implicit_bounds_fixed: bool) -> np.ndarray:
    """The noisy ApproxBounds histogram of a ``BoundedSum`` built with ``max_partitions_contributed=1``,
    ``max_contributions_per_partition=3``, epsilon 1 and no bounds (so the builder makes ApproxBounds itself, at
    epsilon / 2), re-implemented from google/differential-privacy at ae9c6b6^: each entry adds 1 to the bin of its
    most significant bit (approx-bounds.h:420-436, ``AddMultipleEntries``) and every bin gets Laplace noise from a
    mechanism of L0 sensitivity ``max_partitions_contributed_`` and LInf ``max_contributions_per_partition_``
    (approx-bounds.h:775-776), which default to 1 (approx-bounds.h:805-806). ``BuildSumWithApproxBounds``
    (bounded-sum.h:501-506) did not pass the sum's contribution bounds on, so the histogram was noised for one entry
    per unit (``implicit_bounds_fixed=False``); ae9c6b6 passes them (``True``: L1 sensitivity 1 * 3).

    ``units``: one row per privacy unit, its (at most 3) integer entries, NaN where it has fewer."""
    bins = np.zeros(_APPROX_BINS)
    for entry in np.asarray(units, dtype=float).ravel():
        if not np.isnan(entry):
            bins[int(entry).bit_length()] += 1
    l0, linf = 1, (_CONTRIBUTIONS if implicit_bounds_fixed else 1)
    return _laplace_bins(bins, 0.5, float(l0 * linf), rng)


def _replay_approx_bounds(implicit_bounds_fixed: bool) -> Any:
    """Record :func:`_approx_bounds_bins` on D, replay it on D' (:func:`dpverify.libraries.replay.record_and_replay`,
    the Laplace primitive's declared L1 sensitivity as the re-implemented builder sets it)."""
    d = np.full((10, _CONTRIBUTIONS), np.nan)
    d[:, 0] = 4.0  # ten units with one entry 4 each
    d_prime = np.r_[d, [[100.0] * _CONTRIBUTIONS]]  # plus a unit with three entries 100 (bin 7)
    primitive = Primitive(sys.modules[__name__], "_laplace_bins", value_arg="bins", sensitivity_arg="l1_sensitivity",
                          epsilon_arg="epsilon", metric="l1", mechanism="ApproxBounds Laplace")

    def release(units: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return _approx_bounds_bins(units, rng, implicit_bounds_fixed=implicit_bounds_fixed)

    return record_and_replay(release, d, d_prime, primitives=[primitive], seed=0)


def _google_dp_pr87() -> dict:
    """google/differential-privacy PR #87 (backport of ae9c6b6, "C++: Fix multiple contributions for implicit
    ApproxBounds", a critical fix): a ``BoundedSum`` (also mean, variance, standard deviation) built without bounds
    makes its own ApproxBounds at epsilon / 2, but the builder did not hand it ``max_contributions_per_partition``
    and ``max_partitions_contributed``: the bounds histogram was noised for one entry per privacy unit while a unit may
    add up to L0 * LInf entries, so the bounds (and through them the sum) were (L0 * LInf) * epsilon / 2-DP, not
    epsilon / 2. PyDP exposes it (``BoundedSum(epsilon, l0_sensitivity=..., linf_sensitivity=...)`` without bounds)
    through the Google C++ library it wraps: PyDP 1.1.1 (Google DP e224a86) has it, 1.1.2 (d93052f) has the fix; no
    PyDP before 1.1.4 has a Python 3.11 wheel, so the computation is re-implemented (:func:`_approx_bounds_bins`).

    Neighbours (add/remove one privacy unit, three contributions per unit): D = ten units with one entry 4 each; D' =
    D plus a unit with three entries 100. The check replays the histogram's Laplace call on D' with D's draws
    (:func:`dpverify.libraries.replay.record_and_replay`): the histogram moves by 3 in L1 (bin 7: 0 -> 3). "ok" when
    replay flags ``sensitivity`` for the reported builder (declared 1) and nothing for the fixed one (declared 3)."""
    reported, fixed = _replay_approx_bounds(False), _replay_approx_bounds(True)
    flagged = [f for f in reported.flags if f.kind == "sensitivity"]
    ok = bool(flagged) and not fixed.flags
    reported_kinds, fixed_kinds = sorted({f.kind for f in reported.flags}), sorted({f.kind for f in fixed.flags})
    return {"status": "ok" if ok else "failed", "reported_flags": reported_kinds, "fixed_flags": fixed_kinds,
            "moved": float(_CONTRIBUTIONS), "declared": [1.0, float(_CONTRIBUTIONS)],
            "detail": (f"one unit's {_CONTRIBUTIONS} entries move the ApproxBounds histogram by {_CONTRIBUTIONS} "
                       f"(L1): the reported builder declares sensitivity 1 (flags: "
                       f"{', '.join(reported_kinds) or '-'}), the fixed one {_CONTRIBUTIONS} (flags: "
                       f"{', '.join(fixed_kinds) or '-'})")}

_PIPELINE_DP = "https://github.com/OpenMined/PipelineDP"
_GOOGLE_DP = "https://github.com/google/differential-privacy"

CASES: tuple[CorpusCase, ...] = (
    CorpusCase("pipeline_dp#551", "pipeline_dp",
               "VECTOR_SUM clips the partition's total, not each privacy unit's contribution",
               (f"{_PIPELINE_DP}/issues/551", f"{_PIPELINE_DP}/pull/556"),
               "fixed by PR #556 (merged 2025-06-02), released in 0.3.0", "library", _pipeline_dp_551,
               affected=">=0.2.0,<0.3.0", fixed_in="0.3.0", method="replay",
               datasets="200 privacy units contributing [-5] vs the same plus a unit contributing [+2000] "
                        "(add/remove), VECTOR_SUM with vector_max_norm=1 (Linf) in one partition",
               releases=("0.2.1", "0.3.0"), distribution="pipeline-dp"),
    CorpusCase("pydp-google-pr87", "python-dp",
               "BoundedSum without bounds: the implicit ApproxBounds ignore the contribution bounds (Google C++ DP)",
               (f"{_GOOGLE_DP}/pull/87", f"{_GOOGLE_DP}/commit/ae9c6b6d5b7e772837ae336d1b3092683481ec16"),
               "fixed by ae9c6b6 (backported as PR #87, merged); in PyDP from 1.1.2 (its Google DP pointer moved from "
               "e224a86 to d93052f); PyDP <= 1.1.1 has no Python 3.11 wheel: re-implemented from the C++ source",
               "re-implementation", _google_dp_pr87, method="replay",
               datasets="ten privacy units with one entry 4 each vs the same plus a unit with three entries 100 "
                        "(add/remove one unit; max_contributions_per_partition=3)"),
)

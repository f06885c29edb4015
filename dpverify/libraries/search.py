"""Candidate adjacent pairs for library functions, and the budgeted worst-pair search over them.

The published bugs of DP libraries sit in the glue around the noise primitives, and each shows up only on
particular pairs (Casacuberta et al. 2022, "Widespread underestimation of sensitivity in differentially private
libraries and how to fix it", CCS 2022: float sums of many records near the bounds; Cebere et al. 2026,
"Privacy in theory, bugs in practice": sensitivity from unclipped data, data-dependent control flow, noise scales
depending on the data). :func:`record_pairs` builds one small family of pairs per such trigger, under either
adjacency:

- ``bounds``: every record at one bound, one record moved to (or added at) the other bound (both directions; the
  second is labelled ``...:down``) -- the worst case of a clipped sum, mean or count;
- ``outlier``: a record far outside the bounds (``outlier_scale`` times the upper bound): clipping must make it
  harmless; without clipping (bounds computed from the data) it dominates the release;
- ``duplicates``: copies of one value, one changed (replace) or one more copy (add/remove);
- ``size1`` / ``empty``: the smallest datasets (noise scales computed from ``n`` misbehave there);
- ``many``: ``many`` records at the upper bound, one moved to the lower bound or one more added (float summation
  error grows with ``n`` and the magnitude; Casacuberta et al. 2022, Sec. 3);
- ``float_max``: a record near the largest float64, 1e300 (overflow in a sum or a variance).

:func:`certify` runs :func:`dpverify.audit.search.search_then_certify` on a
:class:`~dpverify.libraries.base.LibraryFunction` with a fixed total screening budget, then re-audits the best
pair on fresh samples; :func:`confirm` audits it once more with a new seed (a violation is reported as a finding
only when both audits certify above the claim).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from dpverify.validation import check_positive_int
from dpverify.audit.core import AuditResult, run_audit
from dpverify.audit.options import AuditQuestion, Execution
from dpverify.audit.search import CertifiedSearch, search_then_certify
from dpverify.libraries.base import LabelledPair, LibraryFunction
from dpverify.vocabulary import NeighbouringRelation

__all__ = ["FAMILIES", "record_pairs", "certify", "confirm", "function_question", "array_code"]

#: Pair families (module docstring), in the order :func:`record_pairs` builds them.
FAMILIES = ("bounds", "outlier", "duplicates", "size1", "empty", "many", "float_max")


def _stack(records: Sequence[Any], like: np.ndarray) -> np.ndarray:
    if len(records) == 0:
        return np.empty((0,) + like.shape, dtype=float)
    return np.asarray(np.stack([np.asarray(r, dtype=float) for r in records]), dtype=float)


def record_pairs(low: Any, high: Any, *, adjacency: str = NeighbouringRelation.REPLACE_ONE, size: int = 8, many: int = 1000,
                 outlier_scale: float = 1e6, families: Sequence[str] = FAMILIES,
                 mid: Any = None) -> list[LabelledPair]:
    """Candidate pairs of datasets (records on axis 0) between the records ``low`` and ``high`` (scalars or
    equal-shape arrays: the declared bounds, or two typical records when there are none).

    ``adjacency``: a :class:`~dpverify.vocabulary.NeighbouringRelation`, "replace_one" (one record changed, the size
    is public; "replace" is read the same) or "add_remove" (one record added);
    ``size``: records in the small datasets; ``many``: records in the ``many`` family; ``outlier_scale``: the
    outlier is ``high`` times it (plus 1, so a bound of 0 still gives an outlier); ``families``: which of
    :data:`FAMILIES` to build; ``mid``: the typical record (default (low + high) / 2).
    Families that do not exist under an adjacency (``empty`` under "replace_one") are left out. The labels end in ``:replace`` or ``:add``.
    """
    replace = NeighbouringRelation.parse(adjacency, "adjacency") is NeighbouringRelation.REPLACE_ONE
    size = check_positive_int(size, "size", minimum=2)
    many = check_positive_int(many, "many", minimum=2)
    unknown = set(families) - set(FAMILIES)
    if unknown:
        raise ValueError(f"families must be among {FAMILIES}; got {sorted(unknown)}")
    lo, hi = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    if lo.shape != hi.shape:
        raise ValueError(f"low and high must have the same shape; got {lo.shape} and {hi.shape}")
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise ValueError("low and high must be finite")
    md = (lo + hi) / 2 if mid is None else np.asarray(mid, dtype=float)
    outlier = hi * outlier_scale + np.sign(hi) + (hi == 0)
    huge = np.full_like(hi, 1e300)

    def pair(base: list, new: Any, label: str, note: str) -> LabelledPair:
        d = _stack(base, lo)
        if replace:
            n = d.copy()
            n[-1] = np.asarray(new, dtype=float)
            return LabelledPair(d, n, f"{label}:replace", note)
        return LabelledPair(d, _stack(list(base) + [new], lo), f"{label}:add", note)

    out: list[LabelledPair] = []
    for fam in families:
        if fam == "bounds":
            out.append(pair([lo] * size, hi, fam, f"{size} records at the lower bound, one at the upper"))
            down = pair([hi] * size, lo, fam, f"{size} records at the upper bound, one at the lower")
            out.append(LabelledPair(down[0], down[1], down.label + ":down", down.note))
        elif fam == "outlier":
            out.append(pair([md] * size, outlier, fam, f"{size} typical records and an outlier {outlier_scale:g}x "
                                                       "the upper bound"))
        elif fam == "duplicates":
            if replace:
                out.append(pair([md] * size, lo, fam, f"{size} copies of one value, one changed to the lower bound"))
            else:
                out.append(pair([md] * size, md, fam, f"{size} copies of one value, and one more copy"))
        elif fam == "size1":
            out.append(pair([lo], hi, fam, "one record"))
        elif fam == "empty" and not replace:
            out.append(pair([], hi, fam, "the empty dataset and one record"))
        elif fam == "many":
            if replace:
                out.append(pair([hi] * many, lo, fam, f"{many} records at the upper bound, one moved to the lower"))
            else:
                out.append(pair([hi] * many, hi, fam, f"{many} records at the upper bound, and one more"))
        elif fam == "float_max":
            out.append(pair([md] * size, huge, fam, "a record of 1e300, near the largest float64"))
    return out


def certify(fn: LibraryFunction, *, search_budget: int, final_samples: int, confidence: float = 0.95,
            seed: int = 0, top: int = 1, pairs: Sequence[tuple] | None = None,
            sequential: bool = False) -> CertifiedSearch:
    """Worst-pair search for one library function: screen ``fn.pairs`` (or ``pairs``) with ``search_budget``
    samples per side in total, re-audit the best ``top`` on fresh samples at the claim read from the library on
    that pair (:func:`dpverify.audit.search.search_then_certify`; the claim is read once on the first pair for
    the screening, which only ranks). The rng probe runs in the first audit only (``check_rng="first"``: the same
    mechanism on every pair; skipping it changes no sample).

    Every audit is checked against ``fn.adjacency`` (a catalogue whose pairs are not adjacent is a ValueError).
    ``sequential``: the final audit stops when its verdict is decided (:mod:`dpverify.audit.sequential`)."""
    pairs = list(fn.pairs if pairs is None else pairs)
    question = function_question(fn, fn.claim(pairs[0][0]), samples=final_samples, confidence=confidence, seed=seed,
                                 sequential=sequential)
    return search_then_certify(fn.mechanism, pairs, question, search_budget=search_budget, top=top,
                               check_rng="first")


def confirm(fn: LibraryFunction, dataset: Any, neighbour: Any, *, samples: int, seed: int,
            confidence: float = 0.95, probe: bool = True, sequential: bool = False) -> AuditResult:
    """One more audit of the chosen pair, on fresh samples (seed ``SeedSequence([seed, 2])``): a violation counts
    as a finding only if it reproduces here (for a library seeded from ``rng`` the samples are new because the seed
    is; for OpenDP, which draws from the operating system, they are new anyway). ``probe``: run the rng probe
    (the runner turns it off: :func:`certify` probed the same mechanism in its first audit)."""
    s = int(np.random.SeedSequence([seed, 2]).generate_state(1)[0])
    question = function_question(fn, fn.claim(dataset), samples=samples, confidence=confidence, seed=s,
                                 sequential=sequential)
    return run_audit(fn.mechanism, dataset, neighbour, question, Execution(check_rng=probe))


def function_question(fn: LibraryFunction, claim: Any, *, samples: int, confidence: float, seed: int,
                      sequential: bool) -> AuditQuestion:
    """The question every audit of ``fn`` asks: its ``claim`` (read from the library), its test and its declared
    neighbouring relation, at ``samples`` per side, ``confidence`` and ``seed``."""
    return AuditQuestion(claim=claim, samples=samples, confidence=confidence, seed=seed, test=fn.test,
                         adjacency=fn.adjacency, sequential=sequential)


def array_code(a: Any) -> str:
    """Python source that rebuilds the array ``a`` (run-length encoded along axis 0, so 1000 equal records stay
    one short line): e.g. ``np.array([0.0] * 999 + [1.0])``."""
    arr = np.asarray(a, dtype=float)
    if arr.shape[0] == 0:
        return "np.array([])" if arr.ndim == 1 else f"np.empty((0, {', '.join(map(str, arr.shape[1:]))}))"
    rows = [r.tolist() if arr.ndim > 1 else float(r) for r in arr]
    runs: list[tuple[Any, int]] = []
    for r in rows:
        if runs and runs[-1][0] == r:
            runs[-1] = (r, runs[-1][1] + 1)
        else:
            runs.append((r, 1))
    parts = [f"[{r!r}] * {k}" if k > 1 else f"[{r!r}]" for r, k in runs]
    return f"np.array({' + '.join(parts)})"

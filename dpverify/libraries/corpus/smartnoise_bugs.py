"""Reported bugs of SmartNoise (opendp/smartnoise-sdk: smartnoise-sql, smartnoise-synth), each a corpus case
(:mod:`dpverify.libraries.corpus`).

The cases:

1. ``smartnoise#621`` (smartnoise-sql, fixed by PR #624 in 1.0.7): ``Odometer`` (Kairouz, Oh and Viswanath 2015,
   Thm 3.4) drops the logarithm of its third bound, ``sqrt(2 k / tol)`` for ``sqrt(2 k log(1/tol))``: the reported
   epsilon of k-fold composition is above the theorem it implements.
2. ``smartnoise#622`` (smartnoise-synth, fixed by PR #624 in 1.0.6): ``DPcovariance.release`` clips the data, then
   computes the covariance of the *unclipped* data and adds Laplace noise for the clipped data's sensitivity.
3. ``smartnoise#574`` (smartnoise-sql, fixed by PR #580 in 1.0.2): ``approx_bounds`` raises on a value outside its
   64 + 64 power-of-two bins (inf, NaN): one record decides whether the release happens at all.
   ``smartnoise-pr580``: the same for a finite record beyond the outer edges (-1e19 < -2^63), the PR's other defect.
4. ``smartnoise#596`` (smartnoise-synth, open): PATE-GAN's moments accountant compares the log-moment bound
   ``2 lambda^2 l (l + 1)`` with the moment itself, not its logarithm (Jordon et al. 2019, Algorithm 1): the
   accumulated log-moments and the epsilon computed from them are too large (a conservative accounting error).

Each check imports the library inside the function. The smartnoise-synth checks load the one module they test from
the installed package's directory (``models/dp_covariance.py``, ``pytorch/nn/privacy_utils.py``) without running
``snsynth/__init__.py``, which imports smartnoise-sql, OpenDP, Faker and (in 1.0.5) a scikit-learn module removed
in 0.24: the code under test is the release's own file, byte for byte.
"""
from __future__ import annotations

import importlib.util
import math
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from dpverify.calculus.composition import optimal_homogeneous_composition
from dpverify.libraries.corpus.model import CorpusCase, installed_version
from dpverify.libraries.replay import Primitive, record_and_replay

_SQL = "smartnoise-sql"
_SYNTH = "smartnoise-synth"
#: smartnoise-sql up to 1.0.3 imports ``numpy.lib.arraysetops`` (``snsql/xpath/ast.py:4``), removed in numpy 2: the
#: releases' environments pin numpy 1 (every release from 1.0.1 to 1.0.10 runs with it; 1.0.0 needs PyYAML < 6, which
#: has no wheel for Python 3.11).
_OLD_SQL = ("numpy<2",)


def _synth_module(relative: str, name: str) -> ModuleType:
    """The installed smartnoise-synth's file ``snsynth/<relative>`` loaded as a module of its own (module docstring:
    the package's ``__init__`` is not run). An ``ImportError`` when smartnoise-synth is not installed."""
    spec = importlib.util.find_spec("snsynth")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("smartnoise-synth (snsynth) is not installed")
    path = Path(list(spec.submodule_search_locations)[0]) / relative
    if not path.is_file():
        raise ImportError(f"snsynth has no {relative} (looked in {path.parent})")
    module_spec = importlib.util.spec_from_file_location(f"_dpverify_snsynth_{name}", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


# -- smartnoise#621: the Odometer's third Kairouz bound without its logarithm ---------------------------------------

def kairouz_theorem_3_4(epsilon: float, k: int, tol: float) -> float:
    """The epsilon of Kairouz, Oh and Viswanath (2015), Theorem 3.4, for k-fold composition of epsilon-DP
    mechanisms with slack ``tol`` (delta-tilde)::

        min{ k eps,
             k eps (e^eps - 1) / (e^eps + 1) + eps sqrt(2 k log(e + sqrt(k eps^2) / tol)),
             k eps (e^eps - 1) / (e^eps + 1) + eps sqrt(2 k log(1 / tol)) }

    (arXiv:1311.0776, Thm 3.4; the bound SmartNoise's ``Odometer`` docstring cites)."""
    left = k * epsilon * math.expm1(epsilon) / (math.exp(epsilon) + 1.0)
    a = left + epsilon * math.sqrt(2.0 * k * math.log(math.e + math.sqrt(k * epsilon * epsilon) / tol))
    b = left + epsilon * math.sqrt(2.0 * k * math.log(1.0 / tol))
    return min(k * epsilon, a, b)


def _smartnoise_621(epsilon: float = 0.1, delta: float = 1e-5, k: int = 400) -> dict:
    """smartnoise#621: ``snsql.sql.odometer.Odometer.spent`` computes Kairouz, Oh and Viswanath's (2015, Thm 3.4)
    third bound as ``optimal_left_side + epsilon * np.sqrt(2 * self.k * (1/tol))``: the logarithm of ``1/tol`` is
    missing (smartnoise-sql 1.0.6, ``snsql/sql/odometer.py:32``; PR #624 adds it, released in 1.0.7). With
    ``tol = delta / 2 = 5e-6`` the term is ``sqrt(2k * 2e5)`` instead of ``sqrt(2k * 12.2)``, so the bound that is
    the smallest whenever ``sqrt(k) eps > 1`` never wins, and the odometer reports the second bound (or ``k eps``).

    It over-reports (the guarantee stays valid, the budget is wasted); the issue calls it an accounting bug.

    Datasets: none (an accountant); the composition is k = 400 queries of (eps, delta) = (0.1, 1e-5).

    Check (exact): the odometer's epsilon after ``spend(k)`` against Theorem 3.4 at the odometer's own ``tol``
    (:func:`kairouz_theorem_3_4`): "reproduced" when it is larger by more than 1e-9 relative (a correct
    implementation of the theorem can only be at or below it; the library's second bound reads ``log(eps + ...)``
    where the paper has ``log(e + ...)``, which for eps < e makes it smaller, never larger). dpverify's exact optimal
    composition (:func:`dpverify.calculus.composition.optimal_homogeneous_composition`, KOV Thm 3.3) at the same
    total delta is reported alongside: the optimum both bounds sit above."""
    from snsql.sql.odometer import Odometer
    from snsql.sql.privacy import Privacy


    odometer = Odometer(Privacy(epsilon=epsilon, delta=delta))
    odometer.spend(k)
    reported, reported_delta = (float(x) for x in odometer.spent)
    theorem = kairouz_theorem_3_4(epsilon, k, float(odometer.tol))
    delta_total = -math.expm1(k * math.log1p(-delta) + math.log1p(-float(odometer.tol)))
    exact = optimal_homogeneous_composition(epsilon, delta, k, delta_total).epsilon
    over = reported > theorem * (1 + 1e-9)
    return {"status": "reproduced" if over else "fixed", "version": installed_version(_SQL),
            "reported": reported, "reported_delta": reported_delta, "theorem_3_4": theorem, "exact": exact,
            "detail": (f"Odometer after {k} queries of epsilon {epsilon}: reports {reported:.6g}, "
                       f"{'above' if over else 'at or below'} Kairouz et al. Thm 3.4's {theorem:.6g} "
                       f"(tol {odometer.tol:g}; the exact optimal composition is {exact:.6g})")}


# -- smartnoise#622: DPcovariance adds noise for clipped data to the covariance of unclipped data --------------------

def _covariance_pair(n: int = 50, outlier: float = 100.0) -> tuple[Any, Any]:
    """D: n rows of two columns uniform on [0, 1] (seed 0), the declared range; D': row 0 replaced by
    (``outlier``, ``outlier``), a record outside the range the library is told to clip to."""
    import pandas as pd

    x = np.random.default_rng(0).uniform(0.0, 1.0, size=(n, 2))
    d = pd.DataFrame(x, columns=["a", "b"])
    d_prime = d.copy()
    d_prime.iloc[0] = [outlier, outlier]
    return d, d_prime


def _smartnoise_622(n: int = 50, epsilon: float = 1.0) -> dict:
    """smartnoise#622: ``snsynth.models.dp_covariance.DPcovariance.release`` clips and imputes the data
    (``new_data = censor_data(data[self.columns], self.rng)``, ``fill_missing``) and then computes
    ``true_val = covar(data.values.T, ...)``: the covariance of the *raw* data, to which it adds Laplace noise of
    scale ``sens / epsilon`` with ``sens = 2 / n * range_i * range_j``, the sensitivity of *clipped* data
    (smartnoise-synth 1.0.5, ``snsynth/models/dp_covariance.py:90-118``, line 115; PR #624 uses ``new_data``,
    released in 1.0.6). One record far outside the declared range moves the released covariance without bound.

    Datasets: n = 50 rows of two columns in the declared range [0, 1] (seed 0) and the same with row 0 replaced by
    (100, 100) (replace-one).

    Check (replay, :func:`dpverify.libraries.replay.record_and_replay`): the Laplace noise is drawn by closures
    inside ``release`` (``dp_noise``, ``q_lap``) that no patch can reach, so the primitive recorded is the call that
    forms the statistic they perturb: ``np.cov`` inside ``release``, its value the covariance entries
    (``np.tril_indices``, what the noise is added to) and its declared sensitivity the model's own ``sens``
    (0.04 for every entry here), in the l-infinity metric (each entry is its own Laplace mechanism). Replayed on D'
    with D's draws, an entry moving by more than 0.04 is a ``sensitivity`` flag: "reproduced" (the raw covariance
    moves by ~198), "fixed" otherwise (the clipped one moves by < 0.01)."""
    import pandas as pd


    module = _synth_module("models/dp_covariance.py", "dp_covariance")
    version = installed_version(_SYNTH)
    plain_cov = np.cov  # the real np.cov: the value function below must not call the patched one
    d, d_prime = _covariance_pair(n)
    sensitivity: list[float] = []

    def entries(bound: Mapping[str, Any]) -> np.ndarray:
        c = np.atleast_2d(plain_cov(bound["m"]))
        return np.asarray(c[np.tril_indices(c.shape[0])], dtype=float)

    def release(data: Any) -> list:
        rng = pd.DataFrame([[0.0, 0.0], [1.0, 1.0]])  # lower bounds, then upper bounds, one column per variable
        model = module.DPcovariance(n, ["a", "b"], rng, epsilon)
        sensitivity[:] = [float(s) for s in model.sens]
        return model.release(data)

    cov = Primitive(np, "cov", value_arg=entries, sensitivity_arg=lambda _: max(sensitivity), metric="linf",
                    mechanism="DPcovariance laplace (np.cov)")
    result = record_and_replay(release, d, d_prime, primitives=[cov], relation="replace_one", seed=0)
    flags = [f for f in result.flags if f.kind == "sensitivity"]
    moved = float(np.max(np.abs(np.asarray(result.recording.calls[0].value)
                                - np.asarray(result.calls[0].value)))) if result.calls else math.nan
    declared = max(sensitivity)
    return {"status": "reproduced" if flags else "fixed", "version": version, "moved": moved,
            "declared_sensitivity": declared, "flags": [str(f) for f in result.flags],
            "detail": (f"DPcovariance.release, one row of 50 replaced by (100, 100) outside the range [0, 1]: the "
                       f"covariance handed to the Laplace noise moves by {moved:.4g}, declared sensitivity "
                       f"{declared:.4g}" + (" (the unclipped data's covariance)" if flags else " (clipped)"))}


# -- smartnoise#574 and PR #580: approx_bounds raises on a value outside its bins -------------------------------------

def _approx_bounds_pair(outlier: float) -> tuple[np.ndarray, np.ndarray]:
    """The report's pair: D = 0..99 and 42.17; D' = 0..99 and ``outlier`` (replace-one)."""
    base = [float(v) for v in range(100)]
    return np.array(base + [42.17]), np.array(base + [outlier])


def _approx_bounds_replay(outlier: float, epsilon: float = 1.0) -> dict:
    """``approx_bounds(D, epsilon)`` recorded, replayed on D' (0..99 and ``outlier``): see :func:`_smartnoise_574`."""
    import opendp.mod as dp_mod
    from snsql.sql._mechanisms.approx_bounds import approx_bounds


    d, d_prime = _approx_bounds_pair(outlier)

    def bounds(values: Any) -> tuple:
        return tuple(approx_bounds(list(values), epsilon))

    noisy_count = Primitive(dp_mod.Measurement, "__call__", value_arg=lambda a: float(a["arg"]),
                            sensitivity_arg=lambda _: 1.0, scale_arg=lambda _: 1.0 / epsilon,
                            mechanism="approx_bounds Laplace count")
    result = record_and_replay(bounds, d, d_prime, primitives=[noisy_count], relation="replace_one", seed=0)
    raised = [f for f in result.flags if f.kind == "control_flow"]
    other = [f for f in result.flags if f.kind != "control_flow"]
    if other and not raised:
        raise RuntimeError(f"unexpected replay flags on the fixed path: {'; '.join(str(f) for f in other)}")
    calls = len(result.recording.calls)
    return {"status": "reproduced" if raised else "fixed", "version": installed_version(_SQL), "calls": calls,
            "flags": [str(f) for f in result.flags],
            "detail": (f"approx_bounds on 0..99 and 42.17 vs 0..99 and {outlier:g}: " +
                       (f"raises on D' only ({raised[0].on_d_prime}) after {calls} noisy counts on D" if raised else
                        f"{calls} noisy counts on both, none moved beyond sensitivity 1"))}


def _smartnoise_574() -> dict:
    """smartnoise#574: ``snsql.sql._mechanisms.approx_bounds.approx_bounds`` puts each value in one of 128 bins
    (negative and positive powers of two, [-2^63, 2^64)) and raises ``ValueError("Value ... is outside of the range
    we can use to infer bounds")`` for a value in none of them, such as inf or NaN (smartnoise-sql 1.0.1,
    ``snsql/sql/_mechanisms/approx_bounds.py:68-75``). Whether bounds (and a synthesizer fitted on them) are released
    at all then depends on one record: an exception on D' only, a distinguishing event of probability 1. PR #580
    drops non-finite values and clamps the rest to the outer edges, released in 1.0.2 ("Fix privacy bug in
    approx_bounds", its HISTORY.md).

    Datasets: the report's, 0..99 and 42.17 vs 0..99 and inf (replace-one).

    Check (replay, :func:`dpverify.libraries.replay.record_and_replay`): each noisy bin count is an OpenDP
    measurement call (``Measurement.__call__``, the primitive recorded: its value the bin count, declared
    sensitivity 1, the count's under the scale ``1 / epsilon`` the library builds the Laplace measurement with).
    Replayed on D' with D's draws: an exception on D' only is a ``control_flow`` flag ("reproduced"); the fixed
    release drops the inf, one count moves by 1 and nothing is flagged ("fixed")."""
    return _approx_bounds_replay(math.inf)


def _smartnoise_pr580() -> dict:
    """smartnoise PR #580, its first defect ("values lower than the smallest bin edge could leak privacy", says the
    PR, which addresses #572 and #574): the same ``ValueError`` of ``approx_bounds`` for a *finite* value beyond the
    outer bin edges, e.g. -1e19 < -2^63 (smartnoise-sql 1.0.1, ``snsql/sql/_mechanisms/approx_bounds.py:68-75``).
    Unlike a NaN, such a value is a legitimate record; the fix clamps it to the outer edge (``np.clip`` to
    [-2^63, 2^64 - 1]) instead of dropping it, released in 1.0.2.

    Datasets: 0..99 and 42.17 vs 0..99 and -1e19 (replace-one).

    Check: as :func:`_smartnoise_574` (replay; "reproduced" on an exception on D' only). On the fixed release the
    clamped record moves two bin counts by 1 each, within the declared sensitivity 1 per count."""
    return _approx_bounds_replay(-1e19)


# -- smartnoise#596: PATE-GAN's moments accountant without its logarithm --------------------------------------------

def pate_log_moment(num_teachers: int, votes: np.ndarray, lap_scale: float, orders: np.ndarray) -> np.ndarray:
    """The data-dependent log-moment bound of Jordon, Yoon and van der Schaar (2019, PATE-GAN, Algorithm 1) for one
    batch of teacher votes (``votes``: how many of ``num_teachers`` teachers vote 1, one per sample; Laplace noise
    of scale ``1 / lap_scale``), summed over the batch, at each order l in ``orders``::

        q = (2 + lambda |2 v - T|) / (4 exp(lambda |2 v - T|))
        alpha(l) = sum_v min{ 2 lambda^2 l (l + 1),
                              log((1 - q) ((1 - q) / (1 - e^(2 lambda) q))^l + q e^(2 lambda l)) }"""
    gap = np.abs(2.0 * np.asarray(votes, dtype=float).reshape(-1) - num_teachers)
    q = (2.0 + lap_scale * gap) / (4.0 * np.exp(lap_scale * gap))
    out = []
    for order in np.asarray(orders, dtype=float):
        worst = 2.0 * lap_scale ** 2 * order * (order + 1.0)
        moment = (1.0 - q) * ((1.0 - q) / (1.0 - math.exp(2.0 * lap_scale) * q)) ** order \
            + q * np.exp(2.0 * lap_scale * order)
        out.append(float(np.minimum(np.log(moment), worst).sum()))
    return np.array(out)


def _smartnoise_596(num_teachers: int = 10, lap_scale: float = 1.0, delta: float = 1e-5) -> dict:
    """smartnoise#596: ``snsynth.pytorch.nn.privacy_utils.moments_acc`` (PATE-GAN's and PATECTGAN's moments
    accountant) computes ``t = (1 - q) ((1 - q) / (1 - e^(2 lambda) q))^l + q e^(2 lambda l)`` and returns
    ``clamp(t, max=2 lambda^2 l (l + 1))``: it compares the data-independent log-moment bound with the moment ``t``
    itself, where Algorithm 1 of Jordon et al. (2019) takes ``log t`` (smartnoise-synth 1.0.8,
    ``snsynth/pytorch/nn/privacy_utils.py:34-47``, line 45; unchanged since 1.0.4). Since t > log t the accumulated
    log-moments, and the epsilon ``min_l (alpha(l) + log(1/delta)) / l`` the synthesizers stop training at, are too
    large: a conservative error (less training than the budget allows), not a leak. At the synthesizers' own
    ``lap_scale = 1e-3`` the bound ``2 lambda^2 l (l + 1)`` is the smaller term either way and the error vanishes;
    it shows where the data-dependent term matters (clear teacher majorities at a larger ``lambda``).

    Datasets: none (an accountant); one batch of 64 teacher votes, 10 teachers, all ten voting alike (|2v - T| = 10),
    Laplace scale 1 (``lap_scale`` 1), orders l = 1..100.

    Check (exact): the library's log-moments against :func:`pate_log_moment` (the paper's formula), and the epsilon
    each gives at delta 1e-5: "reproduced" when the library's log-moments exceed the paper's by more than 1e-9
    relative at some order, "fixed" otherwise."""
    import torch

    module = _synth_module("pytorch/nn/privacy_utils.py", "privacy_utils")
    votes = torch.full((64, 1), float(num_teachers), dtype=torch.float64)
    orders = 1 + torch.tensor(range(100))
    library = module.moments_acc(num_teachers, votes, lap_scale, orders).numpy().astype(float)
    paper = pate_log_moment(num_teachers, votes.numpy(), lap_scale, orders.numpy())
    ls = orders.numpy().astype(float)
    eps_library = float(np.min((library + math.log(1.0 / delta)) / ls))
    eps_paper = float(np.min((paper + math.log(1.0 / delta)) / ls))
    over = bool(np.any(library > paper * (1 + 1e-9) + 1e-12))
    worst = int(np.argmax(library - paper))
    return {"status": "reproduced" if over else "fixed", "version": installed_version(_SYNTH),
            "epsilon_library": eps_library, "epsilon_paper": eps_paper,
            "detail": (f"moments_acc, 64 unanimous votes of 10 teachers at lap_scale {lap_scale}: log-moment at "
                       f"l = {worst + 1} is {library[worst]:.6g} vs the paper's {paper[worst]:.6g}; epsilon at delta "
                       f"{delta:g}: {eps_library:.6g} (library) vs {eps_paper:.6g} (Algorithm 1)")}


CASES: tuple[CorpusCase, ...] = (
    CorpusCase("smartnoise#621", "smartnoise-sql",
               "Odometer: Kairouz et al.'s third composition bound without its logarithm (over-reports epsilon)",
               ("https://github.com/opendp/smartnoise-sdk/issues/621",
                "https://github.com/opendp/smartnoise-sdk/pull/624"),
               "fixed by PR #624 (merged 2026-02), released in smartnoise-sql 1.0.7", "library", _smartnoise_621,
               affected="<1.0.7", fixed_in="1.0.7", method="exact",
               datasets="none: the odometer after 400 queries of (epsilon, delta) = (0.1, 1e-5)",
               releases=("1.0.6", "1.0.7"), requirements=_OLD_SQL, isolation="venv"),
    CorpusCase("smartnoise#622", "smartnoise-synth",
               "DPcovariance: covariance of the unclipped data released with the clipped data's sensitivity",
               ("https://github.com/opendp/smartnoise-sdk/issues/622",
                "https://github.com/opendp/smartnoise-sdk/pull/624"),
               "fixed by PR #624 (merged 2026-02), released in smartnoise-synth 1.0.6", "library", _smartnoise_622,
               affected="<1.0.6", fixed_in="1.0.6", method="replay",
               datasets="50 rows of two columns in [0, 1] vs the same with one row replaced by (100, 100)",
               releases=("1.0.5", "1.0.6"), isolation="target"),
    CorpusCase("smartnoise#574", "smartnoise-sql",
               "approx_bounds raises on an inf or NaN record: one record decides whether it releases at all",
               ("https://github.com/opendp/smartnoise-sdk/issues/574",
                "https://github.com/opendp/smartnoise-sdk/pull/580"),
               "fixed by PR #580 (which addresses #572 and #574), released in smartnoise-sql 1.0.2", "library",
               _smartnoise_574,
               affected="<1.0.2", fixed_in="1.0.2", method="replay",
               datasets="0..99 and 42.17 vs 0..99 and inf (the report's pair)",
               releases=("1.0.1", "1.0.2"), requirements=_OLD_SQL, isolation="venv"),
    CorpusCase("smartnoise-pr580", "smartnoise-sql",
               "approx_bounds raises on a finite value below its lowest bin edge (-1e19 < -2^63)",
               ("https://github.com/opendp/smartnoise-sdk/pull/580",
                "https://github.com/opendp/smartnoise-sdk/issues/574"),
               "fixed by PR #580 (its first defect; the PR addresses #572 and #574), released in smartnoise-sql "
               "1.0.2", "library", _smartnoise_pr580, affected="<1.0.2", fixed_in="1.0.2", method="replay",
               datasets="0..99 and 42.17 vs 0..99 and -1e19 (a finite record beyond the outer bin edge)",
               releases=("1.0.1", "1.0.2"), requirements=_OLD_SQL, isolation="venv"),
    CorpusCase("smartnoise#596", "smartnoise-synth",
               "PATE-GAN moments accountant: the log-moment bound compared with the moment, not its logarithm",
               ("https://github.com/opendp/smartnoise-sdk/issues/596",),
               "issue open; present in every smartnoise-synth release up to 1.0.8 (the latest): no fixed version",
               "library", _smartnoise_596, affected=">=1.0.0", fixed_in=None, method="exact",
               datasets="none: one batch of 64 unanimous votes of 10 teachers, lap_scale 1, orders 1..100",
               releases=("1.0.4", "1.0.8"), isolation="target"),
)

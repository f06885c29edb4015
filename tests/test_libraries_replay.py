"""The record/replay layer (dpverify.libraries.replay) on a toy DP library defined in this file.

Each flag kind has a buggy toy function it must catch, at the right ``file:line`` (the line carrying a ``# SITE:``
comment below), and a fixed version it must pass: the mutation tests. A clean function is never flagged (no false
positive), the random draws really are fed back (a function that draws from its generator after a frozen primitive
replays to the same output), and bad input is a ValueError naming the argument.

Nothing here samples: every check is deterministic (fixed seeds), and each replay takes milliseconds.
"""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from dpverify.libraries.replay import (FLAG_KINDS, Primitive, Recording, Spend, record, record_and_replay,
                                       replay)

THIS = sys.modules[__name__]
SOURCE = Path(__file__).read_text().splitlines()


def site(tag: str) -> str:
    """``tests/test_libraries_replay.py:LINE`` of the line carrying ``# SITE:tag``."""
    (line,) = [i + 1 for i, text in enumerate(SOURCE) if text.rstrip().endswith(f"# SITE:{tag}")]
    return f"{Path(__file__).name}:{line}"


# -- the toy library -------------------------------------------------------------------------------------------------

def laplace(value, sensitivity, epsilon, rng):
    """The toy library's noise primitive: value + Laplace(sensitivity / epsilon)."""
    return value + rng.laplace(0.0, sensitivity / epsilon, size=np.shape(value))


class Accountant:
    def __init__(self):
        self.spent = []

    def spend(self, epsilon, delta=0.0):
        self.spent.append((epsilon, delta))


LAPLACE = Primitive(THIS, "laplace", value_arg="value", sensitivity_arg="sensitivity", epsilon_arg="epsilon",
                    scale_arg=lambda a: a["sensitivity"] / a["epsilon"])
SPEND = Spend(Accountant, "spend", epsilon_arg="epsilon", delta_arg="delta")


def clean_sum(x, rng):
    return laplace(np.sum(np.clip(x, 0.0, 1.0)), 1.0, 1.0, rng)  # SITE:clean


# control flow
def branch_on_data(x, rng):
    s = laplace(np.sum(np.clip(x, 0.0, 1.0)), 1.0, 0.5, rng)
    if np.sum(x) > 2.0:  # the bug: a branch on the raw data
        s = s + laplace(0.0, 1.0, 0.5, rng)  # SITE:branch
    return s


def branch_on_release(x, rng):
    s = laplace(np.sum(np.clip(x, 0.0, 1.0)), 1.0, 0.5, rng)
    if s > 2.0:  # fixed: a branch on the released value is post-processing
        s = s + laplace(0.0, 1.0, 0.5, rng)
    return s


# sensitivity
def unclipped_sum(x, rng):
    return laplace(np.sum(x), 1.0, 1.0, rng)  # SITE:unclipped


# a bound read from the data
def bounds_from_data(x, rng):
    lo, hi = np.min(x), np.max(x)  # SITE:minmax
    return laplace(np.sum(np.clip(x, lo, hi)), hi - lo, 1.0, rng)


def bounds_given(x, rng):
    lo, hi = 0.0, 1.0
    return laplace(np.sum(np.clip(x, lo, hi)), hi - lo, 1.0, rng)


def histogram_domain_from_data(x, rng):
    classes = np.unique(x)  # SITE:unique
    return laplace(np.array([np.sum(x == c) for c in classes], dtype=float), 1.0, 1.0, rng)  # SITE:hist


def histogram_domain_given(x, rng):
    classes = np.arange(3)
    return laplace(np.array([np.sum(x == c) for c in classes], dtype=float), 1.0, 1.0, rng)


# NaN through clipping
def nan_through_clip(x, rng):
    return laplace(np.sum(np.clip(x, -5.0, 5.0)), 5.0, 1.0, rng)  # SITE:nan


def nan_dropped(x, rng):
    return laplace(np.sum(np.clip(np.nan_to_num(x, nan=0.0, posinf=5.0, neginf=-5.0), -5.0, 5.0)), 5.0, 1.0, rng)


# budget
def double_spend(x, rng):
    acc = Accountant()
    s = laplace(np.sum(np.clip(x, 0.0, 1.0)), 1.0, 1.0, rng)
    acc.spend(1.0)
    # the whole budget spent a second time:
    c = laplace(float(len(x)), 1.0, 1.0, rng)  # SITE:double
    acc.spend(1.0)
    return s, c


def split_spend(x, rng):
    acc = Accountant()
    s = laplace(np.sum(np.clip(x, 0.0, 1.0)), 1.0, 0.5, rng)
    acc.spend(0.5)
    c = laplace(float(len(x)), 1.0, 0.5, rng)
    acc.spend(0.5)
    return s, c


def unrecorded_spend(x, rng):
    acc = Accountant()
    s = laplace(np.sum(np.clip(x, 0.0, 1.0)), 1.0, 0.5, rng)
    acc.spend(0.5)
    # no spend recorded for this one:
    c = laplace(float(len(x)), 1.0, 0.5, rng)  # SITE:unrecorded
    return s, c


# output: the data reaches the release around the primitive
def divide_by_size(x, rng):
    return laplace(np.sum(np.clip(x, 0.0, 1.0)), 1.0, 1.0, rng) / len(x)


def divide_by_noisy_size(x, rng):
    s = laplace(np.sum(np.clip(x, 0.0, 1.0)), 1.0, 0.5, rng)
    n = laplace(float(len(x)), 1.0, 0.5, rng)
    return s / max(n, 1.0)


# the randomness is fed back
def draws_after_the_primitive(x, rng):
    s = laplace(np.sum(np.clip(x, 0.0, 1.0)), 1.0, 1.0, rng)
    return s + rng.random() + np.random.random()  # generator and global draws after the frozen call


D = np.array([0.2, 0.5, 0.9, 0.4])
D_REPLACED = np.array([0.2, 0.5, 0.9, 1.0])
D_REMOVED = np.array([0.2, 0.5, 0.9])


def flags(function, d=D, n=D_REPLACED, **kw):
    kw.setdefault("primitives", [LAPLACE])
    return record_and_replay(function, d, n, **kw).flags


def kinds(function, d=D, n=D_REPLACED, **kw):
    return {f.kind for f in flags(function, d, n, **kw)}


# -- no false positive -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("neighbour", [D_REPLACED, D_REMOVED, np.array([0.2, 0.5, 0.9, 40.0])])
def test_a_clean_function_is_not_flagged(neighbour):
    r = record_and_replay(clean_sum, D, neighbour, primitives=[LAPLACE], budget=1.0, check_output=True)
    assert r.ok, r.report()
    (call,) = r.recording.calls
    assert call.site == site("clean") and call.mechanism == "laplace"
    assert call.sensitivity == 1.0 and call.scale == 1.0 and call.epsilon == 1.0
    assert call.value == pytest.approx(2.0)
    assert call.draw == pytest.approx(call.output - call.value)  # the random draw it used


def test_the_draws_are_fed_back():
    """After a frozen primitive call the generators are where they were on D: a function drawing from its ``rng``
    and from numpy's global generator after the call returns exactly its output on D (with a fresh draw on D' the
    ``output`` flag would fire: the mutation that skips the restoring is caught here)."""
    rec = record(draws_after_the_primitive, D, primitives=[LAPLACE], seed=3)
    r = replay(rec, draws_after_the_primitive, D_REPLACED, check_output=True)
    assert r.ok, r.report()
    again = record(draws_after_the_primitive, D, primitives=[LAPLACE], seed=3)
    assert again.output == rec.output  # the seed fixes the run
    assert record(draws_after_the_primitive, D, primitives=[LAPLACE], seed=4).output != rec.output


# -- one buggy and one fixed function per flag kind ------------------------------------------------------------------

def test_control_flow_on_the_data_is_flagged_and_on_the_release_is_not():
    fs = flags(branch_on_data, D, np.array([0.2, 0.5, 0.9, 5.0]))
    assert [f.kind for f in fs] == ["control_flow"]
    assert fs[0].site == site("branch") and "D' only" in fs[0].message
    assert not flags(branch_on_release, D, np.array([0.2, 0.5, 0.9, 5.0]))
    # the branch taken on D and not on D': "made on D only", at the same line
    fs = flags(branch_on_data, np.array([0.2, 0.5, 0.9, 5.0]), D)
    assert [(f.kind, f.site) for f in fs] == [("control_flow", site("branch"))] and "D only" in fs[0].message


def test_an_exception_on_the_neighbour_only_is_control_flow():
    def picky(x, rng):
        s = laplace(np.sum(np.clip(x, 0.0, 1.0)), 1.0, 1.0, rng)
        if np.any(x > 1.0):
            raise RuntimeError("out of range")
        return s

    fs = flags(picky, D, np.array([0.2, 0.5, 0.9, 3.0]))
    assert [f.kind for f in fs] == ["control_flow"] and "RuntimeError" in fs[0].message
    assert not flags(picky, D, np.array([0.2, 0.5, 0.9, 0.0]))


def test_a_value_moving_beyond_its_declared_sensitivity_is_flagged():
    fs = flags(unclipped_sum, D, np.array([0.2, 0.5, 0.9, 3.4]))
    (f,) = fs
    assert f.kind == "sensitivity" and f.site == site("unclipped")
    assert (f.on_d, f.on_d_prime) == (pytest.approx(2.0), pytest.approx(5.0))  # the replayed difference: 3 > 1
    assert "3" in f.message and "declared sensitivity 1" in f.message
    assert not flags(clean_sum, D, np.array([0.2, 0.5, 0.9, 3.4]))
    # within the declared sensitivity the same unclipped function passes: the check is the realized distance
    assert not flags(unclipped_sum, D, np.array([0.2, 0.5, 0.9, 1.3]))


def test_metric_of_a_vector_primitive():
    """A histogram of disjoint bins under replace-one moves by 2 in L1 and sqrt(2) in L2: declared 1.5, the L1
    primitive is flagged and the L2 one is not."""
    def hist(x, rng):
        return laplace(np.array([np.sum(x < 0.5), np.sum(x >= 0.5)], dtype=float), 1.5, 1.0, rng)

    l2 = Primitive(THIS, "laplace", value_arg="value", sensitivity_arg="sensitivity", metric="l2")
    assert kinds(hist) == {"sensitivity"}
    assert not flags(hist, primitives=[l2])


def test_bounds_read_from_the_data_are_flagged():
    fs = flags(bounds_from_data, D, np.array([0.2, 0.5, 0.9, 0.1]))
    reads = {f.message.split(" ")[0]: f for f in fs if f.kind == "data_bound"}
    assert set(reads) >= {"np.min", "np.max"} and reads["np.min"].site == site("minmax")
    assert (reads["np.min"].on_d, reads["np.min"].on_d_prime) == (pytest.approx(0.2), pytest.approx(0.1))
    assert not flags(bounds_given, D, np.array([0.2, 0.5, 0.9, 0.1]))
    # without watching the array, the declared sensitivity (hi - lo) differing between D and D' still shows it
    fs = flags(bounds_from_data, D, np.array([0.2, 0.5, 0.9, 0.1]), watch=False)
    assert ("data_bound", "sensitivity") in {(f.kind, f.message.split("declared ")[-1].split(" ")[0]) for f in fs}


def test_a_domain_read_from_the_data_is_flagged():
    d, n = np.array([0, 1, 2, 0]), np.array([0, 1, 0])  # add/remove: the rare class 2 disappears
    fs = flags(histogram_domain_from_data, d, n)
    assert {(f.kind, f.site) for f in fs} == {("data_bound", site("unique")), ("data_bound", site("hist"))}
    shape = next(f for f in fs if f.site == site("hist"))
    assert "shape differs" in shape.message
    assert not flags(histogram_domain_given, d, n)


def test_histogram_without_range_is_a_bound_read_from_the_data():
    def hist(x, rng):
        return laplace(np.histogram(x, bins=4)[0].astype(float), 1.0, 1.0, rng)

    def hist_range(x, rng):
        return laplace(np.histogram(x, bins=4, range=(0.0, 1.0))[0].astype(float), 1.0, 1.0, rng)

    assert "data_bound" in kinds(hist, D, D_REMOVED)
    assert not flags(hist_range, D, D_REMOVED)


def test_nan_through_clipping_is_flagged():
    d, n = np.array([1.0, 2.0]), np.array([1.0, np.nan])
    (f,) = flags(nan_through_clip, d, n)
    assert f.kind == "non_finite" and f.site == site("nan") and "D'" in f.message
    assert np.isnan(f.on_d_prime)
    assert not flags(nan_dropped, d, n)
    (g,) = flags(nan_through_clip, np.array([1.0, np.nan]), np.array([1.0, 2.0]))  # NaN on D
    assert g.kind == "non_finite" and g.message.endswith("on D: a NaN or inf passed the clipping into the primitive")
    (h,) = flags(unclipped_sum, D, np.array([0.2, 0.5, 0.9, np.inf]))  # inf, where nothing clips it
    assert h.kind == "non_finite" and np.isinf(h.on_d_prime)


def test_a_budget_spent_twice_is_flagged():
    fs = flags(double_spend, budget=1.0, primitives=[LAPLACE, SPEND])
    assert [(f.kind, f.site) for f in fs] == [("budget", site("double"))]
    assert (fs[0].on_d, fs[0].on_d_prime) == (pytest.approx(2.0), pytest.approx(1.0))
    assert not flags(split_spend, budget=1.0, primitives=[LAPLACE, SPEND])


def test_a_budget_not_recorded_is_flagged():
    fs = flags(unrecorded_spend, primitives=[LAPLACE, SPEND])
    assert [(f.kind, f.site) for f in fs] == [("budget", site("unrecorded"))]
    assert "records 0.5" in fs[0].message
    assert not flags(split_spend, primitives=[LAPLACE, SPEND])


def test_data_reaching_the_output_around_the_primitives_is_flagged():
    """Dividing a noisy sum by the true size: under add/remove the size is private."""
    assert kinds(divide_by_size, D, D_REMOVED, check_output=True) == {"output"}
    assert not flags(divide_by_size, D, D_REMOVED)  # the output check is asked for
    assert not flags(divide_by_size, D, D_REPLACED, check_output=True)  # replace-one: the size is public
    assert not flags(divide_by_noisy_size, D, D_REMOVED, check_output=True)


def test_every_flag_kind_is_exercised():
    seen = (kinds(branch_on_data, D, np.array([0.2, 0.5, 0.9, 5.0]))
            | kinds(unclipped_sum, D, np.array([0.2, 0.5, 0.9, 9.0]))
            | kinds(bounds_from_data) | kinds(nan_through_clip, np.array([1.0]), np.array([np.nan]))
            | kinds(double_spend, budget=1.0, primitives=[LAPLACE, SPEND])
            | kinds(divide_by_size, D, D_REMOVED, check_output=True))
    assert seen == set(FLAG_KINDS)


def test_flags_carry_site_and_difference_in_the_report():
    r = record_and_replay(unclipped_sum, D, np.array([0.2, 0.5, 0.9, 3.4]), primitives=[LAPLACE])
    text = r.report()
    assert site("unclipped") in text and "D: 2" in text and "D': 5" in text
    d = r.to_dict()
    assert d["flags"][0]["kind"] == "sensitivity" and d["relation"] == "replace_one"


def test_a_function_imported_by_name_elsewhere_is_intercepted():
    """``from toylib import laplace`` binds the name in another module: that binding is replaced too."""
    import types

    other = types.ModuleType("replay_test_other_module")
    other.laplace = laplace
    exec("import numpy as np\ndef f(x, rng):\n    return laplace(np.sum(x), 1.0, 1.0, rng)\n", other.__dict__)
    sys.modules[other.__name__] = other
    try:
        r = record_and_replay(other.f, D, np.array([0.2, 0.5, 0.9, 3.4]), primitives=[LAPLACE])
    finally:
        del sys.modules[other.__name__]
    assert r.kinds() == {"sensitivity"}
    assert other.laplace is laplace and THIS.laplace is laplace  # restored


def gaussian_via_laplace(value, sigma, rng):
    """A primitive that calls another primitive inside (a deliberately odd composite)."""
    return laplace(value, sigma, 1.0, rng) + rng.normal(0.0, sigma)


def test_a_primitive_called_inside_a_primitive_is_part_of_it():
    """The inner call happens on D (the real call runs) and not on D' (the outer one is frozen): it must not count
    as a call of its own, or every replay of the composite would be a false ``control_flow``."""
    outer = Primitive(THIS, "gaussian_via_laplace", value_arg="value", sensitivity_arg="sigma")
    r = record_and_replay(lambda x, rng: gaussian_via_laplace(np.sum(np.clip(x, 0, 1)), 1.0, rng), D, D_REPLACED,
                          primitives=[outer, LAPLACE])
    assert r.ok, r.report()
    assert [c.mechanism for c in r.recording.calls] == ["gaussian_via_laplace"]


def test_replay_is_fast():
    start = time.perf_counter()
    for _ in range(20):
        record_and_replay(clean_sum, D, D_REPLACED, primitives=[LAPLACE])
    assert (time.perf_counter() - start) / 20 < 0.2  # milliseconds in practice; generous for a loaded machine


# -- the pair and bad input ------------------------------------------------------------------------------------------

def test_the_pair_must_be_adjacent_under_the_declared_relation():
    with pytest.raises(ValueError, match="relation='add_remove'"):
        record_and_replay(clean_sum, D, D_REPLACED, primitives=[LAPLACE], relation="add_remove")
    with pytest.raises(ValueError, match="not adjacent"):
        record_and_replay(clean_sum, D, np.array([9.0, 9.0, 9.0, 9.0]), primitives=[LAPLACE])
    with pytest.raises(ValueError, match="relation must be one of"):
        record_and_replay(clean_sum, D, D_REPLACED, primitives=[LAPLACE], relation="swap")
    assert record_and_replay(clean_sum, D, D_REMOVED, primitives=[LAPLACE]).relation == "add_remove"


@pytest.mark.parametrize("kwargs, match", [
    ({"primitives": []}, "at least one primitive"),
    ({"primitives": ["laplace"]}, "primitives must be"),
    ({"primitives": [LAPLACE], "seed": -1}, "seed"),
    ({"primitives": [LAPLACE], "seed": 1.5}, "seed"),
    ({"primitives": [LAPLACE], "budget": -1.0}, "budget"),
    ({"primitives": [LAPLACE], "budget": (1.0, 2.0)}, "budget delta"),
    ({"primitives": [LAPLACE], "watch": "yes"}, "watch"),
])
def test_bad_input_is_a_value_error_naming_it(kwargs, match):
    with pytest.raises(ValueError, match=match):
        record(clean_sum, D, **kwargs)


def test_bad_primitives_are_value_errors():
    with pytest.raises(ValueError, match="metric must be one of"):
        Primitive(THIS, "laplace", metric="l3")
    with pytest.raises(ValueError, match="sensitivity_arg"):
        Primitive(THIS, "laplace", sensitivity_arg=-1)
    with pytest.raises(ValueError, match="cannot be imported"):
        Primitive("no_such_module_here", "laplace")
    with pytest.raises(ValueError, match="'gaussian' is not defined"):
        record(clean_sum, D, primitives=[Primitive(THIS, "gaussian")])
    with pytest.raises(ValueError, match="recording must be"):
        replay("not a recording", clean_sum, D)  # type: ignore[arg-type]
    assert isinstance(record(clean_sum, D, primitives=LAPLACE), Recording)  # one primitive needs no list


def laplace_system(value, sensitivity, epsilon, rng):
    """The toy primitive drawing from a ``random.SystemRandom`` (diffprivlib before 0.6): no state to save."""
    u = rng.random() - 0.5
    return value - sensitivity / epsilon * np.sign(u) * np.log(1 - 2 * abs(u))


LAPLACE_SYSTEM = Primitive(THIS, "laplace_system", value_arg="value", sensitivity_arg="sensitivity",
                           epsilon_arg="epsilon", scale_arg=lambda a: a["sensitivity"] / a["epsilon"])


def clean_sum_system(x, rng):
    return laplace_system(np.sum(np.clip(x, 0.0, 1.0)), 1.0, 1.0, random.SystemRandom())


def test_a_system_random_generator_is_replayed_without_saving_its_state():
    """``random.SystemRandom`` has no state (getstate raises NotImplementedError): replay leaves it alone, the
    primitive's output is still frozen, and a clean function stays clean (the mutation that treats it as a
    stateful generator makes record raise here)."""
    r = record_and_replay(clean_sum_system, D, D_REPLACED, primitives=[LAPLACE_SYSTEM], budget=1.0,
                          check_output=True)
    assert r.ok, r.report()
    assert len(r.recording.calls) == 1 and r.recording.calls[0].mechanism == "laplace_system"

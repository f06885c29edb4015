"""What a chain releases: the whole path, the final iterate, or a sample set (the iterates a Bayesian user keeps).

A run of ``n_steps`` steps produces iterates ``theta_0`` (the data-independent start), ``theta_1``, ..., ``theta_n``;
step s maps ``theta_{s-1}`` to ``theta_s``. A release is

- ``"path"`` -- every iterate (the run *is* the adaptive composition of its steps);
- ``"final"`` -- ``theta_n`` alone;
- :class:`SampleSet` ``(burn_in, thin, count)`` -- ``theta_{b + m}, theta_{b + 2m}, ..., theta_{b + k m}`` with
  ``b = burn_in``, ``m = thin``, ``k = count``: the draws kept after burn-in and thinning; the run has exactly
  ``b + k m`` steps. ``SampleSet(0, n, 1)`` is the final iterate and ``SampleSet(0, 1, n)`` the path.

Windows. The released iterates cut the steps into consecutive *windows* ``(t_{j-1}, t_j]`` (``t_0 = 0``, ``t_j`` the
j-th released index): window 1 holds the burn-in and the first thinning block. For a chain whose update is linear in
its state with data-independent coefficients (one position per coordinate), ``theta_{t_j}`` minus the window's
data-independent propagation of ``theta_{t_{j-1}}`` depends on window j's data terms and noise only, so a sample set is
a bijective, data-independent transform of independent per-window releases: its privacy is the composition of the
windows' (:func:`release_windows`; :mod:`dpverify.calculus.accounting.release`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

from dpverify.validation import check_positive_int
from dpverify.calculus.vocabulary import Release

__all__ = ["SampleSet", "Release", "ReleaseSpec", "RELEASE_NAMES", "check_release", "parse_release", "release_name",
           "release_windows", "released_indices"]

#: The releases named by a word (:class:`~dpverify.calculus.vocabulary.Release`).
RELEASE_NAMES = Release.values()


@dataclass(frozen=True)
class SampleSet:
    """``count`` iterates kept after ``burn_in`` steps, one every ``thin`` steps (module docstring)."""

    burn_in: int
    thin: int
    count: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "burn_in", check_positive_int(self.burn_in, "burn_in", minimum=0))
        object.__setattr__(self, "thin", check_positive_int(self.thin, "thin"))
        object.__setattr__(self, "count", check_positive_int(self.count, "count"))

    @property
    def n_steps(self) -> int:
        """The length of the run that releases this sample set: ``burn_in + thin * count``."""
        return self.burn_in + self.thin * self.count

    def describe(self) -> str:
        return f"samples(burn_in={self.burn_in}, thin={self.thin}, count={self.count})"

    def __str__(self) -> str:
        return self.describe()


#: A release: a named one (:class:`~dpverify.calculus.vocabulary.Release`, a ``str``) or a :class:`SampleSet`.
ReleaseSpec = Union[Release, SampleSet]


def check_release(release, name: str = "release") -> ReleaseSpec:
    """``release`` validated: ``"path"`` / ``"final"`` (returned as :class:`~dpverify.calculus.vocabulary.Release`
    members) or a :class:`SampleSet`."""
    if isinstance(release, SampleSet):
        return release
    if isinstance(release, str) and release in RELEASE_NAMES:
        return Release(release)
    raise ValueError(f"{name} must be 'path', 'final' or a SampleSet(burn_in, thin, count); got {release!r}")


_SAMPLES = re.compile(r"^\s*samples\s*\(\s*(?:burn_in\s*=\s*)?(\d+)\s*,\s*(?:thin\s*=\s*)?(\d+)\s*,"
                      r"\s*(?:count\s*=\s*)?(\d+)\s*\)\s*$")


def parse_release(release, name: str = "release") -> ReleaseSpec:
    """:func:`check_release`, also reading a sample set written as text (the command line's form):
    ``"samples(BURN_IN, THIN, COUNT)"`` or ``"samples(burn_in=B, thin=M, count=K)"``."""
    if isinstance(release, str) and release not in RELEASE_NAMES:
        match = _SAMPLES.match(release)
        if match is None:
            raise ValueError(f"{name} must be 'path', 'final' or 'samples(BURN_IN, THIN, COUNT)' (e.g. "
                             f"'samples(100, 10, 20)'); got {release!r}")
        return SampleSet(*(int(g) for g in match.groups()))
    return check_release(release, name)


def release_name(release: ReleaseSpec) -> str:
    """A short printable name: ``path``, ``final`` or ``samples(burn_in=.., thin=.., count=..)``."""
    return release.describe() if isinstance(release, SampleSet) else str(release)


def released_indices(release: ReleaseSpec, n_steps: int) -> list[int]:
    """The indices t of the released iterates ``theta_t`` of a run of ``n_steps`` steps (``theta_0``, the fixed start,
    is never counted: it carries no information)."""
    n = check_positive_int(n_steps, "n_steps")
    release = check_release(release)
    if release == "path":
        return list(range(1, n + 1))
    if release == "final":
        return [n]
    assert isinstance(release, SampleSet)
    if release.n_steps != n:
        raise ValueError(f"a {release.describe()} release needs a run of burn_in + thin * count = {release.n_steps} "
                         f"steps; the run has {n}")
    return [release.burn_in + j * release.thin for j in range(1, release.count + 1)]


def release_windows(release: ReleaseSpec, n_steps: int) -> list[tuple[int, int]]:
    """The windows ``(first step, last step)`` (1-based, inclusive) that the released iterates cut the run into
    (module docstring)."""
    out, start = [], 1
    for t in released_indices(release, n_steps):
        out.append((start, t))
        start = t + 1
    return out

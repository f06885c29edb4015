"""The corpus as a whole (issue 37, section 3): at least 30 tracker-documented bugs, each with its versions.

These tests read the cases' declarations only (nothing runs a library): which bug fails which test -- a case
dropped or duplicated, a library case without the releases that say what each version should show, a case whose
runs could never see its fix (a first fixed release it does not run on), a reference that is not a tracker URL, a
check without the docstring that states the bug and its source.
"""
from __future__ import annotations

import re

from packaging.version import Version

from dpverify.libraries.corpus import CASES, METHODS, find

#: The corpus's size: a case dropped (or one added without updating the docs' counts) fails here.
CORPUS_SIZE = 33
#: The libraries it covers (pip names).
LIBRARIES = {"diffprivlib", "opacus", "opendp", "dp-accounting", "jax_privacy", "tensorflow-privacy", "pipeline-dp",
             "python-dp", "smartnoise-sql", "smartnoise-synth", "dpmm"}
TRACKER = re.compile(r"^https://github\.com/[\w.-]+/[\w.-]+/(issues|pull|commit)/[0-9a-f]+$")


def test_the_corpus_holds_at_least_thirty_distinct_bugs():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)) == CORPUS_SIZE >= 30
    assert {c.pip_name for c in CASES} == LIBRARIES
    assert find("smartnoise#621").pip_name == "smartnoise-sql"


def test_every_reference_is_a_tracker_url_and_every_check_says_what_it_checks():
    for c in CASES:
        assert c.refs and all(TRACKER.match(r) for r in c.refs), (c.id, c.refs)
        assert c.upstream_status and c.title and c.datasets, c.id
        assert c.method in METHODS
        assert (c.check.__doc__ or "").strip(), f"{c.id}: its check has no docstring"


def test_every_library_case_runs_on_an_affected_release_and_on_its_fix_where_one_shipped():
    for c in CASES:
        if c.kind == "re-implementation":
            assert not c.releases and not c.affected, c.id  # nothing to install: the report is re-implemented
            continue
        assert c.affected and c.releases, c.id
        expected = {v: c.expected(v) for v in c.releases}
        assert "bad" in expected.values(), (c.id, expected)
        assert sorted(c.releases, key=Version) == list(c.releases), c.id
        if c.fixed_in is not None:
            assert expected.get(c.fixed_in) == "good", (c.id, c.fixed_in, expected)
            # the last affected release before the fix is what a bisection's boundary is measured against
            assert all(Version(v) < Version(c.fixed_in) for v, e in expected.items() if e == "bad"), c.id


def test_at_least_three_fixes_shipped_in_a_release_that_installs():
    shipped = [c.id for c in CASES if c.kind == "library" and c.fixed_in in c.releases]
    assert len(shipped) >= 3, shipped

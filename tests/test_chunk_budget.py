"""The declared bytes per output bound what an audit really holds per output (issue 26's memory target).

A device audit sizes its chunks from ``declared_output_bytes`` (docs/gpu.md, "Chunks follow the device's memory"): a
chunk of ``c`` outputs per side is allowed ``c * declared`` bytes per side. Here every standard-suite case is audited
on numpy at two chunk sizes under ``tracemalloc`` (numpy's buffers are traced), after a warm audit that builds the
case's one-time tables, with its exact epsilon given (as ``benchmarks/suite.py`` does; computed, the noisy maximum's
takes a fixed 26 MB grid per audit); the growth of the peak per added output and side must stay below the
declaration. The peaks are exact byte counts of a seeded run, so no statistical tolerance is involved; the measured
growth is 0.02-0.4 of the declaration (``benchmarks/chunk_budget.py`` measures the same on torch and CUDA).

Fails if a declaration is too small for its mechanism (an ``output_bytes`` that forgets the answers or coordinates),
or if a mechanism or statistic starts to hold more per output than its declaration (a ``(n, k, k)`` temporary in a
vector statistic): ``mutation/chunk_budget.py``, 5 of 5 caught. That the auditor's memory does not grow with the
number of samples is tests/test_audit_streaming.py's.
"""
from __future__ import annotations

import tracemalloc

import pytest

from dpverify.audit import audit
from dpverify.audit.abilities import declared_output_bytes
from dpverify.audit.standard_suite import cases

SMALL, LARGE = 1 << 12, 1 << 13
SAMPLES = 1 << 15  # 4-8 chunks after the fit part, so the chunks, not the fit, set the peak
CAPS = {"fit_cap": 1 << 10, "threshold_sample": 1 << 10}


def _peak_bytes(case, chunk: int) -> int:
    tracemalloc.start()
    try:
        audit(case.mechanism, case.dataset, case.neighbour, epsilon=case.epsilon_claimed, delta=case.delta,
              samples=SAMPLES, seed=0, chunk_size=chunk, exact_epsilon=case.epsilon_exact, **CAPS)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.name)
def test_memory_per_output_stays_within_the_declaration(case):
    declared = declared_output_bytes(case.mechanism, (case.dataset, case.neighbour))
    assert declared is not None, f"{case.name} declares no output_bytes: a device audit would assume 8000 bytes"
    audit(case.mechanism, case.dataset, case.neighbour, epsilon=case.epsilon_claimed, delta=case.delta,
          samples=4096, seed=1, chunk_size=1024, **CAPS)  # one-time tables (quadratures, exact laws) built here
    small, large = _peak_bytes(case, SMALL), _peak_bytes(case, LARGE)
    per_output_and_side = (large - small) / (2 * (LARGE - SMALL))
    assert per_output_and_side <= declared, (case.name, small, large, per_output_and_side, declared)
    # and the whole peak, fixed parts included, fits the budget the larger chunk size is chosen for
    assert large <= 2 * LARGE * declared, (case.name, large, 2 * LARGE * declared)

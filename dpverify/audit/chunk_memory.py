"""Workers that keep a chunk's memory: glibc's malloc told to reuse the memory of freed chunk arrays (module of one job,
used by the process pool of :mod:`dpverify.audit.parallel` and the Dask workers of :mod:`dpverify.audit.distributed`).

An audit's worker draws and counts one chunk after another: a few arrays of 2^20 float64 (8 MiB) per chunk, freed
before the next. glibc gives blocks that large back to the system (mmap, or trimming the top of the heap) and the
next chunk faults the same amount in again, page by page:

- a **Dask worker** runs its tasks in a thread, which allocates from its own arena: measured on a Laplace audit,
  150,000-380,000 page faults per 5 x 10^7 outputs per side, about 10 % of the worker's CPU in system time, where the
  same chunks counted in the main thread of one process fault about 1,000 times; with the thresholds below a worker
  faults about 20,000 times and its system time drops by a factor of 6 (``benchmarks/parallel_cost.py``);
- a **forked pool worker** (``audit(workers=K)``): 40 rounds of a chunk's allocation pattern (8 MiB of Laplace
  outputs, a sorted copy, a mask) fault about 50,000 times in each worker, about 1,300 with the thresholds (the first
  round only); a Laplace audit of 3 x 10^7 outputs per side with ``workers=2`` on 2 cores went from 98,000 to 45,000
  faults in the workers, 0.55 to 0.22 s of their system time, 2.9 to 2.4 s wall (2026-11-26).
"""
from __future__ import annotations

import ctypes

__all__ = ["MMAP_THRESHOLD", "TRIM_THRESHOLD", "keep_chunk_memory"]

#: glibc's ``mallopt`` parameters (``malloc.h``).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
#: Blocks below this size come from the arena and are reused (glibc's largest allowed mmap threshold on 64-bit).
MMAP_THRESHOLD = 32 << 20
#: Free memory an arena keeps before it gives pages back to the system.
TRIM_THRESHOLD = 256 << 20


def keep_chunk_memory() -> bool:
    """Make glibc's malloc in this process keep and reuse the memory of a chunk's arrays (``mallopt``: mmap threshold
    32 MiB, trim threshold 256 MiB); True if it was set, False where the C library is not glibc.

    Called in every worker that counts chunks: a Dask worker (:func:`dpverify.audit.distributed.malloc_tuning_plugin`)
    and a process of :class:`dpverify.audit.parallel.ChunkRunner`'s pool. The cost: a worker keeps up to 256 MiB of
    freed memory per arena instead of returning it at once."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))

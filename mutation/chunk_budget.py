"""Mutation test of the chunk budget: make a declaration too small, or an output cost more, and see the test notice.

Usage (from the repository root)::

    python mutation/chunk_budget.py                     # every mutation below
    python mutation/chunk_budget.py --bugs noisy_max_declares_one_value --keep

The machinery of ``mutation/auditor.py`` (the package and tests/test_chunk_budget.py copied to a temporary directory,
one textual patch per run, pytest in the copy). A device audit's chunk size is ``20%`` of the device's free memory
over the declared bytes per output (docs/gpu.md), so a declaration below what an output really takes would let a GPU
audit run out of memory at 10^9 outputs; the test measures the real cost on numpy under ``tracemalloc``:

- ``noisy_max_declares_one_value``: noisy max and the exponential mechanism declare 8 bytes (the released value only);
- ``additive_declares_the_release_only``: additive noise and PrefixSum declare ``8 k`` for ``k`` coordinates (no
  temporaries, no statistic);
- ``sparse_vector_declares_its_flags``: the sparse vector family declares 64 bytes per run (the flags only);
- ``rappor_declares_its_bits``: RAPPOR declares one byte per bit;
- ``classifier_pairwise_features``: the logistic classifier's features gain every pairwise product ``x_i x_j`` (a
  ``(n, k, k)`` temporary: 3.2 KB per output of ``laplace_parallel``'s 20 coordinates, beyond its declaration).

Measured (2026-11-26): the unmutated copy passes; see the table this script prints.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "mutation"))  # run as a script or imported: the sibling scripts' machinery
import auditor as _base  # noqa: E402

Edit, Bug = _base.Edit, _base.Bug
TESTS = ("test_chunk_budget.py",)

BUGS: tuple = (
    Bug("noisy_max_declares_one_value", "noisy max and the exponential mechanism declare 8 bytes per output",
        (Edit("audit/standard/noisy_max.py",
              r"return float\(max\(DEVICE_OUTPUT_BYTES, BYTES_PER_ANSWER \* _answers\(dataset\)\.size \+ 256\)\)",
              "return 8.0"),)),
    Bug("additive_declares_the_release_only", "additive noise and PrefixSum declare 8 bytes per coordinate",
        (Edit("audit/known_bad.py", r"return float\(BYTES_PER_COORDINATE \* int\(k\) \+ BYTES_PER_OUTPUT\)",
              "return float(8 * int(k))"),)),
    Bug("sparse_vector_declares_its_flags", "the sparse vector family declares 64 bytes per run",
        (Edit("audit/standard/sparse_vector.py", r"^DEVICE_OUTPUT_BYTES = .*$", "DEVICE_OUTPUT_BYTES = 64"),)),
    Bug("rappor_declares_its_bits", "RAPPOR declares one byte per bit",
        (Edit("audit/standard/local.py", r"return 32\.0 \* self\.filter_size \+ 256\.0",
              "return 1.0 * self.filter_size"),)),
    Bug("classifier_pairwise_features", "the logistic classifier's features gain every pairwise product",
        (Edit("audit/classifier.py",
              r"features = FunctionTransformer\(lambda z: np\.concatenate\(\[z, z \* z\], axis=1\)\)",
              "features = FunctionTransformer(lambda z: np.concatenate([z, (z[:, :, None] * z[:, None, :])"
              ".reshape(len(z), -1)], axis=1))"),)),
)


def prepare(root: Path, bug) -> list[str]:
    """The package and this module's tests copied into ``root``; ``bug`` applied."""
    return _base.copy_with_tests(root, bug, [REPO / "tests" / name for name in TESTS])


def main(argv: list[str] | None = None) -> int:
    return _base.script_main(argv, doc=__doc__, bugs=BUGS, prepare=prepare, prefix="dpverify-mutation-chunk-budget-",
                             title="Mutation test of the chunk budget (tests/" + ", tests/".join(TESTS) + ")")


if __name__ == "__main__":
    sys.exit(main())

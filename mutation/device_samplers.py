"""Mutation test of the gradient samplers' device path: break a device-only step on purpose and see which test notices.

Usage (from the repository root)::

    python mutation/device_samplers.py                  # every mutation below
    python mutation/device_samplers.py --bugs device_skips_start --keep

The machinery of ``mutation/device_suite.py`` (the package and tests/test_backends_torch.py copied to a temporary
directory, one textual patch per run, pytest with the ``torch`` marker selected). Every mutation touches a step only
the device path runs, so that the tests' comparisons with numpy can see it:

- ``device_skips_start``: the device chains start at ``theta0``, skipping the sampler's ``start`` (the known-bad warm
  start and the hybrid sampler's OPS draws are lost on the device);
- ``device_standard_update``: the device runs the known-bad noise bugs (shared, reused noise) as the declared
  Euler-Maruyama update (the defect is lost, and the audit on the device would pass a leaking sampler);
- ``dense_batch_unclipped``: the dense batch gradient ignores the clip level;
- ``tempered_gradient_untempered``: OPS by MALA's tempered posterior on the device without ``rho`` on its gradient
  (the proposal then aims at the untempered posterior).

Measured (2026-11-26): the unmutated copy passes; see the table this script prints.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "mutation"))  # run as a script or imported: the sibling scripts' machinery
import auditor as _base  # noqa: E402
import device_suite as _device  # noqa: E402

Edit, Bug = _base.Edit, _base.Bug
TESTS = ("test_backends_torch.py",)

DEVICE = "samplers/device.py"
BUGS: tuple = (
    Bug("device_skips_start", "the device chains start at theta0, skipping the sampler's start",
        (Edit(DEVICE, r"theta = sampler\.start\(backend\.asarray\(np\.broadcast_to\(sampler\.theta0, \(n, d\)\)\), ddata, rng\)",
              "theta = backend.asarray(np.broadcast_to(sampler.theta0, (n, d)))"),)),
    Bug("device_standard_update", "the known-bad noise bugs run as the declared Euler-Maruyama update on the device",
        (Edit(DEVICE, r"return Kernel\(dense_estimator\(kernel\.estimator\), kernel\.integrator\)",
              "return Kernel(dense_estimator(kernel.estimator), EulerMaruyama() if type(kernel.integrator) in "
              "(SharedNoiseEulerMaruyama, ReusedNoiseEulerMaruyama) else kernel.integrator)"),)),
    Bug("dense_batch_unclipped", "the dense batch gradient ignores the clip level",
        (Edit(DEVICE, r"data_sum = self\.model\.dense_gradient_sum\(data\.prepared, theta, W, self\.clip\)",
              "data_sum = self.model.dense_gradient_sum(data.prepared, theta, W, None)"),)),
    Bug("tempered_gradient_untempered", "OPS by MALA's device gradient without the tempering rho",
        (Edit(DEVICE, r"return LogDensityAndGradient\(logp, self\.rho \* \(self\.model\.dense_grad_log_prior\(theta\) \+ g\)\)",
              "return LogDensityAndGradient(logp, self.model.dense_grad_log_prior(theta) + g)"),)),
)


def prepare(root: Path, bug) -> list[str]:
    """The package and this module's tests copied into ``root`` with the ``torch`` marker selected; ``bug`` applied."""
    return _device.copy_torch_tests(root, bug, TESTS)


def main(argv: list[str] | None = None) -> int:
    return _base.script_main(argv, doc=__doc__, bugs=BUGS, prepare=prepare, prefix="dpverify-mutation-device-samplers-",
                             title="Mutation test of the samplers' device path (tests/" + ", tests/".join(TESTS) + ")")


if __name__ == "__main__":
    sys.exit(main())

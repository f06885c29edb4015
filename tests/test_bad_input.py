"""Every public function of the core calculus rejects bad input with a message naming the argument.

Table-driven: (callable, kwargs, exception type, regex the message must match).
"""
import math

import pytest

from dpverify.calculus import composition, subsampling
from dpverify.interfaces.files import check_writable_dir
from dpverify.validation import check_finite_array, check_orders, check_positive_int
from dpverify.audit.split import check_outputs
from dpverify.samplers.registry import make
from dpverify.calculus.guarantees import ApproxDP, PureDP, RenyiDP
from dpverify.calculus.mechanisms import exponential, gaussian, laplace

NAN, INF = float("nan"), float("inf")

CASES = [
    # epsilon <= 0, NaN, inf
    (laplace.laplace_scale, dict(sensitivity=1.0, epsilon=0.0), ValueError, r"epsilon must be in \(0.0, inf\)"),
    (laplace.laplace_scale, dict(sensitivity=1.0, epsilon=-1.0), ValueError, r"epsilon"),
    (laplace.laplace_scale, dict(sensitivity=1.0, epsilon=NAN), ValueError, r"epsilon .*NaN"),
    (laplace.laplace_scale, dict(sensitivity=1.0, epsilon=INF), ValueError, r"epsilon must be a finite"),
    (laplace.laplace_scale, dict(sensitivity=0.0, epsilon=1.0), ValueError, r"sensitivity"),
    (laplace.laplace_scale, dict(sensitivity="1", epsilon=1.0), TypeError, r"sensitivity must be a real number"),
    (PureDP, dict(epsilon=0.0), ValueError, r"epsilon"),
    (ApproxDP, dict(epsilon=1.0, delta=1.0), ValueError, r"delta must be in \[0.0, 1.0\)"),
    (ApproxDP, dict(epsilon=1.0, delta=-1e-9), ValueError, r"delta"),
    (ApproxDP, dict(epsilon=-0.1, delta=0.0), ValueError, r"epsilon"),
    # delta outside [0, 1) / (0, 1)
    (gaussian.classic_gaussian_sigma, dict(sensitivity=1.0, epsilon=0.5, delta=0.0), ValueError, r"delta must be in \(0.0, 1.0\)"),
    (gaussian.classic_gaussian_sigma, dict(sensitivity=1.0, epsilon=0.5, delta=1.0), ValueError, r"delta"),
    (gaussian.classic_gaussian_sigma, dict(sensitivity=1.0, epsilon=2.0, delta=1e-5), ValueError, r"epsilon must be in \(0.0, 1.0\)"),
    (gaussian.analytic_gaussian_sigma, dict(sensitivity=1.0, epsilon=1.0, delta=NAN), ValueError, r"delta"),
    (gaussian.gaussian_delta, dict(epsilon=1.0, mu=-1.0), ValueError, r"mu must be in \[0.0, inf\)"),
    (gaussian.gaussian_epsilon, dict(delta=0.0, mu=1.0), ValueError, r"delta"),
    (laplace.laplace_epsilon, dict(delta=1.5, mu=1.0), ValueError, r"delta"),
    # composition
    (composition.advanced_composition, dict(epsilon=0.1, delta=0.0, k=2.5, delta_prime=1e-5), ValueError, r"k must be an integer"),
    (composition.advanced_composition, dict(epsilon=0.1, delta=0.0, k=0, delta_prime=1e-5), ValueError, r"k must be an integer >= 1"),
    (composition.advanced_composition, dict(epsilon=0.1, delta=0.0, k=10, delta_prime=0.0), ValueError, r"delta_prime"),
    (composition.advanced_composition, dict(epsilon=0.1, delta=0.2, k=10, delta_prime=1e-5), ValueError, r"no guarantee"),
    (composition.optimal_homogeneous_composition, dict(epsilon=0.1, delta=0.01, k=100, delta_total=0.1), ValueError, r"delta_total must exceed"),
    (composition.optimal_homogeneous_delta, dict(epsilon0=0.1, delta0=0.0, k=True, epsilon=1.0), TypeError, r"k must be an integer"),
    # sampling rate outside (0, 1]
    (subsampling.amplify_poisson, dict(epsilon=1.0, delta=0.0, q=0.0), ValueError, r"q must be in \(0.0, 1.0\]"),
    (subsampling.amplify_poisson, dict(epsilon=1.0, delta=0.0, q=1.5), ValueError, r"q must be in"),
    (subsampling.amplify_substitution, dict(epsilon=1.0, delta=0.0, q=NAN), ValueError, r"q .*NaN"),
    (subsampling.beimel_subsampling, dict(epsilon=0.5, delta=0.0, gamma=0.0), ValueError, r"gamma must be in \(0.0, 1.0\]"),
    # orders <= 1
    (check_orders, dict(values=[2.0, 1.0]), ValueError, r"orders must all be > 1"),
    (check_orders, dict(values=[]), ValueError, r"orders must be a non-empty"),
    (RenyiDP, dict(orders=(2.0, 3.0), epsilons=(0.1,)), ValueError, r"one value per order"),
    (RenyiDP, dict(orders=(2.0,), epsilons=(NAN,)), ValueError, r"NaN"),
    # non-integer counts, shapes
    (check_positive_int, dict(value=3.5, name="steps"), ValueError, r"steps must be an integer"),
    (check_positive_int, dict(value="3", name="steps"), TypeError, r"steps must be an integer"),
    (check_finite_array, dict(value=[1.0, NAN], name="value"), ValueError, r"value must contain only finite"),
    (check_finite_array, dict(value=[[1.0]], name="x", shape=(None, 2)), ValueError, r"x must have shape \(\*, 2\)"),
    (exponential.exponential_probabilities, dict(utilities=[], epsilon=1.0, utility_sensitivity=1.0), ValueError, r"utilities"),
    (exponential.exponential_probabilities, dict(utilities=[1.0, INF], epsilon=1.0, utility_sensitivity=1.0), ValueError, r"utilities"),
    # mechanism outputs (dpverify.audit.split.check_outputs)
    (check_outputs, dict(out=[[]] * 3, n=3, side="dataset", reference_shape=None), ValueError, r"at least one value each; got shape \(3, 0\)"),
    (check_outputs, dict(out=[1.0, INF, 2.0], n=3, side="dataset", reference_shape=None), ValueError, r"infinite outputs \(\+inf\) on dataset"),
    (check_outputs, dict(out=[1.0, -INF, 2.0], n=3, side="neighbour", reference_shape=None), ValueError, r"infinite outputs \(-inf\) on neighbour"),
    (check_outputs, dict(out=[1j, 2.0, 3.0], n=3, side="dataset", reference_shape=None), ValueError, r"must be real numbers; got complex"),
    (check_outputs, dict(out=[1.0, NAN, 2.0], n=3, side="dataset", reference_shape=None), ValueError, r"NaN outputs on dataset"),
    (check_outputs, dict(out=[1.0, 2.0], n=3, side="dataset", reference_shape=None), ValueError, r"asked for n=3 on dataset, got shape \(2,\)"),
    # sampler parameters by name (dpverify.samplers.registry.make)
    (make, dict(sampler_id="laplace_mechanism", epsilonn=1.0), ValueError, r"unknown parameter\(s\) 'epsilonn'.*its parameters are: epsilon, "),
    (make, dict(sampler_id="ula_final"), ValueError, r"needs parameter\(s\) model, N, step_size, n_steps"),
    (make, dict(sampler_id="no_such_sampler"), KeyError, r"no sampler with ID 'no_such_sampler'"),
]


@pytest.mark.parametrize("func, kwargs, exc, pattern", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_bad_input_raises_clear_error(func, kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        func(**kwargs)


def test_valid_extremes_give_no_nan():
    """epsilon up to 100 and delta down to 1e-300 are valid and give finite numbers."""
    assert math.isfinite(gaussian.analytic_gaussian_sigma(1.0, 100.0, 1e-300))
    assert math.isfinite(gaussian.gaussian_epsilon(1e-300, 1.0))
    d = gaussian.gaussian_delta(100.0, 1.0)  # e^-4955: underflows to 0.0, must not be NaN
    assert d == d and 0.0 <= d < 1e-300
    assert math.isfinite(subsampling.amplify_poisson(100.0, 1e-300, 1e-3).epsilon)
    adv = composition.advanced_composition(100.0, 1e-300, 10, 1e-300)
    assert adv.epsilon == pytest.approx(math.sqrt(20 * 300 * math.log(10)) * 100 + 1000 * math.expm1(100.0))


def test_report_directory_that_is_a_file_is_named(tmp_path):
    target = tmp_path / "r"
    target.write_text("x")
    with pytest.raises(ValueError, match=r"--report must be a directory; .* exists and is not a directory"):
        check_writable_dir(target)
    with pytest.raises(ValueError, match=r"--out .*: a parent of it exists and is not a directory"):
        check_writable_dir(target / "sub", what="--out")

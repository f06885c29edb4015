"""The Theorem object: evaluation, hypotheses, checks, display and registry behaviour."""
import json
import math

import pytest
import sympy as sp

from dpverify.theorems import registry
from dpverify.theorems.base import (
    Check,
    EmpiricalLink,
    Erratum,
    Hypothesis,
    HypothesisError,
    Source,
    Theorem,
)


def make_theorem() -> Theorem:
    """A toy version of the OPS statement, eps = 4B, used only to test the machinery."""
    B, eps = sp.symbols("B epsilon", positive=True)
    thm = Theorem(
        "wang2015.toy_test_item",
        "toy: bounded log-likelihood gives 4B-DP",
        Source("wang2015", "Theorem 1", "Sec. 3"),
        "privacy",
        symbols={"B": B, "epsilon_target": eps},
        hypotheses=[Hypothesis("B_small", B <= eps / 4, "B at most a quarter of the target")],
        conclusion={"epsilon": 4 * B, "delta": 0},
        statement="If sup |log p(x|theta)| <= B, one posterior sample is 4B-DP.",
        errata=[Erratum("none really", "4B", "4B", check="two_factors")],
        empirical=[EmpiricalLink("ops_beta_bernoulli", "audits/test_ops.py::test_ops")],
    )

    @thm.add_check("two_factors", "symbolic", "each factor <= exp(2B)")
    def _():
        return sp.simplify(sp.log(sp.exp(2 * B) * sp.exp(2 * B)) - 4 * B) == 0, "log(e^{2B} e^{2B}) = 4B"

    return thm


def test_evaluate_inside_hypotheses():
    thm = make_theorem()
    res = thm.evaluate(B=0.25, epsilon_target=1.0)
    assert res.guaranteed
    assert res.epsilon == pytest.approx(1.0)
    assert res["delta"] == 0.0
    assert res.hypotheses == {"B_small": True}


def test_evaluate_outside_hypotheses_names_the_hypothesis():
    thm = make_theorem()
    with pytest.raises(HypothesisError, match="B_small"):
        thm.evaluate(B=1.0, epsilon_target=1.0)
    res = thm.evaluate(B=1.0, epsilon_target=1.0, allow_unguaranteed=True)
    assert not res.guaranteed and res.failed == ["B_small"]
    assert res.epsilon == pytest.approx(4.0)


@pytest.mark.parametrize(
    "values, match",
    [
        ({"B": 0.1}, "missing value"),
        ({"B": -1.0, "epsilon_target": 1.0}, "B must be > 0"),
        ({"B": 0.1, "epsilon_target": 1.0, "zzz": 3}, "unknown parameter"),
        ({"B": float("nan"), "epsilon_target": 1.0}, "B must be"),
    ],
)
def test_evaluate_bad_input(values, match):
    with pytest.raises(ValueError, match=match):
        make_theorem().evaluate(**values)


def test_checks_run_and_failures_are_reported_not_raised():
    thm = make_theorem()
    thm.checks.append(Check("boom", "numeric", lambda: 1 / 0))
    thm.checks.append(Check("wrong", "numeric", lambda: (False, "2 != 3", 2, 3)))
    results = {r.name: r for r in thm.run_checks()}
    assert results["two_factors"].passed
    assert not results["boom"].passed and "ZeroDivisionError" in results["boom"].detail
    assert not results["wrong"].passed and results["wrong"].expected == 2
    json.dumps([r.to_dict() for r in results.values()])


def test_display_and_serialisation():
    thm = make_theorem()
    text = thm.explain()
    assert "Theorem 1" in text and "B_small" in text and "4*B" in text
    latex = thm._repr_latex_()
    assert latex.startswith("$") and "4 B" in latex
    d = thm.to_dict()
    json.dumps(d)
    assert d["parameters"] == ["B", "epsilon_target"]


def test_construction_errors():
    x = sp.Symbol("x", positive=True)
    y = sp.Symbol("y")
    with pytest.raises(ValueError, match="not declared"):
        Theorem("wang2015.bad", "t", Source("wang2015", "Thm"), "privacy", symbols={"x": x}, conclusion={"e": x + y})
    with pytest.raises(ValueError, match="kind"):
        Theorem("wang2015.bad", "t", Source("wang2015", "Thm"), "nonsense")
    with pytest.raises(ValueError, match="paper"):
        Source("nobody2020", "Thm 1")
    with pytest.raises(ValueError, match="id must look like"):
        Theorem("li2019.bad", "t", Source("wang2015", "Thm"), "privacy")


def test_large_values_do_not_overflow():
    n = sp.Symbol("n", positive=True)
    thm = Theorem("wang2015.toy_big", "big", Source("wang2015", "x"), "privacy",
                  symbols={"n": n}, conclusion={"epsilon": sp.exp(n)})
    from dpverify.theorems.base import ConclusionOverflow

    with pytest.warns(ConclusionOverflow):
        ev = thm.evaluate(n=1000)
    assert ev.epsilon == math.inf and ev.overflowed == {"epsilon": "1.97007e+434"}


def test_registry_rejects_unknown_ids_with_hint():
    with pytest.raises(KeyError, match="no theorem"):
        registry.get("wang2015.no_such_item")


# --- pins, optional inputs, unknown IDs ------------------------------------------------------------------------

def test_add_pin_reads_the_registered_conclusion():
    thm = make_theorem()
    check = thm.add_pin("pin_by_hand", "4B by hand; rel 1e-12", lambda: [({"B": 0.1, "epsilon_target": 1.0}, {"epsilon": 0.4})],
                        rel=1e-12)
    assert check.kind == "numeric" and "epsilon" in check.pins
    assert check.run().passed
    thm.conclusion["epsilon"] = 5 * thm.symbols["B"]  # a perturbed statement must fail the pin
    result = check.run()
    assert not result.passed and "evaluated 0.5" in result.detail and result.expected == pytest.approx(0.4)


def test_add_pin_rejects_bad_tolerances_and_empty_cases():
    thm = make_theorem()
    with pytest.raises(ValueError, match="rel and abs_tol"):
        thm.add_pin("bad", "", lambda: [], rel=-1.0)
    empty = thm.add_pin("empty", "", lambda: [], rel=1e-9)
    assert not empty.run().passed  # a pin that pins nothing is a failure, not a pass


def test_optional_inputs_omit_conclusions_and_leave_hypotheses_unchecked():
    x, y, z = sp.symbols("x y z", positive=True)
    thm = Theorem("wang2015.toy_optional", "toy", Source("wang2015", "x"), "privacy",
                  symbols={"x": x, "y": y, "z": z},
                  hypotheses=[Hypothesis("z_small", z < 1, "needs z only")],
                  conclusion={"a": 2 * x, "b": x + y},
                  optional={"y": "only b", "z": "only the hypothesis"})
    ev = thm.evaluate(x=1.5)
    assert ev.conclusion == {"a": 3.0} and ev.omitted == {"b": ["y"]}
    assert ev.unchecked == ["z_small"] and not ev.guaranteed and ev.failed == []
    with pytest.raises(KeyError, match="needs y"):
        ev["b"]
    full = thm.evaluate(x=1.5, y=2.0, z=0.5)
    assert full.guaranteed and full.b == 3.5 and full.unchecked == [] and full.omitted == {}
    with pytest.raises(HypothesisError, match="z_small"):
        thm.evaluate(x=1.5, z=2.0)
    with pytest.raises(ValueError, match="missing value"):
        thm.evaluate(y=1.0)  # x is required
    json.dumps(ev.to_dict())
    with pytest.raises(ValueError, match="not symbols"):
        Theorem("wang2015.toy_bad_optional", "t", Source("wang2015", "x"), "privacy", symbols={"x": x},
                conclusion={"a": x}, optional={"w": "no such symbol"})


def test_registry_refuses_ids_outside_the_catalogue():
    from dpverify.theorems import catalogue

    thm = make_theorem()  # wang2015.toy_test_item is not a catalogue ID
    with pytest.raises(KeyError, match="not a catalogue ID"):
        registry.register(thm)
    with pytest.raises(KeyError, match="did you mean wang2015.thm1_ops_pure_dp"):
        catalogue.item("wang2015.thm1_ops_pure_pd")
    with pytest.raises(ValueError, match="paper must be one of"):
        registry.all_theorems("wang2016")
    assert sorted(registry.ids()) == sorted(catalogue.ids()) and len(catalogue.ids()) == 116


def test_evaluation_names_a_missing_conclusion():
    res = make_theorem().evaluate(B=0.25, epsilon_target=1.0)
    with pytest.raises(AttributeError, match="no conclusion 'epsilonn'"):
        res.epsilonn  # noqa: B018 - the access itself is what is tested


def test_a_conclusion_beyond_float64_is_announced_not_silently_inf():
    """Issue 36: a theorem evaluated where its conclusion overflows returned inf without a word. Wang et al. 2015,
    Thm 1 (OPS is 4B-DP) at B = 1e308: epsilon = 4e308 is finite but beyond float64."""
    import warnings

    from dpverify.theorems import registry
    from dpverify.theorems.base import ConclusionOverflow

    theorem = registry.get("wang2015.thm1_ops_pure_dp")
    with pytest.warns(ConclusionOverflow, match=r"epsilon = 4\.0+e\+308 exceeds float64"):
        ev = theorem.evaluate(B=1e308)
    assert ev.epsilon == float("inf") and ev.overflowed == {"epsilon": "4.00000e+308"}
    assert ev.to_dict()["overflowed_conclusions"] == {"epsilon": "4.00000e+308"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert theorem.evaluate(B=1e300).overflowed == {}  # 4e300 fits: no warning

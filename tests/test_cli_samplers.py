"""`dpverify samplers list|show` and the discoverability of `--param` names (registry.parameters, registry.make)."""
from __future__ import annotations

import inspect
import json
import re

import pytest

from dpverify.interfaces.cli import main
from dpverify.samplers import registry


def test_every_constructor_parameter_of_every_sampler_has_a_documented_range():
    missing = [(cls.id, p.name) for cls in registry.all_samplers() for p in registry.parameters(cls.id) if not p.range]
    assert not missing, f"add these to registry.PARAMETER_RANGES: {missing}"


def test_parameters_follow_the_constructor_signature():
    for cls in registry.all_samplers():
        sig = [p for p in inspect.signature(cls).parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        params = registry.parameters(cls.id)
        assert [p.name for p in params] == [p.name for p in sig]
        for mine, theirs in zip(params, sig):
            assert mine.required == (theirs.default is theirs.empty)
            if not mine.required:
                assert mine.default == theirs.default or (mine.default is None and theirs.default is None)


def test_samplers_show_lists_types_defaults_and_ranges(capsys):
    assert main(["samplers", "show", "dp_sgld_wang"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"parameter\s+type\s+default\s+audit case\s+allowed values", out)
    assert re.search(r"tau\s+int\s+\(required\)\s+2\s+integer in \[1, N\]: mini-batch size", out)
    assert re.search(r"privacy_noise\s+bool\s+True\s+true/false", out)
    assert "dpverify audit dp_sgld_wang --param NAME=VALUE" in out


def test_samplers_show_json(capsys):
    assert main(["samplers", "show", "laplace_mechanism", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    by_name = {p["name"]: p for p in rec["parameters"]}
    assert by_name["epsilon"] == {"name": "epsilon", "type": "float", "required": False, "default": 1.0,
                                  "range": "> 0: the target epsilon the sampler is calibrated for"}
    assert by_name["query"]["range"].startswith("'count' or 'mean'")


def test_unknown_sampler_in_show_is_a_clear_error(capsys):
    assert main(["samplers", "show", "laplace_mech"]) == 2
    err = capsys.readouterr().err
    assert "no sampler with ID 'laplace_mech'; did you mean laplace_mechanism" in err


def test_unknown_param_name_lists_the_valid_ones():
    with pytest.raises(ValueError) as info:
        registry.make("laplace_mechanism", epsilonn=1.0, colour="red")
    msg = str(info.value)
    assert "unknown parameter(s) 'colour', 'epsilonn' for sampler 'laplace_mechanism'" in msg
    assert "'epsilonn' -> 'epsilon'?" in msg
    assert "its parameters are: epsilon, query, lower, upper, unguaranteed" in msg
    with pytest.raises(ValueError, match=r"sampler 'ula_final' needs parameter\(s\) model, N, step_size, n_steps"):
        registry.make("ula_final")


def test_unknown_param_through_the_audit_command(capsys):
    assert main(["audit", "laplace_mechanism", "--param", "epsilonn=2"]) == 2
    err = capsys.readouterr().err
    assert "its parameters are: epsilon, query, lower, upper, unguaranteed" in err
    assert "dpverify samplers show laplace_mechanism" in err


def test_audit_workers_give_the_same_numbers_and_reject_zero(capsys):
    """``dpverify audit --workers 2`` counts in two processes: the certified bound and counts are the single-process
    ones (every chunk has its own seed; counts are summed), and ``--workers 0`` is a usage error naming the flag."""
    import json

    from dpverify.interfaces.cli import main

    results = []
    for workers in ("1", "2"):
        assert main(["audit", "laplace_mechanism", "--samples", "50000", "--workers", workers, "--json"]) in (0, 1)
        results.append(json.loads(capsys.readouterr().out))
    assert results[0]["epsilon_lower"] == results[1]["epsilon_lower"] and results[0]["counts"] == results[1]["counts"]
    assert main(["audit", "laplace_mechanism", "--workers", "0"]) == 2
    assert "argument --workers: must be an integer in [1, 1024]; got '0'" in capsys.readouterr().err

"""The provable forms of the catalogue's privacy statements, one module per paper (:mod:`.base` says what a form
is). :data:`FORMS` maps each catalogue ID to its :class:`~dpverify.prove.forms.base.ItemForm`."""
from __future__ import annotations

from dpverify.prove.forms import (barker, bertazzi2025, conjugate, foulds2016, gibbs_posterior, li2019,
                                  negative_results, penalty, shifted_interpolation, supporting, wang2015)
from dpverify.prove.forms.base import ItemForm, Part, problem_for

__all__ = ["FORMS", "ItemForm", "Part", "problem_for"]

_MODULES = (wang2015, li2019, bertazzi2025, foulds2016, supporting, conjugate, penalty, barker, gibbs_posterior,
            shifted_interpolation, negative_results)

FORMS: dict[str, ItemForm] = {}
for _module in _MODULES:
    for _form in _module.FORMS:
        if _form.theorem_id in FORMS:  # pragma: no cover - a duplicate in a forms module
            raise RuntimeError(f"two provable forms for {_form.theorem_id}")
        FORMS[_form.theorem_id] = _form

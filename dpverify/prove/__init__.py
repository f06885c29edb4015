"""Proofs over whole domains: ``dpverify prove`` (issue 35).

A catalogue item's privacy statement, put in provable form (:class:`~dpverify.prove.problem.ProofProblem`: a
claimed quantity, a comparator -- the exact privacy or a rigorous bound on it --, a box and the hypotheses), is
decided by a branch and bound in interval arithmetic on Arb (:mod:`dpverify.prove.search`): **proved** on every
point of the box, with a certificate (:mod:`dpverify.prove.certificate`) that an independent checker
(:mod:`dpverify.prove.checker`) re-verifies; **refuted**, with a box where the claim certainly fails and a witness
re-evaluated at 50 digits; or **undecided**, with the boxes left and why.

:func:`prove` takes a catalogue ID, a problem, or a researcher's own bound (``claimed=``, ``comparator=``,
``box=``; :mod:`dpverify.prove.api`).
"""
from __future__ import annotations

from dpverify.prove.api import custom_problem, prove
from dpverify.prove.catalogue import ItemProof, prove_all, prove_item
from dpverify.prove.certificate import certificate, write_certificate
from dpverify.prove.checker import CheckReport, check_certificate
from dpverify.prove.problem import BoxError, Constraint, Parameter, ProofProblem, make_problem
from dpverify.prove.results import Proof, ProofResult, Refutation, Undecided
from dpverify.prove.search import DEFAULT_PRECISION, Limits, ProverInconsistency

__all__ = [
    "BoxError",
    "CheckReport",
    "Constraint",
    "ItemProof",
    "DEFAULT_PRECISION",
    "Limits",
    "Parameter",
    "Proof",
    "ProofProblem",
    "ProofResult",
    "ProverInconsistency",
    "Refutation",
    "Undecided",
    "certificate",
    "check_certificate",
    "custom_problem",
    "make_problem",
    "prove",
    "prove_all",
    "prove_item",
    "write_certificate",
]

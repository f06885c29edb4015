"""Provable forms of Bertazzi, Johnston, Roberts and Durmus (ICML 2025): from TV convergence to DP (Prop. 3.2,
Cor. 3.3), noisy Monte Carlo estimators (Props 3.7, 3.10), the Radon-Nikodym lemmas (Lemmas 4.1, 4.2), the path
and final-value bounds of diffusions (Props 4.5, 4.6) and of ULA / noisy SGD (Thms 5.2, 5.4, 5.6, 5.7, 5.8).

The statements are the catalogue's reconstructions (:mod:`dpverify.theorems.bertazzi2025`). Each part compares the
item's conclusion (read through the ``item`` argument, so that a hypothesis mutant flows through) with the exact
privacy of a family of mechanisms that satisfies the statement's hypotheses; where the statement is general (any
drift, any chain) a proof is a proof on that family (its ``scope`` says which) and a refutation refutes the statement.

Comparators, item by item (each docstring below gives the reduction):

- Lemmas 4.1, 4.2 and the path bounds (Prop. 4.5, Thms 5.4, 5.8): the *deterministic-drift* family, whose privacy
  loss is exactly Gaussian (Girsanov with a deterministic theta; for the Euler chains, a composition of Gaussian
  mechanisms): the exact profile of the Gaussian mechanism (Balle and Wang 2018, Thm 8) and its Renyi divergence
  ``alpha mu^2 / 2`` (Mironov 2017, Prop. 7), at ``mu^2`` = the energy the conclusion implies (``2 rdp / alpha``);
- the final-state bounds (Thms 5.2, 5.6, 5.7): ULA / full-batch noisy SGD on quadratic potentials with an affine data
  term (a linear-Gaussian chain; ``dpverify.theorems.final_state.runs.ula_run``), whose final iterate is a Gaussian
  mechanism; the supremum of its exact RDP over the number of steps and the curvature, in closed form; the
  (epsilon, delta) part through Lemma 4.1 at that exact energy (a rigorous upper bound on the family's epsilon);
- Prop. 4.6: linear drifts ``-lambda x + c_D`` (constant shifts and Ornstein-Uhlenbeck pairs), whose final value is
  Gaussian; the supremum of the exact RDP over the family members the constants (K, L, R) admit;
- Props 3.2, 3.7, 3.10 and Cor. 3.3: every event, with the probabilities the hypotheses allow (as
  :func:`dpverify.prove.forms.wang2015.approx_sampling_delta`); the Laplace mechanism's exact epsilon (Dwork et al.
  2006) for the Laplace noise of Prop. 3.7; the linear program of the triangle inequality for Prop. 3.10's
  sensitivity.

Two reparametrisations recur (each problem's box is printed in them): ``delta = exp(-ell^2 / 2)``, i.e.
``ell = sqrt(2 log(1/delta))`` (``log(1/delta)`` has a singular derivative at delta = 1 and no bound at 0; in ell the
Gaussian profiles are smooth), and ``mu = sqrt(energy)``, the shift of the Gaussian pair. The final-state theorems
are read in ``r = m / M`` and ``q = 1 - h M^2 / (2 m)`` (the step-size hypothesis ``0 < h < 2m/M^2`` is the box
``0 < q < 1``, and the singular edge ``h -> 2m/M^2`` of the claim is the face ``q = 0``, where the normalised margin
is regular).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import sympy as sp

from dpverify.prove.comparators import gaussian_rdp, laplace_epsilon, normal_cdf
from dpverify.prove.forms.base import ItemForm, ItemVariant, Part, StatementLike, problem_for, with_hypotheses
from dpverify.prove.forms.common import LOG, epsilon_ceiling, scale_ceiling, symbol_of
from dpverify.prove.problem import ProofProblem

__all__ = ["FORMS", "ELL", "MU", "delta_of_ell", "gaussian_profile", "final_state_sup_energy",
           "linear_drift_sup_energy"]

#: ``ell = sqrt(2 log(1/delta))``: delta = exp(-ell^2/2).
ELL = sp.Symbol("ell", nonnegative=True)
#: The shift of a Gaussian pair, ``mu = sqrt(energy)``.
MU = sp.Symbol("mu", positive=True)
#: The final-state theorems' coordinates: ``m = r M``, ``h = 2 (1 - q) m / M^2``.
_R = sp.Symbol("r", positive=True)
_Q = sp.Symbol("q", positive=True)
_S = sp.Symbol("s", positive=True)  # h = 2 s m / M^2 (only where the step-size hypothesis is dropped)
#: Prop. 4.6's family: ``z = exp(-lambda T)`` (:func:`linear_drift_sup_energy`).
_Z = sp.Symbol("z", nonnegative=True)
#: Event-level coordinates, all in [0, 1].
_V, _U, _T = sp.Symbol("v", nonnegative=True), sp.Symbol("u", nonnegative=True), sp.Symbol("t", nonnegative=True)
_A, _B = sp.Symbol("a", nonnegative=True), sp.Symbol("b", nonnegative=True)
_ETA = sp.Symbol("eta", nonnegative=True)
_S1, _S2 = sp.Symbol("s1", nonnegative=True), sp.Symbol("s2", nonnegative=True)

#: ell <= 38: delta >= exp(-722) ~ 2.6e-314, below the 1e-300 floor of the other forms.
ELL_DECLARED = (None, 38, "<= 38, i.e. delta >= exp(-722) ~ 2.6e-314 (log(1/delta) is unbounded as delta -> 0; "
                          "covers delta >= 1e-300)")
MU_DECLARED = (None, 100, "<= 100, i.e. energy <= 1e4 (unbounded above; the claimed epsilon is then >= 5000: no "
                          "privacy)")


#: Ranges for symbols that a correct claim cancels but a mutated one may leave in the margin (a conclusion
#: perturbed by the catalogue's mutation tests): each is unbounded above in the statement.
_SPARE_DECLARED: dict[str, tuple[object | None, object | None, str]] = {
    "alpha": (None, 10**4, "<= 1e4 (Renyi orders; unbounded above)"),
    "beta": (None, 100, "<= 100 (unbounded above)"),
    "K": (None, 100, "<= 100 (unbounded above)"),
    "K_ell": (None, 100, "<= 100 (unbounded above)"),
    "h": (None, 100, "<= 100 (unbounded above)"),
    "T": (None, 10**4, "<= 1e4 (unbounded above)"),
    "k": (None, 10**6, "<= 1e6 (unbounded above)"),
    "tau": (None, 100, "<= 100 (unbounded above)"),
    "N": (None, 100, "<= 100 (unbounded above)"),
    "energy": (None, 10**4, "<= 1e4 (unbounded above)"),
    "epsilon_xi": epsilon_ceiling(),
    "sensitivity": (None, 100, "<= 100 (unbounded above)"),
}


def _declared(**specific: tuple[object | None, object | None, str]) -> dict:
    """:data:`_SPARE_DECLARED` with the part's own limits on top."""
    return {**_SPARE_DECLARED, **specific}


def delta_of_ell(ell: sp.Expr = ELL) -> sp.Expr:
    """``exp(-ell^2 / 2)``: the delta whose ``sqrt(2 log(1/delta))`` is ``ell``."""
    return sp.exp(-ell**2 / 2)


def gaussian_profile(epsilon: sp.Expr, mu: sp.Expr, ratio: sp.Expr | None = None) -> sp.Expr:
    """The exact delta of the Gaussian mechanism with shift ``mu`` at ``epsilon``,
    ``Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)`` (Balle and Wang 2018, Thm 8; the same expression as
    :func:`dpverify.prove.comparators.gaussian_delta`), with ``eps/mu`` given as ``ratio`` or expanded, so that a
    shift that cancels (``eps`` proportional to ``mu``) cancels symbolically and the profile is regular at mu = 0.
    A given ``ratio`` is checked to equal ``eps/mu``."""
    if ratio is None:
        ratio = sp.expand(epsilon / mu)
    elif sp.simplify(ratio - epsilon / mu) != 0:
        raise ValueError(f"{ratio} is not {epsilon} / {mu}")
    return normal_cdf(mu / 2 - ratio) - sp.exp(epsilon) * normal_cdf(-mu / 2 - ratio)


# ---------------------------------------------------------------------------------------------- item variants

_OPS = {"<": sp.StrictLessThan, "<=": sp.LessThan, ">": sp.StrictGreaterThan, ">=": sp.GreaterThan}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _linear_bound(rel: sp.Basic) -> sp.Basic:
    """A hypothesis with the positive factors of ``lhs - rhs`` divided out when that leaves a one-symbol linear
    bound (``M r <= M`` becomes ``r <= 1``) or a relation the symbols' assumptions decide (``True``), so that
    one-symbol bounds reach the box; any other hypothesis is returned as it is."""
    if not isinstance(rel, sp.core.relational.Relational) or rel.rel_op not in _OPS:
        return rel
    num, den = sp.fraction(sp.factor(sp.together(rel.lhs - rel.rhs)))
    op = rel.rel_op
    kept = []
    for f in sp.Mul.make_args(num) + tuple(1 / f for f in sp.Mul.make_args(den)):
        if f.is_positive:
            continue
        if f.is_negative:
            op = _FLIPPED[op]
            continue
        kept.append(f)
    lhs = sp.Mul(*kept)
    out = _OPS[op](lhs, 0)
    if out in (sp.true, sp.false):
        return out
    if len(lhs.free_symbols) != 1:
        return rel
    (sym,) = lhs.free_symbols
    if not lhs.is_polynomial(sym):
        return rel
    poly = sp.Poly(lhs, sym)
    if poly.degree() != 1 or not all(c.is_number for c in poly.all_coeffs()):
        return rel
    a, b = poly.all_coeffs()
    return _OPS[op if a > 0 else _FLIPPED[op]](sym, -b / a)


def _variant(item: StatementLike, subs: Mapping[sp.Symbol, sp.Expr], *,
             drop: Sequence[str] = ()) -> ItemVariant:
    """``item`` with ``subs`` applied to its hypotheses (each then reduced by :func:`_linear_bound`; those that
    become true are dropped), and the hypotheses named in ``drop`` left out (each docstring says why)."""
    hyps = []
    for h in item.hypotheses:
        if h.name in drop:
            continue
        cond = _linear_bound(sp.sympify(h.condition).xreplace(dict(subs)))
        if cond in (sp.true, True):
            continue
        hyps.append(type(h)(h.name, cond, getattr(h, "description", "")))
    return with_hypotheses(item, hyps)


def _names(item: StatementLike) -> set[str]:
    return {h.name for h in item.hypotheses}


def _outside(item: StatementLike, *exprs: sp.Expr, subs: Mapping[sp.Symbol, sp.Expr] | None = None) -> list[str]:
    """The hypotheses of ``item`` whose symbols (after ``subs``) all lie outside ``exprs``: they bound quantities
    that cancel from the inequality (each is satisfiable for every value of the others), so leaving them out does
    not change the domain of the inequality."""
    used = set().union(*(sp.sympify(e).free_symbols for e in exprs))
    return [h.name for h in item.hypotheses
            if not (sp.sympify(h.condition).xreplace(dict(subs or {})).free_symbols & used)]


def _with_margin(build_problem, margin: sp.Expr) -> ProofProblem:
    """``build_problem(margin)`` with the given form of the margin (a sum of terms that are each certainly >= 0 on
    the box for the registered claim: one enclosure decides it); a claim of another form (a perturbed conclusion),
    for which that identity fails, gets the plain difference (``build_problem(None)``)."""
    try:
        return build_problem(margin)
    except ValueError:
        return build_problem(None)


_GAUSSIAN_SOURCE = "the Gaussian mechanism's exact privacy profile (Balle and Wang 2018, Thm 8)"
_RDP_SOURCE = "the Renyi divergence of two Gaussians, alpha mu^2/2 (Mironov 2017, Prop. 7)"
_DETERMINISTIC = ("the deterministic-drift family (Girsanov with a deterministic theta, int |theta|^2 dt = energy: "
                  "the privacy loss is exactly N(energy/2, energy), a Gaussian mechanism with mu^2 = energy)")


# ---------------------------------------------------------------------------------------------- Lemma 4.1 and kin
def _energy_epsilon(item: StatementLike, energy_subs: Mapping[sp.Symbol, sp.Expr], scope: str) -> ProofProblem:
    """claimed delta >= the exact delta of the Gaussian mechanism with ``mu = sqrt(energy)`` at the claimed epsilon.
    ``energy_subs`` writes one of the item's symbols through ``mu`` so that the energy is ``mu^2``; delta is
    ``exp(-ell^2/2)``. The claimed epsilon is then ``mu^2/2 + ell mu`` and the profile
    ``Phi(-ell) - e^{mu^2/2 + ell mu} Phi(-mu - ell)``."""
    delta = symbol_of(item, "delta")
    subs = {**energy_subs, delta: delta_of_ell()}
    eps = sp.expand(item.conclusion["epsilon"].xreplace(subs))
    comparator = gaussian_profile(eps, MU)
    drop = _outside(item, eps, comparator, delta_of_ell(), subs=subs)  # the Renyi order, a batch size: not in it
    variant = _variant(item, subs, drop=drop)
    return problem_for(variant, "epsilon", claimed=delta_of_ell(), comparator=comparator,
                       declared=_declared(ell=ELL_DECLARED, mu=MU_DECLARED), scales={"mu": LOG},
                       comparator_source=_GAUSSIAN_SOURCE, quantity="delta at the claimed epsilon",
                       scope=scope + "; box in mu = sqrt(energy) and ell = sqrt(2 log(1/delta))")


def _lemma41(item: StatementLike) -> ProofProblem:
    """Lemma 4.1 (+ B.3): an a.s. Girsanov budget C gives epsilon = C/2 + sqrt(2 C log(1/delta)). On the
    deterministic-drift family the log Radon-Nikodym derivative is exactly N(C/2, C): the pair is the Gaussian
    mechanism with mu = sqrt(C), whose delta at the claimed epsilon must be at most delta."""
    return _energy_epsilon(item, {symbol_of(item, "energy"): MU**2}, _DETERMINISTIC)


def _lemma42(item: StatementLike) -> ProofProblem:
    """Lemma 4.2 (+ B.2): RDP alpha C / 2; on the deterministic-drift family the Renyi divergence is exactly
    ``alpha mu^2/2`` with mu^2 = C (an identity: the lemma is tight there)."""
    energy = symbol_of(item, "energy")
    comparator = gaussian_rdp(symbol_of(item, "alpha"), sp.sqrt(energy))
    return _identity(item, "rdp", item.conclusion["rdp"], comparator, _DETERMINISTIC, _RDP_SOURCE)


def _identity(item: StatementLike, part: str, claimed: sp.Expr, comparator: sp.Expr, scope: str, source: str,
              declared: Mapping[str, tuple] | None = None, quantity: str = "") -> ProofProblem:
    """claimed >= ``comparator`` where the two are the same function (the claim is exact on the family): the
    margin ``claimed / comparator - 1`` (scale: the comparator, positive) is identically 0, and no hypothesis
    bounds it. A perturbed claim leaves a margin in the symbols it no longer cancels (:data:`_SPARE_DECLARED`)."""
    margin = sp.simplify(claimed / comparator - 1)
    variant = _variant(item, {}, drop=_outside(item, margin))
    return problem_for(variant, part, claimed=claimed, comparator=comparator, margin=margin, scale=comparator,
                       declared=_declared(**(declared or {})), comparator_source=source, scope=scope,
                       quantity=quantity)


# ---------------------------------------------------------------------------------------------- path bounds
def _path_epsilon(gap_of_mu):
    def build(item: StatementLike) -> ProofProblem:
        """The path of a chain whose drift gap between D and D' is a constant of norm K (Prop. 4.5; per step
        h K for Thm 5.4, h K_ell / tau for Thm 5.8 at full batch): the path is a bijection of the innovations, so
        its privacy is the composition of Gaussian mechanisms, one Gaussian mechanism with
        ``mu^2 = beta K^2 T / 2`` (T = k h), the energy of the conclusion (2 rdp / alpha). The constant is
        written through mu (``gap_of_mu``), which leaves the claim a function of (mu, delta) alone."""
        key, value = gap_of_mu(item)
        return _energy_epsilon(item, {key: value}, _PATH_SCOPE[item.id])
    return build


def _path_rdp(gap_of_mu):
    def build(item: StatementLike) -> ProofProblem:
        """The path's exact Renyi divergence on the same family, ``alpha mu^2 / 2`` with the constant written
        through mu as for the epsilon part: an identity."""
        key, value = gap_of_mu(item)
        claimed = item.conclusion["rdp"].xreplace({key: value})
        comparator = gaussian_rdp(symbol_of(item, "alpha"), MU)
        return _identity(_variant(item, {key: value}), "rdp", claimed, comparator, _PATH_SCOPE[item.id],
                         _RDP_SOURCE, declared={"mu": MU_DECLARED})
    return build


_PATH_SCOPE = {
    "bertazzi2025.prop45_path": "drifts whose gap b^D - b^D' is a constant vector of norm K (Euler chain or "
                                "diffusion): exact",
    "bertazzi2025.thm54_ula_path": "ULA on potentials whose gradients differ by a constant vector of norm K "
                                   "(grad U^D = grad U^D' + K e): exact",
    "bertazzi2025.thm58_sgld_path": "noisy SGD on an affine data term at full batch (tau = N): exact; smaller "
                                    "batches are mixtures over batch sequences whose components have smaller "
                                    "shifts, dominated by it (joint convexity of the hockey-stick and Renyi "
                                    "divergences)",
}


def _prop45_gap(item: StatementLike):
    beta, T = symbol_of(item, "beta"), symbol_of(item, "T")
    return symbol_of(item, "K"), MU * sp.sqrt(2 / (beta * T))


def _thm54_gap(item: StatementLike):
    k, h = symbol_of(item, "k"), symbol_of(item, "h")
    return symbol_of(item, "K"), MU * sp.sqrt(2 / (k * h))


def _thm58_gap(item: StatementLike):
    k, h, beta, tau = (symbol_of(item, n) for n in ("k", "h", "beta", "tau"))
    return symbol_of(item, "K_ell"), tau * MU * sp.sqrt(2 / (beta * k * h))


# ---------------------------------------------------------------------------------------------- final state
def final_state_sup_energy(h: sp.Expr, m: sp.Expr) -> sp.Expr:
    """``sup_{k >= 1, m <= lam <= M} mu_k(lam)^2 / (2 beta g^2)`` for ULA (full-batch noisy SGD) on
    ``U^D = lam theta^2/2 + g theta``, ``U^D' = lam theta^2/2 - g theta`` with step h and noise ``sqrt(2h/beta)``
    from a common start: with ``c = 1 - h lam`` the k-th iterates are Gaussian with mean gap
    ``2 g (1 - c^k) / lam`` and variance ``(2h/beta)(1 - c^{2k})/(1 - c^2)``, so
    ``mu_k^2 = 2 beta g^2 (2 - h lam)(1 - c^k) / (lam (1 + c^k))``. For ``0 <= c < 1`` this increases in k to
    ``2 beta g^2 (2 - h lam)/lam`` (stationary), which decreases in lam; for ``-1 < c < 0`` the largest is k = 1,
    ``2 beta g^2 h`` (odd k decrease to the stationary value, even k stay below it). So the supremum is
    ``2 beta g^2 max(h, 2/m - h)``, at k = 1 or as k -> infinity at lam = m; written
    ``(1 + |m h - 1|) / m`` (the same number; positive by its symbols' assumptions, and regular once multiplied by
    ``(m - h M^2/2)^2``)."""
    return (1 + sp.Abs(m * h - 1)) / m


def _final_symbols(item: StatementLike):
    S = item.symbols
    beta = S.get("beta", sp.S.One)
    tau = S.get("tau", sp.S.One)
    return S["K"], S["M"], S["m"], S["h"], beta, tau


def _final_subs(item: StatementLike) -> dict:
    """``m = r M``, ``h = 2 (1 - q) r / M`` (the step-size hypothesis is ``q > 0``, h > 0 is ``q < 1``); where the
    step-size hypothesis has been dropped (a hypothesis mutant), ``h = 2 s r / M`` with s free."""
    K, M, m, h, beta, tau = _final_symbols(item)
    step = (1 - _Q) if "step_size" in _names(item) else _S
    return {m: _R * M, h: 2 * step * _R / M}


_FINAL_SCOPE = ("{algo} on quadratic potentials lam theta^2/2 (m <= lam <= M) with an affine data term whose "
                "gradient differs by {gap} between D and D' (the linear-Gaussian chain of "
                "dpverify.theorems.final_state.runs), every number of steps and every lam: the supremum of the exact "
                "privacy of the final iterate{extra}")
_FINAL_EXTRA = {
    "bertazzi2025.thm52_ula_final": dict(algo="ULA", gap="2K", extra=""),
    "bertazzi2025.thm56_sgld_final": dict(algo="noisy SGD at full batch with N = tau = 1", gap="2K", extra=""),
    "bertazzi2025.thm57_sgld_strongly_convex": dict(
        algo="noisy SGD at full batch (tau = N)", gap="2K/tau",
        extra="; smaller batches of non-oscillating chains (h lam <= 1) are mixtures over inclusion patterns "
              "whose shifts are smaller, dominated by it (joint convexity)"),
}


def _final_pieces(item: StatementLike):
    K, M, m, h, beta, tau = _final_symbols(item)
    subs = _final_subs(item)
    hh, mm = subs[h], subs[m]
    X = final_state_sup_energy(hh, mm)  # mu_sup^2 = 2 beta (K/tau)^2 X
    strong = "step_size" in _names(item)
    p = _R * M * _Q if strong else _R * M * (1 - _S)  # m - h M^2 / 2
    return K, M, beta, tau, subs, X, p, strong


def _final_declared(strong: bool) -> dict:
    out: dict[str, Any] = _declared(M=(None, 10**6, "<= 1e6 (a smoothness constant; unbounded above)"))
    if not strong:
        out["s"] = (None, 20, "<= 20 (h up to 20 times 2m/M^2: the step-size hypothesis is dropped)")
    return out


def _final_rdp(item: StatementLike) -> ProofProblem:
    """claimed RDP ``alpha beta M_h^2 / (4 tau^2)`` >= the supremum of the exact final-iterate RDP of the quadratic
    family, ``alpha mu_sup^2 / 2 = alpha beta (K/tau)^2 max(h, 2/m - h)`` (:func:`final_state_sup_energy`: the
    data term's gradient gap is 2K/tau per step, the drift of each step a Gaussian shift). In ``m = r M``,
    ``h = 2 (1 - q) r / M``: ``M_h = 2 (K/tau) (r M q + M + 1) / (r M q)``, and the margin divided by
    ``alpha beta K^2 / (tau r M q)^2`` is ``(r M q + M + 1)^2 - (r M q)^2 max(h, 2/m - h)``, regular at q = 0 (the
    step-size edge, where the claim is unbounded)."""
    K, M, beta, tau, subs, X, p, strong = _final_pieces(item)
    alpha = symbol_of(item, "alpha")
    claimed = item.conclusion["rdp"].xreplace(subs)
    comparator = alpha * beta * (K / tau) ** 2 * X
    scale = alpha * beta * K**2 / (tau * p) ** 2 if strong else alpha * beta * K**2 / tau**2
    margin = sp.expand(sp.factor(claimed / scale)) - sp.expand(comparator / scale)
    variant = _variant(item, subs, drop=_outside(item, margin, subs=subs) + ["step_size"] * (not strong))
    extra = [("h_positive", _Q < 1)] if strong else []
    return problem_for(variant, "rdp", claimed=claimed, comparator=comparator, margin=margin, scale=scale,
                       declared=_final_declared(strong), scales={"M": LOG}, extra=extra,
                       comparator_source="the exact RDP of the final iterate of a linear-Gaussian chain (a Gaussian "
                                         "mechanism; Mironov 2017, Prop. 7), its supremum over steps and curvature",
                       scope=_FINAL_SCOPE.format(**_FINAL_EXTRA[item.id]) + "; box in r = m/M, q = 1 - h M^2/(2m)")


def _final_epsilon(item: StatementLike) -> ProofProblem:
    """claimed epsilon ``f(C') = C'/2 + sqrt(2 C' log(1/delta))`` (C' = 2 rdp / alpha, Lemma 4.1 at the claim's
    energy) >= ``f(C)`` at the family's exact energy ``C = mu_sup^2``: by Lemma 4.1 (proved exact on the
    deterministic-drift family, :func:`_lemma41`) the Gaussian mechanism with shift mu_sup is
    ``(f(mu_sup^2), delta)``-DP, so ``f(C)`` is a rigorous upper bound on the family's epsilon (comparator kind
    "upper": a proof stands, nothing is refuted). With ``ell = sqrt(2 log(1/delta))``, ``f(C) = C/2 + ell sqrt C``
    and ``f(C') - f(C) = (C' - C)(1/2 + ell / (sqrt C' + sqrt C))``, the second factor positive: the margin is
    ``C' - C`` divided by ``2 beta (K / (tau r M q))^2``, the same polynomial as the rdp part's. (The exact profile at
    mu_sup in the five coordinates (K, M, r, q, delta) is beyond the time budget of a proof here: see the module
    docstring.)"""
    K, M, beta, tau, subs, X, p, strong = _final_pieces(item)
    delta = symbol_of(item, "delta")
    subs = {**subs, delta: delta_of_ell()}
    claimed = item.conclusion["epsilon"].xreplace(subs)
    energy = 2 * beta * (K / tau) ** 2 * X
    comparator = energy / 2 + ELL * sp.sqrt(energy)
    declared = _final_declared(strong)
    if strong:
        root_claim = sp.sqrt(2 * beta) * K * (p + M + 1) / (tau * p)
        unit = 2 * beta * K**2 / (tau * p) ** 2
        margin = sp.expand((p + M + 1) ** 2) - sp.expand(p**2 * X)
        scale = unit * (sp.Rational(1, 2) + ELL / (root_claim + sp.sqrt(energy)))
    else:  # a mutant without the step-size hypothesis: p may be 0 or negative (the claim is singular at h = 2m/M^2)
        scale = sp.sqrt(2 * beta) * K / tau
        margin = (claimed - comparator) / scale
    extra = [("h_positive", _Q < 1)] if strong else []
    return _chain_problem(item, subs, claimed, comparator, margin, scale, sp.sqrt(2 * beta) * K / tau,
                          declared=declared, scales={"M": LOG}, extra=extra, drop=["step_size"] * (not strong),
                          comparator_source="Lemma 4.1 at the exact energy of the family's final iterate (an upper "
                                            "bound on its epsilon; the Gaussian profile, Balle and Wang 2018, is below "
                                            "it)",
                          scope=_FINAL_SCOPE.format(**_FINAL_EXTRA[item.id])
                          + ", through Lemma 4.1; box in r = m/M, q = 1 - h M^2/(2m), ell = sqrt(2 log(1/delta))")


def _chain_problem(item: StatementLike, subs: Mapping, claimed: sp.Expr, comparator: sp.Expr, margin: sp.Expr,
                   scale: sp.Expr, unit: sp.Expr, *, declared: dict, drop: Sequence[str] = (),
                   **kwargs: Any) -> ProofProblem:
    """The problem of an (epsilon, delta) part through Lemma 4.1 with the factorised ``margin`` and ``scale`` (the
    registered claim: ``f(C') - f(C) = (C' - C)(1/2 + ell/(sqrt C' + sqrt C))``); a claim of another form (a
    perturbed conclusion) gets the plain difference divided by ``unit`` instead."""
    try:
        variant = _variant(item, subs, drop=_outside(item, margin, subs=subs) + list(drop))
        return problem_for(variant, "epsilon (via Lemma 4.1)", claimed=claimed, comparator=comparator, margin=margin,
                           scale=scale, declared=declared, comparator_kind="upper", quantity="epsilon", **kwargs)
    except ValueError:
        margin = (claimed - comparator) / unit
        variant = _variant(item, subs, drop=_outside(item, margin, subs=subs) + list(drop))
        return problem_for(variant, "epsilon (via Lemma 4.1)", claimed=claimed, comparator=comparator, margin=margin,
                           scale=unit, declared={**declared, "ell": ELL_DECLARED}, comparator_kind="upper",
                           quantity="epsilon", **kwargs)


# ---------------------------------------------------------------------------------------------- Prop. 4.6
def linear_drift_sup_energy(K: sp.Expr, R: sp.Expr, z: sp.Expr) -> sp.Expr:
    """``mu^2 / beta`` of the final value of ``dX^D = (-lambda X + c_D) dt + sqrt(2/beta) dW`` from a common start,
    ``|c_D - c_D'| = kappa``: the coupled gap is ``G_t = (kappa/lambda)(1 - e^{-lambda t})``, increasing, so (20)
    holds with K >= kappa, L >= lambda and (21) with R >= G_T; the final laws are Gaussian with mean gap G_T and
    variance ``(1 - e^{-2 lambda T})/(lambda beta)``, so ``mu^2 = beta G_T kappa / (1 + z)`` with
    ``z = e^{-lambda T} = 1 - lambda G_T / kappa`` in (0, 1] (z -> 0 is T -> infinity, an Ornstein-Uhlenbeck pair;
    lambda -> 0 is the constant shift, ``mu^2 = beta kappa^2 T / 2`` with G_T = kappa T). At fixed z it increases
    in G_T and kappa, so over the members the constants admit (kappa <= K, G_T <= R, lambda <= L, i.e.
    ``(1 - z) K <= L R``) the supremum at each z is ``beta R K / (1 + z)``."""
    return R * K / (1 + z)


def _prop46_rdp(item: StatementLike) -> ProofProblem:
    """claimed ``alpha beta (K + (L+1) R)^2 / 4`` >= ``alpha mu^2 / 2`` over the linear-drift family
    (:func:`linear_drift_sup_energy`, z in [0, 1] with ``(1 - z) K <= L R``: its sup over z is
    ``beta K R / max(1, 2 - L R / K)``); the margin is divided by alpha beta."""
    K, L, R, alpha, beta = (symbol_of(item, n) for n in ("K", "L", "R", "alpha", "beta"))
    claimed = item.conclusion["rdp"]
    comparator = alpha * beta * linear_drift_sup_energy(K, R, _Z) / 2
    scale = alpha * beta
    # K R / 2 - K R / (2 (1 + z)) = K R z / (2 (1 + z)): the rest of the registered claim's square has no negative term
    margin = sp.expand(claimed / scale - K * R / 2) + K * R * _Z / (2 * (1 + _Z))
    variant = _variant(item, {}, drop=_outside(item, margin))
    return problem_for(variant, "rdp", claimed=claimed, comparator=comparator, margin=margin, scale=scale,
                       declared=_declared(K=scale_ceiling(), L=scale_ceiling(), R=scale_ceiling()),
                       extra=[("z_at_most_one", _Z <= 1), ("lambda_at_most_L", (1 - _Z) * K <= L * R)],
                       comparator_source="the exact RDP of the final value of a linear drift (Gaussian laws; Mironov "
                                         "2017, Prop. 7), over the members (20)-(21) admit",
                       scope="linear drifts -lambda x + c_D (constant shifts and Ornstein-Uhlenbeck pairs) with "
                             "|c_D - c_D'| <= K, lambda <= L and the coupled gap <= R, every horizon: the supremum of "
                             "the exact privacy of the final value (z = exp(-lambda T))")


def _prop46_epsilon(item: StatementLike) -> ProofProblem:
    """claimed ``f(C')`` (C' = beta M^2/2, M = K + (L+1) R) >= Lemma 4.1's ``f(C)`` at the linear-drift family's
    exact energy ``C = beta R K / (1 + z)`` (an upper bound on the family's epsilon: comparator kind "upper", as
    for the final-state theorems); ``f(C') - f(C) = (C' - C)(1/2 + ell / (sqrt C' + sqrt C))``, and the margin is
    ``(C' - C) / beta = (K + (L+1) R)^2 / 2 - R K / (1 + z)``."""
    K, L, R, beta, delta = (symbol_of(item, n) for n in ("K", "L", "R", "beta", "delta"))
    subs = {delta: delta_of_ell()}
    claimed = item.conclusion["epsilon"].xreplace(subs)
    energy = beta * linear_drift_sup_energy(K, R, _Z)
    comparator = energy / 2 + ELL * sp.sqrt(energy)
    root_claim = sp.sqrt(beta / 2) * (K + (L + 1) * R)
    margin = sp.expand((K + (L + 1) * R) ** 2 / 2 - K * R) + K * R * _Z / (1 + _Z)  # (C' - C) / beta, termwise >= 0
    scale = beta * (sp.Rational(1, 2) + ELL / (root_claim + sp.sqrt(energy)))
    return _chain_problem(item, subs, claimed, comparator, margin, scale, sp.sqrt(beta),
                          declared=_declared(K=scale_ceiling(), L=scale_ceiling(), R=scale_ceiling()),
                          extra=[("z_at_most_one", _Z <= 1), ("lambda_at_most_L", (1 - _Z) * K <= L * R)],
                          comparator_source="Lemma 4.1 at the exact energy of the linear-drift family (an upper bound "
                                            "on its epsilon)",
                          scope="linear drifts -lambda x + c_D, through Lemma 4.1 (see the rdp part)")


# ---------------------------------------------------------------------------------------------- Section 3
def _tv_transfer(key: str, rate: str):
    def build(item: StatementLike) -> ProofProblem:
        """Prop. A.2 at the event level (the claim reads kappa and R only through the TV bound ``eta = kappa R``, the
        box's coordinate): for every event S, the reference laws give ``nu_D(S) = x``,
        ``nu_D'(S) = v`` with ``x <= e^eps v + delta`` ({nu} is (eps, delta)-DP; x = u (e^eps v + delta), u in
        [0, 1]), and each law of the other family is within TV ``eta = kappa R`` of its reference:
        ``mu_D(S) = x + s1 eta``, ``mu_D'(S) = v - s2 eta`` (s1, s2 in [0, 1], both still probabilities; the
        constraints make the two-point laws on {S, not S} such a pair, so every point is realised). The comparator
        is ``mu_D(S) - e^eps mu_D'(S)``, whose supremum ``delta + (1 + e^eps) eta`` is attained by the canonical
        (eps, delta) pair moved by eta towards its worst event (catalogue pin of prop32); the margin is written
        term by term, each certainly >= 0."""
        eps, delta, kappa = symbol_of(item, "epsilon"), symbol_of(item, "delta"), symbol_of(item, "kappa")
        tv = {symbol_of(item, rate): _ETA / kappa}  # the claim reads kappa R only as the TV bound eta
        eta = _ETA
        x = _U * (sp.exp(eps) * _V + delta)
        gap = x + _S1 * eta - sp.exp(eps) * (_V - _S2 * eta)
        extra = [(f"{n}_at_most_one", sym <= 1) for n, sym in (("v", _V), ("u", _U), ("s1", _S1), ("s2", _S2))]
        extra += [("moved_law_is_a_probability", x + _S1 * eta <= 1), ("moved_law_is_nonnegative", _S2 * eta <= _V),
                  # the two-point laws (x, 1 - x), (v, 1 - v) are then an (eps, delta)-DP pair in both directions, so
                  # every point of the box is realised: a refutation is a pair of families, not just an event
                  ("reference_complement", 1 - x <= sp.exp(eps) * (1 - _V) + delta),
                  ("reference_reverse", _V <= sp.exp(eps) * x + delta),
                  ("reference_reverse_complement", 1 - _V <= sp.exp(eps) * (1 - x) + delta)]
        drop = ["delta_prime_above_threshold"] if key == "delta_threshold" else []
        variant = _variant(item, tv, drop=drop)
        claimed = item.conclusion[key].xreplace(tv)
        # claimed - gap for the registered claim delta + (1 + e^eps) eta, term by term
        margin = (delta * (1 - _U) + eta * (1 - _S1) + sp.exp(eps) * _V * (1 - _U)
                  + sp.exp(eps) * eta * (1 - _S2))
        return _with_margin(lambda mg: problem_for(
            variant, key, claimed=claimed, comparator=gap, extra=extra, margin=mg,
            declared={"epsilon": epsilon_ceiling(), "delta": (None, 1, "<= 1 (a probability)"),
                      "kappa": scale_ceiling(), rate: scale_ceiling(),
                      "eta": (None, 1, "<= 1 (eta = kappa R bounds a total variation, which is at most 1; a larger "
                                       "bound is no smaller a claim)")},
            comparator_source="the hockey-stick gap of every event (Prop. A.2's chain, attained)",
            scope=f"every event, with the probabilities an (eps, delta)-DP reference family and TV moves of "
                  f"eta = kappa {rate} allow"), margin)
    return build


def _noisy_estimator(far: Any):
    def build(item: StatementLike) -> ProofProblem:
        """Props 3.7 / 3.10 at the event level: split on the event F that the two estimators are farther apart
        than Delta (probability p = t * bound, t in [0, 1]). On F the outputs hit an event S with any
        probabilities a (data D) and b (data D'); off F each close pair satisfies (8), so after averaging
        ``P(S, not F | D) = u (e^eps c + delta_xi (1 - p))`` with ``c = P(S, not F | D') = v (1 - p)`` (u, v in
        [0, 1]; the constraints make the conditional two-point laws on {S, not S} satisfy (8) both ways). The
        comparator ``P(S | D) - e^eps P(S | D')``; its supremum ``p + (1 - p) delta_xi`` (far outputs apart, a tight
        noise otherwise) is at most the claim. The margin is written term by term, each certainly >= 0."""
        eps, dxi = symbol_of(item, "epsilon_xi"), symbol_of(item, "delta_xi")
        p = _T * far(item)
        c = _V * (1 - p)
        x = _U * (sp.exp(eps) * c + dxi * (1 - p))
        gap = p * _A + x - sp.exp(eps) * (p * _B + c)
        extra = [(f"{n}_at_most_one", sym <= 1) for n, sym in (("t", _T), ("a", _A), ("b", _B), ("v", _V), ("u", _U))]
        X = _U * (sp.exp(eps) * _V + dxi)  # P(S | close, D); P(S | close, D') = v
        extra += [("close_part_is_a_probability", x <= 1 - p),
                  # the close pair's two-point laws (X, 1 - X), (v, 1 - v) satisfy (8) in both directions
                  ("close_complement", 1 - X <= sp.exp(eps) * (1 - _V) + dxi),
                  ("close_reverse", _V <= sp.exp(eps) * X + dxi),
                  ("close_reverse_complement", 1 - _V <= sp.exp(eps) * (1 - X) + dxi)]
        bound = far(item)
        # claimed - gap for the registered claim delta_xi + bound, term by term
        margin = (bound * (1 - _T) + p * (1 - _A) + dxi * (1 - _U) + dxi * _U * p
                  + sp.exp(eps) * c * (1 - _U) + sp.exp(eps) * p * _B)
        return _with_margin(lambda mg: problem_for(
            _variant(item, {}), "delta", claimed=item.conclusion["delta"], comparator=gap, extra=extra, margin=mg,
            declared={"epsilon_xi": epsilon_ceiling()},
            comparator_source="the hockey-stick gap of every event, split on the far event",
            scope="every event and every coupling with P(far) at most the bound"), margin)
    return build


def _laplace_scale(item: StatementLike) -> ProofProblem:
    """Laplace noise of the claimed scale ``b = Delta / eps_xi``: its exact pure epsilon for inputs Delta apart is
    ``Delta / b`` (Dwork et al. 2006), which the claimed eps_xi must not be below (an identity: the scale is
    exact)."""
    comparator = laplace_epsilon(symbol_of(item, "sensitivity"), item.conclusion["laplace_scale"])
    return _identity(item, "laplace_scale", item.conclusion["epsilon"], comparator,
                     "Laplace noise (Assumption 3.5 with delta_xi = 0)",
                     "the Laplace mechanism's exact pure epsilon (Dwork et al. 2006)",
                     quantity="epsilon of Laplace noise at the claimed scale")


def _prop310_sensitivity(item: StatementLike) -> ProofProblem:
    """claimed ``Delta = 2 r + C_f`` >= ``|Y_D - Y_D'|`` on the event both averages concentrate:
    ``Y_D - Y_D' = r s1 - r s2 + C_f s3`` with ``|Y_D - pi_D f| = r |s1|``, ``|Y_D' - pi_D' f| = r |s2|``,
    ``pi_D f - pi_D' f = C_f s3`` (s_i in [-1, 1]; the sign covers both orders)."""
    r_, cf = symbol_of(item, "r"), symbol_of(item, "C_f")
    s1, s2, s3 = (sp.Symbol(n, real=True) for n in ("s1", "s2", "s3"))
    gap = r_ * s1 - r_ * s2 + cf * s3
    extra = []
    for s in (s1, s2, s3):
        extra += [(f"{s.name}_at_least_minus_one", s >= -1), (f"{s.name}_at_most_one", s <= 1)]
    variant = _variant(item, {}, drop=_outside(item, item.conclusion["sensitivity"], gap))
    margin = r_ * (1 - s1) + r_ * (1 + s2) + cf * (1 - s3)  # claimed - gap for the registered 2 r + C_f
    return _with_margin(lambda mg: problem_for(
        variant, "sensitivity", claimed=item.conclusion["sensitivity"], comparator=gap, extra=extra, margin=mg,
        declared={"r": scale_ceiling(), "C_f": scale_ceiling()},
        comparator_source="the triangle inequality's linear program (every configuration)",
        scope="every pair of concentrated estimators"), margin)


#: Without the step-size hypothesis h < 2m/M^2 the final-state forms read h = 2 s m / M^2 with s up to 20.
_STEP_WIDEN = {"step_size": {"s": (None, 20)}}

FORMS: tuple[ItemForm, ...] = (
    ItemForm("bertazzi2025.prop32_tv_to_dp", (Part("delta", _tv_transfer("delta", "R_n")),
                                              Part("delta_limit", _tv_transfer("delta_limit", "R_inf")))),
    ItemForm("bertazzi2025.cor33_posterior_must_be_dp",
             (Part("delta_threshold", _tv_transfer("delta_threshold", "R_inf")),),
             keep=("delta_prime_above_threshold",)),
    ItemForm("bertazzi2025.prop37_mc_estimator",
             (Part("delta", _noisy_estimator(lambda i: symbol_of(i, "delta_tilde"))),
              Part("laplace_scale", _laplace_scale))),
    ItemForm("bertazzi2025.prop310_mc_estimator",
             (Part("delta", _noisy_estimator(lambda i: 1 - (1 - symbol_of(i, "delta_bar")) ** 2)),
              Part("sensitivity", _prop310_sensitivity))),
    ItemForm("bertazzi2025.lem41_rn_to_dp", (Part("epsilon", _lemma41),), keep=("delta_positive",)),
    ItemForm("bertazzi2025.lem42_rn_to_rdp", (Part("rdp", _lemma42),), keep=("order_above_one",)),
    ItemForm("bertazzi2025.prop45_path",
             (Part("epsilon", _path_epsilon(_prop45_gap)),
              Part("rdp", _path_rdp(_prop45_gap))),
             keep=("delta_positive", "order_above_one")),
    ItemForm("bertazzi2025.prop46_final_value", (Part("rdp", _prop46_rdp),
                                                 Part("epsilon (via Lemma 4.1)", _prop46_epsilon)),
             keep=("delta_positive", "order_above_one")),
    ItemForm("bertazzi2025.thm52_ula_final",
             (Part("rdp", _final_rdp), Part("epsilon (via Lemma 4.1)", _final_epsilon)),
             keep=("m_at_most_M", "delta_positive", "order_above_one"), widen=_STEP_WIDEN),
    ItemForm("bertazzi2025.thm54_ula_path",
             (Part("epsilon", _path_epsilon(_thm54_gap)),
              Part("rdp", _path_rdp(_thm54_gap))),
             keep=("delta_positive", "order_above_one")),
    ItemForm("bertazzi2025.thm56_sgld_final",
             (Part("rdp", _final_rdp), Part("epsilon (via Lemma 4.1)", _final_epsilon)),
             keep=("m_at_most_M", "delta_positive", "order_above_one"), widen=_STEP_WIDEN),
    ItemForm("bertazzi2025.thm57_sgld_strongly_convex",
             (Part("rdp", _final_rdp), Part("epsilon (via Lemma 4.1)", _final_epsilon)),
             keep=("m_at_most_M", "delta_positive", "order_above_one", "batch_at_most_N"), widen=_STEP_WIDEN),
    ItemForm("bertazzi2025.thm58_sgld_path",
             (Part("epsilon", _path_epsilon(_thm58_gap)),
              Part("rdp", _path_rdp(_thm58_gap))),
             keep=("delta_positive", "order_above_one", "batch_at_most_N")),
)

"""Li et al. 2019, Section 3.1: Theorems 3 and 4 (step-size conditions for DP-SGLD), the quotation of
Wang et al.'s bound, and the MNIST example (0.103 vs 1.54e-6).

What the proofs (App. A, B) support, with Algorithm 1's noise multiplier
``sigma_t^2 = q^2 N / (eta_t L^2)`` (:func:`dpverify.theorems.li2019.common.noise_multiplier_sq`):

- i)   Lemma 2's ``sigma >= 1``       <=>  ``eta_t <= q^2 N / L^2``    (printed: ``eta_t <= N / L^2``);
- ii)  Lemma 2's ``q < 1/(16 sigma)`` <=>  ``eta_t > 256 q^4 N / L^2`` (printed: ``eta_t > q^2 N/(256 L^2)``);
- iii) ``eta_t < eps^2 N t^{-1/3} / (c2^2 L^2 T^{2/3} log(1/delta))``, with ``c2`` from the accountant.

App. A substitutes ``eta_t = N / (t^{1/3} eta~^2 L^2)``, i.e. ``sigma^2 = N/(eta_t L^2)``, dropping the
factor ``q^2 = tau^2/N^2`` of its own rescaling; with that substitution i) is as printed and ii) would
read ``eta_t > 256 q^2 N / L^2``. Both are recorded as errata with the symbolic checks that show them.
"""
from __future__ import annotations

import functools
import math
from typing import TypedDict

import sympy as sp

from dpverify.theorems import symbols as sy
from dpverify.theorems.base import Erratum, Hypothesis, Theorem
from dpverify.theorems.li2019.bounds import eta_max_lemma2
from dpverify.theorems.li2019.common import LINK, harmonic_third, k_max, noise_multiplier_sq, source, symbols

__all__ = ["THEOREMS", "PRINTED", "MNIST_EXAMPLE", "MNIST_EXAMPLE_Q"]

S = symbols("N", "T", "L", "q", "epsilon", "delta", "eta")
N, T, L, q, eps, delta, eta = (S[n] for n in ("N", "T", "L", "q", "epsilon", "delta", "eta"))
t = symbols("t")["t"]
ell = sp.log(1 / delta)
K = k_max(eps, delta)
sigma = symbols("sigma")["sigma"]

#: Theorem 3's conditions exactly as printed (Li et al. 2019, Thm 3 items 1-3, with c2 a symbol).
c2 = sp.Symbol("c2", positive=True)
PRINTED = {
    "i)": eta <= N / L**2,
    "ii)": eta > q**2 * N / (256 * L**2),
    "iii)": eta < eps**2 * N * t ** sp.Rational(-1, 3) / (c2**2 * L**2 * T ** sp.Rational(2, 3) * ell),
}


class ExampleSetting(TypedDict):
    """The setting of Sec. 3.1's example (q is not stated)."""

    N: int
    T: int
    L: float
    epsilon: float
    delta: float


#: The example of Sec. 3.1: N = 50,000, eps = 0.1, delta = 1e-5, T = 10,000, L = 1 (q is not stated).
MNIST_EXAMPLE: ExampleSetting = {"N": 50_000, "T": 10_000, "L": 1.0, "epsilon": 0.1, "delta": 1e-5}
#: The batch size is not stated; 128 (Table 1's MNIST batch) gives q = 128/50,000.
MNIST_EXAMPLE_Q = 128 / 50_000


def _solve_for_eta(f, strict: bool):
    """The condition ``f(eta) > 0`` (``>= 0`` unless ``strict``) for ``f`` monotone in eta, as a relational
    ``eta OP boundary`` (boundary = the positive root of f, direction = the sign of df/deta)."""
    roots = [r for r in sp.solve(sp.Eq(f, 0), eta) if r.is_positive is not False]
    if len(roots) != 1:
        raise ValueError(f"expected one positive boundary for {f}; got {roots}")
    slope = sp.sign(sp.simplify(sp.diff(f, eta).subs(eta, roots[0])))
    if slope not in (1, -1):
        raise ValueError(f"cannot decide the direction of {f} in eta (slope sign {slope})")
    if slope == 1:
        return sp.StrictGreaterThan(eta, roots[0]) if strict else sp.GreaterThan(eta, roots[0])
    return sp.StrictLessThan(eta, roots[0]) if strict else sp.LessThan(eta, roots[0])


def _lemma2_conditions(sigma_sq):
    """Lemma 2's sigma >= 1 and q < 1/(16 sigma), solved for eta with sigma^2 = ``sigma_sq``(eta)."""
    i = _solve_for_eta(sp.sqrt(sigma_sq) - 1, strict=False)
    ii = _solve_for_eta(1 / (16 * sp.sqrt(sigma_sq)) - q, strict=True)
    return i, ii


def _same(rel_a, rel_b) -> bool:
    """Two one-sided conditions ``eta OP bound`` are the same set (same direction and boundary)."""
    a, b = sp.sympify(rel_a), sp.sympify(rel_b)
    return type(a) is type(b) and a.lhs == b.lhs == eta and sp.simplify(a.rhs - b.rhs) == 0


def _step_theorem(schedule: str) -> Theorem:
    decreasing = schedule == "decreasing"
    H = harmonic_third(T) if decreasing else T
    eta_max = (1 - q) * N * K / (L**2 * H)
    c2_sq = H * eps**2 / ((1 - q) * K * T ** sp.Rational(2, 3) * ell) if decreasing else eps**2 / ((1 - q) * K * ell)
    eta_last = eta * T ** sp.Rational(-1, 3) if decreasing else eta
    sigma1_sq = noise_multiplier_sq(N, q, eta, L)
    lam_star = (eps - K) / (2 * K)
    hyps = [
        sy.delta_positive(),
        Hypothesis("i)", eta <= q**2 * N / L**2,
                   "Lemma 2's sigma >= 1 at every step (binding at t = 1): eta <= q^2 N / L^2 "
                   "(printed: eta_t <= N/L^2, see errata)"),
        Hypothesis("ii)", eta_last > 256 * q**4 * N / L**2,
                   "Lemma 2's q < 1/(16 sigma) at every step (binding at the smallest step): eta_t > 256 q^4 N / L^2 "
                   "(printed: eta_t > q^2 N/(256 L^2), see errata)"),
        Hypothesis("iii)", eta < eta_max,
                   "the accountant condition; printed as eta_t < eps^2 N t^{-1/3}/(c2^2 L^2 T^{2/3} log(1/delta)) "
                   "(Thm 3) or eta < eps^2 N/(c^2 L^2 T log(1/delta)) (Thm 4); eta_max is it with c2 from "
                   "Lemma 2's leading term and the tail bound"),
        Hypothesis("lambda_range", lam_star <= sigma1_sq * sp.log(1 / (q * sp.sqrt(sigma1_sq))),
                   "Lemma 2's lam <= sigma^2 ln(1/(q sigma)) at the optimal lam* = (eps-K)/(2K) (binding at t = 1); "
                   "this is what the paper's eps < c1 q^2 T^{2/3} (Thm 3) / eps < c3 q^2 T (Thm 4) secures"),
    ]
    if decreasing:
        tid, item, loc = "li2019.thm3_decreasing_stepsize", "Theorem 3", "Sec. 3.1; proof App. A"
        title = "DP-SGLD is (eps, delta)-DP for eta_t = eta t^{-1/3} below a bound"
        what = ("eta is the first step of eta_t = eta t^{-1/3}; eta_max = (1-q) N K/(L^2 H_T), "
                "H_T = sum_{t<=T} t^{-1/3}")
    else:
        tid, item, loc = "li2019.thm4_fixed_stepsize", "Theorem 4", "Sec. 3.1; proof App. B"
        title = "DP-SGLD is (eps, delta)-DP for a fixed step below a bound"
        what = "eta is the fixed step; eta_max = (1-q) N K/(L^2 T)"
    thm = Theorem(
        tid,
        title,
        source(item, loc),
        "step_size",
        symbols=S,
        hypotheses=hyps,
        conclusion={"epsilon": eps, "delta": delta, "eta_max": eta_max, "c2": sp.sqrt(c2_sq)},
        statement=(
            f"Algorithm 1 with sampling rate q = tau/N, T iterations, clipping L is (eps, delta)-DP when i), ii), "
            f"iii) and the lambda range hold. {what}, K = eps^2/(eps + 2l + 2 sqrt(l^2 + eps l)), l = log(1/delta) "
            "(Lemma 2's leading term composed over T steps and the tail bound minimised over lam). The "
            "constant of the printed condition iii) is the conclusion c2 (c for Theorem 4)."
        ),
        errata=[
            Erratum(
                "App. A substitutes eta_t = N/(t^{1/3} eta~^2 L^2) (i.e. sigma^2 = N/(eta_t L^2)); its own rescaling "
                "gives sigma^2 = eta~^2 t^{1/3} = tau^2/(N eta_t L^2) = q^2 N/(eta_t L^2): a factor q^2 is dropped.",
                "sigma^2 = N/(eta_t L^2): i) eta_t <= N/L^2, ii) eta_t > q^2 N/(256 L^2)",
                "sigma^2 = q^2 N/(eta_t L^2): i) eta_t <= q^2 N/L^2, ii) eta_t > 256 q^4 N/L^2 (for all t)",
                check="conditions_from_algorithm_noise",
            ),
            Erratum(
                "Even with the proof's own substitution sigma^2 = N/(eta_t L^2), Lemma 2's q < 1/(16 sigma) gives "
                "eta_t > 256 q^2 N/L^2: the printed condition ii) has the 256 in the wrong place (off by 256^2).",
                "ii) eta_t > q^2 N/(256 L^2)",
                "ii) eta_t > 256 q^2 N/L^2 (with the proof's substitution)",
                check="conditions_with_proof_substitution",
            ),
        ],
        empirical=[LINK],
        notes=(
            "c2 (c) is not a universal constant: it depends on (eps, delta, T) and, through 1-q, weakly on q "
            "(App. C computes it numerically; the paper notes the dependence in Sec. 4.1). With the exact "
            "accountant the bound is larger: see li2019.example_mnist_stepsize and "
            "dpverify.theorems.li2019.bounds.eta_max_exact."
        ),
    )
    return thm


thm3 = _step_theorem("decreasing")
thm4 = _step_theorem("fixed")


def _add_condition_checks(thm: Theorem) -> None:
    """The re-derivations of i) and ii) (App. A's last paragraph; App. B reuses it) on ``thm``."""
    thm.add_check("conditions_with_proof_substitution", "symbolic",
                  "solve sigma >= 1, q < 1/(16 sigma) with the proof's sigma^2 = N/(eta L^2): i) as printed, "
                  "ii) eta > 256 q^2 N/L^2, not the printed q^2 N/(256 L^2)")(_conditions_with_proof_substitution)
    thm.add_check("conditions_from_algorithm_noise", "symbolic",
                  "Alg. 1's noise multiplier sigma^2 = q^2 N/(eta L^2) gives, per step, i) eta <= q^2 N/L^2 and "
                  "ii) eta > 256 q^4 N/L^2 (Theorem 4's encoded hypotheses), not the printed ones")(_conditions_from_algorithm_noise)


@functools.cache  # shared by Theorems 3 and 4: derive once
def _conditions_with_proof_substitution():
    i, ii = _lemma2_conditions(N / (eta * L**2))
    i_ok = _same(i, PRINTED["i)"])
    ii_derived = _same(ii, eta > 256 * q**2 * N / L**2)
    ii_printed = _same(ii, PRINTED["ii)"])
    return (i_ok and ii_derived and not ii_printed), (
        f"sigma >= 1 <=> {i} (printed i) agrees: {i_ok}); q < 1/(16 sigma) <=> {ii} "
        f"(printed ii) {PRINTED['ii)']} agrees: {ii_printed})")


@functools.cache
def _conditions_from_algorithm_noise():
    i, ii = _lemma2_conditions(noise_multiplier_sq(N, q, eta, L))
    hyp = {h.name: h.condition for h in thm4.hypotheses}
    ok = _same(i, hyp["i)"]) and _same(ii, hyp["ii)"])
    differs = not _same(i, PRINTED["i)"]) and not _same(ii, PRINTED["ii)"])
    return ok and differs, f"sigma >= 1 <=> {i}; q < 1/(16 sigma) <=> {ii}; printed: {PRINTED['i)']}, {PRINTED['ii)']}"


for _thm in (thm3, thm4):
    _add_condition_checks(_thm)


@thm3.add_check("condition_iii_from_inflated_noise", "symbolic",
                "App. A: the inflated variance c2^2 L^2 T^{2/3} t^{1/3} log(1/delta) eta_t^2/(eps^2 N^2) <= eta_t/N "
                "is exactly the printed iii)")
def _():
    var = c2**2 * L**2 * T ** sp.Rational(2, 3) * t ** sp.Rational(1, 3) * ell * eta**2 / (eps**2 * N**2)
    sol = _solve_for_eta(eta / N - var, strict=True)
    return _same(sol, PRINTED["iii)"]), f"{var} < eta/N <=> {sol}"


@thm3.add_check("tail_bound_gives_eta_max", "symbolic",
                "min_lam K lam(lam+1) - lam eps = -(eps-K)^2/(4K); = -log(1/delta) at the small root K(eps, delta); "
                "with log moment L^2 sum eta_t/((1-q)N) this is eta_1 = eta_max, and c2 makes printed iii) equal it")
def _():
    lam, Ks = symbols("lam")["lam"], sp.Dummy("K", positive=True)  # lam: the moment order (symbol table)
    expo = Ks * lam * (lam + 1) - lam * eps
    lstar = sp.solve(sp.diff(expo, lam), lam)[0]
    minimum = sp.simplify(expo.subs(lam, lstar) + (eps - Ks) ** 2 / (4 * Ks))
    roots = sp.solve((eps - Ks) ** 2 - 4 * Ks * ell, Ks)
    # K(eps, delta) = eps^2/(eps + 2l + 2 sqrt(l^2 + eps l)) is the root eps + 2l - 2 sqrt(l^2 + eps l), rationalised:
    # (eps + 2l - 2s)(eps + 2l + 2s) = (eps + 2l)^2 - 4 s^2 = eps^2 with s^2 = l^2 + eps l
    conj = eps + 2 * ell + 2 * sp.sqrt(ell**2 + eps * ell)
    small_root_ok = any(sp.expand(r * conj - eps**2) == 0 for r in roots) and sp.simplify(K * conj - eps**2) == 0
    H = sp.Symbol("H", positive=True)
    eta_max_H = thm3.conclusion["eta_max"].subs(harmonic_third(T), H)
    eta1 = sp.solve(L**2 * eta * H / ((1 - q) * N) - K, eta)[0]
    ok_eta = sp.simplify(eta1 - eta_max_H) == 0
    c2_sq = thm3.conclusion["c2"] ** 2
    printed_bound = PRINTED["iii)"].rhs.subs(t, 1).subs(c2**2, c2_sq.subs(harmonic_third(T), H))
    ok_c2 = sp.simplify(printed_bound - eta_max_H) == 0
    return minimum == 0 and small_root_ok and ok_eta and ok_c2, (
        f"lam* = {lstar}; min + (eps-K)^2/(4K) = {minimum}; K(eps, delta) is a root: {small_root_ok}; "
        f"eta_1 = {eta1}; printed iii) with c2^2 = {c2_sq} equals eta_max: {ok_c2}")


@thm3.add_check("mnist_example_outside_lambda_range", "numeric",
                "at Sec. 3.1's example (q = 128/50,000) i), ii) hold at eta_max but Lemma 2's lam range fails: "
                "the closed form is then not covered by Lemma 2")
def _():
    at = dict(MNIST_EXAMPLE, q=MNIST_EXAMPLE_Q)
    bound = eta_max_lemma2(**at, schedule="decreasing")
    ev = thm3.evaluate(**at, eta=0.999 * bound, allow_unguaranteed=True)
    consistent = math.isclose(ev.eta_max, bound, rel_tol=1e-12)
    ok = consistent and ev.hypotheses["i)"] and ev.hypotheses["ii)"] and not ev.hypotheses["lambda_range"]
    return ok, f"eta_max = {bound:.5g} (sympy {ev.eta_max:.5g}); hypotheses at 0.999 eta_max: {ev.hypotheses}", None, bound


@thm4.add_check("proof_eta0_needs_sqrt_T", "symbolic",
                "App. B: eta0 = c4 q sqrt(log(1/delta))/eps does not give the stated bound; eta0 = c4 q sqrt(T log(1/delta))/eps does")
def _():
    c4 = sp.Symbol("c4", positive=True)
    stated = eps**2 * N / (c4**2 * L**2 * T * ell)
    out = {}
    for name, eta0 in (("printed", c4 * q * sp.sqrt(ell) / eps), ("with sqrt(T)", c4 * q * sp.sqrt(T * ell) / eps)):
        # noise of variance eta0^2 L^2 eta^2/tau^2 is at most Alg. 1's eta/N iff eta <= tau^2/(N eta0^2 L^2)
        bound = _solve_for_eta(eta / N - eta0**2 * L**2 * eta**2 / (q * N) ** 2, strict=False)
        out[name] = _same(bound, eta <= stated)
    return (not out["printed"]) and out["with sqrt(T)"], f"reproduces eps^2 N/(c4^2 L^2 T log(1/delta)): {out}"


thm4.errata.append(Erratum(
    "App. B's choice eta0 = c4 q sqrt(log(1/delta))/eps lacks sqrt(T) (Abadi et al.'s sigma = c2 q sqrt(T log(1/delta))/eps); "
    "only with it does the stated bound eta < eps^2 N/(c4^2 L^2 T log(1/delta)) follow.",
    "eta0 = c4 q sqrt(log(1/delta))/eps",
    "eta0 = c4 q sqrt(T log(1/delta))/eps",
    check="proof_eta0_needs_sqrt_T",
))


@thm4.add_check("fixed_below_decreasing_first_step", "symbolic",
                "eta_max(fixed) / eta_max(decreasing, first step) = H_T/T, H_T = sum_{t<=T} t^{-1/3}: each term is <= 1 "
                "(t^{-1/3} - 1 = -(t^{1/3} - 1) t^{-1/3} with t >= 1), so the decreasing schedule starts higher")
def _():
    ratio = sp.simplify(thm4.conclusion["eta_max"] / thm3.conclusion["eta_max"])
    u = sp.Symbol("u", positive=True)  # u = t^{1/3} - 1 >= 0 for t >= 1 (u > 0 for t >= 2)
    term_le_one = sp.simplify((u + 1) ** -1 - 1 + u / (u + 1)) == 0 and (u / (u + 1)).is_positive
    return sp.simplify(ratio - harmonic_third(T) / T) == 0 and bool(term_le_one), f"ratio = {ratio}"


@thm4.add_check("fixed_below_decreasing_values", "numeric",
                "H_T/T at T = 10, 1e4, 1e6 (mpmath's Hurwitz zeta through the registered conclusions) is in (0, 1)")
def _():
    ratio = sp.simplify(thm4.conclusion["eta_max"] / thm3.conclusion["eta_max"])
    vals = [float(ratio.subs(T, v)) for v in (10, 10**4, 10**6)]
    return all(0 < v < 1 for v in vals), f"ratio at T = 1e1, 1e4, 1e6: {vals}"


@thm4.add_check("table1_mnist_hypotheses", "numeric",
                "Table 1's MNIST setting (N=60,000, tau=128, eta=0.3, L=0.3, 9,375 iterations) meets every "
                "hypothesis at (0.99, 1e-5): the claim follows from Theorem 4 (sigma = tau/(L sqrt(N eta)) = 3.18)")
def _():
    at = dict(N=60_000, T=9_375, L=0.3, q=128 / 60_000, epsilon=0.99, delta=1e-5, eta=0.3)
    ev = thm4.evaluate(**at, allow_unguaranteed=True)
    sig = math.sqrt(float(noise_multiplier_sq(60_000, 128 / 60_000, 0.3, 0.3)))
    ok = ev.guaranteed and abs(sig - 128 / (0.3 * math.sqrt(60_000 * 0.3))) < 1e-12
    return ok, f"sigma = {sig:.4f}; eta_max = {ev.eta_max:.4g}; hypotheses {ev.hypotheses}", None, ev.eta_max




# ---------------------------------------------------------------------------------------------
# Pins: every conclusion evaluated at points and compared with an independent computation.
#: (N, T, L, q, epsilon, delta) points with L != 1 and q > 0 (so a dropped 1 - q or L^2 shows).
_STEP_POINTS = ((50_000, 10_000, 1.3, 128 / 50_000, 0.1, 1e-5), (60_000, 9_375, 0.3, 128 / 60_000, 0.99, 1e-5),
                (1_000, 300, 4.0, 0.05, 2.0, 1e-3))


def _step_cases(schedule: str):
    def cases():
        out = []
        for N_, T_, L_, q_, e, d in _STEP_POINTS:
            bound = eta_max_lemma2(N_, T_, L_, e, d, q=q_, schedule=schedule)  # the float implementation (k_max_float)
            horizon = T_ ** (2 / 3) if schedule == "decreasing" else float(T_)
            # App. C: the constant that makes the printed iii) (at t = 1) equal the bound
            c2_v = math.sqrt(e * e * N_ / (bound * L_ * L_ * horizon * math.log(1 / d)))
            out.append(({"N": N_, "T": T_, "L": L_, "q": q_, "epsilon": e, "delta": d, "eta": bound / 2},
                        {"eta_max": bound, "c2": c2_v, "epsilon": e, "delta": d}))
        return out
    return cases


for _thm, _schedule in ((thm3, "decreasing"), (thm4, "fixed")):
    _thm.add_pin(
        "pin_float_bound_and_app_c_constant",
        "eta_max against dpverify.theorems.li2019.bounds.eta_max_lemma2 (floats; H_T by mpmath's Hurwitz zeta for the "
        "decreasing schedule), c2 solved from the printed iii) at t = 1 with that bound (App. C's recipe), and the "
        "target (eps, delta), at three points with L != 1 (hypotheses not required here); rel 1e-10",
        _step_cases(_schedule), rel=1e-10, allow_unguaranteed=True)


#: This part's items (the package registers them: :mod:`dpverify.theorems.registry`).
THEOREMS: tuple[Theorem, ...] = (thm3, thm4)

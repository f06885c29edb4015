"""The catalogue's symbol table: every sympy symbol a theorem of the five papers declares, with its
assumptions and its meaning stated once.

Every paper module takes the symbols of its theorems from here (``Theorem(symbols=...)`` holds entries
of :data:`TABLE`, nothing else; ``tests/test_catalogue_symbols.py`` pins it). Symbols that exist only
inside one derivation check (an integration variable, a dummy for one line of algebra) are local to
that check and are not catalogue symbols.

One quantity, one entry
-----------------------
Where the papers mean the same quantity (``epsilon`` and ``delta`` of (epsilon, delta)-DP, the dataset
size ``N``, the per-example gradient bound ``L`` of Wang et al. and Li et al., the smoothness ``M``
of Li et al. and Bertazzi et al., ...) there is one entry, used by all of them. Where two papers use
one letter for two different quantities there are two entries with distinct Python names that print
the same letter (the keyword of :meth:`~dpverify.theorems.base.Theorem.evaluate` stays the paper's
letter):

- ``T``: :data:`T_passes` (Wang 2015: data passes, real), :data:`T_iterations` (Li 2019, Foulds 2016:
  iterations of the chain, integer), :data:`T_horizon` (Bertazzi 2025: the time horizon ``k h``, real);
- ``L``: :data:`L` (a per-example gradient / log-likelihood Lipschitz bound) and :data:`L_drift`
  (Bertazzi Prop. 4.6: the Lipschitz constant of the drift, may be 0);
- ``R``: :data:`R` (Wang Thm 1: the radius of the parameter ball) and :data:`R_coupling`
  (Bertazzi Prop. 4.6: a coupling radius, may be 0);
- ``alpha``: :data:`alpha` (Bertazzi: the Rényi order) and :data:`alpha_phase` (Wang: the fraction of
  the alpha-phase transition);
- ``C``: :data:`C` (Foulds: the log-likelihood difference bound Delta log Pr) and :data:`C_mse`
  (Li Props 5-6: the constant of the MSE bound);
- ``A``: :data:`A_friction` (Wang eq. 4.2: SGHMC friction) and :data:`A_risk` (Li Prop. 7: the
  constant of the generalisation bound);
- ``m``: :data:`m` (Bertazzi: strong convexity) and :data:`m_dissipativity` (Li Asm. 2);
- ``delta_prime``: :data:`delta_prime` (Bertazzi Prop. 3.4, Cor. 3.3: a second privacy level) and
  :data:`delta_slack` (Wang Lemma 3, Remark 1: the slack of advanced composition).

The decisions on epsilon and delta
----------------------------------
``delta`` is **nonnegative**: delta = 0 is pure DP, and several statements are about exactly that case
(Bertazzi Prop. 3.4 with a pure-DP chain, Foulds' composition of pure mechanisms, an exact sampler in
Wang/Foulds Prop. 3, Lemma 1's post-processing). Statements whose formula or proof needs delta > 0 --
everything with ``log(1/delta)`` or ``log(2/delta)``: the Gaussian mechanism, DP-SGLD, the moments
accountant's tail bound, Girsanov-based bounds -- say so with the hypothesis :func:`delta_positive`, so
``evaluate(delta=0)`` on them is a :class:`~dpverify.theorems.base.HypothesisError` naming it. (Every
derivation check of the catalogue passes under the nonnegative delta: none needed sympy to know delta > 0.)
The one exception is ``li2019.wang_bound_quoted``, a quotation whose q-free evaluation checks no hypothesis;
its ``eta_max`` tends to 0 as delta -> 0, the right limit.

``epsilon`` is **positive**: every statement of the catalogue divides by it or takes its logarithm
(the Laplace scale Delta/eps, the temperature 2 Delta/eps, the Gaussian sigma ~ 1/eps, rho = eps/(4B)),
and epsilon = 0 (output independent of the data) is a case no item is about.

Other counts (``N``, ``n``, ``k``, ``tau``, ``t``, ``Q``, ``T_iterations``) are positive integers;
scales, constants and rates are positive unless the entry says it may be 0.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass

import sympy as sp

from dpverify.theorems.base import Hypothesis  # base imports nothing from here

__all__ = [
    "Entry", "Quantity", "TABLE", "entry", "entry_of", "pick", "delta_positive",
]


@dataclass(frozen=True)
class Entry:
    """One row of the table: the Python name (``key``), the sympy symbol, what it means, and the papers
    that use it."""

    key: str
    symbol: sp.Symbol
    meaning: str
    papers: tuple[str, ...]
    #: The assumptions as declared (``positive``, ``integer``, ``nonnegative``), not the ones sympy derives.
    assumptions: dict[str, bool]


class Quantity(sp.Symbol):
    """A sympy symbol that prints as ``name`` but whose identity also carries its table ``key``.

    sympy identifies symbols by name and assumptions, so ``T`` (data passes, Wang) and ``T`` (time horizon,
    Bertazzi), both positive reals, would be one object. An entry whose Python name differs from the letter
    it prints (``T_passes``, ``T_horizon``, ``alpha_phase``, ...) is a :class:`Quantity` and equals no other
    symbol (the way :class:`sympy.Dummy` carries its index).
    """

    __slots__ = ("key",)

    def __new__(cls, name: str, key: str, **assumptions: bool) -> "Quantity":
        cls._sanitize(assumptions, cls)
        obj = sp.Symbol.__xnew__(cls, name, **assumptions)
        obj.key = key
        return obj

    def __getnewargs_ex__(self):
        return ((self.name, self.key), self._assumptions_orig)

    def _hashable_content(self):
        return sp.Symbol._hashable_content(self) + (self.key,)

    def sort_key(self, order=None):
        return self.class_key(), (2, (self.name, self.key)), sp.S.One.sort_key(), sp.S.One


#: Every catalogue symbol, by Python name, in the order below.
TABLE: dict[str, Entry] = {}


def _add(key: str, printed: str, meaning: str, papers: str, **assumptions: bool) -> sp.Symbol:
    if key in TABLE:  # pragma: no cover - a typo in this module
        raise RuntimeError(f"symbol table: duplicate key {key!r}")
    symbol = sp.Symbol(printed, **assumptions) if key == printed else Quantity(printed, key, **assumptions)
    TABLE[key] = Entry(key, symbol, meaning, tuple(papers.split()), dict(assumptions))
    return symbol


_W, _L, _B, _F, _C = "wang2015", "li2019", "bertazzi2025", "foulds2016", "chourasia2021"
_BW = "balle2018"  # the supporting item (Theorem 8: the Gaussian mechanism's exact profile)
_G, _P = "geumlek2017", "ponnoprat2022"

# --- privacy levels ------------------------------------------------------------------------------------
epsilon = _add("epsilon", "epsilon", "epsilon of (epsilon, delta)-DP (also the target epsilon of a "
               "calibration)", f"{_W} {_L} {_B} {_F} {_BW}", positive=True)
delta = _add("delta", "delta", "delta of (epsilon, delta)-DP, in [0, 1); delta = 0 is pure DP (see the module "
             "docstring); also the L1 closeness of an approximate sampler (Prop. 3)", f"{_W} {_L} {_B} {_F}",
             nonnegative=True)
epsilon_1 = _add("epsilon_1", "epsilon_1", "epsilon of the first of two composed mechanisms", f"{_W} {_F}",
                 positive=True)
epsilon_2 = _add("epsilon_2", "epsilon_2", "epsilon of the second of two composed mechanisms", f"{_W} {_F}",
                 positive=True)
delta_1 = _add("delta_1", "delta_1", "delta of the first of two composed mechanisms", f"{_W} {_F}", nonnegative=True)
delta_2 = _add("delta_2", "delta_2", "delta of the second of two composed mechanisms", f"{_W} {_F}", nonnegative=True)
delta_slack = _add("delta_slack", "delta_prime", "the slack delta' of advanced composition (Wang Lemma 3, Remark 1; "
                   "log(1/delta') appears, so > 0)", _W, positive=True)
delta_prime = _add("delta_prime", "delta_prime", "a second privacy level delta' (Bertazzi Prop. 3.4, Cor. 3.3: the "
                   "posterior is not (epsilon, delta')-DP)", _B, nonnegative=True)
epsilon_xi = _add("epsilon_xi", "epsilon_xi", "epsilon of the noise mechanism xi added to an estimator "
                  "(Bertazzi Props 3.7, 3.10)", _B, positive=True)
delta_xi = _add("delta_xi", "delta_xi", "delta of the noise mechanism xi (Bertazzi Props 3.7, 3.10)", _B,
                nonnegative=True)
delta_tilde = _add("delta_tilde", "delta_tilde", "probability that the chain's estimator leaves its concentration "
                   "set (Bertazzi Prop. 3.7)", _B, nonnegative=True)
delta_bar = _add("delta_bar", "delta_bar", "failure probability of the ergodic-average concentration (Bertazzi "
                 "Prop. 3.10)", _B, nonnegative=True)
energy = _add("energy", "energy", "the Girsanov energy budget C: a bound on the integrated squared drift gap "
              "(Bertazzi Lemmas 4.1, 4.2, B.1)", _B, positive=True)
alpha = _add("alpha", "alpha", "the order of a Rényi divergence / RDP (> 1 where a theorem says so; Geumlek's and "
             "Ponnoprat's lambda)", f"{_B} {_C} {_G} {_P}",
             positive=True)
lam = _add("lam", "lam", "the moment order lambda of the moments accountant (Li Def. 3, Thm 1, Lemma 2)", _L,
           positive=True)
mu = _add("mu", "mu", "the mean gap of two Gaussians (the privacy-loss variable of Li Defs 2, 3)", _L, positive=True)

# --- sensitivities and likelihood bounds ------------------------------------------------------------------
sensitivity = _add("sensitivity", "sensitivity", "a sensitivity of the released statistic (L1 for Laplace, L2 for "
                   "Gaussian, Delta u for the exponential mechanism; Geumlek's Delta and Ponnoprat's Delta_2: the L2 "
                   "distance of neighbouring posterior parameters)", f"{_W} {_B} {_F} {_BW} {_G} {_P}", positive=True)
B = _add("B", "B", "a bound on |log p(x|theta)| over data and parameters (Wang Thm 1, Foulds Thm 3)", f"{_W} {_F}",
         positive=True)
C = _add("C", "C", "Foulds' Delta log Pr(theta, X): max |log Pr(x'|theta) - log Pr(x|theta)| (eqs. 7-9)", _F,
         positive=True)
L = _add("L", "L", "a bound on the per-example gradient norm (Lipschitz constant of the log-likelihood; Li's "
         "clipping bound)", f"{_W} {_L}", positive=True)
R = _add("R", "R", "the radius of the parameter ball (Wang Thm 1, Lipschitz part)", _W, positive=True)
a0 = _add("a0", "a0", "the truncation level of the beta-Bernoulli prior support [a0, 1 - a0] (Foulds eq. 15)", _F,
          positive=True)
theta_max = _add("theta_max", "theta_max", "a bound on |theta| over the parameter space (Foulds eq. 13)", _F,
                 positive=True)
stat_range = _add("stat_range", "stat_range", "the range of the sufficient statistic S(x) (Foulds eq. 13)", _F,
                  positive=True)
log_h_range = _add("log_h_range", "log_h_range", "the range of log h(x), the base measure (Foulds eq. 13; 0 when "
                   "h is constant)", _F, nonnegative=True)
sensitivity_inf = _add("sensitivity_inf", "sensitivity_inf", "the L-infinity distance of neighbouring posterior "
                       "parameters (Ponnoprat's Delta_inf; r for counts weighted by r)", _P, positive=True)
curvature = _add("curvature", "curvature", "a bound l on the curvature u^T Hess C(eta) u / |u|^2 of the posterior's "
                 "log-normaliser C along the extrapolated segments of neighbouring parameters (Geumlek)", _G,
                 positive=True)
a_min = _add("a_min", "a_min", "the smallest concentration of a beta / Dirichlet posterior over all datasets (the "
             "prior's smallest; Ponnoprat's alpha_min)", f"{_G} {_P}", positive=True)
weight = _add("weight", "weight", "the weight r in (0, 1] of the data's counts in Geumlek's Diffuse Posterior "
              "(r = 1: the posterior)", _G, positive=True)
a_1 = _add("a_1", "a_1", "the first parameter of the first of two beta laws (Geumlek, Rényi divergence of posteriors)",
           _G, positive=True)
b_1 = _add("b_1", "b_1", "the second parameter of the first of two beta laws", _G, positive=True)
a_2 = _add("a_2", "a_2", "the first parameter of the second of two beta laws", _G, positive=True)
b_2 = _add("b_2", "b_2", "the second parameter of the second of two beta laws", _G, positive=True)
temperature = _add("temperature", "temperature", "the temperature T of a tempered posterior (Foulds eqs. 10, 14)", _F,
                   positive=True)

# --- data, batches, iterations ------------------------------------------------------------------------------
N = _add("N", "N", "the number of data points (Chourasia's n)", f"{_W} {_L} {_B} {_F} {_C}", positive=True,
         integer=True)
n = _add("n", "n", "the number of data points of a small example (Wang Defs 2-3, Prop. 1; Lemma 6's batch)", _W,
         positive=True, integer=True)
tau = _add("tau", "tau", "the mini-batch size", f"{_W} {_L} {_B}", positive=True, integer=True)
q = _add("q", "q", "the sampling rate tau/N of a mini-batch (Li)", _L, positive=True)
gamma = _add("gamma", "gamma", "the subsampled fraction of the data (Wang Lemma 4; the same ratio as Li's q, under "
             "Wang's letter)", _W, positive=True)
k = _add("k", "k", "a number of composed mechanisms or chain steps (Chourasia's K)", f"{_W} {_L} {_B} {_F} {_C}",
         positive=True, integer=True)
t = _add("t", "t", "an iteration index", _W, positive=True, integer=True)
T_passes = _add("T_passes", "T", "the number of passes over the data (Wang: k = N T / tau iterations); real", _W,
                positive=True)
T_iterations = _add("T_iterations", "T", "the number of iterations of a chain (Li Alg. 1; Foulds' Gibbs "
                    "iterations)", f"{_L} {_F}", positive=True, integer=True)
T_horizon = _add("T_horizon", "T", "the time horizon of a diffusion, T = k h (Bertazzi)", _B, positive=True)
Q = _add("Q", "Q", "the number of latent variables a random-scan Gibbs sweep updates (Foulds Sec. 4.1)", _F,
         positive=True, integer=True)

# --- step sizes, noise, dynamics ----------------------------------------------------------------------------
eta = _add("eta", "eta", "a step size (of SGLD; eta_0 or the fixed step; of noisy gradient descent)",
           f"{_W} {_L} {_C}", positive=True)
eta_tilde_0 = _add("eta_tilde_0", "eta_tilde_0", "the rescaled first step of Li Prop. 5", _L, positive=True)
h = _add("h", "h", "the step size of a discretised dynamics (ULA, SGHMC)", f"{_W} {_B}", positive=True)
sigma = _add("sigma", "sigma", "the standard deviation of Gaussian noise (the noise multiplier when the sensitivity "
             "is 1; Chourasia: the diffusion's noise scale, sqrt(2 eta) sigma per step)", f"{_L} {_B} {_BW} {_C}",
             positive=True)
alpha_phase = _add("alpha_phase", "alpha", "the fraction alpha in (0, 1) of the alpha-phase transition (Wang, "
                   "after Thm 4)", _W, positive=True)
A_friction = _add("A_friction", "A", "the friction of SGHMC (Wang eq. 4.2)", _W, positive=True)
B_hat = _add("B_hat", "B_hat", "the estimated gradient-noise covariance of SGHMC (Wang eq. 4.2)", _W, nonnegative=True)
a = _add("a", "a", "the friction / diffusion of SGNHT and of SGD with momentum (Wang eqs. 4.3-4.5)", _W,
         positive=True)
b_hat = _add("b_hat", "b_hat", "the estimated gradient-noise term of SGD with momentum (Wang eq. 4.4)", _W,
             nonnegative=True)
c = _add("c", "c", "the composed budget parameter of Wang Remark 1", _W, positive=True)
theta0 = _add("theta0", "theta0", "the true Bernoulli parameter of Wang's consistency examples", _W, positive=True)
K = _add("K", "K", "a bound on the drift / gradient gap between neighbouring data sets (Bertazzi)", _B, positive=True)
K_ell = _add("K_ell", "K_ell", "a bound on the per-datum gradient (Bertazzi Thm 5.8)", _B, positive=True)
M = _add("M", "M", "the smoothness constant: the Lipschitz constant of the potential's gradient (Chourasia's "
         "beta)", f"{_L} {_B} {_C}", positive=True)
m = _add("m", "m", "the strong-convexity constant of the potential (Bertazzi; Chourasia's lambda)", f"{_B} {_C}",
         positive=True)
S_g = _add("S_g", "S_g", "the gradient sensitivity sup ||grad l(theta, x) - grad l(theta, x')|| over parameters and "
           "pairs of records (Chourasia; 2L for an L-Lipschitz loss)", _C, positive=True)
m_dissipativity = _add("m_dissipativity", "m", "the dissipativity constant of Li Asm. 2 (Raginsky et al.)", _L,
                       positive=True)
beta = _add("beta", "beta", "the inverse temperature of the Langevin dynamics (Bertazzi; 1 for the posterior)", _B,
            positive=True)
L_drift = _add("L_drift", "L", "the Lipschitz constant of the drift (Bertazzi Prop. 4.6; may be 0)", _B,
               nonnegative=True)
R_coupling = _add("R_coupling", "R", "a coupling radius: a bound on the distance of coupled chains (Bertazzi "
                  "Prop. 4.6; may be 0)", _B, nonnegative=True)
kappa = _add("kappa", "kappa", "the constant of the uniform TV convergence rate (Bertazzi Asm. 3.1)", _B,
             positive=True)
R_n = _add("R_n", "R_n", "the rate of the uniform TV convergence after n steps (Bertazzi Asm. 3.1)", _B,
           nonnegative=True)
R_inf = _add("R_inf", "R_inf", "the limit of the convergence rate (Bertazzi Asm. 3.1, Cor. 3.3)", _B,
             nonnegative=True)
r = _add("r", "r", "a concentration radius / tail level (Bertazzi Prop. 3.10, Lemma B.1)", _B, positive=True)
C_f = _add("C_f", "C_f", "the sensitivity of the test function f of an ergodic average (Bertazzi Prop. 3.10)", _B,
           nonnegative=True)
# DP-penalty / DP-HMC (issue 39: Yildirim & Ermis 2019, Räisä et al. 2021)
ratio_clip = _add("ratio_clip", "b", "the clip bound of a per-record log-likelihood ratio per unit of proposal "
                  "distance: r_i clipped to [-b d, b d] (DP-penalty, DP-HMC)", "yildirim2019", positive=True)
distance = _add("distance", "d", "the distance |theta' - theta| of a proposal from the current state (DP-penalty)",
                "yildirim2019", positive=True)
tau_ratio = _add("tau_ratio", "tau_l", "the noise scale of DP-penalty / DP-HMC's log-likelihood ratios: noise std "
                 "tau_l sqrt(N) times the clipped ratio's sensitivity", "raisa2021", positive=True)
tau_grad = _add("tau_grad", "tau_g", "the noise scale of DP-HMC's gradients: noise std tau_g sqrt(N) times the "
                "clipped gradient sum's sensitivity", "raisa2021", positive=True)
leapfrog_steps = _add("leapfrog_steps", "n_leapfrog", "the number of leapfrog steps of one HMC iteration (DP-HMC)",
                      "raisa2021", positive=True, integer=True)
# the utility of the regularised exponential mechanism (issue 39: Gopi et al. 2022)
dim = _add("dim", "dim", "the dimension of the parameter space R^dim (Gopi et al.'s d; the samplers' dim)", "gopi2022",
           positive=True, integer=True)

# --- utility (Li Props 5-7, Assumptions) -----------------------------------------------------------------------
Gamma_M = _add("Gamma_M", "Gamma_M", "the bound on the gradient-noise moment of Li Props 5-6", _L, positive=True)
C_mse = _add("C_mse", "C", "the constant of Li's MSE bounds (Props 5-6)", _L, positive=True)
A_risk = _add("A_risk", "A", "the constant of Li Prop. 7's generalisation bound", _L, positive=True)
omega = _add("omega", "omega", "the accuracy parameter omega in (0, 1) of Li Prop. 7 / Asm. 2", _L, positive=True)
Delta = _add("Delta", "Delta", "the constant Delta in [0, 1) of Li Asm. 1", _L, nonnegative=True)


# --- the field's other papers (issue 39) use the entries above with the meaning stated there ------------------------
def _also(paper: str, *keys: str) -> None:
    """``paper`` uses these entries too (each with the meaning its row states)."""
    for key in keys:
        e = TABLE[key]
        TABLE[key] = Entry(e.key, e.symbol, e.meaning, (*e.papers, paper), e.assumptions)


_also("yildirim2019", "delta", "alpha", "sensitivity", "k", "sigma")
_also("raisa2021", "epsilon", "L", "N", "k")
_also("heikkila2019", "delta", "alpha", "C", "temperature", "N", "tau", "q", "T_iterations", "sigma")
_also("minami2016", "epsilon", "delta", "L", "m", "beta", "kappa", "R_n")  # kappa, R_n: the TV transfer
_also("gopi2022", "L", "N", "m", "beta", "R", "mu")  # R: the comparator's radius; mu: a target GDP
_also("bok2024", "R", "N", "tau", "k", "T_passes", "eta", "sigma", "M", "m", "S_g")
_also("heller2023", "alpha", "R", "t", "eta", "m")  # R: the chain's start; t: the number of steps
_also("annamalai2024", "epsilon", "q", "T_iterations", "sigma", "r")  # r: the latch threshold
_also("cebere2025", "T_iterations", "sigma", "q")  # q: the Poisson sampling rate


def entry(key: str) -> Entry:
    """The row of the table with this Python name (``KeyError`` naming close matches otherwise)."""
    try:
        return TABLE[key]
    except KeyError:
        close = difflib.get_close_matches(key, list(TABLE), n=3, cutoff=0.5)
        raise KeyError(f"{key!r} is not in the symbol table" + (f"; did you mean {', '.join(close)}?" if close else "")) from None


def entry_of(symbol: sp.Basic) -> Entry:
    """The row whose symbol *is* ``symbol`` (same name and assumptions); ``KeyError`` for a symbol the table
    does not hold."""
    for e in TABLE.values():
        if e.symbol == symbol:
            return e
    raise KeyError(f"symbol {symbol!r} is not in the symbol table (dpverify.theorems.symbols); a table symbol has "
                   "the same name and assumptions (and, for a letter two quantities share, is the table's object)")


def pick(*keys: str) -> dict[str, sp.Symbol]:
    """A ``{printed name: symbol}`` dict of these entries, the form ``Theorem(symbols=...)`` takes (the printed
    name is the keyword of :meth:`~dpverify.theorems.base.Theorem.evaluate`)."""
    out: dict[str, sp.Symbol] = {}
    for key in keys:
        sym = entry(key).symbol
        if sym.name in out:
            raise ValueError(f"pick: two entries print as {sym.name!r} ({keys}); a theorem takes one of them")
        out[sym.name] = sym
    return out


def delta_positive(symbol: sp.Symbol = delta, name: str = "delta_positive", why: str = "") -> Hypothesis:
    """The hypothesis ``symbol > 0`` for a statement whose formula needs it (``log(1/delta)``); see the
    module docstring. Returns a :class:`~dpverify.theorems.base.Hypothesis`."""
    return Hypothesis(name, symbol > 0, why or f"{symbol} > 0: the statement takes log(1/{symbol})")

"""Shared pieces of the Wang, Fienberg, Smola (2015) catalogue: symbols, sources, links, and the
privacy chain of the proof of Theorem 4 that DP-SGLD, DP-SGHMC, DP-SGNHT and DP-SGFS all reuse.

The chain (Wang et al. 2015, supplement, proof of Theorem 4), for ``k = N T / tau`` iterations
(``T`` counts *data passes*; one pass is ``N / tau`` mini-batches of size ``tau``):

1. per step, the only data access is the mini-batch gradient sum ``sum_{i in S} grad l(x_i|theta)``,
   whose L2 sensitivity under replace-one adjacency is ``2 L``; the Gaussian mechanism (Theorem 2)
   at failure probability ``delta_0 = tau delta / (2 N T)`` gives a per-step ``epsilon_0``;
2. subsampling a fraction ``gamma = tau / N`` (Lemma 4, needs ``epsilon_0 < 1``) gives
   ``epsilon_1 = 2 (tau / N) epsilon_0``;
3. advanced composition (Lemma 3) over ``k`` steps with ``delta' = delta / 2`` gives
   ``sqrt(2 k log(2/delta)) epsilon_1 + k epsilon_1 (e^{epsilon_1} - 1)`` and total failure
   probability ``k delta_0 + delta / 2 = delta``.

The proof claims ``epsilon_0 = epsilon sqrt(N) / sqrt(32 tau T log(2/delta))``, which makes step 3
come out at ``epsilon`` (Remark 1 with ``c = epsilon / 2``). :func:`sgld_chain` evaluates the chain
for a per-step noise that is ``variance_ratio`` times the noise that claim requires; Algorithm 2's
constant 128 is ``variance_ratio = 1/2`` (the claim needs 256, see ``wang2015.thm4_dp_sgld``).
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Source

__all__ = [
    "SYMBOLS", "symbols", "source", "link", "data_term_coefficient", "sgld_chain", "PAPER_EPS0",
    "LOG_A", "LOG_2D", "with_log_symbols", "hockey_stick_rows",
]

#: This paper's symbols, keyword name -> the entry of the catalogue's symbol table
#: (:mod:`dpverify.theorems.symbols`), where each one's assumptions and meaning are stated. ``T`` counts *data
#: passes* here (:data:`~dpverify.theorems.symbols.T_passes`, real), ``alpha`` is the phase-transition fraction,
#: ``delta_prime`` the slack of advanced composition.
SYMBOLS: dict[str, sp.Symbol] = {
    "epsilon": sy.epsilon,
    "delta": sy.delta,
    "B": sy.B,
    "L": sy.L,
    "R": sy.R,
    "N": sy.N,
    "n": sy.n,
    "T": sy.T_passes,
    "tau": sy.tau,
    "eta": sy.eta,
    "t": sy.t,
    "k": sy.k,
    "delta_prime": sy.delta_slack,
    "gamma": sy.gamma,
    "alpha": sy.alpha_phase,
    "h": sy.h,
    "sensitivity": sy.sensitivity,
    "A": sy.A_friction,
    "B_hat": sy.B_hat,
    "a": sy.a,
    "b_hat": sy.b_hat,
    "theta0": sy.theta0,
    "c": sy.c,
    "epsilon_1": sy.epsilon_1,
    "epsilon_2": sy.epsilon_2,
    "delta_1": sy.delta_1,
    "delta_2": sy.delta_2,
}


def symbols(*names: str) -> dict[str, sp.Symbol]:
    """The shared symbols with these names, as a name -> Symbol dict for ``Theorem(symbols=...)``."""
    return {name: SYMBOLS[name] for name in names}


def source(item: str, location: str) -> Source:
    """A :class:`Source` in Wang et al. 2015 (main paper or supplement)."""
    return Source("wang2015", item, location)


def link(sampler: str, description: str) -> EmpiricalLink:
    """The reference sampler (``dpverify samplers list``) and its audit file ``audits/test_<sampler_id>.py``."""
    return EmpiricalLink(sampler, f"audits/test_{sampler}.py", description)


def data_term_coefficient(N=None, T=None, tau=None, L=None, epsilon=None, delta=None):
    """Algorithm 2's data-term coefficient D, so that its noise variance is ``max{D eta_t^2, eta_t}``:

    ``D = (128 N T L^2 / (tau epsilon^2)) log(2.5 N T / (tau delta)) log(2/delta)``
    (Wang et al. 2015, Algorithm 2 step 2; also the right-hand side of the SGHMC / SGNHT conditions).
    """
    S = SYMBOLS
    N, T, tau, L, eps, delta = (
        S["N"] if N is None else N,
        S["T"] if T is None else T,
        S["tau"] if tau is None else tau,
        S["L"] if L is None else L,
        S["epsilon"] if epsilon is None else epsilon,
        S["delta"] if delta is None else delta,
    )
    return 128 * N * T * L**2 / (tau * eps**2) * sp.log(sp.Rational(5, 2) * N * T / (tau * delta)) * sp.log(2 / delta)


#: log(2.5 N T/(tau delta)) and log(2/delta), the two logarithms of Algorithm 2's noise.
LOG_A = sp.log(sp.Rational(5, 2) * SYMBOLS["N"] * SYMBOLS["T"] / (SYMBOLS["tau"] * SYMBOLS["delta"]))
LOG_2D = sp.log(2 / SYMBOLS["delta"])
_LOG_SYMBOLS = sp.symbols("log_A log_B", positive=True)


def with_log_symbols(expr):
    """``expr`` with LOG_A, LOG_2D replaced by positive symbols ``log_A``, ``log_B``, so that simplify keeps
    the logarithms whole (it otherwise folds them into forms like ``log(x**log(y))``)."""
    return sp.sympify(expr).subs({LOG_A: _LOG_SYMBOLS[0], LOG_2D: _LOG_SYMBOLS[1]})


def hockey_stick_rows(p: np.ndarray, q: np.ndarray, eps: float) -> np.ndarray:
    """sup_S P(S) - e^eps Q(S) = sum_w max(0, p_w - e^eps q_w) for each row of discrete laws (last axis);
    the batched form of :func:`dpverify.calculus.mechanisms.exponential.discrete_delta` for the checks' random pairs."""
    return np.maximum(p - np.exp(eps) * q, 0.0).sum(axis=-1)


#: The per-step epsilon the proof of Theorem 4 claims: epsilon sqrt(N) / sqrt(32 tau T log(2/delta)).
PAPER_EPS0 = SYMBOLS["epsilon"] * sp.sqrt(SYMBOLS["N"]) / sp.sqrt(
    32 * SYMBOLS["tau"] * SYMBOLS["T"] * sp.log(2 / SYMBOLS["delta"])
)


def sgld_chain(variance_ratio) -> dict[str, sp.Expr]:
    """The proof chain of Wang et al. 2015, Theorem 4 (supplement), as sympy expressions.

    ``variance_ratio`` is the per-step noise variance on the data access divided by the variance
    that makes the per-step epsilon equal the proof's claim :data:`PAPER_EPS0`; the per-step
    epsilon is then ``PAPER_EPS0 / sqrt(variance_ratio)``. Returns ``eps0`` (Gaussian mechanism,
    Theorem 2), ``eps1 = 2 (tau/N) eps0`` (Lemma 4), ``k = N T / tau`` iterations, ``epsilon``
    (Lemma 3 with ``delta' = delta/2``), ``delta`` (``k delta_0 + delta/2``) and ``delta0``.
    """
    S = SYMBOLS
    delta, N, T, tau = S["delta"], S["N"], S["T"], S["tau"]
    eps0 = PAPER_EPS0 / sp.sqrt(sp.sympify(variance_ratio))
    eps1 = 2 * tau / N * eps0
    k = N * T / tau
    delta0 = tau * delta / (2 * N * T)
    epsilon = sp.sqrt(2 * k * sp.log(2 / delta)) * eps1 + k * eps1 * (sp.exp(eps1) - 1)
    return {"eps0": eps0, "eps1": eps1, "k": k, "epsilon": epsilon, "delta": k * delta0 + delta / 2, "delta0": delta0}

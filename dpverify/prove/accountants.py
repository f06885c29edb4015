"""Accountants, proved or caught: ``dpverify prove --accountant NAME`` (issue 35, section 4).

An accountant answers epsilon(sigma, q, T, delta) for T Poisson-subsampled Gaussian steps (noise multiplier
sigma, sampling rate q, add/remove neighbours). An accountant is a black box, so it is checked at points of a box
(seeded, log-uniform in each parameter, plus the box's corners), and at each point its answer is set against two
**rigorous** enclosures of the truth, computed in interval arithmetic on Arb:

- **a lower bound** ``epsilon_low``: the hockey-stick divergence of the pair restricted to one test. The output's
  sum ``S = y_1 + ... + y_T`` is a post-processing, so the divergence of (law of S with the record, law of S
  without) is at most the run's; for the test ``{S > t}``:
  ``P(S > t) - e^eps Q(S > t) <= delta(eps)``, with ``Q(S > t) = Phi(-t / (sigma sqrt T))`` and
  ``P(S > t) = sum_k Binom(k; T, q) Phi((k - t) / (sigma sqrt T))``, of which only a window of k around qT is
  summed (dropping positive terms keeps it a lower bound). An answer below ``epsilon_low`` (a delta above the
  claimed one at the answer's epsilon) is **unsound**: the witness is the point and the threshold t;
- **an upper bound** ``epsilon_up``: the exact Renyi divergence of the sampled Gaussian at integer orders
  (``log sum_j C(a, j) (1 - q)^{a - j} q^j e^{(j^2 - j)/(2 sigma^2)} / (a - 1)``, Mironov, Talwar and Zhang 2019),
  composed over the T steps and converted to (eps, delta) (Balle et al. 2020, Thm 21), minimised over orders. An
  answer above ``epsilon_up`` by more than ``tolerance`` (relative) is **loose**.

An answer between the two is **consistent** (the enclosures do not pin the truth: the gap between them is
reported); an infinite answer is **vacuous** (true, and useless); an accountant that raises, hangs past the time
limit or needs more memory than the limit is an **error**, with the reason. Accountants here: ``dpverify-rdp``, ``dpverify-pld`` (dpverify's own), ``dp-accounting-rdp``,
``dp-accounting-pld`` (Google's dp_accounting), ``opacus-rdp``, ``opacus-prv``, ``opacus-gdp`` (Opacus, when
installed), ``prv-accountant`` (Microsoft's, when installed).
"""
from __future__ import annotations

import importlib.util
import math
import multiprocessing
import random
import resource
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Literal

import numpy as np
from flint import arb, fmpq
from scipy.optimize import minimize_scalar
from scipy.special import gammaln, log_ndtr, logsumexp

from dpverify.calculus.accounting.accountant import epsilon_sampled_gaussian
from dpverify.calculus.accounting.pld import PldAccountant
from dpverify.prove.intervals import working_precision

__all__ = ["ACCOUNTANTS", "DEFAULT_BOX", "AccountantPoint", "AccountantReport", "check_accountant",
           "epsilon_lower", "epsilon_upper", "available"]

#: The box of issue 35: sigma, q, T, delta.
DEFAULT_BOX: dict[str, tuple[float, float]] = {"sigma": (0.3, 50.0), "q": (1e-5, 1.0), "steps": (1, 100_000),
                                                "delta": (1e-18, 0.1)}

#: Integer Renyi orders tried for the upper bound.
ORDERS: tuple[int, ...] = tuple(range(2, 65)) + (80, 96, 128, 160, 192, 256, 320, 384, 512, 768, 1024, 1536, 2048)

Verdict = Literal["consistent", "unsound", "loose", "vacuous", "error"]


def _arb(x: float | int | Fraction) -> arb:
    if isinstance(x, float):
        x = Fraction(x)
    if isinstance(x, int):
        return arb(x)
    return arb(fmpq(x.numerator, x.denominator))


def _log_power(n: int, log_p: arb | None) -> arb:
    """``n log p``, 0 when ``n`` is 0 (``log_p`` is None where p is not positive: then only n = 0 is defined)."""
    if not n:
        return arb(0)
    if log_p is None:
        raise ValueError("log(0) is needed: the sampling rate q must lie in (0, 1) here")
    return n * log_p


def _log_binomial_pmf(T: int, k: int, log_q: arb | None, log_1mq: arb | None) -> arb:
    return (arb(T + 1).lgamma() - arb(k + 1).lgamma() - arb(T - k + 1).lgamma()
            + _log_power(k, log_q) + _log_power(T - k, log_1mq))


def _normal_sf(z: arb) -> arb:
    """P(N(0, 1) > z) = erfc(z / sqrt 2) / 2."""
    return (z / arb(2).sqrt()).erfc() / 2


def _window(T: int, q: float) -> tuple[int, int]:
    mean, sd = q * T, math.sqrt(max(T * q * (1 - q), 0.0))
    return max(0, int(mean - 12 * sd) - 20), min(T, int(math.ceil(mean + 12 * sd)) + 20)


def _test_delta_lower(sigma: float, q: float, T: int, eps: float, t: float) -> arb:
    """A rigorous lower bound (an Arb ball whose lower end is used) of P(S > t) - e^eps Q(S > t)."""
    s, qq, tt, e = _arb(sigma), _arb(q), _arb(t), _arb(eps)
    scale = s * arb(T).sqrt()
    log_q = qq.log() if q > 0 else None
    log_1mq = (1 - qq).log() if q < 1 else None
    lo, hi = _window(T, q)
    total = arb(0)
    for k in range(lo, hi + 1):
        if q == 1.0:
            if k != T:
                continue
            pmf = arb(1)
        else:
            pmf = _log_binomial_pmf(T, k, log_q, log_1mq).exp()
        total += pmf * _normal_sf((tt - k) / scale)
    p_lower = total.lower()  # the window's sum: a lower bound of P(S > t)
    q_upper = _normal_sf(tt / scale).upper()
    return p_lower - e.exp().upper() * q_upper


def _log_pmf_window(T: int, q: float) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = _window(T, q)
    if q == 1.0:
        return np.array([float(T)]), np.array([0.0])
    ks = np.arange(lo, hi + 1, dtype=float)
    return ks, gammaln(T + 1) - gammaln(ks + 1) - gammaln(T - ks + 1) + ks * math.log(q) + (T - ks) * math.log1p(-q)


def _test_delta_float(sigma: float, q: float, T: int, eps: float, ts: np.ndarray) -> np.ndarray:
    """The test's delta at each threshold of ``ts`` (float64; used only to choose t and eps)."""
    ks, logpmf = _log_pmf_window(T, q)
    scale = sigma * math.sqrt(T)
    log_p = logsumexp(logpmf[None, :] + log_ndtr((ks[None, :] - ts[:, None]) / scale), axis=1)
    return np.exp(log_p) - np.exp(eps + log_ndtr(-ts / scale))


def _best_threshold(sigma: float, q: float, T: int, eps: float) -> tuple[float, float]:
    """(t, delta) with t maximising the test's delta on a grid (float search; any t gives a valid bound)."""
    scale = sigma * math.sqrt(T)
    ts = q * T / 2 + scale * np.linspace(-6.0, 20.0, 209)
    values = _test_delta_float(sigma, q, T, eps, ts)
    i = int(np.nanargmax(values))
    step = scale * 26.0 / 208
    found = minimize_scalar(lambda t: -float(_test_delta_float(sigma, q, T, eps, np.array([t]))[0]),
                            bounds=(float(ts[i]) - step, float(ts[i]) + step), method="bounded",
                            options={"xatol": step * 1e-6})
    if found.success and -found.fun > values[i]:
        return float(found.x), float(-found.fun)
    return float(ts[i]), float(values[i])


def epsilon_lower(sigma: float, q: float, T: int, delta: float, precision: int = 128) -> tuple[float, float]:
    """``(epsilon_low, t)``: a rigorous lower bound on the run's epsilon(delta) and the test threshold that
    gives it (0 when no eps > 0 is certified). The crossing is found in float64, then certified in Arb at a
    slightly smaller epsilon (backing off until the rigorous test's delta exceeds ``delta``)."""
    t0, d0 = _best_threshold(sigma, q, T, 0.0)
    if not d0 > delta:
        return 0.0, t0
    lo, hi = 0.0, 1.0
    while _best_threshold(sigma, q, T, hi)[1] > delta:
        lo, hi = hi, hi * 2
        if hi > 1e4:
            break
    for _ in range(50):
        mid = (lo + hi) / 2
        if _best_threshold(sigma, q, T, mid)[1] > delta:
            lo = mid
        else:
            hi = mid
    with working_precision(precision):
        eps = lo
        for back_off in (1e-6, 1e-4, 1e-3, 1e-2, 5e-2, 0.2, 0.5):
            eps = lo * (1 - back_off)
            t, _ = _best_threshold(sigma, q, T, eps)
            if _test_delta_lower(sigma, q, T, eps, t) > delta:
                return eps, t
    return 0.0, t0


def epsilon_upper(sigma: float, q: float, T: int, delta: float, precision: int = 128) -> tuple[float, int]:
    """``(epsilon_up, order)``: a rigorous upper bound on the run's epsilon(delta) from the exact RDP at integer
    orders (module docstring), and the order that gives it."""
    with working_precision(precision):
        s2, qq, d = _arb(sigma) ** 2, _arb(q), _arb(delta)
        log_q = qq.log()
        log_1mq = (1 - qq).log() if q < 1 else None
        best, order = math.inf, 0
        for a in ORDERS:
            total = arb(0)
            for j in range(a + 1):
                if q == 1.0 and j != a:
                    continue
                lp = (arb(a + 1).lgamma() - arb(j + 1).lgamma() - arb(a - j + 1).lgamma()
                      + (j * log_q if j else arb(0)) + ((a - j) * log_1mq if a - j and log_1mq is not None else arb(0)))
                total += (lp + arb(j * j - j) / (2 * s2)).exp()
            rdp = T * total.log() / (a - 1)
            eps = rdp + (arb(1) - arb(1) / a).log() - (d.log() + arb(a).log()) / (a - 1)
            up = float(eps.upper())
            if up < best:
                best, order = up, a
        return max(best, 0.0), order


# ------------------------------------------------------------------------------------------------ accountants
def _dpverify_rdp(sigma: float, q: float, T: int, delta: float) -> float:
    return float(epsilon_sampled_gaussian(sigma, q, T, delta).epsilon)


def _dpverify_pld(sigma: float, q: float, T: int, delta: float) -> float:
    acc = PldAccountant()
    acc.compose_subsampled_gaussian(q=q, mu=1.0 / sigma, count=T)
    return float(acc.get_epsilon(delta).epsilon)


def _dp_accounting(kind: str) -> Callable[[float, float, int, float], float]:
    def run(sigma: float, q: float, T: int, delta: float) -> float:
        import dp_accounting
        from dp_accounting import pld, rdp

        event = dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), T)
        acc = rdp.RdpAccountant() if kind == "rdp" else pld.PLDAccountant()
        acc.compose(event)
        return float(acc.get_epsilon(delta))
    return run


def _opacus(kind: str) -> Callable[[float, float, int, float], float]:
    def run(sigma: float, q: float, T: int, delta: float) -> float:
        from opacus.accountants import GaussianAccountant, PRVAccountant, RDPAccountant

        acc = {"rdp": RDPAccountant, "prv": PRVAccountant, "gdp": GaussianAccountant}[kind]()
        acc.history = [(sigma, q, T)]
        return float(acc.get_epsilon(delta=delta))
    return run


def _prv_accountant(sigma: float, q: float, T: int, delta: float) -> float:
    from prv_accountant import Accountant

    acc = Accountant(noise_multiplier=sigma, sampling_probability=q, delta=delta, eps_error=0.01,
                     max_compositions=T)
    return float(acc.compute_epsilon(num_compositions=T)[2])


#: name -> (module it needs, the answer function).
ACCOUNTANTS: dict[str, tuple[str, Callable[[float, float, int, float], float]]] = {
    "dpverify-rdp": ("dpverify", _dpverify_rdp),
    "dpverify-pld": ("dpverify", _dpverify_pld),
    "dp-accounting-rdp": ("dp_accounting", _dp_accounting("rdp")),
    "dp-accounting-pld": ("dp_accounting", _dp_accounting("pld")),
    "opacus-rdp": ("opacus", _opacus("rdp")),
    "opacus-prv": ("opacus", _opacus("prv")),
    "opacus-gdp": ("opacus", _opacus("gdp")),
    "prv-accountant": ("prv_accountant", _prv_accountant),
}


def available(name: str) -> bool:
    """Whether the accountant's package is installed."""
    return importlib.util.find_spec(ACCOUNTANTS[name][0]) is not None


@dataclass
class AccountantPoint:
    sigma: float
    q: float
    steps: int
    delta: float
    answer: float
    epsilon_low: float
    epsilon_up: float
    verdict: Verdict
    threshold: float = 0.0
    order: int = 0
    error: str = ""

    def text(self) -> str:
        where = f"sigma = {self.sigma:.4g}, q = {self.q:.3g}, T = {self.steps}, delta = {self.delta:.3g}"
        if self.verdict == "error":
            return f"{where}: the accountant failed: {self.error}"
        return (f"{where}: answer {self.answer:.6g}, rigorous bracket [{self.epsilon_low:.6g}, {self.epsilon_up:.6g}]"
                f" -> {self.verdict}")

    def to_dict(self) -> dict[str, Any]:
        return {"sigma": self.sigma, "q": self.q, "steps": self.steps, "delta": self.delta, "answer": self.answer,
                "epsilon_low": self.epsilon_low, "epsilon_up": self.epsilon_up, "verdict": self.verdict,
                "threshold": self.threshold, "order": self.order, "error": self.error}


@dataclass
class AccountantReport:
    name: str
    box: dict[str, tuple[float, float]]
    points: list[AccountantPoint] = field(default_factory=list)
    seconds: float = 0.0
    tolerance: float = 0.0

    def count(self, verdict: Verdict) -> int:
        return sum(p.verdict == verdict for p in self.points)

    def summary(self) -> str:
        head = (f"{self.name}: {len(self.points)} points, {self.count('consistent')} consistent, "
                f"{self.count('unsound')} unsound, {self.count('loose')} loose (tolerance {self.tolerance:g}), "
                f"{self.count('vacuous')} vacuous (epsilon = inf), {self.count('error')} errors "
                f"({self.seconds:.1f} s)")
        worst = [p for p in self.points if p.verdict in ("unsound", "loose", "vacuous", "error")]
        return head + "".join(f"\n  {p.text()}" for p in worst[:10])

    def to_dict(self) -> dict[str, Any]:
        return {"accountant": self.name, "box": {k: list(v) for k, v in self.box.items()},
                "tolerance": self.tolerance, "seconds": round(self.seconds, 2),
                "counts": {v: self.count(v) for v in ("consistent", "unsound", "loose", "vacuous", "error")},
                "points": [p.to_dict() for p in self.points], "summary": self.summary()}


def _points(box: dict[str, tuple[float, float]], n: int, seed: int) -> list[tuple[float, float, int, float]]:
    rng = random.Random(seed)

    def log_uniform(lo: float, hi: float) -> float:
        return math.exp(math.log(lo) + rng.random() * (math.log(hi) - math.log(lo)))

    out = []
    (s0, s1), (q0, q1), (t0, t1), (d0, d1) = box["sigma"], box["q"], box["steps"], box["delta"]
    for sigma in (s0, s1):
        for q in (q0, q1):
            out.append((sigma, q, int(t1), d0))
    while len(out) < n:
        out.append((log_uniform(s0, s1), log_uniform(q0, q1), int(round(log_uniform(t0, t1))), log_uniform(d0, d1)))
    return out[:n]


class AccountantLimitError(RuntimeError):
    """An accountant's call ran past its time or memory limit."""


def call_with_limits(fn: Callable[..., float], args: tuple, *, seconds: float, memory_bytes: int) -> float:
    """``fn(*args)`` in a forked child process with an address-space limit and a time limit: an accountant that
    needs tens of gigabytes at an extreme point of the box (or hangs) is reported, not allowed to take the machine
    down. Exceptions in the child come back with their type and message."""
    def child(conn) -> None:
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
            conn.send(("ok", float(fn(*args))))
        except BaseException as exc:  # noqa: BLE001 - everything goes back to the parent
            conn.send(("error", f"{type(exc).__name__}: {exc}"[:300]))
        finally:
            conn.close()

    ctx = multiprocessing.get_context("fork")
    parent, child_end = ctx.Pipe(duplex=False)
    process = ctx.Process(target=child, args=(child_end,), daemon=True)
    process.start()
    child_end.close()
    if not parent.poll(seconds):
        process.kill()
        process.join()
        raise AccountantLimitError(f"no answer within {seconds:g} s")
    try:
        status, value = parent.recv()
    except EOFError:
        process.join()
        raise AccountantLimitError(f"the accountant died (exit {process.exitcode}; memory limit "
                                   f"{memory_bytes / 2**30:g} GiB)") from None
    process.join()
    if status == "error":
        raise AccountantLimitError(value)
    return value


def check_accountant(name: str | Callable[[float, float, int, float], float], *,
                     box: dict[str, tuple[float, float]] | None = None, points: int = 24,
                     seed: int = 0, tolerance: float = 0.05, seconds: float = 120.0, memory_bytes: int = 4 * 2**30,
                     on_point: Callable[[AccountantPoint], None] | None = None) -> AccountantReport:
    """Check accountant ``name`` at ``points`` points of ``box`` (module docstring). ``tolerance``: the relative
    excess over the rigorous upper bound that still counts as consistent; ``seconds`` and ``memory_bytes``: the
    limits of one call of the accountant (past them the point is an error, with the reason)."""
    if callable(name):  # an accountant of your own: epsilon(sigma, q, steps, delta)
        answer, name = name, getattr(name, "__name__", "custom")
    elif name not in ACCOUNTANTS:
        raise ValueError(f"accountant must be one of {', '.join(ACCOUNTANTS)}; got {name!r}")
    elif not available(name):
        raise ValueError(f"accountant {name!r} needs the package {ACCOUNTANTS[name][0]!r}, which is not installed")
    else:
        answer = ACCOUNTANTS[name][1]
    box = {**DEFAULT_BOX, **(box or {})}
    for key, (lo, hi) in box.items():
        if not (0 < lo <= hi) or not math.isfinite(hi):
            raise ValueError(f"the box's {key} range must satisfy 0 < lo <= hi < inf; got [{lo}, {hi}]")
    if box["q"][1] > 1 or box["delta"][1] >= 1:
        raise ValueError("q must be in (0, 1] and delta in (0, 1)")
    report = AccountantReport(name, box, tolerance=tolerance)
    start = time.perf_counter()
    for sigma, q, T, delta in _points(box, points, seed):
        try:
            eps = call_with_limits(answer, (sigma, q, T, delta), seconds=seconds, memory_bytes=memory_bytes)
        except Exception as exc:  # an accountant that fails is a finding, not a crash
            point = AccountantPoint(sigma, q, T, delta, math.nan, math.nan, math.nan, "error",
                                    error=f"{type(exc).__name__}: {exc}"[:300])
        else:
            low, t = epsilon_lower(sigma, q, T, delta)
            up, order = epsilon_upper(sigma, q, T, delta)
            verdict: Verdict = "consistent"
            if math.isnan(eps) or eps < low:
                verdict = "unsound"
            elif math.isinf(eps):
                verdict = "vacuous"  # "no finite epsilon": true, and useless
            elif eps > up * (1 + tolerance) + 1e-9:
                verdict = "loose"
            point = AccountantPoint(sigma, q, T, delta, eps, low, up, verdict, t, order)
        report.points.append(point)
        if on_point is not None:
            on_point(point)
    report.seconds = time.perf_counter() - start
    return report

"""Write the notebooks of docs/notebooks/ (without outputs) from the cell lists below.

Run ``python docs/notebooks/make_notebooks.py`` after editing; tests/test_notebooks.py executes them.
Markdown cells are strings starting with "md:", everything else is code.
"""
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent

SETUP = """import io
import numpy as np
import matplotlib.pyplot as plt
from IPython.display import Image, Markdown, display

def show(fig):
    \"\"\"Display a dpverify.interfaces.figures figure (a headless Agg figure) as a PNG.\"\"\"
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    display(Image(buf.getvalue()))"""

NOTEBOOKS = {}

NOTEBOOKS["01_ops_4b_bound.ipynb"] = [
    """md:# One posterior sample: the 4B bound (Wang et al. 2015, Theorem 1)

Wang, Fienberg & Smola (ICML 2015) show that releasing **one sample from the posterior** is differentially
private when the log-likelihood is bounded: if `sup |log p(x | theta)| <= B`, one posterior sample is `4B`-DP.
Foulds et al. (UAI 2016, Theorem 2) sharpen it to `2C` with `C` a bound on the *difference* of log-likelihoods.

This notebook

1. takes the theorem from the catalogue and re-derives its bound with sympy (and runs the catalogue's own checks);
2. evaluates it for the truncated beta-Bernoulli model (`theta` restricted to `[a0, 1 - a0]`, Foulds eq. 15);
3. compares with the **exact** epsilon of the worst adjacent pair (the `ops_beta_bernoulli` sampler's
   `exact_epsilon`) and with an **audit** (`dpverify.audit.audit`).

Sample sizes are small (100 000 outputs per side) so the notebook runs in seconds.""",
    SETUP + """
import sympy as sp
from dpverify.theorems import registry

thm = registry.get("wang2015.thm1_ops_pure_dp")
print(thm.explain())""",
    "thm  # renders as LaTeX in Jupyter",
    """md:## The derivation, symbolically

Replace record `x` by `x'`. The log posterior ratio is
`log p(theta | D) - log p(theta | D') = [l(x | theta) - l(x' | theta)] + log(Z(D') / Z(D))`
where `Z` is the normaliser. The first term is at most `2B` because each log-likelihood lies in `[-B, B]`; the
normaliser ratio is a weighted average of `exp(l(x|.) - l(x'|.))` and so is at most `exp(2B)` too. Below, sympy does
both steps for the truncated beta-Bernoulli model, whose log-likelihood is `l(x | theta) = x log theta + (1 - x) log(1 - theta)`.""",
    """a0, theta = sp.symbols("a0 theta", positive=True)
loglik = {1: sp.log(theta), 0: sp.log(1 - theta)}
# |log p(x | theta)| = -log p on [a0, 1 - a0]; each -log p is monotone in theta (derivatives below), so the
# supremum over the interval is at an endpoint: at theta = a0 for x = 1 and at theta = 1 - a0 for x = 0.
print("d/dtheta of -log p:", [sp.diff(-l, theta) for l in loglik.values()])
endpoints = [(-l).subs(theta, e) for l in loglik.values() for e in (a0, 1 - a0)]
print("B at a0 = 1/20:", sp.Max(*[e.subs(a0, sp.Rational(1, 20)) for e in endpoints]), "= -log(1/20); in general B = -log a0")
B = thm.symbols["B"]
eps_wang = thm.conclusion["epsilon"].subs(B, -sp.log(a0))
# Foulds: C = sup |l(x'|theta) - l(x|theta)| = log((1 - a0)/a0), and the bound is 2C
C_expr = sp.log((1 - a0) / a0)
eps_foulds = registry.get("foulds2016.thm2_posterior_2c").conclusion["epsilon"].subs(
    registry.get("foulds2016.thm2_posterior_2c").symbols["C"], C_expr)
print("Wang  (4B):", eps_wang)
print("Foulds (2C):", sp.simplify(eps_foulds))
gap = sp.simplify(sp.expand_log(eps_wang - eps_foulds, force=True))
print("4B - 2C =", gap, "which is -2 log(a0 (1 - a0)) > 0 for a0 in (0, 1/2)")""",
    """md:The catalogue re-does the proof's two factors symbolically and tests the bound numerically; run its checks:""",
    """for r in thm.run_checks():
    print(f"[{r.kind}] {r.name}: {'passed' if r.passed else 'FAILED'} -- {r.detail}")""",
    """md:## Bound vs exact epsilon, beta-Bernoulli with N = 10 records

For each truncation level `a0` we build the reference sampler and compute the exact pure-DP epsilon of every
adjacent pair "`k` ones vs `k + 1` ones" (replace one 0 by a 1), `k = 0..9`; the worst pair is the extreme one.""",
    """from dpverify.samplers import registry as samplers

N = 10
a0_grid = np.array([0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4])
rows = []
for a in a0_grid:
    s = samplers.make("ops_beta_bernoulli", a0=float(a))
    pairs = [(np.r_[np.ones(k), np.zeros(N - k)], np.r_[np.ones(k + 1), np.zeros(N - k - 1)]) for k in range(N)]
    exact = max(s.exact_epsilon(D, D2) for D, D2 in pairs)
    claim = s.guarantee()
    rows.append((a, claim.epsilon, claim.details["foulds2016_thm2_epsilon"], exact))
rows = np.array(rows)
display(Markdown("| a0 | Wang 4B | Foulds 2C | exact (worst pair) |\\n|---|---|---|---|\\n" + "\\n".join(
    f"| {a:g} | {w:.3f} | {f:.3f} | {e:.3f} |" for a, w, f, e in rows)))""",
    """fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(rows[:, 0], rows[:, 1], "o-", label="Wang et al. Thm 1: 4B = -4 log a0")
ax.plot(rows[:, 0], rows[:, 2], "s-", label="Foulds et al. Thm 2: 2C = 2 log((1-a0)/a0)")
ax.plot(rows[:, 0], rows[:, 3], "k^-", label="exact epsilon, worst pair (N = 10)")
ax.set_xlabel("truncation level a0 (theta restricted to [a0, 1 - a0])")
ax.set_ylabel("epsilon of one posterior sample (pure DP)")
ax.set_yscale("log"); ax.grid(True, which="both", alpha=0.3); ax.legend(fontsize=8)
plt.show()""",
    """md:**Figure.** Privacy of one posterior sample of a truncated beta-Bernoulli model against the truncation level.
What to see: both bounds hold (they lie above the exact worst-pair epsilon), Foulds' `2C` is at most half of Wang's
`4B`, and even `2C` is loose by a factor of about 1.2-1.4 for this small dataset; all three blow up as `a0 -> 0`
(no truncation, no privacy).""",
    """md:## An audit

The auditor only sees samples. On the worst pair at `a0 = 0.2`, with 100 000 samples per side, it certifies a
lower bound with 95% confidence. The sampler has `log_density`, so the audit uses the likelihood-ratio (Neyman-Pearson) test.""",
    """from dpverify.audit import audit

s = samplers.make("ops_beta_bernoulli", a0=0.2)
D, D2 = np.zeros(N), np.r_[1.0, np.zeros(N - 1)]
result = audit(s, D, D2, epsilon=s.guarantee().epsilon, samples=100_000, seed=0)
print(f"claimed (4B) {result.epsilon_claimed:.3f} >= exact {result.epsilon_exact:.3f} >= certified {result.epsilon_lower:.3f}")
print("verdict:", result.verdict, "| test:", result.test, "| event:", result.event)
assert result.epsilon_claimed >= result.epsilon_exact >= result.epsilon_lower""",
    """md:The certified bound is well below the exact epsilon: a pure-DP epsilon is attained only in the tails of the
posterior, where few of the 100 000 samples fall. The audit is a *lower* bound -- it can refute a claim, never
prove one (see the [auditing guide](../auditing.md)). The catalogue's proof is what certifies `4B`.""",
]

NOTEBOOKS["02_sgld_step_sizes.ipynb"] = [
    """md:# DP-SGLD step sizes: Wang et al. 2015 vs Li et al. 2019

Stochastic gradient Langevin dynamics is private "for free" when its own injected noise is large enough compared
to the gradient's sensitivity -- that is, when the step size is small enough. Wang et al. (2015, Theorem 4 and
Algorithm 2) and Li et al. (2019, Theorems 3 and 4) give different step-size bounds; Li et al.'s Figures 1 and 2
compare them. Here both figures are rebuilt from the catalogue (`dpverify.theorems.li2019.experiments`, through the
`dpverify.interfaces.figures` builders that also draw the report), and the worked example of Li et al. Sec. 3.1 is recomputed.
Everything is closed form: the notebook runs in seconds.""",
    SETUP + """
from dpverify.interfaces import figures
from dpverify.theorems import registry

for tid in ("li2019.thm3_decreasing_stepsize", "li2019.thm4_fixed_stepsize", "li2019.wang_bound_quoted"):
    t = registry.get(tid)
    print(tid, "--", t.title)
    for k, v in t.conclusion.items():
        print(f"    {k} = {v}")""",
    """md:## Figure 1: bounds against epsilon""",
    """fig, caption = figures.li2019_figure1()
show(fig)
display(Markdown("**Figure 1.** " + caption))""",
    """md:## Figure 2: sensitivity to N and L""",
    """fig, caption = figures.li2019_figure2()
show(fig)
display(Markdown("**Figure 2.** " + caption))""",
    """md:## The worked example (Li et al. Sec. 3.1)

N = 50 000, epsilon = 0.1, delta = 1e-5, T = 10 000 iterations, L = 1: the paper prints `eta < 0.103` (theirs) vs
`1.54e-6` (Wang). The catalogue entry `li2019.example_mnist_stepsize` recomputes both; its checks say which
published number reproduces.""",
    """ex = registry.get("li2019.example_mnist_stepsize")
print(ex.statement)
for r in ex.run_checks():
    print(f"[{r.kind}] {r.name}: {'passed' if r.passed else 'FAILED'} -- {r.detail}")""",
    """md:## Evaluating the theorems at your own setting

`evaluate` checks the hypotheses (including the errata-corrected conditions i) and ii) of Theorem 3) and returns
the bound; a failed hypothesis raises an error that names it. At the worked example's batch size, condition ii)
(Lemma 2's `q < 1/(16 sigma)`, re-derived) fails for the step tried here:""",
    """from dpverify.theorems.base import HypothesisError

thm3 = registry.get("li2019.thm3_decreasing_stepsize")
setting = dict(N=50_000, T=10_000, L=1.0, q=128 / 50_000, epsilon=1.0, delta=1e-5)
try:
    thm3.evaluate(eta=1e-3, **setting)
except HypothesisError as err:
    print(err)
ev = thm3.evaluate(eta=1e-3, allow_unguaranteed=True, **setting)
print("eta_max =", ev.eta_max, "| guaranteed:", ev.guaranteed, "| hypotheses:", ev.hypotheses)""",
    """md:What to take away: at equal privacy, Li et al.'s accountant-based bounds allow steps about 700 times (fixed)
and 10 000 times (decreasing, first step) larger than Wang et al.'s advanced-composition bound, which is what makes
"private SGLD for free" practical -- even though the paper's own headline numbers (0.103 and 1.54e-6) do not reproduce
exactly from its formulas (checks above). The errata page lists where the paper's statements of the conditions and of
Figure 2's reading ("stable in N", "proportional to 1/L") differ from what the formulas give.""",
]

NOTEBOOKS["03_laplace_vs_ops.ipynb"] = [
    """md:# Laplace mechanism vs one posterior sample (Foulds et al. 2016)

Two ways to release a private estimate of a Bernoulli parameter `p` from `N` records:

- **OPS / exponential mechanism**: one draw from the posterior at temperature `T = 2C/epsilon` (truncated to
  `[a0, 1 - a0]`), Foulds eqs. 10-15;
- **Laplace mechanism on the sufficient statistics**: add `Laplace(2/epsilon)` noise to the counts `(n1, n0)`, project,
  then draw from (or take the mean of) the resulting beta posterior, Foulds eqs. 16-17.

Foulds et al. show the Laplace route is asymptotically more efficient: asymptotic relative efficiency (ARE, variance
relative to the non-private MLE) 2 for one Laplace draw (Theorem 4), 1 for the Laplace posterior mean (Remark 1), but
`1 + T` for one OPS draw (Theorem 5). We reproduce Figure 2 and the AREs by simulation (300 datasets per N for the
figure and 4 000 datasets for the AREs, to keep the run short: the Monte Carlo error is a few percent).""",
    SETUP + """
from dpverify.interfaces import figures
from dpverify.theorems import registry
from dpverify.samplers import registry as samplers

fig, caption = figures.foulds_figure2(repeats=300)
show(fig)
display(Markdown("**Figure 2 (Foulds et al.).** " + caption))""",
    """md:## The AREs by simulation

For `M` datasets of size `N` drawn with `p0 = 0.3`, the ARE of an estimator is `N Var(estimate) / (p0 (1 - p0))`
(the non-private MLE has variance `p0 (1 - p0) / N`). Datasets enter through their sufficient statistics
`n1 ~ Binomial(N, p0)`; each sampler releases one estimate per dataset. The standard error of a variance estimate
from `M` near-normal values is `sqrt(2/M)` relative, 2.2% at `M = 4000`.""",
    """N, M, p0, epsilon = 20_000, 4_000, 0.3, 1.0
rng = np.random.default_rng(0)
n1 = rng.binomial(N, p0, size=M).astype(float)
stats = np.stack([n1, N - n1], axis=1)
are = lambda est: float(N * np.var(est, ddof=1) / (p0 * (1 - p0)))

ops = samplers.make("ops_beta_bernoulli", a0=0.05, epsilon=epsilon, calibration="foulds2016")
T = registry.get("foulds2016.eq10_temperature").evaluate(C=ops.C, epsilon=epsilon).temperature
lap_draw = samplers.make("laplace_posterior_beta_bernoulli", epsilon=epsilon, release="sample")
lap_mean = samplers.make("laplace_posterior_beta_bernoulli", epsilon=epsilon, release="mean")

rows = [
    ("one OPS draw at temperature T", registry.get("foulds2016.thm5_are_exponential").evaluate(temperature=T).are,
     are(ops.sample_many(stats, rng)[:, 0])),
    ("one Laplace-posterior draw", registry.get("foulds2016.thm4_are_laplace").evaluate().are,
     are(lap_draw.release_from_statistics(stats, rng)[:, 0])),
    ("Laplace-posterior mean", registry.get("foulds2016.rem1_are_mean").evaluate().are,
     are(lap_mean.release_from_statistics(stats, rng)[:, 0])),
]
display(Markdown(f"Temperature T = {T:.3f} (a0 = 0.05, epsilon = {epsilon:g}).\\n\\n"
                 "| release | ARE (theorem) | ARE (simulated, M = 4000) |\\n|---|---|---|\\n"
                 + "\\n".join(f"| {name} | {want:.3f} | {got:.3f} |" for name, want, got in rows)))
for name, want, got in rows:
    assert abs(got / want - 1) < 0.12, (name, want, got)  # 5 s.e. of 2.2% plus finite-N effects""",
    """fig, ax = plt.subplots(figsize=(6, 3.5))
names = [r[0] for r in rows]
x = np.arange(len(rows))
ax.bar(x - 0.2, [r[1] for r in rows], width=0.4, label="theorem")
ax.bar(x + 0.2, [r[2] for r in rows], width=0.4, label="simulation (M = 4000 datasets)")
ax.set_xticks(x, names, fontsize=8)
ax.set_ylabel("asymptotic relative efficiency (variance / MLE variance)")
ax.set_xlabel("private release (epsilon = 1, N = 20 000)")
ax.legend(fontsize=8)
plt.show()""",
    """md:**Figure.** ARE of three private releases of a Bernoulli parameter, theory vs simulation. What to see: the
simulated bars match the theorems within the Monte Carlo error, and one OPS draw costs `1 + T` times the MLE's
variance while the Laplace route costs 2 (one draw) or 1 (its mean): for this model, noising the sufficient
statistics is the better use of the privacy budget.""",
]

NOTEBOOKS["04_girsanov_ula.ipynb"] = [
    """md:# Girsanov bounds: path vs final state of ULA (Bertazzi et al. 2025)

Bertazzi, Johnston, Roberts & Durmus (ICML 2025) bound the privacy of the unadjusted Langevin algorithm (ULA) with
Girsanov's theorem. Releasing the **whole path** costs privacy linearly in the number of steps (Theorem 5.4);
releasing only the **final state** is private uniformly in the number of steps for strongly log-concave targets
(Theorem 5.2). The statements are *reconstructed* (the seed copy of the paper lacks its formulas; see the catalogue's
reconstructed flags).

Here the theory curves (`dpverify.theorems.bertazzi2025.formulas`) sit beside the **exact** epsilon of a Gaussian
target (the laws are Gaussian, so it is closed form) and beside **audited** lower bounds from the `ula_final` and
`ula_path` samplers. The audits use 20 000 chains per side and few steps, to keep the run under a minute.""",
    SETUP + """
from dpverify.interfaces import figures
from dpverify.theorems import registry

for tid in ("bertazzi2025.thm52_ula_final", "bertazzi2025.thm54_ula_path"):
    t = registry.get(tid)
    print(tid, "-- reconstructed:", t.reconstructed, "--", t.title)
    print("    epsilon =", t.conclusion["epsilon"])""",
    """fig, caption = figures.bertazzi_ula_path_vs_final()
show(fig)
display(Markdown("**Figure 1.** " + caption))""",
    """md:## Audited lower bounds

Same target (`figures.BERTAZZI_SETTING`: one-dimensional Gaussian location model, N = 2 records, `|x| <= 1`), the
edge pair `x = 1` vs `x = -1`, step size `h = 0.1`. For each number of steps `k` we audit the final state and the
whole path at `delta = 1e-5`, claiming the theorem's epsilon, and record the certified lower bound.""",
    """from dpverify.audit import audit
from dpverify.models.targets import GaussianTarget
from dpverify.samplers import registry as samplers

S = figures.BERTAZZI_SETTING
D = np.array([[S["R"]], [S["R"]]])
D2 = np.array([[S["R"]], [-S["R"]]])
steps = [1, 3, 10, 30]
records = []
for kind in ("final", "path"):
    for k in steps:
        s = samplers.make(f"ula_{kind}", model=GaussianTarget(1, R=S["R"]), N=S["N"], step_size=S["h"], n_steps=k)
        claim = s.guarantee(delta=S["delta"])
        r = audit(s, D, D2, epsilon=claim.epsilon, delta=S["delta"], samples=20_000, seed=k)
        records.append((kind, k, claim.epsilon, r.epsilon_exact, r.epsilon_lower, r.verdict))
display(Markdown("| output | steps k | bound (theorem) | exact | audited lower bound | verdict |\\n|---|---|---|---|---|---|\\n"
                 + "\\n".join(f"| {a} | {k} | {c:.3g} | {e:.3g} | {l:.3g} | {v} |" for a, k, c, e, l, v in records)))
assert all(v != "violation" for *_, v in records)""",
    """fig, ax = plt.subplots(figsize=(6, 4))
for kind, color in (("final", "tab:blue"), ("path", "tab:red")):
    sel = [r for r in records if r[0] == kind]
    ks = [r[1] for r in sel]
    ax.plot(ks, [r[2] for r in sel], "-", color=color, label=f"{kind}: Girsanov bound")
    ax.plot(ks, [r[3] for r in sel], ":", color=color, label=f"{kind}: exact")
    ax.plot(ks, [r[4] for r in sel], "o", color=color, label=f"{kind}: audited lower bound (95%)")
ax.set_xscale("log"); ax.set_yscale("log")
ax.set_xlabel("number of ULA steps k (h = 0.1)")
ax.set_ylabel("epsilon at delta = 1e-5 (dimensionless)")
ax.grid(True, which="both", alpha=0.3); ax.legend(fontsize=7)
plt.show()""",
    """md:**Figure 2.** Bound, exact value and audited lower bound for the final state (blue) and the path (red). What
to see: the ordering bound >= exact >= audited holds everywhere; the audited path epsilon grows with `k` like the
exact one, while the audited final-state epsilon stays flat -- the auditor, which knows nothing of Girsanov, sees the
same path-vs-final gap as the theory. With 20 000 chains the audit certifies only moderate epsilons; larger ones
need more samples (the [auditing guide](../auditing.md) explains why).""",
]

NOTEBOOKS["05_audit_your_mechanism.ipynb"] = [
    """md:# Auditing another library's mechanism in 10 lines

Any function `mechanism(dataset, n, rng)` that returns `n` independent outputs can be audited. Here is a Laplace
mechanism written directly with numpy (as another library would), and a deliberately broken copy that uses half the
noise it needs. `dpverify.interfaces.testing.assert_dp` raises `AssertionError` when the audit certifies that a claim is false.
50 000 samples per side: a few seconds.""",
    """import numpy as np
from dpverify.interfaces.testing import assert_dp

def laplace_mean(data, n, rng, epsilon=1.0):            # mean of records in [0, 1]: sensitivity 1/len(data)
    return data.mean() + rng.laplace(scale=1 / (len(data) * epsilon), size=n)

def broken_laplace_mean(data, n, rng, epsilon=1.0):     # bug: half the noise -> only 2-DP, not 1-DP
    return data.mean() + rng.laplace(scale=1 / (2 * len(data) * epsilon), size=n)

D, D2 = np.array([0.2, 0.9, 0.4, 0.0]), np.array([0.2, 0.9, 0.4, 1.0])   # replace one record: 0 -> 1
ok = assert_dp(laplace_mean, D, D2, epsilon=1.0, samples=50_000, seed=0)
print(f"correct mechanism: certified lower bound {ok.epsilon_lower:.3f} <= claimed 1.0 ({ok.verdict})")""",
    """try:
    assert_dp(broken_laplace_mean, D, D2, epsilon=1.0, samples=50_000, seed=0)
    print("no violation found")
except AssertionError as err:
    print(err)""",
    """md:The failure message is a reproducible proof (at 95% confidence): the event, how many of the outputs on each
dataset fell in it, and the seed. Rerunning with the same seed gives the same numbers.

## How strong is a "consistent" verdict?

Audit the broken mechanism at several sample sizes: the smallest size at which it is caught is the power of your audit
against this bug. A test suite should include such a deliberately broken variant so a passing audit means something.""",
    """import matplotlib.pyplot as plt
from dpverify.audit import audit

sizes = [1_000, 3_000, 10_000, 30_000, 100_000]
good = [audit(laplace_mean, D, D2, epsilon=1.0, samples=n, seed=1).epsilon_lower for n in sizes]
bad = [audit(broken_laplace_mean, D, D2, epsilon=1.0, samples=n, seed=1).epsilon_lower for n in sizes]
fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogx(sizes, good, "o-", label="correct Laplace (exact epsilon 1)")
ax.semilogx(sizes, bad, "s-", label="broken Laplace (exact epsilon 2)")
ax.axhline(1.0, color="k", ls="--", lw=1, label="claimed epsilon = 1")
ax.set_xlabel("samples per side")
ax.set_ylabel("certified epsilon lower bound (95% confidence)")
ax.grid(True, which="both", alpha=0.3); ax.legend(fontsize=8)
plt.show()""",
    """md:**Figure.** Certified lower bound against the number of samples. What to see: the correct mechanism's bound
approaches but never crosses its claim of 1; the broken one's crosses the dashed line (a violation) once there are
enough samples, and approaches its true epsilon of 2. In pytest, the same audit is one decorated test:

```python
@pytest.mark.dp_audit(epsilon=1.0)
def test_laplace_mean(dp_auditor):
    dp_auditor(laplace_mean, D, D2)
```

(see [using dpverify in your test suite](../pytest-plugin.md)).""",
]


NOTEBOOKS["06_auditing_dp_sgld.ipynb"] = [
    """md:# Auditing DP-SGLD: claimed vs accounted vs certified

A user asks: *is this DP-SGLD implementation private, and how loose is the paper's bound?* Three numbers answer it,
and a fourth says how much an audit can show at all:

- **claimed** -- what the paper's theorem promises (Li, Chen, Liu, Carin 2019, Theorem 4 for a fixed step);
- **accountant** -- the privacy of the concrete run, computed from the sampler's *mechanism description* (noise,
  sampling rate, clip level, step sizes, read off the sampler's own update) by a tight privacy-loss-distribution
  accountant: exact for a released path, an upper bound for the final iterate;
- **budget ceiling** -- the most any event-based audit could certify on the audited pair with the samples spent;
- **certified** -- what the audit certifies: a lower bound on epsilon with 95% confidence, from samples of the
  sampler on a *gradient canary* pair, with the white-box likelihood ratio of the released path.""",
    SETUP + """
import math
from dpverify.models.logistic import LogisticRegression
from dpverify.models.canary import model_canary_pair
from dpverify.samplers import registry
from dpverify.audit import audit
from dpverify.audit.ceiling import ceiling_from_masses

model = LogisticRegression(dim=2, R=4.0, prior_variance=100.0)
li = registry.make("dp_sgld_li", model=model, N=1000, tau=15, T=200, epsilon=1.0, delta=1e-5, step_size=0.0225, L=1.0)
print(li.mechanism().summary())
print("claimed by Li et al., Theorem 4:", li.guarantee().epsilon)
print("accountant of the run:           ", li.account(1e-5))""",
    """md:## 1. The paper's claim and the accountant

At these parameters Theorem 4's hypotheses hold and it claims (1, 1e-5)-DP. The run is 200 Poisson-subsampled
Gaussian steps (rate 0.015, noise multiplier 3.2); its accountant's epsilon is about a quarter of the claim. The
theorem is valid, and loose by a factor of about four.

How many samples would an audit need to *see* that epsilon? The budget ceiling answers it without sampling: it is
computed from the pair's privacy-loss distribution. At delta = 1e-5 the accountant's epsilon is decided by events of
probability around 1e-5, so the ceiling grows only slowly with the budget:""",
    """D, D2 = model_canary_pair(model, 1000, kind="null")   # the canary among null records vs null records only
loss = li.pair_privacy_loss(D, D2)
print(loss.basis)
rows = [(n, ceiling_from_masses(*loss.masses()[:3], p_inf=loss.masses()[3], q_inf=loss.masses()[4], n=n, delta=1e-5))
        for n in (10**4, 10**5, 10**6, 10**7, 10**8)]
display(Markdown("| estimation samples per side | budget ceiling | accountant |\\n|---|---|---|\\n" +
                 "\\n".join(f"| {n:.0e} | {c:.3f} | {li.account(1e-5).epsilon:.3f} |" for n, c in rows)))
assert rows[-1][1] < li.account(1e-5).epsilon and all(a[1] <= b[1] for a, b in zip(rows, rows[1:]))""",
    """md:## 2. Claimed vs accounted vs certified over noise levels

A practitioner's DP-SGLD claims what its accountant says. Below: Li et al.'s Algorithm 1 on 100 records (Poisson
rate 0.1, 50 steps, clip 1), released as a path and as its final iterate, at five noise multipliers. The claim is
the accountant's epsilon at delta = 1e-3 (a privacy profile holds at every delta; at these budgets an audit has most
power near 1e-3). Each audit uses 6 000 samples per side (4 800 to certify).""",
    """def run(step_size, release, seed=0, samples=6_000):
    s = registry.make("dp_sgld_li", model=model, N=100, tau=10, T=50, epsilon=None, delta=1e-3, step_size=step_size,
                      L=1.0, theta0=np.array([-2.0, 0.0]), release=release, claim="accountant")
    D, D2 = model_canary_pair(model, 100, kind="null")
    claim = s.guarantee()
    return s, audit(s, D, D2, epsilon=claim.epsilon, delta=claim.delta, samples=samples, seed=seed)

records = []
for sigma in (0.75, 1.0, 1.5, 2.0):
    eta = (10 / (1.0 * sigma)) ** 2 / 100          # noise multiplier tau / (L sqrt(eta N)) = sigma
    s, path = run(eta, "path")
    _, final = run(eta, "final")
    records.append((sigma, path.epsilon_claimed, path.epsilon_accountant, path.budget_ceiling,
                    path.epsilon_lower, final.epsilon_lower, path.verdict))
display(Markdown("| noise multiplier | claimed | accountant | ceiling | certified (path) | certified (final) | verdict (path) |\\n"
                 "|---|---|---|---|---|---|---|\\n" +
                 "\\n".join(f"| {r[0]} | {r[1]:.3f} | {r[2]:.3f} | {r[3]:.3f} | {r[4]:.3f} | {r[5]:.3f} | {r[6]} |" for r in records)))
assert all(r[4] <= r[2] and r[6] != "violation" for r in records)   # certified <= accountant; never a violation""",
    """fig, ax = plt.subplots(figsize=(6.4, 4))
x = [r[0] for r in records]
for j, label, style in ((2, "accountant (= claim)", "k-"), (3, "budget ceiling", "k--"), (4, "certified, path", "o-"),
                        (5, "certified, final iterate", "s-")):
    ax.plot(x, [max(r[j], 1e-3) for r in records], style, label=label)
ax.set_yscale("log"); ax.set_xlabel("noise multiplier"); ax.set_ylabel("epsilon at delta = 1e-3")
ax.set_title("DP-SGLD (Li et al. Alg. 1), gradient canary, 6000 samples per side"); ax.legend()
show(fig)""",
    """md:The path audit follows the ceiling closely: with the exact likelihood ratio, only the choice of threshold is
left to the samples. The gap between the ceiling and the accountant is the budget's, not the auditor's. The
**final iterate** certifies less than the path when the noise is low (about 60% of it at noise multiplier 0.75: 50
steps of noise blur the canary's five expected contributions) and about as much when the noise is high, where both
are limited by the budget. Any gap between the path's accountant and what the final iterate really leaks is the
last-iterate question of Bertazzi et al. (2025, Section 5): a final-state analysis can be tighter than the path's
accountant, and no path-based claim can show it.

## 3. Broken implementations are caught

Five implementations that declare this very mechanism (and so claim the same epsilon) but do something else
(`dpverify.samplers.broken`): the audit certifies more than the claim for each, at the same 6 000 samples.""",
    """rows = []
for defect in ("no_noise", "half_noise", "no_clip", "double_rate", "sum_not_mean"):
    bad = registry.make("dp_sgld_broken", model=model, N=100, tau=10, T=50, delta=1e-3, step_size=0.444, L=1.0,
                        theta0=np.array([-2.0, 0.0]), defect=defect)
    D, D2 = model_canary_pair(model, 100, kind="null")
    r = audit(bad, D, D2, epsilon=bad.guarantee().epsilon, delta=1e-3, samples=6_000, seed=0)
    rows.append((defect, r.epsilon_claimed, r.epsilon_lower, r.verdict))
display(Markdown("| defect | claimed | certified | verdict |\\n|---|---|---|---|\\n" +
                 "\\n".join(f"| {d} | {c:.3f} | {l:.3f} | {v} |" for d, c, l, v in rows)))
assert all(v == "violation" for *_, v in rows)""",
]

NOTEBOOKS["07_final_state_privacy.ipynb"] = [
    """md:# How much privacy does the hidden state buy? Final iterate vs path vs the bounds

A Langevin sampler or noisy gradient descent that publishes only its **last iterate** hides every intermediate
state. Several papers bound what that hiding is worth -- Bertazzi et al. 2025 (Theorems 5.2, 5.6, 5.7: uniform in
the number of steps), Chourasia, Ye & Shokri 2021 (Theorem 2: converging exponentially) -- while composition over
the steps (Bertazzi's Theorem 5.8, the PLD accountant of the path) charges for every step.

On a quadratic model the chain is linear with Gaussian noise, so the **exact** privacy of the last iterate is
computable (`dpverify.calculus.accounting.release`: a Gaussian pair for full batches, a Gaussian shift mixture with a
rigorous bracket for mini-batches). This notebook puts the exact final-iterate epsilon beside the exact path epsilon
and each bound, as a function of the number of steps T:

1. full-batch noisy gradient descent (one run satisfies Bertazzi's 5.6/5.7 and Chourasia's hypotheses);
2. noisy SGD with mini-batches (Bertazzi's eq. 31, batches of 5 of 50 records);
3. sample sets: what keeping several iterates costs;
4. the catalogue's grid check: claimed >= exact at every point, and how loose each bound is.

Runs in about half a minute (most of it importing and compiling the catalogue).""",
    SETUP + """
import math
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.calculus.releases import SampleSet
from dpverify.theorems import final_state
from dpverify.theorems.final_state import compiled, converted_epsilon, exact_final, runs

thm56, thm57, thm58, chou = (compiled(t) for t in (
    "bertazzi2025.thm56_sgld_final", "bertazzi2025.thm57_sgld_strongly_convex",
    "bertazzi2025.thm58_sgld_path", "chourasia2021.thm2_noisy_gd_rdp"))
print(chou.theorem.explain()[:900])""",
    """md:## 1. Full-batch noisy gradient descent

`N = 50` records, per-record loss `l(theta, x) = lam theta^2 / 2 - x theta` with `lam = 1` and `|x| <= K = 1`; noisy GD
`theta <- theta - h grad L_D(theta) + sqrt(2 h / beta) xi` with `h = 0.1`, `beta = 1`. In each paper's terms:

- Bertazzi eq. (31) with the full batch `tau = N`, `m = M = lam`, the `l_2` gradient bound `K` (Theorems 5.6, 5.7),
  and the per-datum gradient sensitivity `K_ell = 2K` of the path (Theorem 5.8);
- Chourasia's noisy GD with `lambda = beta_smooth = lam`, `eta = h`, `sigma = 1/sqrt(beta)`, `S_g = 2K`; its RDP
  claim is converted to (epsilon, delta) (Balle et al. 2020, the conversion the accountants use).

The exact values: the final iterate (from a fixed start, the stricter case; Chourasia's random start is more
private still) is a Gaussian pair with `mu_T`; the path is the composition of T Gaussian steps, `mu sqrt(T)`.""",
    """N, lam, K, h, beta, delta = 50, 1.0, 1.0, 0.1, 1.0, 1e-5
Ts = np.unique(np.round(np.logspace(0, 3, 16)).astype(int))
mu_step = (2 * h * K / N) / math.sqrt(2 * h / beta)
common = dict(K=K, M=lam, m=lam, h=h, beta=beta, delta=delta, alpha=2.0)
curves = {name: [] for name in ("final (exact)", "path (exact)", "Bertazzi 5.6", "Bertazzi 5.7",
                                "Bertazzi 5.8 (path)", "Chourasia Thm 2")}
for T in Ts:
    curves["final (exact)"].append(exact_final(runs.noisy_sgd_run(K, lam, h, beta, N, N, int(T))).epsilon_lower(delta)[0])
    curves["path (exact)"].append(gaussian_epsilon(delta, mu_step * math.sqrt(T)))
    curves["Bertazzi 5.6"].append(thm56.evaluate(**common)["epsilon"])
    curves["Bertazzi 5.7"].append(thm57.evaluate(**common, tau=N, N=N)["epsilon"])
    curves["Bertazzi 5.8 (path)"].append(thm58.evaluate(K_ell=2 * K, h=h, k=int(T), beta=beta, tau=N, N=N,
                                                        delta=delta, alpha=2.0)["epsilon"])
    rdp = chou.evaluate(alpha=2.0, S_g=2 * K, m=lam, M=lam, eta=h, sigma=1 / math.sqrt(beta), N=N, k=int(T))["rdp"]
    curves["Chourasia Thm 2"].append(converted_epsilon(rdp / 2.0, delta))
curves = {k: np.array(v) for k, v in curves.items()}
assert np.all(curves["final (exact)"] <= curves["path (exact)"] + 1e-12)
for name in ("Bertazzi 5.6", "Bertazzi 5.7", "Chourasia Thm 2"):
    assert np.all(curves[name] >= curves["final (exact)"])

styles = {"final (exact)": ("k", "-"), "path (exact)": ("k", "--"), "Bertazzi 5.6": ("tab:red", ":"),
          "Bertazzi 5.7": ("tab:orange", "-."), "Bertazzi 5.8 (path)": ("tab:purple", "--"),
          "Chourasia Thm 2": ("tab:blue", "-")}
fig, ax = plt.subplots(figsize=(7, 4.5))
for name, ys in curves.items():
    color, ls = styles[name]
    ax.plot(Ts, ys, ls, color=color, label=name, lw=2 if "exact" in name else 1.5)
ax.set_xscale("log"); ax.set_yscale("log")
ax.set_xlabel("number of steps T"); ax.set_ylabel(f"epsilon at delta = {delta:g}")
ax.set_title("full-batch noisy GD, N = 50, h = 0.1, lam = 1")
ax.grid(True, which="both", alpha=0.3); ax.legend(fontsize=8)
plt.show()
T_last = Ts[-1]
print(f"T = {T_last}: path {curves['path (exact)'][-1]:.3f}, final {curves['final (exact)'][-1]:.3f} "
      f"(the hidden state buys a factor {curves['path (exact)'][-1] / curves['final (exact)'][-1]:.1f}); "
      f"Chourasia {curves['Chourasia Thm 2'][-1]:.3f}, Bertazzi 5.7 {curves['Bertazzi 5.7'][-1]:.3f}, "
      f"5.6 {curves['Bertazzi 5.6'][-1]:.1f}")""",
    """md:**Figure 1.** What to see: the exact final-iterate epsilon (solid black) stops growing after about
`1/(h lam) = 10` steps, while the path (dashed black) keeps growing like `sqrt(T)`. Chourasia's bound follows the
final iterate's shape within a small factor (its RDP is at worst ~1.6 and at most 4 times the exact RDP, and
`4/(2 - lam eta)` as T grows); Bertazzi's Theorem 5.7 is flat at a few times the exact limit; Theorem 5.6, which
does not use the affine structure, is flat but far above everything (its constant does not shrink with N).
Composition (Theorem 5.8, and the exact path) beats the final-state bounds for short runs: hiding the state only
pays once the chain has forgotten its early steps.""",
    """md:## 2. Noisy SGD with mini-batches

Same model and step, batches of `tau = 5` of the `N = 50` records drawn without replacement (Bertazzi's eq. 31; the
canary record is in a batch with probability 0.1). The exact final iterate is the Gaussian shift mixture of the
canary's inclusions (the lower end of its PLD bracket is shown: a certified lower bound for this canary pair); the
path is the PLD of T subsampled Gaussian steps.""",
    """tau = 5
Ts2 = [1, 3, 10, 30, 100, 300, 1000]
sub = {name: [] for name in ("final (exact)", "path (exact)", "Bertazzi 5.6", "Bertazzi 5.7", "Bertazzi 5.8 (path)")}
for T in Ts2:
    d = runs.noisy_sgd_run(K, lam, h, beta, tau, N, T)
    sub["final (exact)"].append(exact_final(d).epsilon_lower(delta)[0])
    sub["path (exact)"].append(d.with_release("path").pld(interval=2e-3).epsilon_bounds(delta)[0])
    sub["Bertazzi 5.6"].append(thm56.evaluate(**common)["epsilon"])
    sub["Bertazzi 5.7"].append(thm57.evaluate(**common, tau=tau, N=N)["epsilon"])
    sub["Bertazzi 5.8 (path)"].append(thm58.evaluate(K_ell=2 * K, h=h, k=T, beta=beta, tau=tau, N=N, delta=delta,
                                                     alpha=2.0)["epsilon"])
sub = {k: np.array(v) for k, v in sub.items()}
assert np.all(sub["Bertazzi 5.7"] >= sub["final (exact)"]) and np.all(sub["Bertazzi 5.8 (path)"] >= sub["path (exact)"])
fig, ax = plt.subplots(figsize=(7, 4.5))
for name, ys in sub.items():
    color, ls = styles[name]
    ax.plot(Ts2, ys, ls, marker="o", ms=3, color=color, label=name, lw=2 if "exact" in name else 1.5)
ax.set_xscale("log"); ax.set_yscale("log")
ax.set_xlabel("number of steps T"); ax.set_ylabel(f"epsilon at delta = {delta:g}")
ax.set_title("noisy SGD, batches of 5 of N = 50")
ax.grid(True, which="both", alpha=0.3); ax.legend(fontsize=8)
plt.show()
print(f"T = 1000: path {sub['path (exact)'][-1]:.3f}, final {sub['final (exact)'][-1]:.3f} "
      f"(factor {sub['path (exact)'][-1] / sub['final (exact)'][-1]:.1f}); Bertazzi 5.7 {sub['Bertazzi 5.7'][-1]:.2f}, "
      f"5.8 {sub['Bertazzi 5.8 (path)'][-1]:.2f}")""",
    """md:**Figure 2.** The exact final iterate again saturates after ~10 steps, at nearly the full-batch value:
subsampling changes little once the canary's expected contribution `q h K / tau = h K / N` is fixed. The bounds move
the other way: Theorem 5.7 divides by `tau^2` (not `N^2`), so with batches of 5 its RDP is `(N/tau)^2 = 100` times
its full-batch value (epsilon 4.6 instead of 0.43),
and the path bound 5.8 charges `1/tau^2` per step -- its `1/tau^2` gain is a property of the bound, not of the truth.
(The final-iterate value is exact for the canary pair whose other records are copies of the counterpart; with
fixed-size batches that pair is not proven to be the worst one, so it is a lower bound on the mechanism's epsilon.)""",
    """md:## 3. Sample sets

A Bayesian user keeps several iterates: `SampleSet(burn_in, thin, count)` releases `theta_{b + m}, ...,
theta_{b + k m}`. For a chain with one coordinate the released iterates cut the run into windows whose data terms
and noise are independent, so a sample set is the composition of its windows' pairs
(`dpverify.calculus.releases`). Same mini-batch run, T = 200 steps:""",
    """d200 = runs.noisy_sgd_run(K, lam, h, beta, tau, N, 200)
releases = [("final", "final"), ("4 draws, thin 50", SampleSet(0, 50, 4)), ("10 draws after 100, thin 10", SampleSet(100, 10, 10)),
            ("10 draws, thin 20", SampleSet(0, 20, 10)), ("20 draws, thin 10", SampleSet(0, 10, 20))]
table = []
for label, rel in releases:
    lo, hi = d200.with_release(rel).release_privacy(interval=5e-4, shift_tolerance=5e-3).epsilon_bounds(delta)
    table.append((label, lo, hi))
lo, hi = d200.with_release("path").pld(interval=5e-4).epsilon_bounds(delta)
table.append(("path (200 iterates)", lo, hi))
display(Markdown("| release | epsilon lower | epsilon upper |\\n|---|---|---|\\n"
                 + "\\n".join(f"| {a} | {b:.3f} | {c:.3f} |" for a, b, c in table)))
assert table[0][2] <= table[-1][1]  # the final iterate is more private than the path""",
    """md:A sample set costs about one final iterate per draw that is separated from the others by more than the
chain's memory (`1/(h lam) = 10` steps here), and never more than the path: thinning is what keeps a long chain's
samples cheap.

## 4. Every final-state statement against the truth

`dpverify.theorems.final_state` runs this comparison for each final-state statement of the catalogue on a grid of at
least 50 parameter points (steps, step size, contraction, sampling rate, noise; including the edges of each theorem's
hypotheses), in the theorem's own currency, and `tests/test_final_state_check.py` asserts claimed >= exact at every
point. Two of them here (the full table, all seven statements, takes ~10 s: `final_state.print_report()`):""",
    """rows = final_state.STATEMENTS["chourasia_2"].rows("fast") + final_state.STATEMENTS["bertazzi_5.2"].rows("fast")
print(final_state.format_summaries(final_state.summarise(rows)))
assert not any(r.breach for r in rows)""",
    """md:The looseness is `claimed / exact`. Chourasia's bound is the tightest final-state statement (1.6 to 4 times
the exact RDP in its regime, larger only where few steps or a larger curvature make the truth small); Bertazzi's
Theorem 5.2 is at least 4 times the exact RDP (its `h -> 0` limit is `(2m+1)^2/(2m)`), and much more near the edge
`h -> 2m/M^2` of its step-size condition.""",
]


NOTEBOOKS["08_one_run_audits.ipynb"] = [
    """md:# Auditing in one run: canaries inside one DP-SGLD or DP-SGD training run

Every other audit in dpverify reruns the mechanism 10^4 to 10^8 times. For a model trained on real data that is
unaffordable. **One-run auditing** (Steinke, Nasr, Jagielski, NeurIPS 2023; Mahloujifar, Melis, Chaudhuri, ICML 2025)
puts m canaries in the training data, each by its own fair coin, trains **once**, and certifies an epsilon from how
well the canaries' inclusion can be guessed from the trained model:

- the guesser fixes `k+` and `k-` *before* seeing the scores (here: planned from the claimed privacy of one canary),
  guesses the `k+` highest-scoring canaries "in" and the `k-` lowest "out", and counts `v` right of `r = k+ + k-`;
- **Steinke et al., Theorem 3.1**: the p-value of (eps, delta)-DP is `f(v) + 2 m delta max_i (f(v-i) - f(v))/i`,
  `f(v) = P[Binomial(r, e^eps/(1+e^eps)) >= v]`;
- **Mahloujifar et al., Algorithm 3**: the same counts tested against a trade-off curve (a recursion over the number
  of right guesses); with the Gaussian curve it recovers more of a Gaussian mechanism's epsilon.

Everything runs on data that ships with scikit-learn (no download): breast cancer (569 x 30, binary). The papers'
own datasets (Adult, Abalone, MNIST) are reproduced *in form* only. The notebook runs in about a minute.""",
    SETUP + """
from dpverify.audit.one_run import GaussianCanaries, audit_one_run
from dpverify.audit.one_run_bounds import gaussian_mu, one_run_epsilon

# The bounds themselves: 90 right of 100 guesses about 1000 canaries, delta = 1e-5
for method, curve in (("steinke", None), ("fdp", "approx_dp"), ("fdp", "gaussian")):
    print(f"{method:8s} {curve or '':10s}", round(one_run_epsilon(1000, 100, 90, delta=1e-5, method=method, curve=curve), 3))""",
    """md:## Self-test with known truth

Each canary an independent mu-GDP release (its score `mu S_i + N(0, 1)`), mu chosen so that the true epsilon at
delta = 1e-5 is 2 or 4. The certificate must stay below the truth (with probability 0.95) and should approach it as m
grows; the f-DP method with the Gaussian curve gets closer than Steinke's bound. (`benchmarks/one_run.py` has the full
table for eps = 2, 4, 8 and m up to 10^5.)""",
    """rows = []
for eps in (2.0, 4.0):
    mu = gaussian_mu(eps, 1e-5)
    for m in (1_000, 10_000):
        cert = {meth: audit_one_run(GaussianCanaries(mu), m, method=meth, seed=0).epsilon_lower for meth in ("fdp", "steinke")}
        rows.append((eps, m, cert["fdp"], cert["steinke"]))
        assert max(cert.values()) <= eps
display(Markdown("| true eps | m | f-DP (Gaussian) | Steinke |\\n|---|---|---|---|\\n" +
                 "\\n".join(f"| {e:g} | {m:,} | {f:.2f} | {s:.2f} |" for e, m, f, s in rows)))""",
    """md:## Li et al. 2019: DP-SGLD logistic regression, accuracy against epsilon, each run audited in one run

DP-SGLD (Li et al. 2019, Algorithm 1) with full batches on the standardised breast-cancer data (80% train), clip
L = 1, T = 1000 steps, the step size calibrated so that the run is mu-GDP for the target epsilon at delta = 1e-5.
Each run carries m = 2000 **Dirac canaries**: canary j's gradient `L e_{30+j}` lives on its own parameter coordinate
(`dpverify.models.dirac_canaries`), so canaries do not interfere; excluded canaries are null records, so N = n + m
whatever the coins. The white-box score is the final iterate's displacement on the canary's coordinate. Beside the
certificate: the accountant's epsilon (the path's PLD) and the exact privacy of the final iterate along a canary
coordinate (a linear-Gaussian chain).""",
    """from dpverify.models.packaged_data import breast_cancer, train_test_split
from dpverify.samplers.one_run_canaries import DPSGLDCanaryRun, accuracy, calibrated_step_size

rows_all = breast_cancer(1.0)
tr, te = train_test_split(len(rows_all), 0.2, 0)
train, test = rows_all[tr], rows_all[te]
m, T = 2000, 1000
li = []
for eps in (0.5, 1.0, 2.0, 4.0):
    mu = gaussian_mu(eps, 1e-5)
    run = DPSGLDCanaryRun(train, m, steps=T, step_size=calibrated_step_size(mu, len(train) + m, T, 1.0))
    r = audit_one_run(run, m, seed=1)
    li.append((eps, run.test_accuracy(test), r.epsilon_lower, r.epsilon_accountant, r.epsilon_release, r.verdict))
display(Markdown("| target eps | test accuracy | one-run certified | accountant | exact release | verdict |\\n|---|---|---|---|---|---|\\n" +
                 "\\n".join(f"| {e:g} | {a:.3f} | {c:.3f} | {acc:.3f} | {rel:.3f} | {v} |" for e, a, c, acc, rel, v in li)))
assert all(c <= acc for _, _, c, acc, _, _ in li)""",
    """md:The same run with half its declared noise (a known-bad DP-SGLD that claims the correct run's accountant) is
flagged in one run:""",
    """mu = gaussian_mu(2.0, 1e-5)
bad = DPSGLDCanaryRun(train, m, steps=T, step_size=calibrated_step_size(mu, len(train) + m, T, 1.0), defect="half_noise")
r = audit_one_run(bad, m, seed=1)
print(r.verdict, "-", r.verdict_reason)
assert r.verdict == "violation\"""",
    """md:## Wang et al. 2015: OPS, DP-SGLD, hybrid and a Laplace baseline -- test accuracy against epsilon

In form (breast cancer stands in for Abalone and Adult): one posterior sample by OPS (Alg. 1, by MALA, on a
parameter ball of radius 10 so that B is finite), DP-SGLD (Alg. 2), the hybrid (Alg. 3: OPS at eps/2, then DP-SGLD
at eps/2), and the Laplace baseline -- output perturbation of L2-regularised logistic regression (Chaudhuri, Monteleoni,
Sarwate 2011, Alg. 1: L2 sensitivity `2 / (n lambda)`), with Laplace noise on each coordinate scaled to the L1 bound
`sqrt(d) 2 / (n lambda)`. Accuracy is averaged over 8 releases. The DP-SGLD arms were run with
`unguaranteed=True` at a short schedule (their theorems' hypotheses on T are not checked here): the comparison is of
utility, and their privacy is the one-run audit's business above (OPS and the hybrid release a posterior sample, which
has no gradient canary to insert).""",
    """from sklearn.linear_model import LogisticRegression as SkLogistic
from dpverify.models.logistic import LogisticRegression
from dpverify.samplers.hybrid import HybridOPSSGLD
from dpverify.samplers.ops_mcmc import OPSMCMCLogistic
from dpverify.samplers.sgld import DPSGLDWang

N, d = len(train), train.shape[1] - 1
model = LogisticRegression(d, R=1.0, prior_variance=10.0, theta_radius=10.0)
lam = 1e-2
w_star = SkLogistic(C=1.0 / (N * lam), fit_intercept=False).fit(train[:, :-1], train[:, -1]).coef_[0]
rng = np.random.default_rng(0)
epsilons = (0.5, 1.0, 2.0, 4.0, 8.0)
curves = {"OPS": [], "DP-SGLD (Wang)": [], "hybrid": [], "Laplace": []}
for eps in epsilons:
    ops = OPSMCMCLogistic(model, N, eps, n_steps=400).sample(train, 8, rng)
    sgld = DPSGLDWang(model, N, tau=50, T=2, epsilon=eps, delta=1e-5, step_size=1e-3, unguaranteed=True).sample(train, 8, rng)
    hyb = HybridOPSSGLD(model, N, tau=50, T=2, epsilon=eps, delta=1e-5, step_size=1e-3, ops_steps=400,
                        unguaranteed=True).sample(train, 8, rng)[:, -1]
    lap = w_star + rng.laplace(scale=np.sqrt(d) * 2.0 / (N * lam * eps), size=(8, d))
    for key, draws in zip(curves, (ops, sgld, hyb, lap)):
        curves[key].append(np.mean([accuracy(test, w) for w in draws]))
fig, ax = plt.subplots(figsize=(6, 3.5))
for key, acc in curves.items():
    ax.plot(epsilons, acc, marker="o", label=key)
ax.plot([e for e, *_ in li], [a for _, a, *_ in li], marker="s", ls="--", label="DP-SGLD (Li, full batch, audited)")
ax.set_xscale("log"); ax.set_xlabel("epsilon (delta = 1e-5 where it applies)"); ax.set_ylabel("test accuracy")
ax.set_title("breast cancer: accuracy against epsilon"); ax.legend(fontsize=8)
plt.close(fig); show(fig)""",
    """md:## What limits one-run tightness here

- **m**: the certificate is capped by how many guesses a binomial test over m coins can support; at m = 10^4 and
  a true epsilon of 2 the f-DP (Gaussian) bound recovers about 0.65 of it, Steinke's about 0.5 (the self-test table).
- **Canary interference**: canaries sharing parameters move each other's scores. Input-space canaries on the 30
  weights certify nothing at m = 1000 (`dpverify one-run dp_sgld_breast_cancer_input`); Dirac canaries on their own
  coordinates remove interference entirely (their score separation equals the release's mu).
- **delta**: Steinke's p-value adds `2 m delta` times a slope; at m = 10^4 and delta = 1e-5 that costs little, at
  delta = 1e-3 it dominates.
- **The curve**: the Gaussian curve is valid (and tight) only when the canary's release is Gaussian (full batches,
  linear canary); Poisson batches make it a shift mixture, and then the (eps, delta) curve is tested.""",
]

NOTEBOOKS["09_prove.ipynb"] = [
    """md:# Proofs over whole domains: prove, refute, and look at the partition

`dpverify prove` decides a privacy statement on every point of its domain, in interval arithmetic on Arb, with a
certificate an independent checker re-verifies (docs/prove.md). This notebook

1. proves a statement of the catalogue: Lemma 4 of Wang et al. 2015 (subsampling), `2 gamma eps >= log(1 + gamma
   (e^eps - 1))` for eps < 1, against the exact amplification (Balle, Barthe and Gaboardi 2018);
2. refutes a deliberately wrong variant (the hypothesis eps < 1 dropped, eps up to 3) and re-checks the witness;
3. draws the box partition of the proof: where plain enclosures sufficed, and where the monotone lemma carried the
   tight edges (gamma = 0 and eps = 0, where both sides vanish).""",
    SETUP + """
import sympy as sp
from dpverify.prove import certificate, check_certificate, prove
from dpverify.prove.catalogue import item_problems

item = prove("wang2015.lem4_subsampling")
print(item.summary())
name, part = item.parts[0]
print("certificate:", check_certificate(certificate(part)).summary())""",
    """md:## A wrong variant

Without its hypothesis eps < 1 the lemma is false: for small gamma the exact amplified epsilon is about
`gamma (e^eps - 1)`, which exceeds `2 gamma eps` once `e^eps - 1 > 2 eps` (eps > 1.256). The prover finds a box where
the claim certainly fails and re-evaluates a witness at 50 digits.""",
    """wrong = prove(claimed=lambda epsilon, gamma: 2 * gamma * epsilon,
              comparator=lambda epsilon, gamma: sp.log(1 + gamma * (sp.exp(epsilon) - 1)),
              box={"epsilon": (0, 3), "gamma": ("1e-6", 1)})
print(wrong.summary())
eps, gamma = (float(wrong.witness[k]) for k in ("epsilon", "gamma"))
print(f"at eps = {eps:.4g}, gamma = {gamma:.3g}: 2 gamma eps = {2 * gamma * eps:.6g} < "
      f"log(1 + gamma (e^eps - 1)) = {np.log1p(gamma * np.expm1(eps)):.6g}")""",
    """md:## The partition

Each leaf of the proof is a box; a monotone step replaces its box by a face (a line here), proved on its own. Leaves
proved by their enclosure are blue, boxes closed by the monotone lemma orange.""",
    """from matplotlib.patches import Rectangle

names = part.problem.names
ei, gi = names.index("epsilon"), names.index("gamma")
fig, ax = plt.subplots(figsize=(5, 4.5))
counts = {"enclosure": 0, "monotone": 0}
stack = [part.tree]
while stack:
    node = stack.pop()
    if node.kind == "split":
        stack.extend(node.children)
        continue
    (e0, e1), (g0, g1) = (tuple(map(float, node.box[ei])), tuple(map(float, node.box[gi])))
    kind = "monotone" if node.kind == "monotone" else "enclosure"
    counts[kind] += 1
    ax.add_patch(Rectangle((e0, g0), e1 - e0, g1 - g0, fill=True, alpha=0.35, edgecolor="k", linewidth=0.3,
                           facecolor="tab:orange" if kind == "monotone" else "tab:blue"))
ax.set_xlim(0, 1); ax.set_ylim(0, 1); ax.set_xlabel("epsilon"); ax.set_ylabel("gamma")
ax.set_title(f"{counts['enclosure']} enclosure leaves, {counts['monotone']} monotone steps")
fig.tight_layout(); show(fig); plt.close(fig)""",
]

NOTEBOOKS["10_private_samplers_utility.ipynb"] = [
    """md:# Private samplers at equal epsilon: test accuracy on breast cancer

Every private sampler in dpverify carries its own privacy statement. This notebook puts them side by side on one task
-- logistic regression on scikit-learn's breast-cancer data (569 x 30, standardised, rows scaled into the unit ball,
80% train, `dpverify.models.packaged_data.breast_cancer`) -- and asks: **at the same (epsilon, delta), how accurate is
the released parameter?** For each target epsilon in (0.5, 1, 2, 4, 8) at delta = 1e-5, each sampler is calibrated
through **its own guarantee** (the parameter that sets its privacy is named in the table), the notebook `assert`s that
the sampler's `guarantee().epsilon` is at most the target, and the test accuracy `sign(x . theta) = y` of the released
parameter is averaged over 16 independent releases (16 chains run side by side, one release each).

**The chains are short** so that the notebook runs in about a minute on a loaded two-core machine: 200 MALA steps for
OPS, 200 random-walk steps for DP-penalty, 30 HMC iterations for DP-HMC, at most a few dozen Barker iterations, 200
full-batch steps for DP-SGLD. Longer chains change the samplers' utility (and for DP-penalty, DP-HMC and DP-SGLD their
calibration too: the noise grows with the number of steps). The samplers' tuning constants (proposal scales, step
sizes, clips) were picked by hand on a small grid on this split -- a non-private choice, as in the papers'
experiments; only the privacy parameter is calibrated here. DP-penalty's proposal scale and DP-HMC's leapfrog step are
set proportional to `1 / tau` (public), so that the acceptance penalty `s^2 / 2`, with `s = tau sqrt(N) 2 b |theta' -
theta|` the ratio's noise, stays about the same at every epsilon.""",
    SETUP + """
import math
from sklearn.linear_model import LogisticRegression as SkLogistic
from dpverify.audit.one_run_bounds import gaussian_mu
from dpverify.calculus import barker as cb
from dpverify.models.logistic import LogisticRegression
from dpverify.models.packaged_data import breast_cancer, train_test_split
from dpverify.models.targets import GaussianTarget
from dpverify.samplers.barker import DPBarker
from dpverify.samplers.gibbs_posterior import GibbsPosterior, RegularizedExponentialMechanism
from dpverify.samplers.one_run_canaries import accuracy, calibrated_step_size
from dpverify.samplers.ops_mcmc import OPSMCMCLogistic
from dpverify.samplers.penalty import DPHMC, DPPenalty
from dpverify.samplers.shifted_interpolation import NoisyGDLastIterate
from dpverify.samplers.sgld import DPSGLDLi

rows = breast_cancer(1.0)
tr, te = train_test_split(len(rows), 0.2, 0)
train, test = rows[tr], rows[te]
N, d = len(train), train.shape[1] - 1
model = LogisticRegression(d, R=1.0, prior_variance=10.0, theta_radius=10.0)
DELTA, EPSILONS, RELEASES = 1e-5, (0.5, 1.0, 2.0, 4.0, 8.0), 16
rng = np.random.default_rng(0)

def mean_accuracy(draws):
    return float(np.mean([accuracy(test, w) for w in np.asarray(draws)]))

# non-private baselines: logistic regression, and the direction sum_i y_i x_i (what the linear-loss arms estimate)
Z = train[:, :-1] * train[:, -1:]          # z_i = y_i x_i, |z_i| <= 1
acc_logistic = float(np.mean(SkLogistic().fit(train[:, :-1], train[:, -1]).predict(test[:, :-1]) == test[:, -1]))
acc_centroid = accuracy(test, Z.sum(axis=0))
print(f"N = {N} train, {len(test)} test records, d = {d}")
print(f"non-private: logistic regression {acc_logistic:.3f}, direction sum y x {acc_centroid:.3f}")""",
    """md:## The samplers on logistic regression, and what is calibrated

| sampler | privacy statement | calibrated parameter |
|---|---|---|
| OPS (`ops_mcmc_logistic`, Wang et al. 2015 Alg. 1) | one exact posterior draw at temperature `rho = eps / (4B)` is eps-DP (pure; B = 10 on the parameter ball of radius 10) | the temperature rho (set by the sampler from epsilon) |
| DP-SGLD (`dp_sgld_li`, Li et al. 2019, full batch, `claim="accountant"`) | the PLD accountant of the run's Gaussian releases | the step size eta (`calibrated_step_size`: mu-GDP with `mu = L sqrt(T eta / N)`) |
| DP-penalty (`dp_penalty`, Yildirim & Ermis 2019) | `mu^2 = k / (tau^2 N)` GDP (Räisä et al. 2021) | the noise scale tau of the log-likelihood ratio |
| DP-HMC (`dp_hmc`, Räisä et al. 2021) | `mu^2 = k / (tau^2 N) + k (n_leapfrog + 1) / (tau_g^2 N)` GDP | tau = tau_g (one noise scale for ratios and gradients) |
| DP Barker (`dp_barker`, Heikkilä et al. 2019) | subsampled Barker RDP, amplified and composed over T iterations | the number of iterations T (batch size 50) |

The Gaussian-DP statements are calibrated in closed form from `mu = gaussian_mu(eps, delta)` (the Gaussian curve's
exact epsilon) with the noise raised by a factor 1 + 1e-6 so that rounding keeps the claim at or below the target;
Barker's T is the largest integer whose claimed epsilon is at most the target (a search over T on the sampler's
calibration function, `dpverify.calculus.barker.heikkila_epsilon`). Every run's `guarantee()` is then read back and
checked (`claim.guaranteed`: the statement's hypotheses hold at the run's parameters).""",
    """def gdp_mu(eps):
    return gaussian_mu(eps, DELTA)

def barker_T(eps, b=50, T_max=200):
    \"\"\"Largest T with Heikkilä et al.'s epsilon <= eps at batch size b (None when even T = 1 exceeds it).\"\"\"
    best = None
    lo, hi = 1, T_max
    while lo <= hi:                      # the claimed epsilon grows with T: bisection over integers
        mid = (lo + hi) // 2
        if cb.heikkila_epsilon(b, N, mid, DELTA, 100)[0] <= eps:
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    return best

K_PEN, K_HMC, N_LEAP, T_SGLD = 200, 30, 3, 200
results = []   # (sampler, parameter, target eps, claimed eps, claimed delta, accuracy)

def record(name, param, eps, sampler, draws):
    claim = sampler.guarantee()
    assert claim.guaranteed, (name, claim.hypotheses)  # the statement's hypotheses hold at these parameters
    results.append((name, param, eps, float(claim.epsilon), float(claim.delta), mean_accuracy(draws)))

for eps in EPSILONS:
    mu = gdp_mu(eps)
    ops = OPSMCMCLogistic(model, N, eps, n_steps=200)
    record("OPS", f"rho = {ops.rho:.4g}", eps, ops, ops.sample(train, RELEASES, rng))

    eta = calibrated_step_size(mu, N, T_SGLD, 1.0) / (1 + 1e-6)
    sgld = DPSGLDLi(model, N, tau=N, T=T_SGLD, epsilon=None, delta=DELTA, step_size=eta, claim="accountant")
    while sgld.guarantee().epsilon > eps:   # the PLD accountant is a (tight) upper bound: shrink eta until it fits
        eta *= 0.99
        sgld = DPSGLDLi(model, N, tau=N, T=T_SGLD, epsilon=None, delta=DELTA, step_size=eta, claim="accountant")
    record("DP-SGLD (Li, full batch)", f"eta = {eta:.4g}", eps, sgld, sgld.sample(train, RELEASES, rng))

    tau = math.sqrt(K_PEN / N) / mu * (1 + 1e-6)
    pen = DPPenalty(model, N, tau=tau, ratio_clip=0.1, prop_sd=0.05 / tau, n_steps=K_PEN, delta=DELTA, release="final")
    record("DP-penalty", f"tau = {tau:.4g}", eps, pen, pen.sample(train, RELEASES, rng))

    tau = math.sqrt(K_HMC * (N_LEAP + 2) / N) / mu * (1 + 1e-6)
    hmc = DPHMC(model, N, tau=tau, tau_g=tau, ratio_clip=0.3, step_size=3e-3 / tau, n_leapfrog=N_LEAP, n_steps=K_HMC,
                delta=DELTA, release="final")
    record("DP-HMC", f"tau = tau_g = {tau:.4g}", eps, hmc, hmc.sample(train, RELEASES, rng))

    T = barker_T(eps)
    if T is not None:
        bark = DPBarker(model, N, batch_size=50, T=T, step=0.1, delta=DELTA)
        record("DP Barker", f"T = {T}", eps, bark, bark.sample(train, RELEASES, rng))
print(len(results), "runs")""",
    """md:DP Barker has no run at epsilon = 0.5 or 1: with N = 455 records even **one** iteration of Heikkilä et al.'s bound
costs more than that at batch size 50 (`heikkila_epsilon(50, 455, 1, 1e-5)` is about 1.8; the bound is built for
N in the tens of thousands, and its order condition `alpha < b / 5` keeps the batch from being small):""",
    """print({b: round(cb.heikkila_epsilon(b, N, 1, DELTA, 100)[0], 2) for b in (30, 50, 100, 150, 300)})""",
    """md:## Samplers whose model is not logistic regression

Three samplers have their exact law only on a model other than logistic regression, and are run on the same data
through a documented alternative: the **linear loss** `l(theta, z) = -<z, theta>` on the signed records
`z_i = y_i x_i` (`|z_i| <= 1`). Their released parameter is a noisy multiple of `sum_i y_i x_i` -- a linear classifier
scored with the same `sign(x . theta) = y`, whose noiseless accuracy is the "direction sum y x" baseline above, **not**
logistic regression. They are drawn dashed in the figure.

| sampler | model | privacy statement | calibrated parameter |
|---|---|---|---|
| Gibbs posterior (`gibbs_posterior`, Minami et al. 2016) | linear loss, prior N(0, I) | the concentration lemma: `eps = a^2/2 + a sqrt(2 log(1/delta))`, `a = 2 beta R / sqrt(m)` (the theorem's form needs eps <= 1) | the inverse temperature beta |
| Regularised exponential mechanism (`gibbs_posterior_regularized_em`, Gopi et al. 2022) | mean linear loss + `mu |theta|^2 / 2`, mu = 1 | `mu_gdp = 2 R sqrt(k) / (N sqrt(mu))` GDP | the inverse temperature k |
| Noisy GD, last iterate (`noisy_gd_last_iterate`, Bok et al. 2024) | `GaussianTarget` on the z_i (quadratic loss, minimiser the prior-shrunk mean of z), 50 steps of size 0.5 | shifted-interpolation mu-GDP (strongly convex) | the gradient noise sigma (the claim's mu is proportional to 1/sigma) |""",
    """c = math.sqrt(2 * math.log(1 / DELTA))
gt = GaussianTarget(d, R=1.0, noise_variance=1.0, prior_variance=10.0)
mu_per_sigma = NoisyGDLastIterate(gt, N, step_size=0.5, n_steps=50, sigma=1.0).claimed_mu   # mu at sigma = 1
for eps in EPSILONS:
    mu = gdp_mu(eps)
    a = -c + math.sqrt(c * c + 2 * eps)                       # solve the lemma for a, then beta = a sqrt(m) / (2 R)
    beta = a / 2 / (1 + 1e-6)
    gibbs = GibbsPosterior(epsilon=eps, delta=DELTA, R=1.0, m=1.0, beta=beta, dim=d, claim="concentration")
    record("Gibbs posterior (linear loss)", f"beta = {beta:.4g}", eps, gibbs, gibbs.sample(Z, RELEASES, rng))

    k = (mu * N / 2) ** 2 / (1 + 1e-6)                          # mu_gdp = 2 sqrt(k) / N at R = mu = 1
    rem = RegularizedExponentialMechanism(k=k, mu=1.0, R=1.0, N=N, dim=d, delta=DELTA)
    record("Regularised EM (linear loss)", f"k = {k:.4g}", eps, rem, rem.sample(Z, RELEASES, rng))

    sigma = mu_per_sigma / mu * (1 + 1e-6)
    gd = NoisyGDLastIterate(gt, N, step_size=0.5, n_steps=50, sigma=sigma, delta=DELTA)
    record("Noisy GD last iterate (GaussianTarget)", f"sigma = {sigma:.4g}", eps, gd, gd.sample(Z, RELEASES, rng))""",
    """md:## Every claim at or below its target, and the table

OPS's claim is pure eps-DP for an **exact** posterior draw (delta = 0); its 200-step MALA chains are not exact (Wang
et al. 2015, Prop. 3 adds `(1 + e^eps)` times the total-variation error to delta, which the run cannot bound). Every
other claim is at delta = 1e-5.""",
    """for name, param, eps, claimed, delta_c, acc in results:
    assert claimed <= eps, (name, param, eps, claimed)      # a wrong calibration fails the notebook here
    assert delta_c <= DELTA, (name, delta_c)
table = "| sampler | calibrated parameter | target eps | claimed eps | claimed delta | test accuracy |\\n|---|---|---|---|---|---|\\n"
table += "\\n".join(f"| {n} | {p} | {e:g} | {c:.4f} | {dl:g} | {a:.3f} |" for n, p, e, c, dl, a in results)
display(Markdown(table + f"\\n\\nNon-private: logistic regression {acc_logistic:.3f}, direction `sum y x` {acc_centroid:.3f}."))""",
    """fig, ax = plt.subplots(figsize=(9.5, 4.5))
names = list(dict.fromkeys(r[0] for r in results))
for name in names:
    pts = [(e, a) for n, _, e, _, _, a in results if n == name]
    dashed = "linear loss" in name or "GaussianTarget" in name
    ax.plot(*zip(*pts), marker="s" if dashed else "o", ls="--" if dashed else "-", label=name)
ax.axhline(acc_logistic, color="k", lw=1, label="non-private logistic regression")
ax.axhline(acc_centroid, color="k", lw=1, ls=":", label="non-private direction sum y x")
ax.set_xscale("log"); ax.minorticks_off(); ax.set_xticks(EPSILONS); ax.set_xticklabels([f"{e:g}" for e in EPSILONS])
ax.set_xlabel("target epsilon (delta = 1e-5; OPS: pure)"); ax.set_ylabel(f"test accuracy (mean of {RELEASES} releases)")
ax.set_title("breast cancer: accuracy at equal epsilon")
ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
fig.tight_layout(); show(fig); plt.close(fig)""",
    """md:## Reading the comparison

- The **Gaussian releases of one statistic** (the linear-loss arms: Gibbs posterior, regularised EM, noisy GD's last
  iterate) and **full-batch DP-SGLD** spend the whole budget on a few well-aimed Gaussian mechanisms and come close to
  their non-private baselines from small epsilon on.
- **OPS** needs `rho = eps / (4B)`: at small epsilon the tempered posterior is nearly the prior on the ball, and its
  draw is close to a random direction.
- **DP-penalty and DP-HMC** pay for every accept/reject test (and every gradient) with a Gaussian release, so the
  noise grows with the square root of the number of steps; the penalty `s^2 / 2` on the acceptance forces short
  proposals. DP-penalty's 200 random-walk steps still find a good direction from epsilon = 1 on. DP-HMC's released
  gradient sums carry noise of standard deviation `2 tau_g sqrt(N) L` per coordinate, far above the log-likelihood's
  gradient near the start (printed below), so its leapfrog trajectories are mostly driven by noise; a chain that
  rejects every proposal releases its start `theta = 0`, which the strict rule `sign(x . theta) = y` scores 0. Their
  papers run them on larger N, where `tau` shrinks as `1 / sqrt(N)` at fixed epsilon while the gradient grows as N.
- **DP Barker** is limited by N: its bound charges about 1.8 for one iteration at N = 455, so it runs only from
  epsilon = 2 (T = 2 iterations at epsilon = 2, about 50 at epsilon = 8).

The numbers are from short chains and one train/test split of 114 test records (one record is 0.009 of accuracy;
private runs can land above scikit-learn's default-regularised fit): they compare what each statement allows at this
N, not the samplers' asymptotic efficiency. What each statement is worth (its exact value and an audit) is in
`dpverify verify` and on the samplers' pages.""",
    """g0 = float(np.linalg.norm(Z.sum(axis=0))) / 2     # |grad sum_i log p(x_i | theta)| at theta = 0 (sigmoid(0) = 1/2)
tau1 = math.sqrt(K_HMC * (N_LEAP + 2) / N) / gdp_mu(1.0)
print(f"log-likelihood gradient at 0: norm {g0:.1f}, about {g0 / math.sqrt(d):.1f} per coordinate; "
      f"DP-HMC's gradient noise at epsilon = 1: {2 * tau1 * math.sqrt(N):.1f} per coordinate (L = 1)")""",    """md:## The regularised mechanism's utility bound (Gopi et al.)

`gopi2022.cor_regularized_em_excess_risk` (derived in `dpverify.theorems.gopi2022.utility` from the sampling lemma
`E F - min F <= d / k`): one draw of `exp(-k (F + mu |theta|^2 / 2))` has excess empirical risk
`E F(theta) - F(x*) <= d / k + mu R^2 / 2` against any `|x*| <= R`; with k calibrated to the target `mu_gdp` and mu
chosen to minimise the bound, `2 sqrt(2) G R sqrt(d) / (N mu_gdp)`. Below, the mean linear loss `F = -<s, theta>`
(`s` the mean of the `z_i`, G = 1, d = 30, N = 455), the comparator the best point of the unit ball (R = 1), the
mechanism built at the optimised `(k*, mu*)` for each target epsilon, 4000 draws each. On a linear loss the exact excess
is `R |s| - |s|^2 / mu*` whatever k; it is **negative** once `|s| > mu* R` (here from epsilon = 1 on): the draw's mean
`s / mu*` leaves the ball and its loss is below every point of it. On this family the excess is at most a quarter of the
bound (at `|s| = mu* R / 2`).""",
    """from dpverify.theorems import registry

cor = registry.get("gopi2022.cor_regularized_em_excess_risk")
s = Z.mean(axis=0)                                   # F(theta) = -<s, theta>: the mean linear loss
R_CMP, DRAWS_U, rng_u = 1.0, 4000, np.random.default_rng(1)
rows_u = []
for eps in EPSILONS:
    opt = cor.evaluate(dim=d, R=R_CMP, L=1.0, N=N, mu=gdp_mu(eps))      # mu*, k* and the optimised bound
    rem_u = RegularizedExponentialMechanism(k=opt.beta_opt / (1 + 1e-6), mu=opt.m_opt, R=1.0, N=N, dim=d, delta=DELTA)
    assert rem_u.guarantee().epsilon <= eps                               # calibrated through its own claim
    excess = -(rem_u.sample(Z, DRAWS_U, rng_u) @ s) + R_CMP * np.linalg.norm(s)   # F(theta) - F(x*), x* = R s/|s|
    mc, se = excess.mean(), excess.std(ddof=1) / math.sqrt(DRAWS_U)
    exact = R_CMP * np.linalg.norm(s) - np.linalg.norm(s) ** 2 / opt.m_opt
    assert abs(mc - exact) <= 5 * se and mc <= opt.excess_risk_opt        # 5 standard errors; the bound holds
    rows_u.append((eps, opt.m_opt, opt.beta_opt, opt.excess_risk_opt, mc, se, exact))
display(Markdown("| target eps | mu* | k* | bound | measured excess (MC) | exact |\\n|---|---|---|---|---|---|\\n" + "\\n".join(
    f"| {e:g} | {m:.4f} | {k:.1f} | {b:.4f} | {mc:.4f} ± {se:.4f} | {ex:.4f} |" for e, m, k, b, mc, se, ex in rows_u)))
fig, ax = plt.subplots(figsize=(6.5, 3.8))
eps_u = [r[0] for r in rows_u]
ax.plot(eps_u, [r[3] for r in rows_u], "o-", label="bound 2 sqrt(2) G R sqrt(d) / (N mu_gdp)")
ax.errorbar(eps_u, [r[4] for r in rows_u], yerr=[5 * r[5] for r in rows_u], fmt="s", label="measured excess (5 SE)")
ax.plot(eps_u, [r[6] for r in rows_u], "k:", label="exact R|s| - |s|^2 / mu*")
ax.axhline(0.0, color="grey", lw=0.8)
ax.set_xscale("log"); ax.minorticks_off(); ax.set_xticks(EPSILONS); ax.set_xticklabels([f"{e:g}" for e in EPSILONS])
ax.set_xlabel("target epsilon (delta = 1e-5)"); ax.set_ylabel("E F(theta) - F(x*)")
ax.set_title("regularised EM, linear loss: excess empirical risk vs its bound"); ax.legend(fontsize=7)
fig.tight_layout(); show(fig); plt.close(fig)""",
]


def build(name: str, cells: list[str]):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell(c[3:].strip()) if c.startswith("md:") else nbformat.v4.new_code_cell(c)
                for c in cells]
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:02d}"  # stable ids: regenerating gives identical files
    return nb


if __name__ == "__main__":
    for name, cells in NOTEBOOKS.items():
        nbformat.write(build(name, cells), HERE / name)
        print(HERE / name)

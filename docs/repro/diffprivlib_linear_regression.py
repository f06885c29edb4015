"""Reproduce the three defects of diffprivlib's models.LinearRegression that `dpverify audit-library diffprivlib`
reports (docs/libraries.md), with numpy and diffprivlib alone (tested with diffprivlib 0.6.6).

    python docs/repro/diffprivlib_linear_regression.py

1. diffprivlib/models/linear_regression.py:144 declares the sensitivity of the X^T X coefficient from the lower
   bound twice: ``np.max(np.abs([bounds_X[0][i], bounds_X[0][i]])) ** 2``. With ``bounds_X=([0], [1])`` and
   ``fit_intercept=False`` it is 0, so that coefficient of the objective is released without noise
   (upstream: IBM/differential-privacy-library issue #105, PR #110, item 1 of issue #104).
2. With ``fit_intercept=False`` the data are not clipped to ``bounds_X`` at all: ``clip_to_bounds`` (line 87) runs
   only under ``if fit_intercept:`` (line 83), so a record outside the declared bounds moves the model without
   limit (no upstream report found).
3. With ``fit_intercept=True`` (the default) the centring means of X and y (lines 90 and 93) each spend
   ``epsilon / (n_features + 1)`` on a fresh ``BudgetAccountant()`` that nobody sees: the calls spend
   ``epsilon * (n_features + 2) / (n_features + 1)`` (1.5 at epsilon = 1, one feature) while the caller's
   accountant records ``epsilon`` (upstream: item 2 of issue #104).
"""
import warnings

import numpy as np
from diffprivlib import BudgetAccountant, mechanisms, models

warnings.simplefilter("ignore")

D = np.array([[0.353, 0.0], [0.382, 1.0]])        # records (x, y), inside the bounds
D2 = np.array([[0.353, 0.0], [1.0, 1.0]])         # one record replaced, still inside the bounds
OUT = np.array([[0.353, 0.0], [1e6, 1.0]])        # one record replaced by one outside bounds_X=([0], [1])


def fit(X, seed, **options):
    m = models.LinearRegression(epsilon=1.0, bounds_X=([0.0], [1.0]), bounds_y=(0.0, 1.0), random_state=seed,
                                accountant=BudgetAccountant(), **options)
    return m.fit(X[:, :-1], X[:, -1])


# 1. sensitivity 0: the X^T X coefficient of the objective is exact, whatever the seed
xtx = [float(fit(X, s, fit_intercept=False)._obj_coefs[2][0, 0]) for X in (D, D2) for s in range(3)]
print("1. X^T X coefficient released by fit_intercept=False, seeds 0-2, on D then D':", xtx)
print("   exact values:", float((D[:, 0] ** 2).sum()), float((D2[:, 0] ** 2).sum()), "-> no noise at all")
# consequence on the released coef_ = (noisy X^T y) / (exact X^T X): its noise scale depends on the data, and the
# likelihood ratio of the two Laplace laws of different scales grows without bound in the tails
a = np.array([fit(D, s, fit_intercept=False).coef_[0] for s in range(2000)])
b = np.array([fit(D2, s, fit_intercept=False).coef_[0] for s in range(2000, 4000)])
for t in (10.0, 20.0):
    pa, pb = np.mean(np.abs(a) > t), np.mean(np.abs(b) > t)
    print(f"   P(|coef_| > {t:g}): D {pa:.4f}, D' {pb:.4f}, ratio {pa / max(pb, 1 / 2000):.1f} "
          f"(epsilon = 1 allows {np.e:.2f})")

# 2. no clipping without an intercept: one record outside the bounds moves coef_ without limit
c = np.array([fit(OUT, s, fit_intercept=False).coef_[0] for s in range(200)])
print(f"2. coef_ with a record of 1e6 (bounds_X=([0], [1]), fit_intercept=False), 200 seeds: all within "
      f"[{c.min():.3g}, {c.max():.3g}]; on D: {np.mean(np.abs(a[:200]) < 1e-3):.0%} of them within 1e-3 of 0 "
      "(one record tells the two apart every time)")

# 3. budget: wrap the mechanisms diffprivlib uses and sum the epsilons of the noise it adds
spent = []
originals = {}
for cls in (mechanisms.Laplace, mechanisms.LaplaceTruncated, mechanisms.LaplaceFolded):
    originals[cls] = cls.randomise

    def wrapped(self, value, _orig=originals[cls], _cls=cls):
        if type(self) is _cls:
            spent.append(self.epsilon)
        return _orig(self, value)

    cls.randomise = wrapped
acc = BudgetAccountant()
models.LinearRegression(epsilon=1.0, bounds_X=([0.0], [1.0]), bounds_y=(0.0, 1.0), random_state=0,
                        accountant=acc).fit(D[:, :-1], D[:, -1])
for cls, f in originals.items():
    cls.randomise = f
print(f"3. epsilons of the noise additions: {[round(e, 4) for e in spent]} sum to {sum(spent):.4g}; "
      f"the accountant records {acc.total()[0]:.4g}")

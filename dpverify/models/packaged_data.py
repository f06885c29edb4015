"""Real labelled data that ships inside packages (no download at run time), shaped for dpverify's models.

- :func:`breast_cancer` -- scikit-learn's Wisconsin diagnostic breast cancer data (569 records, 30 features, binary:
  212 malignant, 357 benign; ``sklearn.datasets.load_breast_cancer``, bundled with scikit-learn);
- :func:`digits` -- scikit-learn's optical digits (1,797 images of 8 x 8 pixels, 10 classes;
  ``sklearn.datasets.load_digits``), the MNIST stand-in;
- :func:`train_test_split` -- a seeded split of a dataset's records.

:func:`breast_cancer` returns rows ``(x, y)`` for :class:`~dpverify.models.logistic.LogisticRegression`: features
standardised (each column to mean 0 and standard deviation 1), then every row scaled by the same factor so that the
largest norm is ``R`` (the feature bound of Wang et al. 2015, Thm 1 and Li et al. 2019, Sec. 6; one common factor
keeps the geometry of the data), labels ``+1`` (malignant) and ``-1`` (benign). None of the papers' own datasets
(Abalone, Adult, MNIST, SVHN) ships in a package; these two stand in for them in form.
"""
from __future__ import annotations

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits

from dpverify.validation import check_probability, check_real

__all__ = ["breast_cancer", "digits", "train_test_split", "standardise_to_ball"]


def standardise_to_ball(features: np.ndarray, R: float) -> np.ndarray:
    """Columns to mean 0 and standard deviation 1 (constant columns to 0), then all rows scaled by one factor so that
    the largest row norm is ``R``."""
    R = check_real("R", R, low=0.0, low_inclusive=False)
    x = np.asarray(features, dtype=float)
    sd = x.std(axis=0)
    z = (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    largest = float(np.linalg.norm(z, axis=1).max())
    return z * (R / largest) if largest > 0 else z


def breast_cancer(R: float = 1.0) -> np.ndarray:
    """The breast cancer data as LogisticRegression rows ``(x_1..x_30, y)``, ``||x|| <= R``, ``y = +1`` malignant
    (module docstring): shape ``(569, 31)``."""
    bunch = load_breast_cancer()
    y = np.where(bunch.target == 0, 1.0, -1.0)  # sklearn: 0 = malignant, 1 = benign
    return np.column_stack([standardise_to_ball(bunch.data, R), y])


def digits() -> tuple[np.ndarray, np.ndarray]:
    """The digits images as ``(images, labels)``: images ``(1797, 1, 8, 8)`` float32 in [0, 1] (pixel / 16),
    labels ``(1797,)`` int64 in 0..9."""
    bunch = load_digits()
    images = (bunch.images / 16.0).astype(np.float32)[:, None, :, :]
    return images, bunch.target.astype(np.int64)


def train_test_split(n: int, test_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(train, test)`` of a seeded random split of n records (``test_fraction`` in (0, 1))."""
    frac = check_probability(test_fraction, "test_fraction", open_low=True, open_high=True)
    order = np.random.default_rng(seed).permutation(n)
    n_test = max(1, int(round(frac * n)))
    return np.sort(order[n_test:]), np.sort(order[:n_test])

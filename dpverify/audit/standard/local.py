"""Local and integer-valued cases: RAPPOR and one-time RAPPOR (Erlingsson, Pihur & Korolova 2014, "RAPPOR",
CCS, steps 1-3 and 1-2), and the truncated geometric sampler GeoSample (Balcer & Vadhan 2018, "Differential
privacy on finite computers", arXiv:1709.05396, Alg. 4.8), with closed-form laws.

RAPPOR: the value is hashed into a Bloom filter of ``filter_size`` bits by ``n_hashes`` hash functions
(MurmurHash3 x86_32 of ``str(value)`` with seeds 0..h-1, modulo the size, as DP-Sniper does, so the witness pair
0 vs 1 has the same filters as there). Every bit then goes through the permanent randomized response (kept with
probability 1 - f, else set to 1 or 0 with probability f/2 each) and, for full RAPPOR, the instantaneous one
(report 1 with probability q if the permanent bit is 1, p if it is 0). Bits are independent, with
``P(S_i = 1) = pi(b_i)``; the exact pair epsilon at delta = 0 is therefore
``sum_i max(log pi_D,i / pi_D',i, log (1 - pi_D,i)/(1 - pi_D',i))``, the larger of the two directions. The claims
are the paper's: ``eps_1 = h log(q*(1 - p*) / (p*(1 - q*)))`` for one report with q* = pi(1), p* = pi(0)
(Sec. 3, "instantaneous"), and ``eps_inf = 2 h log((1 - f/2) / (f/2))`` for the permanent response alone.

GeoSample(k, n): a count c in {0..n} is released as z with ``P(z) = (F(z) - F(z-1)) / d``, F the integer table
of Alg. 4.8 and ``d = (2^{k+1} + 1)(2^k + 1)^{n-1}``; the probabilities are exact rationals (Python integers), so
the exact pair epsilon is exact up to the final log. It is ``log(1 + 2^-k)``-DP (Thm 4.7).

GeoSample also runs on a device (:mod:`dpverify.backends`): with a device generator its uniform integer is the
generator's ``integers`` and the table search the backend's ``searchsorted``, so the outputs are int64 tensors on the
device with the numpy path's law (each integer's probability within ``d 2^-53`` relative, about 1e-11 here); its
``log_density`` looks the tabulated log-pmf up where the outputs are.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpverify.backends import backend_generic, backend_of, generator_backend
from dpverify.validation import check_positive_int, check_probability
from dpverify.calculus.mechanisms.exponential import discrete_epsilon

__all__ = ["murmur3_32", "bloom_bits", "Rappor", "GeoSample"]

_MASK = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _MASK


def murmur3_32(data: bytes, seed: int = 0) -> int:
    """MurmurHash3 x86_32 (Appleby 2011, SMHasher reference ``MurmurHash3_x86_32``), as a signed 32-bit int (the
    convention of the ``mmh3`` package)."""
    c1, c2 = 0xCC9E2D51, 0x1B873593
    h = seed & _MASK
    full = len(data) // 4 * 4
    for i in range(0, full, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = (_rotl((k * c1) & _MASK, 15) * c2) & _MASK
        h = (_rotl(h ^ k, 13) * 5 + 0xE6546B64) & _MASK
    tail = data[full:]
    if tail:
        k = int.from_bytes(tail, "little")
        h ^= (_rotl((k * c1) & _MASK, 15) * c2) & _MASK
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK
    h ^= h >> 16
    return h - (1 << 32) if h >= 1 << 31 else h


def _value(dataset):
    a = np.asarray(dataset).reshape(-1)
    if a.size != 1:
        raise ValueError(f"dataset must hold exactly one value; got {a.size}")
    v = a[0].item()
    return int(v) if float(v).is_integer() else v


def bloom_bits(value, n_hashes: int, filter_size: int) -> np.ndarray:
    """0/1 Bloom filter of ``str(value)`` (module docstring)."""
    bits = np.zeros(filter_size)
    for seed in range(n_hashes):
        bits[murmur3_32(str(value).encode(), seed) % filter_size] = 1.0
    return bits


@dataclass(frozen=True)
class Rappor:
    """RAPPOR report of one value (module docstring); ``instantaneous=False`` is one-time RAPPOR (the
    permanent randomized response only). Output: ``filter_size`` bits as floats."""

    f: float
    p: float = 0.45
    q: float = 0.55
    n_hashes: int = 4
    filter_size: int = 20
    instantaneous: bool = True

    def __post_init__(self) -> None:
        for name in ("f", "p", "q"):
            check_probability(getattr(self, name), name)
        check_positive_int(self.n_hashes, "n_hashes")
        check_positive_int(self.filter_size, "filter_size")

    def bit_probability(self, bit):
        """P(reported bit = 1 | Bloom bit)."""
        permanent = self.f / 2.0 + (1.0 - self.f) * np.asarray(bit, dtype=float)
        if not self.instantaneous:
            return permanent
        return self.q * permanent + self.p * (1.0 - permanent)

    @property
    def claimed_epsilon(self) -> float:
        """eps_1 = h log(q*(1-p*)/(p*(1-q*))) with instantaneous RR; eps_inf = 2h log((1-f/2)/(f/2)) without."""
        hi, lo = float(self.bit_probability(1.0)), float(self.bit_probability(0.0))
        return self.n_hashes * math.log(hi * (1.0 - lo) / (lo * (1.0 - hi)))

    def _pi(self, dataset) -> np.ndarray:
        return self.bit_probability(bloom_bits(_value(dataset), self.n_hashes, self.filter_size))

    def __call__(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` reports drawn from ``rng``: numpy's ``Generator``, or a device generator (float64 tensors of 0/1 on
        its device)."""
        n = check_positive_int(n, "n")
        xp = generator_backend(rng)
        return xp.astype(rng.random((n, self.filter_size)) < xp.asarray(self._pi(dataset)), "float64")

    @backend_generic
    def log_density(self, dataset, outputs) -> np.ndarray:
        """``s . log pi + (1 - s) . log(1 - pi)`` (two matrix products); ``outputs`` of any backend, the values on its
        device (another backend's product rounds as its own kernel does, about 1e-15 from numpy's)."""
        pi = self._pi(dataset)
        xp = backend_of(outputs)
        s = xp.asarray(outputs).reshape(-1, self.filter_size)
        return xp.matmul(s, np.log(pi)) + xp.matmul(1.0 - s, np.log1p(-pi))

    def output_bytes(self) -> float:
        """Device bytes per report for the auditor's chunk size: per bit its uniform, comparison and float64 value,
        the int64 copy for the distinct rows (about 32 bytes), and 256 for the key, sort and statistics' values."""
        return 32.0 * self.filter_size + 256.0

    def exact_epsilon(self, dataset, neighbour, delta: float) -> float | None:
        if delta != 0.0:
            return None
        a, b = self._pi(dataset), self._pi(neighbour)
        up = np.maximum(np.log(a / b), np.log((1 - a) / (1 - b))).sum()
        down = np.maximum(np.log(b / a), np.log((1 - b) / (1 - a))).sum()
        return float(max(up, down))


@dataclass(frozen=True)
class GeoSample:
    """Balcer & Vadhan's GeoSample(k, n) on a count c in {0..n} (module docstring); ``log(1 + 2^-k)``-DP for
    counts differing by one."""

    k: int
    n: int = 5

    def __post_init__(self) -> None:
        check_positive_int(self.k, "k")
        check_positive_int(self.n, "n")
        if (2 ** (self.k + 1) + 1) * (2 ** self.k + 1) ** (self.n - 1) >= 2 ** 62:
            raise ValueError("k and n too large: the integer table of GeoSample exceeds 2^62")

    @property
    def claimed_epsilon(self) -> float:
        return math.log1p(2.0 ** -self.k)

    def table(self, count: int) -> list[int]:
        """F(0..n) of Alg. 4.8 step 2 (integers, F(n) = d)."""
        k, n, c = self.k, self.n, count
        if not (isinstance(c, (int, np.integer)) and 0 <= c <= n):
            raise ValueError(f"count must be an integer in [0, {n}]; got {count!r}")
        d = (2 ** (k + 1) + 1) * (2 ** k + 1) ** (n - 1)
        f = [2 ** (k * (c - z)) * (2 ** k + 1) ** (n - (c - z)) for z in range(0, c)]
        f += [d - 2 ** (k * (z - c + 1)) * (2 ** k + 1) ** (n - 1 - (z - c)) for z in range(c, n)]
        return f + [d]

    def log_probabilities(self, count: int) -> np.ndarray:
        f = self.table(count)
        masses = [f[0]] + [b - a for a, b in zip(f[:-1], f[1:])]
        return np.array([math.log(m) - math.log(f[-1]) if m > 0 else -math.inf for m in masses])

    def _count(self, dataset) -> int:
        v = _value(dataset)
        if not isinstance(v, int):
            raise ValueError(f"dataset must be an integer count; got {v!r}")
        return v

    def __call__(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        """Alg. 4.8 step 3: ``u`` uniform on ``{1..d}``, output the first ``z`` with ``F(z) >= u`` (int64; a device
        generator's draws stay on its device, module docstring)."""
        f = np.array(self.table(self._count(dataset)), dtype=np.int64)
        u = rng.integers(1, f[-1] + 1, size=check_positive_int(n, "n"))
        return generator_backend(rng).searchsorted(f, u, side="left")

    @backend_generic
    def log_density(self, dataset, outputs) -> np.ndarray:
        """The exact log-pmf (:meth:`log_probabilities`), looked up where ``outputs`` are."""
        return backend_of(outputs).lookup(self.log_probabilities(self._count(dataset)), outputs)

    def output_bytes(self) -> float:
        """Device bytes per output for the auditor's chunk size: the uniform, the output and the statistics' values
        and sort (256 bytes, generously)."""
        return 256.0

    def exact_epsilon(self, dataset, neighbour, delta: float) -> float:
        return discrete_epsilon(self.log_probabilities(self._count(dataset)),
                                self.log_probabilities(self._count(neighbour)), delta)

"""Prints the tables and polynomial coefficients of the AVX-512 float pow in
backend/src/cpu/vmath_binary512.h (namespace powf512), so every constant there can be regenerated.

log part: x = 2^k z with z in [OFF, 2 OFF), OFF = 0.69921875; the 16 subintervals of z are the
values of bits 48..51 of bits(x) - bits(OFF). Each gets invc = 1 / c rounded to double, c the
harmonic midpoint of the subinterval (so |z invc - 1| is the same at both ends), except the one
holding 1, which gets invc = 1 (log2 x exact for powers of two); kLog2C = -log2(invc) correctly
rounded. r = fma(z, invc, -1) stays below 0.0306 in magnitude, and log2(1 + r) = r q(r) with q a
degree-6 Chebyshev fit.

exp part: kExp2[j] = 2^(j/16) correctly rounded; 2^r = 1 + r q(r) on |r| <= 1/32, q a degree-3
Chebyshev fit. The fits' relative errors are printed too.

Needs mpmath (installed with torch). Run: python scripts/gen_powf512_tables.py
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import mpmath  # type: ignore[import-untyped]

mpmath.mp.prec = 200
OFF = 0.69921875


def bits(x: float) -> int:
    return int(struct.unpack("<Q", struct.pack("<d", x))[0])


def as_double(b: int) -> float:
    return float(struct.unpack("<d", struct.pack("<Q", b))[0])


def log_tables() -> tuple[list[float], list[float], float]:
    """invc, -log2(invc) and the largest |r| over the 16 subintervals."""
    invc: list[float] = []
    logc: list[float] = []
    rmax = 0.0
    for i in range(16):
        lo = as_double(bits(OFF) + (i << 48))
        hi = as_double(bits(OFF) + ((i + 1) << 48)) if i < 15 else 2 * OFF
        ic = 1.0 if lo <= 1.0 < hi else float(1 / mpmath.mpf(2 * lo * hi / (lo + hi)))
        invc.append(ic)
        logc.append(float(-mpmath.log(mpmath.mpf(ic), 2)))
        rmax = max(rmax, abs(lo * ic - 1), abs(hi * ic - 1))
    return invc, logc, rmax


def fit(f: Callable[[Any], Any], half_width: Any, degree: int) -> tuple[list[float], float]:
    """Chebyshev fit of f on [-half_width, half_width] (highest degree first, rounded to double) and
    its relative error, sampled."""
    coeffs, _ = mpmath.chebyfit(f, [-half_width, half_width], degree + 1, error=True)
    rounded = [float(c) for c in coeffs]
    worst = mpmath.mpf(0)
    for i in range(2001):
        r = -half_width + 2 * half_width * mpmath.mpf(i) / 2000
        worst = max(worst, abs(mpmath.polyval([mpmath.mpf(c) for c in rounded], r) / f(r) - 1))
    return rounded, float(worst)


def main() -> None:
    invc, logc, rmax = log_tables()
    print("kInvC:", ", ".join(v.hex() for v in invc))
    print("kLog2C:", ", ".join(v.hex() for v in logc))
    print(f"largest |r|: {rmax:.4f}")
    print("kExp2:", ", ".join(float(mpmath.power(2, mpmath.mpf(j) / 16)).hex() for j in range(16)))
    ln2 = mpmath.log(2)
    log_q, log_err = fit(lambda r: mpmath.log(1 + r, 2) / r if r else 1 / ln2, mpmath.mpf("0.0306"), 6)
    print(f"log2(1 + r) / r, degree 6 (relative error {log_err:.2e}):", ", ".join(v.hex() for v in log_q))
    exp_q, exp_err = fit(lambda r: (mpmath.power(2, r) - 1) / r if r else ln2, mpmath.mpf(1) / 32, 3)
    print(f"(2^r - 1) / r, degree 3 (relative error {exp_err:.2e}):", ", ".join(v.hex() for v in exp_q))


if __name__ == "__main__":
    main()

"""Prints the tables of backend/src/cpu/vmath_pow.h (the vectorised float64 pow), computed here with
50-digit decimal arithmetic so that every entry can be regenerated and checked.

log part: x = 2^k z with z in [OFF, 2 OFF) (OFF just below sqrt(1/2)); the 128 subintervals of z
are the values of bits 45..51 of bits(x) - bits(OFF). Each has invc ~ 1 / c (c inside the
subinterval) rounded to 8 significant bits, so that r = z invc - 1 is exact in double; the
subintervals within 2^-7 of 1 get invc = 1. logc = -log(invc) is split as hi + lo with hi a
multiple of 2^-42, like LN2_HI, so that k LN2_HI + logc_hi is exact.

exp part: 2^(j/128) as its double hi and the relative tail (2^(j/128) - hi) / hi; hi is stored as
bits(hi) - (j << 45) so that adding the rounded index << 45 restores j and adds k to the exponent.

Run: python scripts/gen_pow_tables.py > /tmp/tables.inc
"""

from __future__ import annotations

import struct
from decimal import Decimal, getcontext
from fractions import Fraction

getcontext().prec = 50
N = 128
OFF = 0x3FE6955500000000
LN2 = Decimal(2).ln()


def as_double(bits: int) -> float:
    return float(struct.unpack("<d", struct.pack("<Q", bits))[0])


def as_bits(d: float) -> int:
    return int(struct.unpack("<Q", struct.pack("<d", d))[0])


def to_double(v: Decimal | Fraction) -> float:
    """Correctly rounded (Fraction -> float rounds to nearest)."""
    return float(Fraction(v))


def round_to(v: Fraction, step: Fraction) -> Fraction:
    return Fraction(round(v / step)) * step


def log_table() -> list[tuple[float, float, float]]:
    rows = []
    max_r = Fraction(0)
    for i in range(N):
        lo_z = Fraction(as_double(OFF + (i << 45)))
        hi_z = Fraction(as_double(OFF + ((i + 1) << 45) - 1))
        if max(abs(lo_z - 1), abs(hi_z - 1)) < Fraction(1, 128):
            invc = Fraction(1)
        else:
            c = (lo_z + hi_z) / 2
            inv = 1 / c
            invc = round_to(inv, Fraction(1, 128) if inv >= 1 else Fraction(1, 256))
        # r = z invc - 1 must be exact: |r| < 2^-7 and a multiple of 2^-60
        for z in (lo_z, hi_z):
            r = z * invc - 1
            assert abs(r) < Fraction(1, 128), (i, float(r))
            assert (r * 2**60).denominator == 1, i
            max_r = max(max_r, abs(r))
        logc = -Decimal(invc.numerator).ln() + Decimal(invc.denominator).ln()
        hi = round_to(Fraction(logc), Fraction(1, 2**42))
        lo = to_double(Fraction(logc) - hi)
        # where logc != 0, z stays 2^-8 away from 1: |log x| >= 2^-8 there, far above r^2 / 2 (the
        # sum hi + ar2 needs no reordering) and above the table's rounding (~2^-96) by 2^88
        assert invc == 1 or min(abs(lo_z - 1), abs(hi_z - 1)) > Fraction(1, 256), i
        assert invc != 1 or hi_z < 2 or lo_z > 0.5
        # and |logc| >= |r| there: t1 + r is a Fast2Sum for k = 0 (|t1| > 0.34 for k != 0)
        assert hi == 0 or abs(hi) >= max(abs(lo_z * invc - 1), abs(hi_z * invc - 1)), i
        rows.append((float(invc), float(hi), lo))
    return rows


def exp_table() -> list[tuple[int, float]]:
    rows = []
    for j in range(N):
        v = (LN2 * j / N).exp()
        hi = to_double(v)
        tail = to_double((Fraction(v) - Fraction(hi)) / Fraction(hi))
        rows.append(((as_bits(hi) - (j << 45)) % 2**64, tail))
    return rows


def main() -> None:
    ln2hi = round_to(Fraction(LN2), Fraction(1, 2**42))
    print(f"constexpr double kLn2Hi42 = {float(ln2hi).hex()};")
    print(f"constexpr double kLn2Lo42 = {to_double(Fraction(LN2) - ln2hi).hex()};")
    ln2n = to_double(LN2 / N)
    print(f"constexpr double kLn2N = {ln2n.hex()};")
    print(f"constexpr double kLn2NLo = {to_double(Fraction(LN2 / N) - Fraction(ln2n)).hex()};")
    print(f"constexpr double kInvLn2N = {to_double(N / LN2).hex()};")
    logs = log_table()
    for name, col in (("kPowInvc", 0), ("kPowLogcHi", 1), ("kPowLogcLo", 2)):
        print(f"alignas(64) inline constexpr double {name}[{N}] = {{")
        for a in range(0, N, 4):
            print("    " + ", ".join(f"{row[col].hex()}" for row in logs[a:a + 4]) + ",")
        print("};")
    exps = exp_table()
    print(f"alignas(64) inline constexpr uint64_t kPowExpBits[{N}] = {{")
    for a in range(0, N, 4):
        print("    " + ", ".join(f"0x{row[0]:016x}ULL" for row in exps[a:a + 4]) + ",")
    print("};")
    print(f"alignas(64) inline constexpr double kPowExpTail[{N}] = {{")
    for a in range(0, N, 4):
        print("    " + ", ".join(f"{row[1].hex()}" for row in exps[a:a + 4]) + ",")
    print("};")


if __name__ == "__main__":
    main()

"""What a rule may claim about sizes it cannot see: only what holds for every run.

NOTE [ Provable facts ]
A rule reports only what it can prove. Two things make a claim unprovable:

- a literal against a symbol: ``x.reshape(32, 784)`` on ``x: Tensor[Batch, In]`` is legal whenever
  ``Batch * In == 25088``, which nothing rules out (two *named* dims still never equal each other,
  DESIGN §1, so ``[Batch, Seq, Heads, HeadDim] -> (b, s, h)`` loses ``HeadDim`` and is reported);
- a floor division the algebra kept opaque (``C // nh``): a ``view(B, T, nh, C // nh)`` that runs at
  all means ``nh`` divides ``C``, so for counting elements ``(C // nh) * nh`` is ``C``.

Sizes are assumed to be at least 1 (``x[:, 1:]`` on ``Seq`` is ``Seq - 1``); a slice's stop that may
exceed the dim (``x[:, :64]`` on a symbolic ``Seq``) gives ``min(Seq, 64)``, which is unknown.
"""

from __future__ import annotations

from math import gcd

from ..dims import (
    UNKNOWN,
    DimExpr,
    Poly,
    Sym,
    Unknown,
    _from_dict,
    d_exact_div,
    d_floordiv,
    d_mul,
    d_sub,
    differs,
    opaque_parts,
    same,
    symbol,
)


def _monomial(d: DimExpr) -> tuple[int, dict[Sym, int]] | None:
    """``coeff * prod(sym ** power)``; None for a sum of several terms or an unknown."""
    if isinstance(d, Unknown):
        return None
    if not isinstance(d, Poly):
        return int(d), {}
    if len(d.items) != 1:
        return None
    ((mono, coeff),) = d.items
    return coeff, dict(mono)


def _build(coeff: int, powers: dict[Sym, int]) -> DimExpr:
    mono = tuple(sorted(((s, p) for s, p in powers.items() if p), key=lambda sp: sp[0].sort_key()))
    return _from_dict({mono: coeff})


def assume_exact(a: DimExpr, b: DimExpr) -> tuple[DimExpr, DimExpr] | None:
    """``a`` and ``b`` multiplied by the same factor so that no opaque floor division is left in
    either, taking every ``(n) // (d)`` in them as exact (NOTE [ Provable facts ]); None when that
    is not possible (a sum of terms holds one, or an operand is unknown)."""
    for _ in range(8):  # nested divisions unwind one level a round
        ma, mb = _monomial(a), _monomial(b)
        if ma is None or mb is None:
            return None
        divisions = [s for s in (*ma[1], *mb[1]) if opaque_parts(symbol(s)) is not None]
        if not divisions:
            return a, b
        q = divisions[0]
        parts = opaque_parts(symbol(q))
        assert parts is not None
        num, den = parts
        pa, pb = ma[1].get(q, 0), mb[1].get(q, 0)
        a = _substitute_power(ma, q, num, pa)
        b = _substitute_power(mb, q, num, pb)
        if a is UNKNOWN or b is UNKNOWN:
            return None
        for _ in range(pb):
            a = d_mul(a, den)  # a * den**pb, b * den**pa: the ratio a / b is unchanged
        for _ in range(pa):
            b = d_mul(b, den)
    return None


def _substitute_power(m: tuple[int, dict[Sym, int]], q: Sym, num: DimExpr, power: int) -> DimExpr:
    coeff, powers = m
    rest = dict(powers)
    rest.pop(q, None)
    out = _build(coeff, rest)
    for _ in range(power):
        out = d_mul(out, num)
    return out


def _cancel(a: DimExpr, b: DimExpr) -> tuple[tuple[int, dict[Sym, int]], tuple[int, dict[Sym, int]]] | None:
    """Two monomials with their common symbols and the gcd of their coefficients divided out."""
    ma, mb = _monomial(a), _monomial(b)
    if ma is None or mb is None or ma[0] <= 0 or mb[0] <= 0:
        return None
    pa, pb = dict(ma[1]), dict(mb[1])
    for s in set(pa) & set(pb):
        common = min(pa[s], pb[s])
        pa[s] -= common
        pb[s] -= common
    g = gcd(ma[0], mb[0])
    return (ma[0] // g, {s: p for s, p in pa.items() if p}), (mb[0] // g, {s: p for s, p in pb.items() if p})


def counts_differ(old: DimExpr, new: DimExpr, divisions: bool = True) -> bool:
    """Whether two element counts provably differ (NOTE [ Provable facts ]): two different literals;
    the same symbols with other coefficients; different named sizes on both sides; a size that one
    side has and the other lacks entirely. Never a literal against symbols. With ``divisions``
    false, an opaque floor division counts as a size of its own instead of as exact."""
    if divisions:
        exact = assume_exact(old, new)
        if exact is None:
            return False
        old, new = exact
    if same(old, new):
        return False
    if not isinstance(old, Poly) and not isinstance(new, Poly):
        return True  # two different literals
    cancelled = _cancel(old, new)
    if cancelled is None:
        return False
    (ca, pa), (cb, pb) = cancelled
    if not pa and not pb:
        return ca != cb
    if pa and pb:
        return True
    lone_coeff = ca if not pa else cb  # the side left without symbols
    return lone_coeff == 1


def solve_hole(old: DimExpr, known: DimExpr) -> DimExpr | None:
    """The size a ``-1`` stands for (``old / known``); UNKNOWN when it cannot be told; None when it
    provably does not exist (the counts cannot divide for any sizes)."""
    exact = assume_exact(old, known)
    if exact is None:
        return UNKNOWN
    old, known = exact
    quotient = d_exact_div(old, known)
    if quotient is not None and not isinstance(quotient, Unknown):
        return quotient
    if not isinstance(old, Poly) and not isinstance(known, Poly):
        return None  # two literals that do not divide
    cancelled = _cancel(old, known)
    if cancelled is None:
        return UNKNOWN
    (ca, pa), (cb, pb) = cancelled
    if not pb and cb == 1:
        return _build(ca, pa)
    if not pa and not pb:
        return None  # e.g. 768 * B * N elements into (B, N, 3, 3, -1): 768 / 9 is not an integer
    numerator, denominator = _build(ca, pa), _build(cb, pb)
    if pa and not pb and (ca % cb == 0):
        return _build(ca // cb, pa)
    return d_floordiv(numerator, denominator)  # exact whenever the view runs (NOTE [ Provable facts ])


def sizes_differ(a: DimExpr, b: DimExpr) -> bool:
    """A size given as an argument (``expand(32, 784)``, split sections) against a tensor's size:
    different only if provably so, never a literal against a symbol (NOTE [ Provable facts ])."""
    if not differs(a, b):
        return False
    return isinstance(a, Poly) == isinstance(b, Poly) or isinstance(a, Unknown) or isinstance(b, Unknown)


def nonnegative(d: DimExpr) -> bool:
    """Provably ``>= 0`` when every named size is at least 1 and every opaque division at least 0."""
    if isinstance(d, Unknown):
        return False
    if not isinstance(d, Poly):
        return int(d) >= 0
    total = 0
    for mono, coeff in d.items:
        if any(opaque_parts(symbol(s)) is not None for s, _ in mono):
            if coeff < 0:
                return False
            continue  # an opaque division may be 0: its term's least value is 0
        if mono and coeff < 0:
            return False
        total += coeff
    return total >= 0


def clamp_min(a: DimExpr, b: DimExpr) -> DimExpr:
    """``min(a, b)`` when one is provably the smaller; else UNKNOWN."""
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    if nonnegative(d_sub(b, a)):
        return a
    if nonnegative(d_sub(a, b)):
        return b
    return UNKNOWN


__all__ = ["assume_exact", "clamp_min", "counts_differ", "nonnegative", "sizes_differ", "solve_hole"]

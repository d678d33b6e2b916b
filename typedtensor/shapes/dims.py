"""Dimension expressions: literal sizes, named dims, variables and their polynomial arithmetic.

A dim is an ``int`` (a literal size; plain ints keep run-time evaluation cheap), a ``Poly`` (a
polynomial with integer coefficients over symbols, always in one canonical form) or ``UNKNOWN``.
Canonical form is what lets every consumer compare dims structurally: ``Add[A, B]`` and
``Add[B, A]`` build the same ``Poly``, and ``Add[A, A]`` builds ``2*A``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final, Literal, TypeGuard, Union

SymKind = Literal["dim", "var", "axis", "opaque"]
_KIND_ORDER: Final = {"dim": 0, "var": 1, "axis": 2, "opaque": 3}
#: Symbols a call binds (NOTE [ Axis names ]): TypeVars and jaxtyping axis names.
VAR_KINDS: Final = frozenset({"var", "axis"})


@dataclass(frozen=True)
class Sym:
    """A symbol of the algebra: a named ``Dim`` class, a TypeVar, a jaxtyping axis name (NOTE
    [ Axis names ]), or an irreducible expression.

    An opaque symbol made by ``d_floordiv`` keeps its operands in ``args`` (numerator,
    denominator): consumers rebuild ``Div[num, den]`` from them, and substituting a variable
    inside them recomputes the division. Its ``name`` is a canonical text over qualified names,
    so ``(m.A)//(2)`` and ``(n.A)//(2)`` stay distinct however they display."""

    kind: SymKind
    name: str
    display: str = field(default="", compare=False)
    args: tuple[DimExpr, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if not self.display:
            object.__setattr__(self, "display", self.name.rsplit(".", 1)[-1])

    def sort_key(self) -> tuple[int, str]:
        return (_KIND_ORDER[self.kind], self.name)


class Unknown:
    """The single value for "not known statically": a dim, a shape or a static argument."""

    _instance: Unknown | None = None

    def __new__(cls) -> Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __reduce__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Final = Unknown()

Monomial = tuple[tuple[Sym, int], ...]  # sorted by symbol; powers >= 1; () is the constant term


def _mono_key(mono: Monomial) -> tuple[int, tuple[tuple[tuple[int, str], int], ...]]:
    return (-sum(p for _, p in mono), tuple((s.sort_key(), p) for s, p in mono))


@dataclass(frozen=True)
class Poly:
    """A polynomial over symbols in canonical form; never a bare constant (that is an ``int``)."""

    items: tuple[tuple[Monomial, int], ...]

    def terms(self) -> list[tuple[int, list[tuple[Sym, int]]]]:
        """(coefficient, [(symbol, power), ...]) in the canonical order; the constant term last."""
        return [(coeff, list(mono)) for mono, coeff in self.items]

    def symbols(self) -> set[Sym]:
        return {s for mono, _ in self.items for s, _ in mono}

    def all_symbols(self) -> set[Sym]:
        """The symbols, and those inside the operands of opaque ones (a var in ``Div[N, 2]``)."""
        out = self.symbols()
        for s in list(out):
            for a in s.args:
                if isinstance(a, Poly):
                    out |= a.all_symbols()
        return out

    def __repr__(self) -> str:
        return f"Poly({fmt_dim(self)})"


DimExpr = Union[int, Poly, Unknown]


def _from_dict(coeffs: dict[Monomial, int]) -> int | Poly:
    live = {m: c for m, c in coeffs.items() if c != 0}
    if not live:
        return 0
    if set(live) == {()}:
        return live[()]
    ordered = sorted(live.items(), key=lambda mc: (mc[0] == (), _mono_key(mc[0])))
    return Poly(tuple(ordered))


def _to_dict(d: int | Poly) -> dict[Monomial, int]:
    if isinstance(d, Poly):
        return dict(d.items)
    return {(): int(d)} if d else {}


def symbol(sym: Sym) -> Poly:
    result = _from_dict({((sym, 1),): 1})
    assert isinstance(result, Poly)
    return result


def named_dim(qualname: str, display: str | None = None) -> Poly:
    """The dim of a ``Dim`` subclass, identified by its qualified name."""
    return symbol(Sym("dim", qualname, display or ""))


def dim_var(name: str) -> Poly:
    """A TypeVar used as a dim: rigid inside its generic body, bindable at a call."""
    return symbol(Sym("var", name))


def dim_axis(name: str) -> Poly:
    """A jaxtyping axis name (``"batch"`` in ``Float[Tensor, "batch dim"]``): a variable of its
    function, like a TypeVar, whose size a literal may equal (NOTE [ Axis names ])."""
    return symbol(Sym("axis", name))


def opaque(text: str) -> Poly:
    return symbol(Sym("opaque", text))


def is_unknown(d: object) -> bool:
    return d is UNKNOWN


def is_literal(d: object) -> TypeGuard[int]:
    """A known integer size (a TypeGuard, so callers may use it as ``int`` after the check)."""
    return isinstance(d, int) and not isinstance(d, bool)


def _arith(
    a: DimExpr, b: DimExpr, on_ints: Callable[[int, int], int], unit: int,
    on_polys: Callable[[int | Poly, int | Poly], int | Poly],
) -> DimExpr:
    """The shared shape of ``d_add``/``d_mul``: unknown absorbs, ints fold, the unit is neutral,
    the rest is polynomial arithmetic (NOTE [ Memoised polynomial arithmetic ])."""
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    if not isinstance(a, Poly) and not isinstance(b, Poly):
        return on_ints(int(a), int(b))
    if a == unit:
        return b
    if b == unit:
        return a
    return on_polys(a, b)


def d_add(a: DimExpr, b: DimExpr) -> DimExpr:
    return _arith(a, b, operator.add, 0, _poly_add)


# NOTE [ Memoised polynomial arithmetic ]
# Checkers apply the same few operations to the same few dims over and over (every reshape
# multiplies a shape's dims; every conv builds the same output-size expression). Polynomials are
# immutable and hashable, so their sums and products are memoised; the int fast paths stay outside.
@lru_cache(maxsize=16384)
def _poly_add(a: int | Poly, b: int | Poly) -> int | Poly:
    acc = _to_dict(a)
    for m, c in _to_dict(b).items():
        acc[m] = acc.get(m, 0) + c
    return _from_dict(acc)


def d_neg(a: DimExpr) -> DimExpr:
    if isinstance(a, Unknown):
        return UNKNOWN
    if not isinstance(a, Poly):
        return -int(a)
    return _from_dict({m: -c for m, c in a.items})


def d_sub(a: DimExpr, b: DimExpr) -> DimExpr:
    return d_add(a, d_neg(b))


def _mono_mul(x: Monomial, y: Monomial) -> Monomial:
    powers: dict[Sym, int] = {}
    for s, p in (*x, *y):
        powers[s] = powers.get(s, 0) + p
    return tuple(sorted(powers.items(), key=lambda sp: sp[0].sort_key()))


def d_mul(a: DimExpr, b: DimExpr) -> DimExpr:
    return _arith(a, b, operator.mul, 1, _poly_mul)


@lru_cache(maxsize=16384)
def _poly_mul(a: int | Poly, b: int | Poly) -> int | Poly:
    """See NOTE [ Memoised polynomial arithmetic ]."""
    acc: dict[Monomial, int] = {}
    for ma, ca in _to_dict(a).items():
        for mb, cb in _to_dict(b).items():
            m = _mono_mul(ma, mb)
            acc[m] = acc.get(m, 0) + ca * cb
    return _from_dict(acc)


def d_prod(dims: tuple[DimExpr, ...] | list[DimExpr]) -> DimExpr:
    result: DimExpr = 1
    for d in dims:
        result = d_mul(result, d)
    return result


def _mono_div(x: Monomial, y: Monomial) -> Monomial | None:
    powers = dict(x)
    for s, p in y:
        have = powers.get(s, 0)
        if have < p:
            return None
        if have == p:
            del powers[s]
        else:
            powers[s] = have - p
    return tuple(sorted(powers.items(), key=lambda sp: sp[0].sort_key()))


def d_exact_div(a: DimExpr, b: DimExpr) -> DimExpr | None:
    """``a / b`` when it divides exactly as polynomials; ``None`` when it provably or possibly does not."""
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    if not isinstance(b, Poly):
        divisor = int(b)
        if divisor == 0:
            return None
        if not isinstance(a, Poly):
            return int(a) // divisor if int(a) % divisor == 0 else None
        if all(c % divisor == 0 for _, c in a.items):
            return _from_dict({m: c // divisor for m, c in a.items})
        return None
    if a == b:
        return 1
    if len(b.items) == 1:
        ((mono_b, coeff_b),) = b.items
        acc: dict[Monomial, int] = {}
        for mono_a, coeff_a in _to_dict(a).items():
            quotient = _mono_div(mono_a, mono_b)
            if quotient is None or coeff_a % coeff_b != 0:
                return None
            acc[quotient] = acc.get(quotient, 0) + coeff_a // coeff_b
        return _from_dict(acc)
    return None


def d_floordiv(a: DimExpr, b: DimExpr) -> DimExpr:
    """Floor division; exact quotients stay polynomials, the rest become opaque symbols."""
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    if not isinstance(a, Poly) and not isinstance(b, Poly):
        return int(a) // int(b) if int(b) != 0 else UNKNOWN
    exact = d_exact_div(a, b)
    if exact is not None:
        return exact
    return symbol(Sym("opaque", f"({_canon(a)})//({_canon(b)})", f"({fmt_dim(a)})//({fmt_dim(b)})", (a, b)))


def _canon(d: int | Poly) -> str:
    """A dim as text over qualified symbol names: equal exactly when the dims are equal."""
    if not isinstance(d, Poly):
        return str(int(d))
    return " + ".join(
        f"{coeff}" + "".join(f"*{s.kind}:{s.name}^{p}" for s, p in mono) for mono, coeff in d.items
    )


def opaque_parts(d: DimExpr) -> tuple[DimExpr, DimExpr] | None:
    """``(num, den)`` when ``d`` is exactly one floor division the algebra kept opaque."""
    if isinstance(d, Poly) and len(d.items) == 1:
        ((mono, coeff),) = d.items
        if coeff == 1 and len(mono) == 1 and mono[0][1] == 1 and len(mono[0][0].args) == 2:
            num, den = mono[0][0].args
            return num, den
    return None


def d_ceildiv(a: DimExpr, b: DimExpr) -> DimExpr:
    return d_neg(d_floordiv(d_neg(a), b))


def same(a: DimExpr, b: DimExpr) -> bool:
    """Provably equal: both known and structurally identical after normalisation."""
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return False
    if isinstance(a, Poly) or isinstance(b, Poly):
        return a == b
    return int(a) == int(b)


def differs(a: DimExpr, b: DimExpr) -> bool:
    """Provably different. Distinct named dims and rigid variables never equal each other; a
    literal may equal an expression over a jaxtyping axis name (NOTE [ Axis names ])."""
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return False
    if same(a, b):
        return False
    if (isinstance(a, Poly) and _over_axis(a)) or (isinstance(b, Poly) and _over_axis(b)):
        diff = d_sub(a, b)
        return not (isinstance(diff, Poly) and _over_axis(diff) and any(not mono for mono, _ in diff.items))
    return True


@lru_cache(maxsize=4096)
def _over_axis(d: Poly) -> bool:
    """NOTE [ Axis names ]
    A jaxtyping annotation (``Float[Tensor, "batch seq dim"]``) names its axes with strings that
    jaxtyping binds per call of the annotated function: ``dim`` is whatever size the caller's
    tensor has, the same wherever ``dim`` appears in that call. Such a name is a variable of its
    function, bound at each call like a TypeVar (kind ``"axis"``), and two different names are
    two different variables: a body that needs ``seq == dim`` is wrong for sizes its annotation
    admits. Unlike a TypeVar, a name may equal a *literal*: a module built for 768 features
    applied to ``[batch, seq, dim]`` is how such programs are written (the annotation leaves the
    width to the caller, the constructor fixes it). So two dims whose difference is an axis
    expression plus a non-zero constant (``dim`` vs ``768``, ``dim // 12`` vs ``64``) are not
    provably different; ``dim`` vs ``seq``, ``dim + 1`` vs ``dim`` and ``2*dim`` vs ``dim`` are."""
    return any(s.kind == "axis" for s in d.all_symbols())


def as_int(d: object) -> int | None:
    """The literal value of a dim or static int, or None when it is not a known integer."""
    if isinstance(d, bool) or not isinstance(d, int):
        return None
    return int(d)


def _fmt_mono(coeff: int, mono: Monomial) -> str:
    parts = [s.display if p == 1 else f"{s.display}**{p}" for s, p in mono]
    if not parts:
        return str(coeff)
    body = "*".join(parts)
    return body if coeff == 1 else f"{coeff}*{body}"


def fmt_dim(d: DimExpr) -> str:
    """Human form used in messages: ``Batch``, ``3``, ``A + B``, ``2*A``, ``?``."""
    if isinstance(d, Unknown):
        return "?"
    if not isinstance(d, Poly):
        return str(int(d))
    out = ""
    for i, (mono, coeff) in enumerate(d.items):
        text = _fmt_mono(abs(coeff), mono)
        if i == 0:
            out = text if coeff > 0 else f"-{text}"
        else:
            out += f" + {text}" if coeff > 0 else f" - {text}"
    return out


def substitute_syms(d: DimExpr, mapping: dict[Sym, DimExpr]) -> DimExpr:
    """Replace symbols by dims (used to apply variable bindings)."""
    if not isinstance(d, Poly):
        return d
    if not any(s in mapping for s in d.all_symbols()):
        return d
    total: DimExpr = 0
    for mono, coeff in d.items:
        term: DimExpr = coeff
        for s, p in mono:
            if s in mapping:
                base = mapping[s]
            elif len(s.args) == 2:  # an opaque floor division: recompute over the substituted operands
                base = d_floordiv(substitute_syms(s.args[0], mapping), substitute_syms(s.args[1], mapping))
            else:
                base = symbol(s)
            for _ in range(p):
                term = d_mul(term, base)
        total = d_add(total, term)
    return total

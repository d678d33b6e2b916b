"""Property tests of the dim algebra, broadcasting, unification and variadic shapes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from typedtensor.shapes import (
    UNKNOWN,
    Bindings,
    DimExpr,
    Issue,
    Shape,
    Star,
    broadcast_shapes,
    compatible,
    concrete,
    d_add,
    d_exact_div,
    d_mul,
    d_neg,
    d_sub,
    differs,
    dim_var,
    fmt_dim,
    fmt_shape,
    named_dim,
    same,
    substitute,
    unify,
)

A, B, C = named_dim("m.A"), named_dim("m.B"), named_dim("m.C")
N = dim_var("N")
ATOMS: list[DimExpr] = [A, B, C, N]

atom = st.sampled_from(ATOMS)
lit = st.integers(-4, 6)
leaf = st.one_of(atom, lit)


def _expr(children: st.SearchStrategy[DimExpr]) -> st.SearchStrategy[DimExpr]:
    return st.one_of(
        st.builds(d_add, children, children), st.builds(d_mul, children, children),
        st.builds(d_sub, children, children),
    )


expr = st.recursive(leaf, _expr, max_leaves=6)
S = settings(max_examples=150, deadline=None)


@S
@given(expr, expr)
def test_add_mul_commute(x: DimExpr, y: DimExpr) -> None:
    assert d_add(x, y) == d_add(y, x)
    assert d_mul(x, y) == d_mul(y, x)


@S
@given(expr, expr, expr)
def test_associative_and_distributive(x: DimExpr, y: DimExpr, z: DimExpr) -> None:
    assert d_add(d_add(x, y), z) == d_add(x, d_add(y, z))
    assert d_mul(d_mul(x, y), z) == d_mul(x, d_mul(y, z))
    assert d_mul(x, d_add(y, z)) == d_add(d_mul(x, y), d_mul(x, z))


@S
@given(st.lists(st.tuples(st.integers(-3, 3), st.lists(atom, max_size=3)), max_size=5), st.randoms())
def test_equal_polynomials_normalise_identically(terms: list[tuple[int, list[DimExpr]]], rnd: object) -> None:
    """A sum of monomials built in two different orders is the same value (and prints the same)."""
    def build(order: list[tuple[int, list[DimExpr]]]) -> DimExpr:
        total: DimExpr = 0
        for coeff, syms in order:
            term: DimExpr = coeff
            for s in syms:
                term = d_mul(term, s)
            total = d_add(total, term)
        return total

    shuffled = [(c, list(reversed(s))) for c, s in reversed(terms)]
    x, y = build(terms), build(shuffled)
    assert x == y and hash(x) == hash(y) and fmt_dim(x) == fmt_dim(y)


def test_literal_folding_and_documented_forms() -> None:
    assert d_add(2, 3) == 5 and isinstance(d_add(2, 3), int)
    assert d_add(A, A) == d_mul(2, A)
    assert d_sub(A, A) == 0 and isinstance(d_sub(A, A), int)
    assert d_add(A, B) == d_add(B, A)
    assert fmt_dim(d_add(A, B)) == "A + B"
    assert fmt_dim(d_mul(2, A)) == "2*A"
    assert fmt_dim(d_mul(named_dim("m.Heads"), named_dim("m.HeadDim"))) == "HeadDim*Heads" or fmt_dim(
        d_mul(named_dim("m.Heads"), named_dim("m.HeadDim"))) == "Heads*HeadDim"
    assert fmt_dim(UNKNOWN) == "?" and fmt_dim(3) == "3" and fmt_dim(A) == "A"
    assert fmt_dim(d_sub(A, 1)) == "A - 1"
    assert fmt_dim(d_neg(A)) == "-A"


@S
@given(expr, expr)
def test_exact_division_round_trips(x: DimExpr, y: DimExpr) -> None:
    if y == 0:
        return
    prod = d_mul(x, y)
    q = d_exact_div(prod, y)
    if q is not None:  # multi-term divisors are not divided; when it divides, it is exact
        assert d_mul(q, y) == prod
    if (not isinstance(y, int) or y != 0) and (isinstance(y, int) or len(getattr(y, "items", ())) == 1):
        assert q == x


def test_exact_division_reports_inexact() -> None:
    assert d_exact_div(7, 2) is None
    assert d_exact_div(d_add(A, 1), A) is None
    assert d_exact_div(d_mul(6, A), 3) == d_mul(2, A)
    assert d_exact_div(A, UNKNOWN) is UNKNOWN


def test_same_and_differs() -> None:
    assert same(A, A) and not same(A, B) and differs(A, B) and differs(A, 3)
    assert not differs(A, UNKNOWN) and not same(UNKNOWN, UNKNOWN)


shapes = st.lists(st.integers(0, 4), max_size=4).map(tuple)


@settings(max_examples=300, deadline=None)
@given(shapes, shapes)
def test_broadcast_agrees_with_numpy(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    got = broadcast_shapes(concrete(a), concrete(b), "add", "+")
    try:
        want = np.broadcast_shapes(a, b)
    except ValueError:
        assert isinstance(got, Issue) and got.code == "shape-broadcast"
        assert fmt_shape(concrete(a)) in got.message and fmt_shape(concrete(b)) in got.message
        return
    assert isinstance(got, Shape) and got.dims == tuple(want)


def test_broadcast_symbolic() -> None:
    r = broadcast_shapes(Shape.of(A, 1), Shape.of(C), "add", "+")
    assert r == Shape.of(A, C)
    bad = broadcast_shapes(Shape.of(A, B), Shape.of(C), "add", "+")
    assert isinstance(bad, Issue) and bad.code == "shape-broadcast"
    assert bad.message == "add: dimensions do not broadcast: B (left, dim -1) vs C (right, dim -1); shapes [A, B] + [C]"
    var = broadcast_shapes(Shape((), Star("Bs"), (A,)), Shape.of(1), "mul", "*")
    assert var == Shape((), Star("Bs"), (A,))


def test_unify_binds_and_reports_origin() -> None:
    b = Bindings()
    decl = Shape.of(N, A)
    assert unify(decl, Shape.of(B, A), b, "argument 'x'") is None
    assert b.dims["N"] == B and b.origin["N"] == "argument 'x', dim 0"
    issue = unify(Shape.of(N), Shape.of(C), b, "argument 'y'")
    assert isinstance(issue, Issue) and issue.code == "shape-arg"
    assert "argument 'y'" in issue.message and "C" in issue.message and "B" in issue.message
    assert "bound by argument 'x', dim 0" in issue.message
    assert substitute(Shape.of(N, N), b) == Shape.of(B, B)
    rank = unify(Shape.of(A, A), Shape.of(A), Bindings(), "argument 'z'")
    assert isinstance(rank, Issue) and "expected 2 dims, got 1" in rank.message


def test_variadic_unify_and_substitute() -> None:
    b = Bindings()
    decl = Shape((), Star("Bs"), (A,))
    assert unify(decl, Shape.of(B, C, A), b, "argument 'x'") is None
    assert b.stars["Bs"] == (B, C)
    assert substitute(Shape((), Star("Bs"), (N,)), b) == Shape((), Star("Bs"), (N,)).__class__((B, C, N))
    again = unify(decl, Shape.of(C, A), b, "argument 'y'")
    assert isinstance(again, Issue) and "*Bs" in again.message
    short = unify(decl, Shape.of(), Bindings(), "argument 'x'")
    assert isinstance(short, Issue) and "at least 1" in short.message
    assert compatible(Shape((), Star("Bs"), (A,)), Shape((), Star("Bs"), (A,)))
    assert not compatible(Shape((), Star("Bs"), (A,)), Shape((), Star("Bs"), (B,)))
    assert fmt_shape(Shape((), Star("Bs"), (A,))) == "[*Bs, A]" and fmt_shape(Shape.of()) == "[]"

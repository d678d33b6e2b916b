"""Torch-oracle cases (see ``oracle_cases``) for the small torch functions of rules/small_math.py.
Imported at the end of ``oracle_cases``, into whose ``CASES`` it registers."""

from __future__ import annotations

import warnings
from typing import Any

from hypothesis import strategies as st
from oracle_cases import (  # type: ignore[import-not-found]
    Case,
    Draw,
    F,
    S,
    T,
    axis,
    case,
    nn,
    shape,
    torch,
)

__all__ = ["F", "nn"]  # swapped for typedtensor's with `torch` by tests/backend/test_output_types.py


def _quiet(fn: Any) -> Any:
    """torch warns that ``.H`` / ``.mH`` / ``adjoint`` of a 0-d tensor is deprecated: the call, silenced."""
    def call() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return fn()
    return call


@case("H")
def _H(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s),), {}, _quiet(lambda: T(s).H))


@case("mH")
def _mH(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s),), {}, _quiet(lambda: T(s).mH))


@case("adjoint")
def _adjoint(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s),), {}, _quiet(lambda: torch.adjoint(T(s))))


@case("fliplr")
def _fliplr(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s),), {}, lambda: torch.fliplr(T(s)))


@case("aminmax")
def _aminmax(draw: Draw) -> Case:
    s = shape(draw, hi=3)
    d = draw(st.sampled_from([None, axis(draw, len(s))]))
    keep = draw(st.booleans())
    return Case("", (S(s),), {"dim": d, "keepdim": keep}, lambda: torch.aminmax(T(s), dim=d, keepdim=keep))


@case("argwhere")
def _argwhere(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s),), {}, lambda: torch.argwhere(T(s)))


for _name in ("isposinf", "isneginf", "isreal"):
    def _predicate(draw: Draw, _n: str = _name) -> Case:
        s = shape(draw)
        return Case("", (S(s),), {}, lambda: getattr(torch, _n)(T(s)))

    case(_name)(_predicate)


def _vector(draw: Draw) -> tuple[int, ...]:
    """Mostly a vector, now and then another rank."""
    return shape(draw, 1, 1) if draw(st.integers(0, 4)) else shape(draw, 0, 2)


@case("vdot")
def _vdot(draw: Draw) -> Case:
    a = _vector(draw)
    b = a if draw(st.booleans()) else _vector(draw)
    return Case("", (S(a), S(b)), {}, lambda: torch.vdot(T(a), T(b)))


@case("ger")
def _ger(draw: Draw) -> Case:
    a, b = _vector(draw), _vector(draw)
    return Case("", (S(a), S(b)), {}, lambda: torch.ger(T(a), T(b)))


@case("addr")
def _addr(draw: Draw) -> Case:
    a, b = _vector(draw), _vector(draw)
    full = (a[0] if a else 1, b[0] if b else 1)
    x = draw(st.sampled_from([full, full[1:], (1, full[1]), (), shape(draw, hi=3)]))
    return Case("", (S(x), S(a), S(b)), {"beta": 0.5}, lambda: torch.addr(T(x), T(a), T(b), beta=0.5))


@case("dist")
def _dist(draw: Draw) -> Case:
    a = shape(draw, hi=3)
    b = draw(st.sampled_from([a, a[1:], shape(draw, hi=3)]))
    p = draw(st.sampled_from([2.0, 0.0, 1.0, 3.5, float("inf"), float("-inf")]))
    return Case("", (S(a), S(b), p), {}, lambda: torch.dist(T(a), T(b), p))


@case("renorm")
def _renorm(draw: Draw) -> Case:
    s = shape(draw, hi=4)
    d = axis(draw, len(s))
    p = draw(st.sampled_from([2.0, 1.0, 0.5, 3.0, 0.0, -1.0]))
    maxnorm = draw(st.sampled_from([1.0, 0.0, 5.0, -1.0]))
    return Case("", (S(s), p, d, maxnorm), {}, lambda: torch.renorm(T(s), p, d, maxnorm))


@case("sum_to_size")
def _sum_to_size(draw: Draw) -> Case:
    s = shape(draw, hi=3)
    size = tuple(draw(st.sampled_from([d, 1, d + 1])) for d in s[draw(st.integers(0, len(s))):])
    if draw(st.integers(0, 5)) == 0 or not size:
        size = (2, *size)
    return Case("", (S(s), *size), {}, lambda: T(s).sum_to_size(*size))


@case("split_with_sizes")
def _split_with_sizes(draw: Draw) -> Case:
    s = shape(draw, lo=1, hi=3)
    d = axis(draw, len(s))
    n = s[d] if -len(s) <= d < len(s) else 2
    cut = draw(st.integers(0, n))
    sizes = draw(st.sampled_from([[cut, n - cut], [n], [cut, n - cut + 1], [n + 1, -1], [0, n, 0]]))
    return Case("", (S(s), sizes, d), {}, lambda: torch.split_with_sizes(T(s), sizes, d))


@case("frexp")
def _frexp(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s),), {}, lambda: torch.frexp(T(s)))


for _name in ("ldexp", "gcd", "lcm"):
    def _pair(draw: Draw, _n: str = _name) -> Case:
        a = shape(draw, hi=3)
        b = draw(st.sampled_from([a, a[1:], (1, *a), shape(draw, hi=3)]))
        kind = "f" if _n == "ldexp" else "l"
        return Case("", (S(a), S(b)), {}, lambda: getattr(torch, _n)(T(a, kind), T(b, kind)))

    case(_name)(_pair)

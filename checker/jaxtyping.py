"""jaxtyping's shape strings (``Float[torch.Tensor, "batch seq dim"]``) read as shapes.

NOTE [ jaxtyping annotations ]
jaxtyping (0.3) writes an array's shape as a string of space-separated axes, each one of:

- an int, a fixed size (``"28 28"``); ``name=4`` is the same as ``4`` (a documentation name), and
  ``name=dim`` the same as ``dim``;
- a name, a size bound per call of the annotated function (``"batch"``): read as an axis variable
  of that function (NOTE [ Axis names ] in ``typedtensor/shapes/dims.py``);
- a symbolic expression over names without spaces (``"dim-1"``, ``"h*d"``, ``"c//2"``): read with
  ``+``, ``-``, ``*``, ``//``, parentheses, ints and names; any other expression (``min(a,b)``,
  ``{self.size}`` f-string fields, ``/``, ``**``) is an unknown size;
- ``*name`` (a run of any number of axes, bound per call like a TypeVarTuple), ``...`` or ``*_``
  (an anonymous run), ``_`` or ``_name`` (one axis, not checked), ``#name`` (that size or 1:
  read as unknown, since either may hold), ``?name`` (varies across a PyTree: unknown).

``""`` is a 0-d tensor. A string jaxtyping itself rejects (two runs, ``*4``, ``##a``, an axis with
``...`` in it) is an unknown shape. jaxtyping splits on spaces, so an einops group such as
``"b (h d)"`` is three axes to it, two of them expressions it cannot evaluate: the whole
annotation is read as unknown (write ``"b h*d"``, which jaxtyping checks as the product).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from typedtensor.shapes.dims import UNKNOWN, DimExpr, d_add, d_exact_div, d_floordiv, d_mul, d_neg, d_sub
from typedtensor.shapes.shape import Shape, ShapeLike, Star

Axis = Callable[[str], DimExpr]

_TOKENS: Final = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9]*)|(//|[-+*()]))")


class _NotRead(Exception):
    """An axis or expression the reader does not take (jaxtyping rejects it, or cannot evaluate it)."""


def parse_shape(text: str, axis: Axis, star_names: bool = True) -> ShapeLike:
    """The shape a jaxtyping string declares; ``axis`` makes the dim of a name (an axis variable
    of the function, or UNKNOWN where names are not tracked); ``star_names`` keeps ``*name`` runs
    named (else they are anonymous). UNKNOWN for a string that is not read (the NOTE above)."""
    prefix: list[DimExpr] = []
    suffix: list[DimExpr] = []
    star: Star | None = None
    try:
        for token in text.split():
            got = _axis(token, axis)
            if isinstance(got, Star):
                if star is not None:
                    return UNKNOWN  # jaxtyping allows one run per array
                star = got if star_names else Star(None)
                continue
            (suffix if star is not None else prefix).append(got)
    except _NotRead:
        return UNKNOWN
    return Shape(tuple(prefix), star, tuple(suffix))


def _axis(token: str, axis: Axis) -> DimExpr | Star:
    """One axis, after jaxtyping's modifiers (``#``, ``*``, ``_``, ``?``, ``name=``) in any order."""
    if token == "...":
        return Star(None)
    if "..." in token or ("," in token and "(" not in token):
        raise _NotRead(token)
    broadcast = variadic = anonymous = treepath = False
    while token:
        first = token[0]
        if first == "#" and not broadcast:
            broadcast = True
        elif first == "*" and not variadic:
            variadic = True
        elif first == "_" and not anonymous:
            anonymous = True
        elif first == "?" and not treepath:
            treepath = True
        elif first in "#*_?":
            raise _NotRead(token)  # ``##a``, ``**a``, ``__a``, ``??a``
        elif token.count("=") == 1:
            token = token.split("=")[1]
            continue
        else:
            break
        token = token[1:]
    named = token == "" or token.isidentifier()
    if variadic:
        if not named:
            raise _NotRead(token)  # ``*4``, ``*a+b``
        return Star(None) if anonymous or broadcast or treepath or not token else Star(token)
    if named:
        if anonymous or broadcast or treepath or not token:
            return UNKNOWN
        return axis(token)
    if token.isdigit():
        if anonymous or treepath:
            raise _NotRead(token)  # ``_4``, ``?4``
        return UNKNOWN if broadcast else int(token)
    if anonymous or treepath:
        raise _NotRead(token)
    return UNKNOWN if broadcast else _expression(token, axis)


def _expression(text: str, axis: Axis) -> DimExpr:
    """A symbolic axis (``dim-1``, ``h*d``, ``(c//2)+1``) over the function's axis names; an unknown
    size for one outside that grammar (jaxtyping evaluates it as Python)."""
    tokens: list[str] = []
    pos = 0
    while pos < len(text):
        m = _TOKENS.match(text, pos)
        if m is None or m.end() == pos:
            return UNKNOWN
        tokens.append(m.group(m.lastindex or 0))
        pos = m.end()
    if text.count("(") != text.count(")"):
        raise _NotRead(text)  # ``(h`` of ``"b (h d)"``: jaxtyping cannot evaluate it either
    parser = _Parser(tokens, axis)
    try:
        value = parser.sum()
    except (IndexError, _NotRead):
        return UNKNOWN
    return value if parser.at == len(tokens) else UNKNOWN


class _Parser:
    """``sum := product (('+'|'-') product)*; product := unary (('*'|'//') unary)*;
    unary := '-' unary | INT | NAME | '(' sum ')'``."""

    def __init__(self, tokens: list[str], axis: Axis):
        self.tokens = tokens
        self.at = 0
        self.axis = axis

    def _next(self) -> str:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def _peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def sum(self) -> DimExpr:
        value = self.product()
        while self._peek() in ("+", "-"):
            op = self._next()
            right = self.product()
            value = d_add(value, right) if op == "+" else d_sub(value, right)
        return value

    def product(self) -> DimExpr:
        value = self.unary()
        while self._peek() in ("*", "//"):
            op = self._next()
            right = self.unary()
            if op == "*":
                value = d_mul(value, right)
            else:
                exact = d_exact_div(value, right)
                value = exact if exact is not None else d_floordiv(value, right)
        return value

    def unary(self) -> DimExpr:
        token = self._next()
        if token == "-":
            return d_neg(self.unary())
        if token == "(":
            value = self.sum()
            if self._next() != ")":
                raise _NotRead(token)
            return value
        if token.isdigit():
            return int(token)
        if token.isidentifier():
            return self.axis(token)
        raise _NotRead(token)


__all__ = ["parse_shape"]

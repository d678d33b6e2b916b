"""Memory layout, for the lints that go beyond shape equality (NOTE [ Layout lints ]).

NOTE [ Layout lints ]
``view`` needs the dims it merges or splits to be laid out one after another in memory; after a
``transpose``/``permute``/``.T``/``.mT``/``t()`` or an ``expand`` they are not, and torch raises
("view size is not compatible with input tensor's size and stride ... Use .reshape(...)
instead"). Both checkers follow strides symbolically from tensors they know to be contiguous (a
fresh tensor, ``.contiguous()``, a matmul or a module's output, and — the one assumption — a
parameter or a call result of an annotated type) through those ops; any other op forgets the
layout (elementwise ops keep their input's strides in torch, so nothing is claimed after them).
The functions here are the shared part: the libcst checker follows values
(``checker/infer/tensors.py``), the mypy plugin the expression a ``view`` is called on
(``mypy_plugin/lints.py``).
A ``view`` is reported (``view-noncontiguous``) when some break in the layout cannot line up
with a boundary of the new shape, counting sizes as ``shape-reshape`` does (a named size is not
1; NOTE [ Provable facts ]).

``squeeze()`` without a dim drops every dim of size 1 — a batch of one too. On a tensor with a
symbolic dim that may be 1 it is reported (``squeeze-no-dim``, a warning): name the dim.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Union

from typedtensor.shapes.dims import DimExpr, Poly, Unknown, d_mul, opaque_parts, same, substitute_syms, symbol
from typedtensor.shapes.rules._provable import counts_differ
from typedtensor.shapes.shape import Shape, ShapeLike

Strides = tuple[DimExpr, ...]
Layout = Union[str, Strides, None]

CONTIGUOUS: Final = "contiguous"


def contiguous_strides(dims: Sequence[DimExpr]) -> Strides:
    out: list[DimExpr] = []
    acc: DimExpr = 1
    for d in reversed(dims):
        out.append(acc)
        acc = d_mul(acc, d)
    return tuple(reversed(out))


def _axis(i: object, n: int) -> int | None:
    if not isinstance(i, int) or isinstance(i, bool):
        return None
    i = i + n if i < 0 else i
    return i if 0 <= i < n else None


def transposed(strides: Strides, a: object, b: object) -> Strides | None:
    i, j = _axis(a, len(strides)), _axis(b, len(strides))
    if i is None or j is None:
        return None
    out = list(strides)
    out[i], out[j] = out[j], out[i]
    return tuple(out)


def permuted(strides: Strides, order: Sequence[object]) -> Strides | None:
    axes = [_axis(i, len(strides)) for i in order]
    if len(axes) != len(strides) or any(a is None for a in axes):
        return None
    return tuple(strides[a] for a in axes if a is not None)


def expanded(dims: Sequence[DimExpr], strides: Strides, new_dims: Sequence[DimExpr]) -> Strides | None:
    """Strides after ``expand``: new leading dims and broadcast size-1 dims have stride 0."""
    lead = len(new_dims) - len(dims)
    if lead < 0:
        return None
    out: list[DimExpr] = [0] * lead
    for d, s, n in zip(dims, strides, new_dims[lead:], strict=False):
        out.append(0 if d == 1 and n != 1 else s)
    return tuple(out)


def derive(op: str, dims: Sequence[DimExpr], strides: Strides, positional: Sequence[Any], keywords: dict[str, Any],
           out: ShapeLike) -> Layout:
    """The strides after a transpose, permute, expand, unsqueeze or squeeze; None when not known."""
    n = len(dims)
    out_dims = out.dims if isinstance(out, Shape) and out.is_fixed else None
    result: Strides | None = None
    if op in ("transpose", "swapaxes", "swapdims") and len(positional) >= 3:
        result = transposed(strides, positional[1], positional[2])
    elif op == "permute":
        order = positional[1:]
        if len(order) == 1 and isinstance(order[0], (tuple, list)):
            order = list(order[0])
        result = permuted(strides, order)
    elif op in ("t", "T"):
        result = tuple(reversed(strides))
    elif op == "mT" and n >= 2:
        result = transposed(strides, -1, -2)
    elif op in ("expand", "expand_as", "broadcast_to") and out_dims is not None:
        result = expanded(dims, strides, out_dims)
    elif op == "unsqueeze" and len(positional) >= 2 and isinstance(positional[1], int) and out_dims is not None:
        at = positional[1] + n + 1 if positional[1] < 0 else positional[1]
        if 0 <= at <= n:
            new: DimExpr = d_mul(strides[at], dims[at]) if at < n else 1
            result = (*strides[:at], new, *strides[at:])
    elif op == "squeeze" and len(positional) >= 2 and out_dims is not None:
        gone = _axis(positional[1], n)
        if gone is not None and len(out_dims) == n - 1:
            result = strides[:gone] + strides[gone + 1:]
    if result is None or out_dims is None or len(result) != len(out_dims):
        return None
    return CONTIGUOUS if result == contiguous_strides(out_dims) else result


def _rewrite(d: DimExpr, dims: Sequence[DimExpr]) -> DimExpr:
    """``C`` as ``4 * (C // 4)`` when ``(C) // (4)`` is one of the tensor's dims, so that sizes of the
    new shape and of the old one are compared over the same symbols."""
    for dim in dims:
        parts = opaque_parts(dim)
        if parts is None or not isinstance(parts[0], Poly) or len(parts[0].items) != 1:
            continue
        ((mono, coeff),) = parts[0].items
        if coeff != 1 or len(mono) != 1 or mono[0][1] != 1:
            continue
        d = substitute_syms(d, {mono[0][0]: d_mul(parts[1], dim)})
    return d


def view_breaks(dims: Sequence[DimExpr], strides: Strides, new_dims: Sequence[DimExpr]) -> bool:
    """Whether ``view(new_dims)`` provably cannot be laid over ``dims`` with ``strides``."""
    if any(isinstance(d, Unknown) for d in (*dims, *strides, *new_dims)):
        return False
    prefixes: list[DimExpr] = []
    acc: DimExpr = 1
    for d in new_dims:
        acc = d_mul(acc, d)
        prefixes.append(_rewrite(acc, dims))
    old: DimExpr = 1
    for i in range(len(dims) - 1):
        old = d_mul(old, dims[i])
        if dims[i] == 1 or dims[i + 1] == 1:
            continue
        if same(strides[i], d_mul(strides[i + 1], dims[i + 1])):
            continue  # dims i and i + 1 are one run of memory
        boundary = _rewrite(old, dims)
        if all(counts_differ(p, boundary, divisions=False) for p in prefixes):
            return True
    return False


def may_be_one(d: DimExpr) -> bool:
    """A symbolic size that nothing keeps from being 1 (``Batch``, ``Seq - 1``; not ``2*B``)."""
    if not isinstance(d, Poly):
        return False
    least = 0
    for mono, coeff in d.items:
        if coeff < 0:
            return True
        if any(opaque_parts(symbol(s)) is not None for s, _ in mono):
            continue  # may be 0
        least += coeff
    return least <= 1


__all__ = ["CONTIGUOUS", "Layout", "Strides", "contiguous_strides", "derive", "expanded", "may_be_one", "permuted",
           "transposed", "view_breaks"]

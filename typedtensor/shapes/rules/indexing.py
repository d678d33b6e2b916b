"""Indexing and slicing: ints, slices, ``None``, ``...``, integer and boolean tensors."""

from __future__ import annotations

from typing import Any

from ..broadcast import broadcast_all
from ..dims import UNKNOWN, DimExpr, Unknown, as_int, d_add, d_ceildiv, d_sub, differs, fmt_dim, is_literal
from ..issue import Issue
from ..registry import Args, Result, SliceIndex, TensorIndex, op
from ..shape import Shape, ShapeLike, Star, fmt_shape
from ._provable import clamp_min, nonnegative


def slice_length(size: DimExpr, s: SliceIndex) -> DimExpr:
    """Length of ``x[start:stop:step]`` along a dim of ``size`` (clamped like Python)."""
    step = 1 if s.step is None else as_int(s.step)
    if step is None or step <= 0:
        return UNKNOWN
    start, stop = s.start, s.stop
    n = as_int(size)
    if n is not None:
        a, b = as_int(start) if start is not None else 0, as_int(stop) if stop is not None else n
        if a is None or b is None:
            return UNKNOWN
        return len(range(n)[slice(a, b, step)])
    # Symbolic size: Python's clamping, kept only where provable (NOTE [ Provable facts ]).
    begin = _bound(start, 0, size)
    end = _bound(stop, size, size)
    if isinstance(begin, Unknown) or isinstance(end, Unknown):
        return UNKNOWN
    length = d_sub(end, begin)
    if not nonnegative(length):
        return 0 if is_literal(length) else UNKNOWN
    return length if step == 1 else d_ceildiv(length, step)


def _bound(b: DimExpr | None, default: DimExpr, size: DimExpr) -> DimExpr:
    """A slice bound clamped into ``[0, size]`` as Python does, or UNKNOWN when that clamp is not
    provable (``:64`` on a symbolic ``Seq`` is ``min(Seq, 64)``)."""
    if b is None:
        return default
    if isinstance(b, Unknown):
        return UNKNOWN
    k = as_int(b)
    if k is not None and k < 0:
        from_end = d_add(size, k)
        return from_end if nonnegative(from_end) else UNKNOWN  # max(size + k, 0)
    return clamp_min(b, size)


def index_shape(x: ShapeLike, key: Any) -> Result:
    """The shape of ``x[key]`` following NumPy/PyTorch basic and advanced indexing."""
    items = [
        SliceIndex(i.start, i.stop, i.step) if isinstance(i, slice) else i
        for i in (list(key) if isinstance(key, tuple) else [key])
    ]
    if isinstance(x, Unknown):
        return UNKNOWN
    # An UNKNOWN item is an integer of unknown value (docs/shapes-api.md): it drops its dim
    # and is not range-checked.
    consumed = 0
    for it in items:
        if it is None or it is Ellipsis:
            continue
        if isinstance(it, TensorIndex) and it.is_bool:
            if isinstance(it.shape, Unknown) or not it.shape.is_fixed:
                return UNKNOWN
            consumed += len(it.shape.dims)  # a 0-d bool adds a dim and consumes none
        else:
            consumed += 1
    n_ell = sum(1 for it in items if it is Ellipsis)
    if n_ell > 1:
        return Issue("shape-axis", "index: an index can only have a single ellipsis (...)")
    if x.is_fixed and consumed > len(x.dims):
        return Issue(
            "shape-axis",
            f"index: too many indices for a tensor of rank {len(x.dims)} ({consumed} given); shape {fmt_shape(x)}",
        )
    if not x.is_fixed:
        return _index_variadic(x, items)
    dims = list(x.dims)
    if n_ell == 0:
        items = items + [SliceIndex()] * (len(dims) - consumed)
    else:
        at = items.index(Ellipsis)
        items = items[:at] + [SliceIndex()] * (len(dims) - consumed) + items[at + 1 :]
    out: list[DimExpr | tuple[str, int]] = []
    advanced: list[ShapeLike] = []
    adv_positions: list[int] = []
    pos = 0
    for it in items:
        if it is None:
            out.append(1)
            continue
        if isinstance(it, SliceIndex):
            out.append(slice_length(dims[pos], it))
            pos += 1
            continue
        if isinstance(it, TensorIndex):
            if it.is_bool:
                assert isinstance(it.shape, Shape)
                k = len(it.shape.dims)
                for j, (m, d) in enumerate(zip(it.shape.dims, dims[pos : pos + k], strict=False)):
                    if differs(m, d):
                        return Issue(
                            "shape-axis",
                            f"index: boolean mask {fmt_shape(it.shape)} does not match dim {pos + j} "
                            f"({fmt_dim(d)}) of shape {fmt_shape(x)}",
                        )
                empty = any(m == 0 for m in it.shape.dims)
                advanced.append(Shape((0 if empty else UNKNOWN,)))  # True count; 0 for an empty mask
                pos += k
            else:
                advanced.append(it.shape)
                pos += 1
            adv_positions.append(len(out))
            out.append(("adv", len(advanced) - 1))
            continue
        v = as_int(it)
        size = as_int(dims[pos])
        if v is not None and size is not None and not -size <= v < size:
            return Issue(
                "shape-axis",
                f"index: index {v} is out of range for dim {pos} of size {size}; shape {fmt_shape(x)}",
            )
        pos += 1
    if not advanced:
        return Shape(tuple(d for d in out if not isinstance(d, tuple)))
    merged = broadcast_all(advanced, "index")
    if isinstance(merged, (Issue, Unknown)) or not merged.is_fixed:
        return merged if isinstance(merged, Issue) else UNKNOWN
    contiguous = adv_positions == list(range(adv_positions[0], adv_positions[0] + len(adv_positions)))
    plain = [d for d in out if not isinstance(d, tuple)]
    if contiguous:
        first = adv_positions[0]
        before = [d for d in out[:first] if not isinstance(d, tuple)]
        after = [d for d in out[first:] if not isinstance(d, tuple)]
        return Shape(tuple(before) + merged.dims + tuple(after))
    return Shape(merged.dims + tuple(plain))


def _index_variadic(x: Shape, items: list[Any]) -> Result:
    """Index a ``[pre, *Bs, suf]`` shape: items before ``...`` eat the prefix, after it the suffix."""
    if Ellipsis not in items:
        items = [*items, Ellipsis]
    at = items.index(Ellipsis)
    head, tail = items[:at], items[at + 1 :]
    if any(isinstance(i, TensorIndex) for i in items):
        return UNKNOWN
    def eat(dims: tuple[DimExpr, ...], its: list[Any], from_end: bool) -> tuple[DimExpr, ...] | None:
        need = sum(1 for i in its if i is not None)
        if need > len(dims):
            return None
        use = dims[len(dims) - need :] if from_end else dims[:need]
        rest = dims[: len(dims) - need] if from_end else dims[need:]
        out: list[DimExpr] = []
        k = 0
        for it in its:
            if it is None:
                out.append(1)
            elif isinstance(it, SliceIndex):
                out.append(slice_length(use[k], it))
                k += 1
            else:
                k += 1
        return (rest + tuple(out)) if from_end else (tuple(out) + rest)
    pre = eat(x.prefix, head, False)
    suf = eat(x.suffix, tail, True)
    if pre is None or suf is None:
        return Shape((), Star(None), ())
    return Shape(pre, x.star, suf)


@op("index", "input:tensor, key:index", operators=("__getitem__",), tags=("indexing", "view"))
def index(args: Args) -> Result:
    """``x[key]``."""
    return index_shape(args["input"], args["key"])


@op("index_put", "input:tensor, key:index, value:any", expose="tt method inplace", python="tt method inplace",
    function="input:tensor, indices:any, values:tensor, accumulate:bool=False",
    method="indices:any, values:tensor, accumulate:bool=False",
    inplace="indices:any, values:tensor, accumulate:bool=False", operators=("__setitem__",), tags=("indexing",),
    cuda="host")
def index_put(args: Args) -> Result:
    """``x[key] = value``: the value must broadcast to the indexed region; the result is ``x``."""
    x: ShapeLike = args["input"]
    region = index_shape(x, args["key"])
    if isinstance(region, Issue):
        return region
    value = args["value"]
    if isinstance(region, Shape) and isinstance(value, Shape):
        from ..broadcast import broadcast_into

        if value.is_fixed:  # torch drops a value's leading 1s before broadcasting it into the region
            dims = value.dims
            while dims and dims[0] == 1:
                dims = dims[1:]
            value = Shape(dims)
        issue = broadcast_into(region, value, "index_put")
        if issue:
            return issue
    return x

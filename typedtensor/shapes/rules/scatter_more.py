"""Scatter-style ops written in Python out of the backend's primitives (``_runtime/scatter_ops.py``):
``scatter_reduce`` / ``index_reduce`` (reductions of several values into one place) and
``select_scatter`` / ``slice_scatter`` / ``diagonal_scatter`` (a view of the input replaced by a
tensor). Each result has the input's shape; the rules check what the other tensors must fit.
(``index_put``'s function and method forms are Python too, ``_runtime/scatter_ops.py``; its entry
stays with indexed assignment in ``rules/indexing.py``.)"""

from __future__ import annotations

from typing import Any

from ..dims import UNKNOWN, as_int, differs
from ..issue import Issue
from ..registry import Args, Result, op
from ..shape import Shape, ShapeLike, fmt_shape
from ._common import norm_axis, replace
from .movement import diagonal, scatter_contract, select

_SAME = "(*s) -> (*s)"


@op("scatter_reduce", "input:tensor, dim:int, index:tensor, src:tensor, reduce:str, *, include_self:bool=True",
    expose="tt method inplace", python="tt method inplace", tags=("indexing",), signature=_SAME)
def scatter_reduce(args: Args) -> Result:
    """torch's scatter contract: the index has the input's rank and fits inside the input (off
    ``dim``) and inside ``src``."""
    return scatter_contract("scatter_reduce", args)


@op("index_reduce", "input:tensor, dim:int, index:tensor, source:tensor, reduce:str, *, include_self:bool=True",
    expose="tt method inplace", python="tt method inplace", tags=("indexing",), signature=_SAME)
def index_reduce(args: Args) -> Result:
    """``source`` is the input with ``dim`` replaced by the length of the 1-d ``index``."""
    x: ShapeLike = args["input"]
    idx: ShapeLike = args["index"]
    src: ShapeLike = args["source"]
    if not isinstance(x, Shape):
        return UNKNOWN
    p = norm_axis("index_reduce", x, args["dim"])
    if isinstance(p, Issue):
        return p
    if isinstance(idx, Shape) and idx.is_fixed and len(idx.dims) > 1:
        return Issue("shape-rank", f"index_reduce: index must be 0-d or 1-d, got {fmt_shape(idx)}")
    if p is not None and isinstance(idx, Shape) and isinstance(src, Shape) and x.is_fixed and idx.is_fixed \
            and src.is_fixed:
        n = idx.dims[0] if idx.dims else 1
        want = replace(x, p, (n,)) if x.dims else Shape(())
        have = src.dims
        if len(have) != len(want.dims) or any(differs(a, b) for a, b in zip(have, want.dims, strict=True)):
            return Issue("shape-arg", f"index_reduce: source must have shape {fmt_shape(want)} (the input's with "
                         f"dim {args['dim']} the index's length), got {fmt_shape(src)}")
    return x


def _embedded(name: str, x: ShapeLike, src: ShapeLike, view: Result, what: str) -> Result:
    """The input, once ``src`` has the shape of the view it replaces."""
    if isinstance(view, Issue):
        return Issue(view.code, f"{name}: {view.message.split(': ', 1)[-1]}")
    if isinstance(view, Shape) and isinstance(src, Shape) and view.is_fixed and src.is_fixed and (
        len(view.dims) != len(src.dims) or any(differs(a, b) for a, b in zip(view.dims, src.dims, strict=True))
    ):
        return Issue("shape-arg", f"{name}: src must have the shape of the {what} it replaces, "
                     f"{fmt_shape(view)}, got {fmt_shape(src)}")
    return x if isinstance(x, Shape) else UNKNOWN


@op("select_scatter", "input:tensor, src:tensor, dim:int, index:int", expose="tt method", python="tt method",
    tags=("indexing",), signature=_SAME)
def select_scatter(args: Args) -> Result:
    """``src`` has the shape of ``input.select(dim, index)``."""
    x = args["input"]
    view = select({"input": x, "dim": args["dim"], "index": args["index"]})
    return _embedded("select_scatter", x, args["src"], view, "selected slice")


def _slice_length(size: int, start: Any, end: Any, step: int) -> int:
    return len(range(*slice(start, end, step).indices(size)))


@op("slice_scatter", "input:tensor, src:tensor, dim:int=0, start:any=None, end:any=None, step:int=1",
    expose="tt method", python="tt method", tags=("indexing",), signature=_SAME)
def slice_scatter(args: Args) -> Result:
    """``src`` has the shape of ``input[..., start:end:step, ...]`` along ``dim``."""
    x, src = args["input"], args["src"]
    if not isinstance(x, Shape):
        return UNKNOWN
    if not x.dims:
        return Issue("shape-rank", "slice_scatter: slice() cannot be applied to a 0-dim tensor")
    p = norm_axis("slice_scatter", x, args["dim"])
    if isinstance(p, Issue):
        return p
    step = as_int(args["step"])
    if step is not None and step <= 0:
        return Issue("shape-arg", f"slice_scatter: slice step must be positive, got {step}")
    size = as_int(x.dims[p]) if p is not None else None
    start, end = args["start"], args["end"]
    bounds_known = all(b is None or as_int(b) is not None for b in (start, end))
    if size is None or step is None or not bounds_known:
        return x
    n = _slice_length(size, None if start is None else as_int(start), None if end is None else as_int(end), step)
    return _embedded("slice_scatter", x, src, replace(x, p, (n,)), "slice")  # type: ignore[arg-type]


@op("diagonal_scatter", "input:tensor, src:tensor, offset:int=0, dim1:int=0, dim2:int=1", expose="tt method",
    python="tt method", tags=("indexing",), signature=_SAME)
def diagonal_scatter(args: Args) -> Result:
    """``src`` has the shape of ``input.diagonal(offset, dim1, dim2)``."""
    x = args["input"]
    view = diagonal({"input": x, "offset": args["offset"], "dim1": args["dim1"], "dim2": args["dim2"]})
    return _embedded("diagonal_scatter", x, args["src"], view, "diagonal")

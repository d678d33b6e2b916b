"""Splitting, stacking and windowing ops written in Python out of the backend's primitives
(``_runtime/arrangement_ops.py``): ``tensor_split`` / ``hsplit`` / ``vsplit`` / ``dsplit``,
``atleast_1d`` / ``_2d`` / ``_3d``, ``column_stack`` / ``row_stack`` / ``dstack``, ``block_diag``,
``diagflat`` and ``logspace``.

A rule that needs every size as a number (the pieces of a split, a block matrix) answers UNKNOWN
for symbolic dims."""

from __future__ import annotations

from typing import Any

from ..dims import UNKNOWN, Unknown, as_int
from ..issue import Issue
from ..registry import Args, Outputs, Result, op
from ..shape import Shape, ShapeLike, fmt_shape
from ._common import norm_axis
from .movement import cat


def _ints(x: Any) -> tuple[int, ...] | None:
    if not isinstance(x, Shape) or not x.is_fixed:
        return None
    dims = tuple(as_int(d) for d in x.dims)
    return None if any(d is None for d in dims) else dims  # type: ignore[return-value]


_MAX_SECTIONS = 1 << 31


def _pieces(name: str, dims: tuple[int, ...], p: int, spec: Any) -> Result:
    """The shapes of ``tensor_split``'s pieces of dim ``p``: ``spec`` sections or split indices.
    (torch names that argument ``sections``, ``indices`` or ``tensor_indices_or_sections`` by its
    type, so the entries take it positionally only.)"""
    n = dims[p]
    if isinstance(spec, Shape):
        if not spec.is_fixed or len(spec.dims) > 1:
            return UNKNOWN if not spec.is_fixed else Issue(
                "shape-rank", f"{name}: tensor_indices_or_sections must be a zero-dimensional or one-dimensional "
                f"tensor, but got a tensor with {len(spec.dims)} dims")
        return Outputs(UNKNOWN)  # the values decide
    if isinstance(spec, (tuple, list)):
        maybe = [as_int(i) for i in spec]
        bounds = [b for b in maybe if b is not None]
        if len(bounds) != len(maybe):
            return Outputs(UNKNOWN)
        # piece i is the Python slice [b(i-1):b(i)] of the dim (b(-1) = 0, the last runs to the end)
        at = [min(b, n) if b >= 0 else max(n + b, 0) for b in bounds]
        edges = [0, *at, n]
        sizes = [max(0, edges[i + 1] - edges[i]) for i in range(len(edges) - 1)]
        return Outputs(tuple(Shape((*dims[:p], s, *dims[p + 1:])) for s in sizes))
    k = as_int(spec)
    if k is None:
        return Outputs(UNKNOWN)
    if k <= 0:
        return Issue("shape-arg", f"{name}: number of sections must be larger than 0, got {k}")
    if k > _MAX_SECTIONS:  # each section is a tensor: listing 2^62 of them hung where torch raises at once
        return Issue("shape-arg", f"{name}: {k} sections is more than the {_MAX_SECTIONS} tensors a split can return")
    q, r = divmod(n, k)
    return Outputs(tuple(Shape((*dims[:p], q + (1 if i < r else 0), *dims[p + 1:])) for i in range(k)))


@op("tensor_split", "input:tensor, indices_or_sections:any, /, dim:int=0", expose="tt method", python="tt method",
    tags=("view", "movement"), returns="tuple[_AnyTensor, ...]")
def tensor_split(args: Args) -> Result:
    """``k`` near-equal pieces (the first ``n % k`` one larger), or the pieces between indices."""
    x = args["input"]
    dims = _ints(x)
    if dims is None:
        return Outputs(UNKNOWN)
    if not dims:
        return Issue("shape-rank", "tensor_split: expected at least a 1-dimensional tensor")
    p = norm_axis("tensor_split", x, args["dim"])
    if not isinstance(p, int):
        return p if isinstance(p, Issue) else Outputs(UNKNOWN)
    return _pieces("tensor_split", dims, p, args["indices_or_sections"])


for _name, _min_rank, _axis in (("hsplit", 1, 1), ("vsplit", 2, 0), ("dsplit", 3, 2)):
    def _directional(args: Args, _n: str = _name, _r: int = _min_rank, _a: int = _axis) -> Result:
        """``tensor_split`` along a fixed dim, where an int must divide that dim evenly."""
        x = args["input"]
        dims = _ints(x)
        if dims is None:
            return Outputs(UNKNOWN)
        if len(dims) < _r:
            return Issue("shape-rank", f"{_n}: requires a tensor with at least {_r} dimension{'s' if _r > 1 else ''}, "
                         f"but got a tensor with {len(dims)} dimensions; shape {fmt_shape(x)}")
        p = 0 if _n == "hsplit" and len(dims) == 1 else _a
        spec = args["indices_or_sections"]
        k = as_int(spec) if not isinstance(spec, (tuple, list, Shape, Unknown)) else None
        if k is not None and (k == 0 or dims[p] % k):
            return Issue("shape-arg", f"{_n}: attempted to split along dimension {p}, but the size of the dimension "
                         f"{dims[p]} is not divisible by the split_size {k}; shape {fmt_shape(x)}")
        return _pieces(_n, dims, p, spec)

    op(_name, "input:tensor, indices_or_sections:any, /", expose="tt method", python="tt method",
       tags=("view", "movement"), returns="tuple[_AnyTensor, ...]")(_directional)


def _at_least(x: ShapeLike, rank: int) -> ShapeLike:
    if not isinstance(x, Shape) or not x.is_fixed or len(x.dims) >= rank:
        return x
    d = x.dims
    if rank == 1:
        return Shape((1,))
    if rank == 2:
        return Shape((1, *d) if d else (1, 1))
    return Shape((1, d[0], 1) if len(d) == 1 else (*d, 1) if len(d) == 2 else (1, 1, 1))


for _rank in (1, 2, 3):
    def _atleast(args: Args, _r: int = _rank) -> Result:
        """Each tensor with 1s added until it has the rank: one tensor, or a tuple for several."""
        ts = args["tensors"]
        if len(ts) == 1 and isinstance(ts[0], Shape | Unknown):
            return _at_least(ts[0], _r)
        items = ts[0] if len(ts) == 1 and isinstance(ts[0], (tuple, list)) else ts
        return Outputs(tuple(_at_least(t, _r) for t in items))

    op(f"atleast_{_rank}d", "*tensors:any", expose="tt", python="tt", tags=("view", "movement"),
       returns="Any")(_atleast)


@op("column_stack", "tensors:tensors", expose="tt", python="tt", tags=("movement", "join"))
def column_stack(args: Args) -> Result:
    """0-d and 1-d tensors as columns ``[n, 1]``, then ``cat`` along dim 1."""
    ts = args["tensors"]
    if not isinstance(ts, (tuple, list)) or not ts:
        return UNKNOWN if ts else Issue("shape-arg", "column_stack: expects a non-empty TensorList")
    cols: list[ShapeLike] = []
    for t in ts:
        if isinstance(t, Shape) and t.is_fixed and len(t.dims) <= 1:
            cols.append(Shape((t.dims[0] if t.dims else 1, 1)))
        else:
            cols.append(t)
    return cat({"tensors": cols, "dim": 1})


@op("row_stack", "tensors:tensors", expose="tt", python="tt", tags=("movement", "join"))
def row_stack(args: Args) -> Result:
    """``vstack``: 1-d tensors become rows ``[1, n]``, then ``cat`` along dim 0."""
    ts = args["tensors"]
    if not isinstance(ts, (tuple, list)):
        return UNKNOWN
    return cat({"tensors": [_at_least(t, 2) for t in ts], "dim": 0})


@op("dstack", "tensors:tensors", expose="tt", python="tt", tags=("movement", "join"))
def dstack(args: Args) -> Result:
    """Each tensor made at least 3-d, then ``cat`` along dim 2."""
    ts = args["tensors"]
    if not isinstance(ts, (tuple, list)):
        return UNKNOWN
    return cat({"tensors": [_at_least(t, 3) for t in ts], "dim": 2})


@op("block_diag", "*tensors:tensor", expose="tt", python="tt", tags=("linalg",))
def block_diag(args: Args) -> Result:
    """The tensors (each at most 2-d, as ``[1, n]`` or ``[1, 1]``) on the diagonal of one matrix."""
    rows, cols = 0, 0
    for i, t in enumerate(args["tensors"]):
        dims = _ints(t)
        if dims is None:
            return UNKNOWN
        if len(dims) > 2:
            return Issue("shape-rank", f"block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                         f"{len(dims)} dimensions")
        r, c = (1, 1) if not dims else (1, dims[0]) if len(dims) == 1 else dims
        rows, cols = rows + r, cols + c
    return Shape((rows if args["tensors"] else 1, cols))


@op("diagflat", "input:tensor, offset:int=0", expose="tt method", python="tt method", tags=("linalg",))
def diagflat(args: Args) -> Result:
    """The flattened input on diagonal ``offset`` of a square matrix of side ``numel + |offset|``."""
    dims, k = _ints(args["input"]), as_int(args["offset"])
    if dims is None or k is None:
        return UNKNOWN
    n = 1
    for d in dims:
        n *= d
    return Shape((n + abs(k), n + abs(k)))


@op("logspace", "start:any, end:any, steps:int, base:float=10.0, *, dtype:any=None, layout:any=None, "
    "device:any=None, requires_grad:bool=False", expose="tt", python="tt", tags=("creation",),
    differentiable=False, gradient="a factory", dtype_rule="factory")
def logspace(args: Args) -> Result:
    """``steps`` powers of ``base``: ``[steps]``."""
    n = as_int(args["steps"])
    if n is not None and n < 0:
        return Issue("shape-arg", f"logspace: number of steps must be non-negative, got {n}")
    return Shape((n if n is not None else UNKNOWN,))

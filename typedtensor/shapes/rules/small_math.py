"""Small torch functions written in Python out of the backend's primitives (``_runtime/small_math.py``):
the conjugate transposes ``Tensor.H`` / ``Tensor.mH`` / ``adjoint`` and ``fliplr``; ``aminmax``,
``argwhere`` and the predicates ``isposinf`` / ``isneginf`` / ``isreal``; the products ``vdot``,
``ger``, ``addr`` and the norms ``dist``, ``renorm``; ``sum_to_size``, ``split_with_sizes``; the
number representations ``frexp``, ``ldexp``, ``gcd`` and ``lcm``.

Their shapes are the input's (the predicates, ``fliplr``), its last two dims swapped (the
transposes), a reduction's (``aminmax``, ``dist``, ``sum_to_size``), ``[count, rank]`` (``argwhere``)
or the operands' broadcast (``ldexp``, ``gcd``, ``lcm``)."""

from __future__ import annotations

from ..broadcast import broadcast_into, broadcast_shapes
from ..dims import UNKNOWN, Unknown, as_int, differs
from ..issue import Issue
from ..registry import Args, Outputs, Result, Rule, op
from ..shape import Shape, ShapeLike, fmt_shape
from . import movement as _movement
from ._common import norm_axis
from .reduce import reduce_shape

_SAME = "(*s) -> (*s)"


def _swap_last(name: str, what: str, matrices_only: bool) -> Rule:
    """The rule of a conjugate transpose: a 0-d tensor is itself (torch warns), else the last two
    dims swapped; ``matrices_only`` (``Tensor.H``) takes exactly 2 dims."""

    def rule(args: Args) -> Result:
        x: ShapeLike = args["input"]
        if isinstance(x, Unknown):
            return UNKNOWN
        if x.is_fixed and not x.dims:
            return x
        if x.is_fixed and (len(x.dims) < 2 or (matrices_only and len(x.dims) != 2)):
            only = "matrices (2-D tensors)" if matrices_only else "matrices or batches of matrices"
            return Issue("shape-rank", f"{name}: tensor.{what} is only supported on {only}. Got {len(x.dims)}-D "
                         f"tensor; shape {fmt_shape(x)}")
        if len(x.tail) < 2:
            return UNKNOWN
        return x.with_tail((*x.tail[:-2], x.tail[-1], x.tail[-2]))

    return rule


op("H", "input:tensor", expose="property", python="property", tags=("view", "movement"))(_swap_last("H", "H", True))
op("mH", "input:tensor", expose="property", python="property", tags=("view", "movement"))(
    _swap_last("mH", "mH", False))
op("adjoint", "input:tensor", expose="tt method", python="tt method", tags=("view", "movement"))(
    _swap_last("adjoint", "adjoint()", False))


@op("fliplr", "input:tensor", expose="tt method", python="tt method", tags=("movement",), signature=_SAME)
def fliplr(args: Args) -> Result:
    """The input with its columns (dim 1) reversed: its shape; at least 2 dims."""
    x: ShapeLike = args["input"]
    if isinstance(x, Shape) and x.is_fixed and len(x.dims) < 2:
        return Issue("shape-rank", f"fliplr: Input must be >= 2-d; shape {fmt_shape(x)}")
    return x


@op("aminmax", "input:tensor, *, dim:int=None, keepdim:bool=False", expose="tt method", python="tt method",
    tags=("reduction",), dtype_rule="same", returns="Any")
def aminmax(args: Args) -> Result:
    """(min, max) over ``dim`` (every element without one): both the shape of ``amin``; an empty
    reduction has no identity, an error as in torch."""
    x, dim, keepdim = args["input"], args["dim"], args["keepdim"]
    if isinstance(x, Shape) and x.is_fixed:
        if dim is None and any(as_int(d) == 0 for d in x.dims):
            return Issue("shape-axis", f"aminmax: cannot compute aminmax over an empty dimension as the operation "
                         f"has no identity; shape {fmt_shape(x)}")
        if dim is not None and not x.dims:
            if as_int(dim) is not None and as_int(dim) not in (0, -1):
                return Issue("shape-axis", f"aminmax: dim {dim} is out of range for a 0-d tensor")
            return Outputs((x, x), ("min", "max"))
        if dim is not None:
            p = norm_axis("aminmax", x, dim)
            if isinstance(p, Issue):
                return p
            if p is not None and as_int(x.dims[p]) == 0:
                return Issue("shape-axis", f"aminmax: Expected reduction dim {dim} to have non-zero size; shape "
                             f"{fmt_shape(x)}")
    out = reduce_shape("aminmax", x, dim, keepdim)
    if isinstance(out, (Issue, Unknown)):
        return out
    if isinstance(out, Outputs):
        return UNKNOWN
    return Outputs((out, out), ("min", "max"))


@op("argwhere", "input:tensor", expose="tt method", python="tt method", tags=("indexing",), differentiable=False,
    gradient="integer result", dtype_rule="int64", cuda="host")
def argwhere(args: Args) -> Result:
    """The index of every non-zero element, one row each: ``[count, rank]`` (the count known only at run time)."""
    x: ShapeLike = args["input"]
    return Shape((UNKNOWN, len(x.dims))) if isinstance(x, Shape) and x.is_fixed else Shape((UNKNOWN, UNKNOWN))


for _name in ("isposinf", "isneginf", "isreal"):
    def _predicate(args: Args) -> Result:
        """An elementwise test: the input's shape."""
        return args["input"]  # type: ignore[no-any-return]

    op(_name, "input:tensor", expose="tt method", python="tt method", tags=("elementwise", "unary"),
       differentiable=False, gradient="boolean result", dtype_rule="bool", signature=_SAME)(_predicate)


# ---- products and norms: vdot, ger, addr, dist, renorm ----


def _rank_issue(name: str, x: ShapeLike, rank: int, what: str) -> Issue | None:
    if isinstance(x, Shape) and x.is_fixed and len(x.dims) != rank:
        return Issue("shape-rank", f"{name}: Expected {rank}-D argument {what}, but got {len(x.dims)}-D; shape "
                     f"{fmt_shape(x)}")
    return None


@op("vdot", "input:tensor, other:tensor", expose="tt method", python="tt method", tags=("linalg",),
    signature="(k), (k) -> ()")
def vdot(args: Args) -> Result:
    """The dot product of two vectors of one length (the first conjugated): 0-d."""
    a, b = args["input"], args["other"]
    if isinstance(a, Shape) and isinstance(b, Shape) and a.is_fixed and b.is_fixed:
        if len(a.dims) != 1 or len(b.dims) != 1:
            return Issue("shape-rank", f"vdot: 1D tensors expected, but got {len(a.dims)}D and {len(b.dims)}D tensors")
        if differs(a.dims[0], b.dims[0]):
            return Issue("shape-matmul", f"vdot: inconsistent tensor size, expected tensor {fmt_shape(a)} and src "
                         f"{fmt_shape(b)} to have the same number of elements")
    return Shape(())


def _outer_shape(name: str, v1: ShapeLike, v2: ShapeLike, first: str, second: str) -> Result:
    for what, v in ((first, v1), (second, v2)):
        bad = _rank_issue(name, v, 1, what)
        if bad:
            return bad
    n = v1.dims[0] if isinstance(v1, Shape) and v1.is_fixed else UNKNOWN
    m = v2.dims[0] if isinstance(v2, Shape) and v2.is_fixed else UNKNOWN
    return Shape((n, m))


@op("ger", "input:tensor, vec2:tensor", expose="tt method", python="tt method", tags=("linalg",),
    signature="(m), (n) -> (m, n)")
def ger(args: Args) -> Result:
    """The outer product of two vectors (torch's older name of ``outer``): ``[m, n]``."""
    return _outer_shape("ger", args["input"], args["vec2"], "self", "vec2")


def _added_to(name: str, x: ShapeLike, product: Result) -> Result:
    """``beta * input + alpha * product``: ``input`` broadcasts to the product's shape without growing it."""
    if not isinstance(product, Shape) or isinstance(x, Unknown):
        return product
    bad = broadcast_into(product, x, name)
    if bad:
        return Issue(bad.code, f"{name}: input {fmt_shape(x)} does not broadcast to the product's shape "
                     f"{fmt_shape(product)}")
    return product


@op("addr", "input:tensor, vec1:tensor, vec2:tensor, *, beta:any=1, alpha:any=1", expose="tt method inplace",
    python="tt method inplace", tags=("linalg",), signature="(m, n), (m), (n) -> (m, n)")
def addr(args: Args) -> Result:
    """``beta * input + alpha * outer(vec1, vec2)``: ``[m, n]``."""
    return _added_to("addr", args["input"], _outer_shape("addr", args["vec1"], args["vec2"], "vec1", "vec2"))


@op("dist", "input:tensor, other:tensor, p:float=2", expose="tt method", python="tt method", tags=("linalg",),
    dtype_rule="float_only")
def dist(args: Args) -> Result:
    """The ``p``-norm of ``input - other`` (broadcast): 0-d."""
    merged = broadcast_shapes(args["input"], args["other"], "dist")
    return merged if isinstance(merged, Issue) else Shape(())


@op("renorm", "input:tensor, p:float, dim:int, maxnorm:float", expose="tt method inplace",
    python="tt method inplace", tags=("linalg",), dtype_rule="float_only", signature=_SAME)
def renorm(args: Args) -> Result:
    """Each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled down to it: the input's shape."""
    x, p, maxnorm = args["input"], args["p"], args["maxnorm"]
    if isinstance(p, (int, float)) and not isinstance(p, bool) and p <= 0:
        return Issue("shape-arg", "renorm: non-positive-norm not supported")
    if isinstance(maxnorm, (int, float)) and not isinstance(maxnorm, bool) and maxnorm < 0:
        return Issue("shape-arg", f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if isinstance(x, Shape) and x.is_fixed:
        if len(x.dims) < 2:
            return Issue("shape-rank", f"renorm: input needs at least 2 dimensions, got {len(x.dims)} dimensions; "
                         f"shape {fmt_shape(x)}")
        p_dim = norm_axis("renorm", x, args["dim"])
        if isinstance(p_dim, Issue):
            return p_dim
    return x  # type: ignore[no-any-return]


# ---- sizes and pieces: sum_to_size, split_with_sizes ----


@op("sum_to_size", "input:tensor, *size:sizes", expose="method", python="method", tags=("reduction",),
    dtype_rule="same")
def sum_to_size(args: Args) -> Result:
    """The input summed down to ``size``, which must expand to the input's shape: ``size``."""
    x, size = args["input"], _movement._sizes(args["size"])
    if isinstance(size, Unknown):
        return UNKNOWN
    if isinstance(x, Shape) and x.is_fixed:
        fits = len(size) <= len(x.dims) and not any(
            as_int(s) != 1 and differs(s, d) for s, d in zip(reversed(size), reversed(x.dims), strict=False))
        if not fits:
            return Issue("shape-reshape", f"sum_to_size: size {fmt_shape(Shape(tuple(size)))} is not expandable to "
                         f"size {fmt_shape(x)}")
    return Shape(tuple(size))


@op("split_with_sizes", "input:tensor, split_sizes:ints, dim:int=0", expose="tt method", python="tt method",
    tags=("view", "movement"), returns="tuple[_AnyTensor, ...]")
def split_with_sizes(args: Args) -> Result:
    """Pieces of the given sizes along ``dim``, which must sum to its size."""
    x, sizes = args["input"], args["split_sizes"]
    if isinstance(x, Shape) and x.is_fixed and isinstance(sizes, (tuple, list)):
        got = [as_int(s) for s in sizes]
        if any(s is not None and s < 0 for s in got):
            return Issue("shape-arg", f"split_with_sizes: expects split_sizes have only non-negative entries, but got "
                         f"split_sizes={list(sizes)}")
    out = _movement.split({"input": x, "split_size_or_sections": tuple(sizes) if isinstance(sizes, list) else sizes,
                           "dim": args["dim"]})
    if isinstance(out, Issue):
        return Issue(out.code, out.message.replace("split:", "split_with_sizes:", 1))
    return out


# ---- number representations: frexp, ldexp, gcd, lcm ----


@op("frexp", "input:tensor", expose="tt method", python="tt method", tags=("elementwise",), dtype_rule="float_only",
    returns="Any", cuda="host")
def frexp(args: Args) -> Result:
    """(mantissa, exponent) with ``input = mantissa * 2 ** exponent``: both the input's shape."""
    x = args["input"]
    return UNKNOWN if isinstance(x, Unknown) else Outputs((x, x), ("mantissa", "exponent"))


def _broadcast(name: str) -> Rule:
    def rule(args: Args) -> Result:
        return broadcast_shapes(args["input"], args["other"], name)

    return rule


op("ldexp", "input:tensor, other:tensor", expose="tt method inplace", python="tt method inplace",
   tags=("elementwise",), dtype_rule="float", signature="(*a), (*b) -> (*broadcast(a, b))")(_broadcast("ldexp"))
for _name in ("gcd", "lcm"):
    op(_name, "input:tensor, other:tensor", expose="tt method inplace", python="tt method inplace",
       tags=("elementwise",), dtype_rule="integral", differentiable=False, gradient="integer result",
       signature="(*a), (*b) -> (*broadcast(a, b))")(_broadcast(_name))

"""Reductions with ``dim``/``keepdim`` and the ops that keep the shape along a dim
(softmax, log_softmax, cumsum)."""

from __future__ import annotations

from typing import Any

from ..dims import UNKNOWN, Unknown, as_int
from ..issue import Issue
from ..registry import Args, Outputs, Result, op
from ..shape import Shape, ShapeLike, fmt_shape
from ._common import norm_axis, replace

# Reductions that pick an element: torch raises on an empty reduced dim (and, without ``dim``, on an
# empty tensor) instead of returning an identity value.
NEED_NONEMPTY = frozenset({"amax", "amin", "argmax", "argmin", "max", "min", "mode", "median"})
NEED_NONEMPTY_ALL = frozenset({"amax", "amin", "argmax", "argmin", "max", "min"})

REDUCTIONS = ("sum", "mean", "prod", "amax", "amin", "all", "any", "nansum", "nanmean", "count_nonzero")


def reduce_shape(name: str, x: Any, dim: Any, keepdim: Any) -> Result:
    """Drop (or keep as 1) each reduced dim; ``dim=None`` reduces everything."""
    if isinstance(x, Unknown):
        return UNKNOWN
    assert isinstance(x, Shape)
    if dim is None or dim == ():
        if name in NEED_NONEMPTY_ALL and x.is_fixed and any(d == 0 for d in x.dims):
            return Issue(
                "shape-axis",
                f"{name}: reducing an empty tensor needs an explicit dim; shape {fmt_shape(x)}",
            )
        if keepdim is True:
            return Shape((1,) * len(x.dims)) if x.is_fixed else UNKNOWN
        return UNKNOWN if isinstance(keepdim, Unknown) else Shape(())
    axes = list(dim) if isinstance(dim, (tuple, list)) else [dim]
    positions: list[int] = []
    for a in axes:
        p = norm_axis(name, x, a)
        if isinstance(p, Issue):
            return p
        if p is None:
            return UNKNOWN
        if p in positions:
            return Issue("shape-axis", f"{name}: dim {a} appears more than once in {dim}; shape {fmt_shape(x)}")
        positions.append(p)
        if name in NEED_NONEMPTY and x.is_fixed and x.dims and x.dims[p] == 0:
            return Issue(
                "shape-axis", f"{name}: cannot reduce over dim {a} of size 0; shape {fmt_shape(x)}"
            )
    if isinstance(keepdim, Unknown):
        return UNKNOWN
    if x.is_fixed and not x.dims:
        return x  # torch keeps a 0-d tensor 0-d, keepdim or not
    out = x
    # replace from the highest position down so earlier indices stay valid
    for p in sorted(set(positions), key=lambda q: (q >= 0, q), reverse=True):
        out = replace(out, p, (1,) if keepdim else ())
    return out


_VI = "_MaxMin[Unpack[tuple[Any, ...]]]"
_CPP = {"sum": "Sum", "mean": "Mean", "prod": "Prod", "amax": "Max", "amin": "Min", "all": "All", "any": "Any",
        "nansum": "NanSum"}  # ReduceOp, in enum order
_DTYPE = {"mean": "float_only", "nanmean": "float_only", "amax": "same", "amin": "same", "all": "bool", "any": "bool"}
# how a fused kernel combines two partial results of the reduction
_COMBINE = {"sum": "(A + B)", "mean": "(A + B)", "amax": "tt_max(A, B)", "amin": "tt_min(A, B)"}


def _register() -> None:
    for name in REDUCTIONS:
        def rule(args: Args, name: str = name) -> Result:
            return reduce_shape(name, args["input"], args["dim"], args.get("keepdim", False))

        params = "input:tensor, dim:any=None, keepdim:bool=False"
        if name in ("sum", "nansum", "mean", "prod", "nanmean"):
            params += ", *, dtype:dtype=None"
        function = method = None
        if name == "count_nonzero":  # torch's count_nonzero has no keepdim
            params, function, method = "input:tensor, dim:any=None", None, None
        python = {"nanmean": "tt method", "count_nonzero": "tt"}.get(name, "")
        op(name, params, expose="tt method", function=function, method=method, python=python,
           tags=("reduction", "logical") if name in ("all", "any") else ("reduction",),
           differentiable=name not in ("all", "any", "count_nonzero"),
           gradient="" if name not in ("all", "any", "count_nonzero") else "boolean result",
           dtype_rule=_DTYPE.get(name, "accumulate"), graph=name in _CPP, fusion=_COMBINE.get(name),
           cpp=f"ReduceOp::{_CPP[name]}" if name in _CPP else None,
           autocast="float32" if name == "prod" else "")(rule)

    for name in ("var", "std"):
        def vrule(args: Args, name: str = name) -> Result:
            return reduce_shape(name, args["input"], args["dim"], args["keepdim"])

        op(name, "input:tensor, dim:any=None, unbiased:any=None, keepdim:bool=False, *, correction:any=None",
           expose="tt method", tags=("reduction",), dtype_rule="float", graph=True, prim="Reduction")(vrule)

    for name in ("argmax", "argmin"):
        def arule(args: Args, name: str = name) -> Result:
            return reduce_shape(name, args["input"], args["dim"], args["keepdim"])

        op(name, "input:tensor, dim:any=None, keepdim:bool=False", expose="tt method", tags=("reduction",),
           differentiable=False, gradient="integer result", dtype_rule="int64", graph=True, prim="Other")(arule)

    for name in ("max", "min", "median", "mode"):
        def mrule(args: Args, name: str = name) -> Result:
            dim = args["dim"]
            x: ShapeLike = args["input"]
            if isinstance(dim, Shape) or (isinstance(dim, Unknown) and name in ("max", "min")):
                # max(x, other) is elementwise maximum; an unknown second argument may be either
                from .elementwise import binary_result
                return binary_result("maximum", x, dim) if isinstance(dim, Shape) else UNKNOWN
            if dim is None and name == "mode":
                dim = -1  # torch.mode reduces the last dim by default
            if dim is None:
                return reduce_shape(name, x, None, False)
            values = reduce_shape(name, x, dim, args["keepdim"])
            if isinstance(values, Issue):
                return values
            if isinstance(values, Outputs):
                return UNKNOWN
            return Outputs((values, values), ("values", "indices"))

        picks = name in ("max", "min")
        op(name, f"input:tensor, dim:any={-1 if name == 'mode' else None}, keepdim:bool=False", expose="tt method",
           python="" if picks else "tt method", tags=("reduction",), dtype_rule="same", graph=picks,
           prim="Other" if picks else None,
           returns=None if picks else "Any",
           overloads=("(input: _AnyTensor) -> Tensor[()]",
                      f"(input: _AnyTensor, dim: Any, keepdim: _bool = False) -> {_VI}") if picks else ())(mrule)

    @op("logsumexp", "input:tensor, dim:any, keepdim:bool=False", kernel="(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner)", cpp_fn="Tensor(const Tensor&, const Dims&, bool)", expose="tt method", tags=("reduction",),
        dtype_rule="float", graph=True, prim="Reduction", autocast="cuda=float32")
    def logsumexp(args: Args) -> Result:
        """A stable log(sum(exp(x))) over ``dim``."""
        return reduce_shape("logsumexp", args["input"], args["dim"], args["keepdim"])

    @op("norm", "input:tensor, p:any='fro', dim:any=None, keepdim:bool=False, dtype:dtype=None", expose="tt method",
        tags=("reduction",), dtype_rule="float", graph=True)  # runs as norm2 (p=2) or other ops
    def norm(args: Args) -> Result:
        """A vector or matrix norm over ``dim`` (all dims by default)."""
        dim = args["dim"]
        if args["p"] == "fro" and isinstance(dim, (tuple, list)) and len(dim) > 2:
            return Issue("shape-axis", f"norm: the Frobenius norm takes 1 or 2 dims, got {tuple(dim)}")
        return reduce_shape("norm", args["input"], args["dim"], args["keepdim"])

    for name in ("softmax", "log_softmax", "cumsum", "cumprod", "logcumsumexp"):
        def srule(args: Args, name: str = name) -> Result:
            x: ShapeLike = args["input"]
            dim = args["dim"]
            if isinstance(x, Unknown):
                return UNKNOWN
            if dim is None:
                return x  # PyTorch's implicit dim choice (deprecated) keeps the shape
            p = norm_axis(name, x, dim)
            if isinstance(p, Issue):
                return p
            return x

        soft = "soft" in name
        params = "input:tensor, dim:int, dtype:dtype=None" if soft else "input:tensor, dim:int, *, dtype:dtype=None"
        if name == "logcumsumexp":
            params = "input:tensor, dim:int"
        scan_in_place = name in ("cumsum", "cumprod")  # Tensor.cumsum_ / cumprod_: the result written back
        # one kernel for both, its last parameter saying which
        kernel = "(const Tensor& out, const Tensor& in, int64_t outer, int64_t r, int64_t inner, bool log)" if name == "softmax" else None
        op(name, params, cpp_fn=None if name == "logcumsumexp" else "Tensor", kernel=kernel,
           expose="tt method F" if soft else "tt method inplace" if scan_in_place else "tt method",
           tags=("normalization",) if soft else ("scan",),
           python="tt method" if name == "logcumsumexp" else "inplace" if scan_in_place else "", dtype_rule="float",
           signature="(*s) -> (*s)",
           graph=name != "logcumsumexp", prim=None if name == "logcumsumexp" else "Other",
           autocast="" if name == "logcumsumexp" else "cuda=float32")(srule)

    for name in ("sort", "argsort"):
        def sort_rule(args: Args, name: str = name) -> Result:
            x: ShapeLike = args["input"]
            if isinstance(x, Unknown):
                return UNKNOWN
            p = norm_axis(name, x, args["dim"])
            if isinstance(p, Issue):
                return p
            return x if name == "argsort" else Outputs((x, x), ("values", "indices"))

        op(name, "input:tensor, dim:int=-1, descending:bool=False, *, stable:bool=False", expose="tt method",
           tags=("sort",), cuda="host", differentiable=name == "sort", gradient="" if name == "sort" else "integer result",
           dtype_rule="same" if name == "sort" else "int64", returns=_VI if name == "sort" else None,
           signature=None if name == "sort" else "(*s) -> (*s)")(sort_rule)

    @op("topk", "input:tensor, k:size, dim:int=-1, largest:bool=True, sorted:bool=True", expose="tt method",
        tags=("sort",), cuda="host", dtype_rule="same", returns=_VI)
    def topk(args: Args) -> Result:
        """The ``k`` largest (or smallest) along ``dim``: values and their indices."""
        x: ShapeLike = args["input"]
        if isinstance(x, Unknown):
            return UNKNOWN
        p = norm_axis("topk", x, args["dim"])
        if isinstance(p, Issue):
            return p
        if p is None:
            return UNKNOWN
        k = args["k"]
        if x.is_fixed and not x.dims:  # a 0-d input has one element along its dim
            if as_int(k) is not None and as_int(k) not in (0, 1):
                return Issue("shape-arg", f"topk: k={as_int(k)} is out of range for a 0-d tensor")
            return Outputs((x, x), ("values", "indices"))
        size = x.dim(p) if x.is_fixed or p >= 0 else None
        if as_int(k) is not None and size is not None and as_int(size) is not None and not 0 <= as_int(k) <= as_int(size):  # type: ignore[operator]
            return Issue("shape-arg", f"topk: k={as_int(k)} is out of range for dim {args['dim']} of size {size}; "
                         f"shape {fmt_shape(x)}")
        out = replace(x, p, (k if not isinstance(k, bool) else UNKNOWN,))
        return Outputs((out, out), ("values", "indices"))


_register()

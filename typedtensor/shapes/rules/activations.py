"""The activations of ``torch.nn`` written in Python over other ops (``celu``, ``selu``, the shrinks,
``threshold``, ``rrelu``, ``glu``, ``softmin``, ``prelu``) and the modules that wrap them; the
activations with a kernel of their own are rows of elementwise.py."""

from __future__ import annotations

from ..dims import UNKNOWN, Unknown, as_int, d_exact_div, differs, fmt_dim
from ..issue import Issue
from ..registry import Args, Result, module, op
from ..shape import Shape, ShapeLike, fmt_shape
from ._common import norm_axis, replace
from .elementwise import unary

# shape-preserving ones (their nn modules come from the rows' module=)
unary("celu", None, expose="F", params="input:tensor, alpha:float=1.0, inplace:bool=False", python="F",
      module=("CELU", "alpha:float=1.0, inplace:bool=False"))
unary("selu", None, expose="F", params="input:tensor, inplace:bool=False", python="F", module=("SELU", "inplace:bool=False"))
unary("hardshrink", None, expose="F method", params="input:tensor, lambd:float=0.5", python="F method",
      module=("Hardshrink", "lambd:float=0.5"))
unary("softshrink", None, expose="F", params="input:tensor, lambd:float=0.5", python="F",
      module=("Softshrink", "lambd:float=0.5"))
unary("tanhshrink", None, expose="F", python="F", module=("Tanhshrink", ""))
unary("threshold", None, expose="F", params="input:tensor, threshold:float, value:float, inplace:bool=False", python="F",
      module=("Threshold", "threshold:float, value:float, inplace:bool=False"))
unary("rrelu", None, expose="F", params="input:tensor, lower:float=0.125, upper:float=0.3333333333333333, "
      "training:bool=False, inplace:bool=False", python="F", tags=("random",),
      module=("RReLU", "lower:float=0.125, upper:float=0.3333333333333333, inplace:bool=False"))


@op("glu", "input:tensor, dim:int=-1", expose="F", python="F", tags=("nn",))
def glu(args: Args) -> Result:
    """``a * sigmoid(b)`` for the two halves ``a``, ``b`` of ``dim``: that dim halves (it must be even)."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    if x.is_fixed and len(x.dims) == 0:
        return Issue("shape-rank", "glu: halving dim is not possible on a 0-d tensor")
    pos = norm_axis("glu", x, args["dim"])
    if isinstance(pos, Issue) or pos is None:
        return pos if isinstance(pos, Issue) else UNKNOWN
    size = x.dim(pos)
    if size is None:
        return UNKNOWN
    half = d_exact_div(size, 2)
    if half is None:
        n = as_int(size)
        if n is not None:
            return Issue("shape-arg", f"glu: halving dimension must be even, but dimension {pos} is size {n}; "
                                      f"shape {fmt_shape(x)}")
        half = UNKNOWN
    return replace(x, pos, (half,))


@op("softmin", "input:tensor, dim:int=None, _stacklevel:int=3, dtype:dtype=None", expose="F", python="F",
    tags=("nn",), signature="(*s) -> (*s)")
def softmin(args: Args) -> Result:
    """``softmax(-input, dim)``: the shape stays; ``dim`` must be one of its dims."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    if args["dim"] is None:
        return x
    p = norm_axis("softmin", x, args["dim"])
    return p if isinstance(p, Issue) else x


@op("prelu", "input:tensor, weight:tensor", expose="tt F method", python="tt F method", tags=("nn", "elementwise"),
    signature="(*s) -> (*s)", autocast="lower")
def prelu(args: Args) -> Result:
    """``max(0, x) + weight * min(0, x)``; ``weight`` is ``[1]`` or one slope per channel (dim 1)."""
    x: ShapeLike = args["input"]
    w = args["weight"]
    if isinstance(x, Unknown):
        return UNKNOWN
    if isinstance(w, Shape) and w.is_fixed and x.is_fixed:
        n = as_int(w.dims[0]) if len(w.dims) == 1 else None
        if len(w.dims) > 1:
            return Issue("shape-arg", f"prelu: weight must be 1-d (one slope, or one per channel), got {fmt_shape(w)}")
        if len(w.dims) == 1 and n != 1:
            if len(x.dims) == 0:
                return Issue("shape-arg", f"prelu: a 0-d input takes a single slope, got weight {fmt_shape(w)}")
            c = x.dims[1] if len(x.dims) >= 2 else 1  # torch: a 1-d input has one channel
            if differs(c, w.dims[0]):
                return Issue("shape-arg", f"prelu: weight has {fmt_dim(w.dims[0])} slopes but the input has "
                                          f"{fmt_dim(c)} channels; shapes {fmt_shape(x)}, weight {fmt_shape(w)}")
    return x


# ---------------------------------------------------------------------------------------------
# Modules written by hand (a parameter, a dim, a shape change)


@module("typedtensor.nn.GLU", "dim:int=-1", ("dim",), "input:tensor", ops=("glu",))
def glu_module(c: Args, args: Args) -> Result:
    return glu({"input": args["input"], "dim": c["dim"]})


@module("typedtensor.nn.Softmin", "dim:any=None", ("dim",), "input:tensor", ops=("softmin",))
def softmin_module(c: Args, args: Args) -> Result:
    return softmin({"input": args["input"], "dim": c["dim"], "_stacklevel": 3, "dtype": None})


@module("typedtensor.nn.Softmax2d", "", (), "input:tensor", ops=("softmax",))
def softmax2d_module(c: Args, args: Args) -> Result:
    """Softmax over the channels of ``[N, C, H, W]`` or ``[C, H, W]``."""
    x = args["input"]
    if isinstance(x, Shape) and x.is_fixed and len(x.dims) not in (3, 4):
        return Issue("shape-rank", f"Softmax2d: expected a 3-d or 4-d input, got {len(x.dims)}-d; shape {fmt_shape(x)}")
    return x if isinstance(x, Shape) else UNKNOWN


@module("typedtensor.nn.PReLU", "num_parameters:size=1, init:float=0.25, device:any=None, dtype:any=None",
        ("num_parameters",), "input:tensor", ops=("prelu",))
def prelu_module(c: Args, args: Args) -> Result:
    return prelu({"input": args["input"], "weight": Shape((c["num_parameters"],))})

"""Creation ops: sizes become dims (a literal int is a ``Literal`` dim, a ``Batch(32)`` is ``Batch``)."""

from __future__ import annotations

from typing import Any

from ..dims import UNKNOWN, DimExpr, Unknown, as_int, d_ceildiv, d_sub, is_literal
from ..issue import Issue
from ..registry import Args, Result, Rule, op
from ..shape import Shape, ShapeLike


def sizes_shape(name: str, size: Any) -> Result:
    if isinstance(size, Unknown):
        return UNKNOWN
    if isinstance(size, (tuple, list)) and len(size) == 1 and isinstance(size[0], (tuple, list, Unknown)):
        size = size[0]
        if isinstance(size, Unknown):
            return UNKNOWN
    dims = tuple(size) if isinstance(size, (tuple, list)) else (size,)
    for d in dims:
        v = as_int(d)
        if v is not None and v < 0:
            return Issue("shape-arg", f"{name}: negative size {v} in {list(dims)}")
    return Shape(tuple(d if not isinstance(d, bool) else UNKNOWN for d in dims))


_FACTORY_KW = "*, dtype:dtype=None, device:any=None, requires_grad:bool=False"
_RANDOM_KW = "*, generator:any=None, dtype:dtype=None, device:any=None, requires_grad:bool=False"
_LEAF = "creates a leaf"
_SIZES_OVERLOADS = (
    "(size: tuple[Unpack[Shape]], *, dtype: _DType | None = None, device: Any = None, requires_grad: _bool = False)"
    " -> Tensor[Unpack[Shape]]",
    "(*size: Unpack[Shape], dtype: _DType | None = None, device: Any = None, requires_grad: _bool = False)"
    " -> Tensor[Unpack[Shape]]",
)


def _factory_rule(name: str) -> Rule:
    def rule(args: Args) -> Result:
        return sizes_shape(name, args["size"])

    return rule


for _name in ("zeros", "ones", "empty"):
    op(_name, f"*size:sizes, {_FACTORY_KW}", expose="tt", overloads=_SIZES_OVERLOADS, tags=("creation",),
       differentiable=False, gradient=_LEAF, dtype_rule="factory")(_factory_rule(_name))
_RANDOM_OVERLOADS = tuple(o.replace("*, dtype", "*, generator: Any = None, dtype").replace(
    "Unpack[Shape], dtype", "Unpack[Shape], generator: Any = None, dtype") for o in _SIZES_OVERLOADS)
for _name in ("rand", "randn"):
    op(_name, f"*size:sizes, {_RANDOM_KW}", expose="tt", overloads=_RANDOM_OVERLOADS,
       tags=("creation", "random"), differentiable=False, gradient=_LEAF, dtype_rule="factory")(_factory_rule(_name))

for _name in ("zeros_like", "ones_like", "empty_like"):
    op(_name, f"input:tensor, {_FACTORY_KW}", expose="tt", tags=("creation",), differentiable=False,
       gradient=_LEAF, dtype_rule="factory", signature="(*s) -> (*s)")(lambda args: args["input"])
for _name in ("rand_like", "randn_like"):
    op(_name, "input:tensor, *, dtype:dtype=None", expose="tt", tags=("creation", "random"), differentiable=False,
       gradient=_LEAF, dtype_rule="factory", signature="(*s) -> (*s)")(lambda args: args["input"])

op("randint_like", "input:tensor, low:int, high:int=None, *, dtype:dtype=None", expose="tt",
   tags=("creation", "random"), differentiable=False, gradient="integer result", dtype_rule="factory",
   signature="(*s) -> (*s)")(lambda args: args["input"])
# The ``new_*`` methods: self's dtype and device unless given.
for _name in ("new_zeros", "new_ones", "new_empty"):
    op(_name, f"*size:sizes, {_FACTORY_KW}", expose="method", method_self=False, tags=("creation",),
       differentiable=False, gradient=_LEAF, dtype_rule="factory")(_factory_rule(_name))


@op("full", f"size:sizes, fill_value:any, {_FACTORY_KW}", expose="tt", tags=("creation",), differentiable=False,
    gradient=_LEAF, dtype_rule="factory")
def full(args: Args) -> Result:
    return sizes_shape("full", args["size"])


@op("new_full", f"size:sizes, fill_value:any, {_FACTORY_KW}", expose="method", method_self=False,
    tags=("creation",), differentiable=False, gradient=_LEAF, dtype_rule="factory")
def new_full(args: Args) -> Result:
    return sizes_shape("new_full", args["size"])


@op("full_like", f"input:tensor, fill_value:any, {_FACTORY_KW}", expose="tt", tags=("creation",),
    differentiable=False, gradient=_LEAF, dtype_rule="factory", signature="(*s) -> (*s)")
def full_like(args: Args) -> Result:
    return args["input"]  # type: ignore[no-any-return]


@op("randperm", "n:size, *, generator:any=None, dtype:dtype=None, device:any=None", expose="tt", tags=("creation", "random"),
    differentiable=False, gradient="integer result", dtype_rule="int64", cuda="host")
def randperm(args: Args) -> Result:
    n = args["n"]
    if as_int(n) is not None and as_int(n) < 0:  # type: ignore[operator]
        return Issue("shape-arg", f"randperm: n must be non-negative, got {n}")
    return Shape((n,))


@op("randint", "low:any, high:any=None, /, size:sizes=None, *, generator:any=None, dtype:dtype=None, device:any=None",
    expose="tt",
    tags=("creation", "random"), differentiable=False, gradient="integer result", dtype_rule="int64")
def randint(args: Args) -> Result:
    """``randint(high, size)`` or ``randint(low, high, size)``."""
    size = args["size"]
    if size is None:
        size = args["high"]
    if size is None:
        return UNKNOWN
    return sizes_shape("randint", size)


@op("arange", f"start:any, end:any=None, step:any=None, {_FACTORY_KW}", expose="tt", tags=("creation",),
    differentiable=False, gradient="creates a leaf", dtype_rule="factory")
def arange(args: Args) -> Result:
    """``ceil((end - start) / step)`` elements; ``arange(n)`` of a size ``n`` has dim ``n``."""
    start, end, step = args["start"], args["end"], args["step"]
    if step is None:
        step = 1
    if end is None:
        start, end = 0, start
    if any(isinstance(v, Unknown) for v in (start, end, step)):
        return Shape((UNKNOWN,))
    if not all(isinstance(v, (int, float)) or hasattr(v, "items") for v in (start, end, step)):
        return Shape((UNKNOWN,))
    if isinstance(start, float) or isinstance(end, float) or isinstance(step, float):
        import math

        if step == 0:
            return Issue("shape-arg", "arange: step must be nonzero")
        if (float(end) - float(start)) * float(step) < 0:
            return Issue("shape-arg", f"arange: the range from {start} to {end} with step {step} is empty in the wrong direction")
        return Shape((max(0, math.ceil((float(end) - float(start)) / float(step))),))
    s = as_int(step)
    if s == 0:
        return Issue("shape-arg", "arange: step must be nonzero")
    if s is not None and is_literal(start) and is_literal(end) and (end - start) * s < 0:
        return Issue("shape-arg", f"arange: the range from {start} to {end} with step {s} is empty in the wrong direction")
    if s is None:
        return Shape((UNKNOWN,))
    length: DimExpr = d_ceildiv(d_sub(end, start), s)
    if is_literal(length) and int(length) < 0:
        return Issue("shape-arg", f"arange: the range from {start} to {end} with step {s} is empty in the wrong direction")
    return Shape((length,))


@op("linspace", f"start:float, end:float, steps:size, {_FACTORY_KW}", expose="tt", tags=("creation",),
    differentiable=False, gradient="creates a leaf", dtype_rule="factory")
def linspace(args: Args) -> Result:
    steps = as_int(args["steps"])
    if steps is not None and steps < 0:
        return Issue("shape-arg", f"linspace: number of steps must be non-negative, got {steps}")
    return Shape((args["steps"],))


@op("eye", f"n:size, m:size=None, {_FACTORY_KW}", expose="tt", tags=("creation",), differentiable=False,
    gradient="creates a leaf", dtype_rule="factory")
def eye(args: Args) -> Result:
    n, m = args["n"], args["m"]
    for v in (n, m):
        if as_int(v) is not None and as_int(v) < 0:  # type: ignore[operator]
            return Issue("shape-arg", f"eye: sizes must be non-negative, got {v}")
    return Shape((n, n if m is None else m))


@op("tensor", f"data:any, {_FACTORY_KW}", expose="tt", tags=("creation",), differentiable=False,
    gradient=_LEAF, dtype_rule="infer")
def tensor(args: Args) -> Result:
    """The nested-list structure of ``data`` when the caller knows it (a Shape), else unknown."""
    data = args["data"]
    return data if isinstance(data, Shape) else UNKNOWN


op("as_tensor", "data:any, *, dtype:dtype=None, device:any=None", expose="tt", tags=("creation",),
   differentiable=False, gradient="a leaf, or the tensor itself", dtype_rule="infer")(tensor)
op("new_tensor", f"data:any, {_FACTORY_KW}", expose="method", method_self=False, tags=("creation",),
   differentiable=False, gradient=_LEAF, dtype_rule="infer")(tensor)


@op("from_numpy", "ndarray:any", expose="tt", tags=("creation",), differentiable=False, gradient=_LEAF,
    dtype_rule="infer", cuda="cpu")
def from_numpy(args: Args) -> Result:
    return UNKNOWN


@op("from_dlpack", "ext_tensor:any", expose="tt", tags=("creation",), differentiable=False, gradient=_LEAF,
    dtype_rule="infer", cuda="cpu")
def from_dlpack(args: Args) -> Result:
    return UNKNOWN


@op("item", "input:tensor", expose="method", tags=("scalar",), differentiable=False,
    gradient="returns a Python number", returns="_float")
def item(args: Args) -> Result:
    """Only a one-element tensor converts to a number."""
    x: ShapeLike = args["input"]
    if isinstance(x, Shape) and x.is_fixed:
        from ..dims import d_prod, differs

        count = d_prod(x.dims)
        if differs(count, 1) and is_literal(count):
            return Issue("shape-arg", f"item: a tensor with {count} elements cannot be converted to a number; shape {x}")
    return Shape(())

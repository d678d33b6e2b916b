"""Elementwise ops: unary math, binary arithmetic with broadcasting and scalars, where, clamp."""

from __future__ import annotations

from typing import Final

from ..broadcast import broadcast_all, broadcast_shapes
from ..dims import UNKNOWN, Unknown
from ..issue import Issue
from ..registry import Args, Result, op
from ..shape import Shape, ShapeLike
from ._common import is_scalar

UNARY: Final = (
    "abs", "neg", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
    "square", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid",
    "relu", "gelu", "silu", "softplus", "elu", "leaky_relu", "erf", "reciprocal", "sign",
    "floor", "ceil", "round", "trunc", "frac", "logical_not", "isnan", "isinf", "isfinite",
    "positive", "relu6", "hardtanh", "mish", "logit", "bitwise_not",
)
NON_DIFFERENTIABLE_UNARY: Final = frozenset(
    {"sign", "floor", "ceil", "round", "trunc", "logical_not", "isnan", "isinf", "isfinite", "bitwise_not"}
)
CASTS: Final = ("float", "double", "half", "bfloat16", "long", "int", "bool", "type")
IDENTITY_LIKE: Final = ("clone", "contiguous", "detach", "cpu")

BINARY_SYMBOLS: Final = {
    "add": "+", "sub": "-", "mul": "*", "div": "/", "true_divide": "/", "floor_divide": "//",
    "remainder": "%", "fmod": "%", "pow": "**", "maximum": ",", "minimum": ",", "atan2": ",",
    "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
    "logical_and": "&", "logical_or": "|", "logical_xor": "^",
    "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^", "copysign": ",", "hypot": ",",
    "xlogy": ",",
}
NON_DIFFERENTIABLE_BINARY: Final = frozenset(
    {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "floor_divide",
     "bitwise_and", "bitwise_or", "bitwise_xor"}
)
COMPARISONS: Final = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})


def _same_shape(args: Args) -> Result:
    x: ShapeLike = args["input"]
    return x if isinstance(x, (Shape, Unknown)) else UNKNOWN


def _register_unary() -> None:
    for name in UNARY:
        op(
            name, "input:tensor", tags=("elementwise", "unary"),
            differentiable=name not in NON_DIFFERENTIABLE_UNARY,
            dtype_rule="bool" if name in ("logical_not", "isnan", "isinf", "isfinite") else "float",
            signature="(*s) -> (*s)",
            gradient="" if name not in NON_DIFFERENTIABLE_UNARY else "piecewise constant",
        )(_same_shape)
    for name in CASTS:
        op(name, "input:tensor, dtype:any=None", tags=("elementwise", "cast"), dtype_rule="cast",
           signature="(*s) -> (*s)")(_same_shape)
    for name in IDENTITY_LIKE:
        op(name, "input:tensor", tags=("identity",), signature="(*s) -> (*s)",
           differentiable=name != "detach", gradient="" if name != "detach" else "stops gradients",
           cuda=True)(_same_shape)
    # PyTorch's own parameters, so ``x.to(device="cuda")``, ``x.to("cuda", non_blocking=True)`` and
    # ``x.cuda(0)`` bind; ``to``'s first positional may be a dtype, a device or a tensor.
    op("to", "input:tensor, dtype:any=None, non_blocking:bool=False, copy:bool=False, *, device:any=None, "
       "memory_format:any=None", tags=("elementwise", "cast"), dtype_rule="cast", signature="(*s) -> (*s)")(_same_shape)
    op("cuda", "input:tensor, device:any=None, non_blocking:bool=False, *, memory_format:any=None",
       tags=("identity",), signature="(*s) -> (*s)", cuda=True)(_same_shape)
    op("dropout", "input:tensor, p:float=0.5, training:bool=True", tags=("elementwise", "random"))(_same_shape)
    op("alpha_dropout", "input:tensor, p:float=0.5, training:bool=True", tags=("elementwise", "random"))(_same_shape)
    op("fill", "input:tensor, value:any", tags=("elementwise",), differentiable=False,
       gradient="overwrites its input")(_same_shape)
    op("zero", "input:tensor", tags=("elementwise",), differentiable=False,
       gradient="overwrites its input")(_same_shape)


def binary_result(name: str, a: object, b: object, reflected: bool = False) -> Result:
    """The shape of ``a <op> b`` where either side may be a scalar."""
    symbol = BINARY_SYMBOLS.get(name, ",")
    if is_scalar(b) or b is None:
        return a if isinstance(a, (Shape, Unknown)) else UNKNOWN
    if is_scalar(a):
        return b if isinstance(b, (Shape, Unknown)) else UNKNOWN
    if not isinstance(a, Shape) or not isinstance(b, Shape):
        return UNKNOWN
    left, right = (b, a) if reflected else (a, b)
    return broadcast_shapes(left, right, name, symbol)


def _register_binary() -> None:
    for name in BINARY_SYMBOLS:
        def rule(args: Args, name: str = name) -> Result:
            return binary_result(name, args["input"], args["other"])

        op(
            name, "input:tensor, other:any, *, alpha:any=1", tags=("elementwise", "binary"),
            differentiable=name not in NON_DIFFERENTIABLE_BINARY,
            dtype_rule="bool" if name in COMPARISONS or name.startswith("logical") else "promote",
            signature="(*a), (*b) -> (*broadcast(a, b))",
            gradient="" if name not in NON_DIFFERENTIABLE_BINARY else "piecewise constant",
        )(rule)


@op("where", "condition:tensor, input:any, other:any", tags=("elementwise", "ternary"),
    signature="(*c), (*a), (*b) -> (*broadcast(c, a, b))")
def where(args: Args) -> Result:
    """Broadcast of condition, input and other (scalars allowed)."""
    parts = [args["condition"], args["input"], args["other"]]
    shapes = [p for p in parts if not is_scalar(p)]
    return broadcast_all(shapes, "where")


@op("clamp", "input:tensor, min:any=None, max:any=None", tags=("elementwise",),
    aliases=("clip",), signature="(*s) -> (*s)")
def clamp(args: Args) -> Result:
    """Same shape; tensor bounds must broadcast to the input."""
    out = args["input"]
    for bound in (args["min"], args["max"]):
        if isinstance(bound, Shape) and isinstance(out, Shape):
            merged = broadcast_shapes(out, bound, "clamp")
            if isinstance(merged, Issue):
                return merged
            out = merged  # torch broadcasts tensor bounds: clamp([3], min=[2, 3]) is [2, 3]
    return out if isinstance(out, (Shape, Unknown)) else UNKNOWN


@op("masked_fill", "input:tensor, mask:tensor, value:any", tags=("elementwise",),
    signature="(*s), (*m) -> (*s)")
def masked_fill(args: Args) -> Result:
    """Input and mask broadcast together (torch's out-of-place masked_fill grows the input)."""
    x, mask = args["input"], args["mask"]
    if isinstance(x, Shape) and isinstance(mask, Shape):
        return broadcast_shapes(x, mask, "masked_fill")
    return x if isinstance(x, (Shape, Unknown)) else UNKNOWN


@op("lerp", "input:tensor, end:tensor, weight:any", tags=("elementwise",))
def lerp(args: Args) -> Result:
    parts = [args["input"], args["end"], args["weight"]]
    return broadcast_all([p for p in parts if not is_scalar(p)], "lerp")


@op("addcmul", "input:tensor, tensor1:tensor, tensor2:tensor, *, value:any=1", tags=("elementwise",))
def addcmul(args: Args) -> Result:
    return broadcast_all([args["input"], args["tensor1"], args["tensor2"]], "addcmul")


_register_unary()
_register_binary()

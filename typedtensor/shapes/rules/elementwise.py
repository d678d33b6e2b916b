"""Elementwise ops: unary math, binary arithmetic with broadcasting and scalars, where, clamp.

The unary and binary families are tables: one row per op (NOTE [ One op table ] in registry.py),
all sharing the family's shape rule, in the order of their C++ enums (UnaryOp, BinaryOp; the
enums are generated from these rows). ``fusion`` is the op's expression in the fused kernels over
operands ``A`` and ``B`` (``T`` is the element type, ``@attr`` a node attribute); ``dtype`` the
dtype rule (NOTE [ Dtype rules ] in registry.py).
"""

from __future__ import annotations

from typing import Final

from ..broadcast import broadcast_all, broadcast_into, broadcast_shapes
from ..dims import UNKNOWN, Unknown
from ..issue import Issue
from ..registry import Args, Result, op
from ..shape import Shape, ShapeLike
from ._common import is_scalar


def _same_shape(args: Args) -> Result:
    x: ShapeLike = args["input"]
    return x if isinstance(x, (Shape, Unknown)) else UNKNOWN


_SAME: Final = "(*s) -> (*s)"
_STEP: Final = "piecewise constant"
UNARY: list[str] = []


def unary(
    name: str,
    cpp: str | None,
    *,
    fusion: str | None = None,
    expose: str = "tt method inplace",
    params: str = "input:tensor",
    dtype: str = "float",
    gradient: str = "",
    aliases: tuple[str, ...] = (),
    operators: tuple[str, ...] = (),
    function: str | None = None,
    method: str | None = None,
    functional: str | None = None,
    inplace: str | None = None,
    python: str = "",
    module: tuple[str, str] | None = None,
    prim: str | None = None,
    tags: tuple[str, ...] = (),
    onnx: str | None = None,
    torch_functional_only: bool = False,
    cpp_fn: str | None = None,
    kernel: str | None = None,
) -> None:
    """One unary elementwise op: the shape is the input's. ``cpp`` is its ``UnaryOp`` value
    (None: no value of its own; ``prim`` then names its primitive's kind, if any)."""
    UNARY.append(name)
    op(
        name, params, expose=expose, tags=("elementwise", "unary", *tags), differentiable=not gradient,
        gradient=gradient, dtype_rule=dtype, signature=_SAME, aliases=aliases, operators=operators,
        function=function, method=method, inplace=inplace, functional=functional, python=python, fusion=fusion,
        graph=cpp is not None or prim is not None, module=module, cpp=f"UnaryOp::{cpp}" if cpp else None, prim=prim,
        onnx=onnx, torch_functional_only=torch_functional_only, cpp_fn=cpp_fn, kernel=kernel,
    )(_same_shape)


_INPLACE_F: Final = "input:tensor, inplace:bool=False"

unary("neg", "Neg", onnx="Neg", fusion="(-A)", dtype="same", aliases=("negative",), operators=("__neg__",))
unary("abs", "Abs", onnx="Abs", fusion="fabs(A)", dtype="same", aliases=("absolute",), operators=("__abs__",))
unary("exp", "Exp", onnx="Exp", fusion="tt_exp(A)")
unary("exp2", "Exp2", fusion="exp2(A)")
unary("expm1", "Expm1", fusion="expm1(A)")
unary("log", "Log", onnx="Log", fusion="tt_log(A)")
unary("log2", "Log2", fusion="log2(A)")
unary("log10", "Log10", fusion="log10(A)")
unary("log1p", "Log1p", fusion="log1p(A)")
unary("sqrt", "Sqrt", onnx="Sqrt", fusion="sqrt(A)")
unary("rsqrt", "Rsqrt", fusion="(T(1) / sqrt(A))")
unary("sin", "Sin", onnx="Sin", fusion="sin(A)")
unary("cos", "Cos", onnx="Cos", fusion="cos(A)")
unary("tan", "Tan", onnx="Tan")
unary("asin", "Asin", onnx="Asin", aliases=("arcsin",))
unary("acos", "Acos", onnx="Acos", aliases=("arccos",))
unary("atan", "Atan", onnx="Atan", aliases=("arctan",))
unary("sinh", "Sinh", onnx="Sinh")
unary("cosh", "Cosh", onnx="Cosh")
unary("tanh", "Tanh", onnx="Tanh", fusion="tt_tanh(A)", expose="tt method inplace F", module=("Tanh", ""))
unary("asinh", "Asinh", onnx="Asinh", aliases=("arcsinh",))
unary("acosh", "Acosh", onnx="Acosh", aliases=("arccosh",))
unary("atanh", "Atanh", onnx="Atanh", aliases=("arctanh",))
unary("sigmoid", "Sigmoid", onnx="Sigmoid", fusion="tt_sigmoid(A)", expose="tt method inplace F", module=("Sigmoid", ""))
unary("relu", "Relu", onnx="Relu", fusion="tt_relu(A)", dtype="same", expose="tt method inplace F", params=_INPLACE_F, function="input:tensor",
      method="", python="F", module=("ReLU", "inplace:bool=False"))
unary("gelu", "Gelu", torch_functional_only=True, fusion="tt_gelu(A)", dtype="float_only", expose="tt method F", params="input:tensor, *, approximate:str='none'",
      module=("GELU", "approximate:str='none'"))
unary("gelu_tanh", "GeluTanh", dtype="float_only", expose="")  # gelu(approximate='tanh'): a primitive of its own
unary("silu", "Silu", torch_functional_only=True, fusion="(A * tt_sigmoid(A))", dtype="float_only", expose="tt method inplace F", params=_INPLACE_F,
      function="input:tensor", method="", python="F", module=("SiLU", "inplace:bool=False"))
unary("erf", "Erf", onnx="Erf", fusion="tt_erf(A)")
unary("erfc", "Erfc", fusion="erfc(A)")
unary("floor", "Floor", onnx="Floor", dtype="same", gradient=_STEP)
unary("ceil", "Ceil", onnx="Ceil", dtype="same", gradient=_STEP)
unary("round", "Round", onnx="Round", dtype="same", gradient=_STEP, params="input:tensor, *, decimals:int=0", python="inplace")
unary("trunc", "Trunc", dtype="same", gradient=_STEP, aliases=("fix",))
unary("frac", "Frac")
unary("sign", "Sign", onnx="Sign", dtype="same", gradient=_STEP)
unary("reciprocal", "Reciprocal", onnx="Reciprocal", fusion="(T(1) / A)")
unary("square", "Square", fusion="(A * A)", dtype="same")
unary("logical_not", "LogicalNot", dtype="bool", gradient="boolean result", tags=("logical",))
unary("bitwise_not", "BitNot", dtype="integral", gradient="integer op", operators=("__invert__",))
unary("isnan", "IsNan", dtype="bool", gradient="boolean result")
unary("isinf", "IsInf", dtype="bool", gradient="boolean result")
unary("isfinite", "IsFinite", dtype="bool", gradient="boolean result")
unary("softplus", "Softplus", torch_functional_only=True, onnx="Softplus", fusion="(A > T(20) ? A : log1p(tt_exp(A)))",
      dtype="float_only", expose="tt method inplace F", params="input:tensor, beta:float=1.0, threshold:float=20.0",
      inplace="", cpp_fn="Tensor", module=("Softplus", "beta:float=1.0, threshold:float=20.0"))
unary("mish", "Mish", torch_functional_only=True, dtype="float_only", expose="tt method inplace F", params=_INPLACE_F, function="input:tensor",
      method="", python="F", module=("Mish", "inplace:bool=False"))
unary("logsigmoid", "Logsigmoid", torch_functional_only=True, dtype="float_only", expose="tt method inplace F", module=("LogSigmoid", ""))
unary("relu6", "Relu6", torch_functional_only=True, dtype="same", expose="tt method inplace F", params=_INPLACE_F, function="input:tensor", method="",
      python="F", module=("ReLU6", "inplace:bool=False"))
unary("hardsigmoid", "Hardsigmoid", torch_functional_only=True, dtype="float_only", expose="tt method inplace F", params=_INPLACE_F,
      function="input:tensor", method="", python="F", module=("Hardsigmoid", "inplace:bool=False"))
unary("hardswish", "Hardswish", torch_functional_only=True, onnx="HardSwish", dtype="float_only", expose="tt method inplace F", params=_INPLACE_F,
      function="input:tensor", method="", python="F", module=("Hardswish", "inplace:bool=False"))
unary("erfinv", "Erfinv")
# the special functions (NOTE [ Special functions ] in backend/include/typedtensor/special_math.h);
# torch has the ones exposed "" in torch.special only (typedtensor/special.py binds them)
unary("lgamma", "Lgamma")
unary("digamma", "Digamma")
unary("trigamma", "Trigamma", expose="")  # polygamma(1, x): digamma's derivative, a primitive of its own
unary("i0", "I0")
unary("i0e", "I0e", expose="")
unary("i1", "I1", expose="")
unary("i1e", "I1e", expose="")
unary("erfcx", "Erfcx", expose="")
unary("ndtri", "Ndtri", expose="")  # after the last UnaryOp value: the enum is in row order
unary("elu", None, kernel="(const Tensor& out, const Tensor& a, double alpha)", torch_functional_only=True, prim="Elementwise", onnx="Elu(alpha=float:slope)", fusion="(A > T(0) ? A : @slope * expm1(A))", expose="tt F", params="input:tensor, alpha:float=1.0, inplace:bool=False",
      function="input:tensor, alpha:float=1.0", python="F", module=("ELU", "alpha:float=1.0, inplace:bool=False"))
unary("leaky_relu", None, kernel="(const Tensor& out, const Tensor& a, double slope)", torch_functional_only=True, prim="Elementwise", onnx="LeakyRelu(alpha=float:slope)", fusion="(A > T(0) ? A : A * @slope)", expose="tt method F",
      params="input:tensor, negative_slope:float=0.01, inplace:bool=False",
      function="input:tensor, negative_slope:float=0.01", method="negative_slope:float=0.01", python="F",
      module=("LeakyReLU", "negative_slope:float=0.01, inplace:bool=False"))
unary("hardtanh", None, expose="F", params="input:tensor, min_val:float=-1.0, max_val:float=1.0, inplace:bool=False",
      python="F", module=("Hardtanh", "min_val:float=-1.0, max_val:float=1.0, inplace:bool=False"))
unary("softsign", None, expose="F", python="F", module=("Softsign", ""))
unary("positive", None, dtype="same", expose="tt method", python="tt method", operators=("__pos__",))
unary("logit", None, expose="tt method", params="input:tensor, eps:float=None", python="tt method")
unary("polygamma", None, params="n:int, input:tensor", method="n:int", inplace="n:int", python="tt method inplace")
unary("mvlgamma", None, params="input:tensor, p:int", method="p:int", inplace="p:int", python="tt method inplace")
unary("sinc", None, python="tt method inplace")
unary("deg2rad", None, python="tt method inplace")
unary("rad2deg", None, python="tt method inplace")
unary("signbit", None, dtype="bool", gradient="boolean result", expose="tt method", python="tt method")

CASTS: Final = ("float", "double", "half", "bfloat16", "long", "int", "bool", "byte")
for _name in CASTS:
    op(_name, "input:tensor", expose="method", tags=("elementwise", "cast"), dtype_rule="cast", signature=_SAME,
       graph=True)(_same_shape)
op("type", "input:tensor, dtype:dtype=None", expose="method", tags=("elementwise", "cast"), dtype_rule="cast",
   signature=_SAME, overloads=("(input: Tensor[Unpack[Shape]]) -> str",
                               "(input: Tensor[Unpack[Shape]], dtype: _DType) -> Tensor[Unpack[Shape]]"))(_same_shape)
op("type_as", "input:tensor, other:tensor, /", expose="method", tags=("elementwise", "cast"), dtype_rule="cast",
   signature=_SAME)(_same_shape)
# PyTorch's own parameters, so ``x.to(device="cuda")``, ``x.to("cuda", non_blocking=True)`` and
# ``x.cuda(0)`` bind; ``to``'s first positional may be a dtype, a device or a tensor.
op("to", "input:tensor, dtype:any=None, non_blocking:bool=False, copy:bool=False, *, device:any=None, "
   "memory_format:any=None", expose="method", tags=("elementwise", "cast"), dtype_rule="cast",
   signature=_SAME, graph=True, prim="Elementwise")(_same_shape)

IDENTITY_LIKE: Final = ("clone", "contiguous", "detach", "cpu")
op("clone", "input:tensor, *, memory_format:any=None", expose="tt method", function="input:tensor",
   python="tt", tags=("identity",), signature=_SAME)(_same_shape)
op("contiguous", "input:tensor, memory_format:any=None", expose="method", method="*, memory_format:any=None",
   tags=("identity",), signature=_SAME, graph=True, prim="Elementwise", onnx="Identity")(_same_shape)
op("detach", "input:tensor", expose="tt method", python="tt", tags=("identity",), signature=_SAME,
   differentiable=False, gradient="stops gradients")(_same_shape)
op("cpu", "input:tensor", expose="method", tags=("identity",), signature=_SAME)(_same_shape)
op("cuda", "input:tensor, device:any=None, non_blocking:bool=False, *, memory_format:any=None", expose="method",
   tags=("identity",), signature=_SAME)(_same_shape)
op("dropout", "input:tensor, p:float=0.5, training:bool=True, inplace:bool=False", expose="tt F",
   function="input:tensor, p:float=0.5, train:bool=True", python="F", tags=("elementwise", "random"),
   signature=_SAME, gradient="", graph=True)(_same_shape)
op("alpha_dropout", "input:tensor, p:float=0.5, training:bool=False, inplace:bool=False", expose="tt F",
   function="input:tensor, p:float=0.5, train:bool=False", python="tt F", tags=("elementwise", "random"), signature=_SAME)(_same_shape)
op("feature_alpha_dropout", "input:tensor, p:float=0.5, training:bool=False, inplace:bool=False", expose="tt F",
   function="input:tensor, p:float=0.5, train:bool=False", python="tt F", tags=("elementwise", "random"), signature=_SAME)(_same_shape)
op("fill", "input:tensor, value:any", expose="inplace", tags=("elementwise",), differentiable=False,
   gradient="overwrites its input", signature=_SAME)(_same_shape)
op("zero", "input:tensor", expose="inplace", tags=("elementwise",), differentiable=False,
   gradient="overwrites its input", signature=_SAME)(_same_shape)


@op("copy", "input:tensor, src:any, non_blocking:bool=False", expose="inplace", tags=("elementwise",),
    signature=_SAME)
def copy(args: Args) -> Result:
    """``x.copy_(src)``: ``src`` broadcasts to ``x``'s shape, which stays."""
    x, src = args["input"], args["src"]
    if isinstance(x, Shape) and isinstance(src, Shape):
        issue = broadcast_into(x, src, "copy_")
        if issue:
            return issue
    return x if isinstance(x, (Shape, Unknown)) else UNKNOWN


BINARY_SYMBOLS: dict[str, str] = {}


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


def binary(
    name: str,
    cpp: str | None,
    symbol: str = ",",
    *,
    fusion: str | None = None,
    expose: str = "tt method inplace",
    params: str = "input:tensor, other:any",
    dtype: str = "same",
    gradient: str = "",
    aliases: tuple[str, ...] = (),
    operators: tuple[str, ...] = (),
    function: str | None = None,
    method: str | None = None,
    inplace: str | None = None,
    python: str = "",
    alias_expose: dict[str, str] | None = None,
    tags: tuple[str, ...] = (),
    onnx: str | None = None,
) -> None:
    """One binary elementwise op: the operands broadcast; either may be a Python number. ``cpp``
    is its ``BinaryOp`` value (an op that runs as another's, ``true_divide`` as ``div``, names none)."""
    for n in (name, *aliases):
        BINARY_SYMBOLS[n] = symbol

    second = params.split(",")[1].split(":")[0].strip()  # torch's name for it: `other`, pow's `exponent`

    def rule(args: Args) -> Result:
        return binary_result(name, args["input"], args[second])

    op(
        name, params, expose=expose, tags=("elementwise", "binary", *tags), differentiable=not gradient,
        gradient=gradient,
        dtype_rule=dtype, signature="(*a), (*b) -> (*broadcast(a, b))", aliases=aliases, operators=operators,
        function=function, method=method, inplace=inplace, python=python, fusion=fusion, graph=True,
        cpp=f"BinaryOp::{cpp}" if cpp else None, alias_expose=alias_expose, onnx=onnx,
    )(rule)


def _ops(*names: str) -> tuple[str, ...]:
    """``_ops("add")`` -> ``("__add__", "__radd__", "__iadd__")``; ``"!"`` marks no reflected form."""
    out: list[str] = []
    for n in names:
        base = n.rstrip("!")
        out += [f"__{base}__", f"__i{base}__"] if n.endswith("!") else [f"__{base}__", f"__r{base}__", f"__i{base}__"]
    return tuple(out)


_ALPHA: Final = "input:tensor, other:any, *, alpha:any=None"
binary("add", "Add", "+", onnx="Add", fusion="(A + B)", params=_ALPHA, operators=_ops("add"))
binary("sub", "Sub", "-", onnx="Sub", fusion="(A - B)", params=_ALPHA, operators=_ops("sub"), aliases=("subtract",))
binary("mul", "Mul", "*", onnx="Mul", fusion="(A * B)", aliases=("multiply",), operators=_ops("mul"))
binary("div", "Div", "/", fusion="(A / B)", dtype="float", params="input:tensor, other:any, *, rounding_mode:str=None",
       aliases=("divide",), alias_expose={"divide": "tt method"}, operators=_ops("truediv"))
binary("floor_divide", "FloorDiv", "//", gradient=_STEP, operators=_ops("floordiv"))
binary("remainder", "Remainder", "%", operators=_ops("mod"))
binary("pow", "Pow", "**", onnx="Pow", fusion="pow(A, B)", operators=_ops("pow"), params="input:tensor, exponent:any")
binary("maximum", "Maximum", onnx="Max", fusion="tt_max(A, B)")
binary("minimum", "Minimum", onnx="Min", fusion="tt_min(A, B)")
binary("atan2", "Atan2", dtype="float", aliases=("arctan2",))
for _name, _cpp, _sym, _alias, _onnx in (
    ("eq", "Eq", "==", (), "Equal"), ("ne", "Ne", "!=", ("not_equal",), None), ("lt", "Lt", "<", ("less",), "Less"),
    ("le", "Le", "<=", ("less_equal",), "LessOrEqual"), ("gt", "Gt", ">", ("greater",), "Greater"),
    ("ge", "Ge", ">=", ("greater_equal",), "GreaterOrEqual"),
):
    binary(_name, _cpp, _sym, fusion=f"(A {_sym} B)", dtype="bool", gradient="boolean result", aliases=_alias,
           operators=(f"__{_name}__",), onnx=_onnx)
binary("logical_and", "LogicalAnd", "&", dtype="bool", gradient="boolean result", operators=_ops("and"),
       tags=("logical",))
binary("logical_or", "LogicalOr", "|", dtype="bool", gradient="boolean result", operators=_ops("or"), tags=("logical",))
binary("logical_xor", "LogicalXor", "^", dtype="bool", gradient="boolean result", operators=_ops("xor"),
       tags=("logical",))
binary("bitwise_and", "BitAnd", "&", dtype="integral", gradient="integer op")
binary("bitwise_or", "BitOr", "|", dtype="integral", gradient="integer op")
binary("bitwise_xor", "BitXor", "^", dtype="integral", gradient="integer op")
binary("fmod", "Fmod", "%")
binary("hypot", "Hypot", dtype="float")
binary("copysign", "Copysign", dtype="float")
binary("fmax", "Fmax", expose="tt method")  # maximum that ignores NaN: NaN only where both are (no fmax_ in torch)
binary("fmin", "Fmin", expose="tt method")
binary("zeta", "Zeta", dtype="float", expose="")  # torch.special.zeta: the Hurwitz zeta function
# ops that run as another's BinaryOp value
binary("true_divide", None, "/", dtype="float")
binary("xlogy", None, dtype="float", expose="tt method", python="tt method")
binary("logaddexp", None, dtype="float_only", expose="tt method", python="tt method")
binary("logaddexp2", None, dtype="float_only", expose="tt method", python="tt method")
binary("heaviside", None, params="input:tensor, values:tensor", python="tt method inplace", gradient=_STEP)
binary("float_power", None, params="input:tensor, exponent:any", dtype="float", python="tt method inplace")
COMPARISONS: Final = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})
NON_DIFFERENTIABLE_BINARY: Final = frozenset(
    {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "floor_divide",
     "bitwise_and", "bitwise_or", "bitwise_xor"}
)


@op("where", "condition:tensor, input:any=None, other:any=None", kernel="(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b)", expose="tt method", method="condition:any, other:any",
    tags=("elementwise", "ternary"), signature="(*c), (*a), (*b) -> (*broadcast(c, a, b))",
    fusion="(A ? B : C)", graph=True, prim="Elementwise", onnx="Where", method_overloads=("(self, condition: Any, other: Any) -> _AnyTensor",),
    overloads=("(condition: _AnyTensor) -> tuple[_AnyTensor, ...]",
               "(condition: _AnyTensor, input: Any, other: Any) -> _AnyTensor"))
def where(args: Args) -> Result:
    """Broadcast of condition, input and other (scalars allowed)."""
    parts = [args["condition"], args["input"], args["other"]]
    shapes = [p for p in parts if not is_scalar(p) and p is not None]
    return broadcast_all(shapes, "where")


@op("clamp", "input:tensor, min:any=None, max:any=None", kernel="(const Tensor& out, const Tensor& a, std::optional<double> lo, std::optional<double> hi)", expose="tt method inplace", tags=("elementwise",),
    aliases=("clip",), signature=_SAME, graph=True, prim="Elementwise", fusion="tt_clamp(A, @lo, @hi)")
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


# its kernel writes out (broadcast-shaped) in place
@op("masked_fill", "input:tensor, mask:tensor, value:any", kernel="(const Tensor& out, const Tensor& mask, const Tensor& value)", expose="tt method inplace", tags=("elementwise",),
    signature="(*s), (*m) -> (*s)", graph=True, prim="Other")
def masked_fill(args: Args) -> Result:
    """Input and mask broadcast together (torch's out-of-place masked_fill grows the input)."""
    x, mask = args["input"], args["mask"]
    if isinstance(x, Shape) and isinstance(mask, Shape):
        return broadcast_shapes(x, mask, "masked_fill")
    return x if isinstance(x, (Shape, Unknown)) else UNKNOWN


@op("lerp", "input:tensor, end:tensor, weight:any", expose="tt method inplace", python="tt inplace",
    tags=("elementwise",), prim="Elementwise", prim_cuda="cpu")  # the primitive: the fused CPU kernel
def lerp(args: Args) -> Result:
    parts = [args["input"], args["end"], args["weight"]]
    return broadcast_all([p for p in parts if not is_scalar(p)], "lerp")


@op("addcmul", "input:tensor, tensor1:tensor, tensor2:tensor, *, value:any=1", expose="tt method inplace",
    python="tt method inplace", tags=("elementwise",), autocast="cuda=promote")
def addcmul(args: Args) -> Result:
    return broadcast_all([args["input"], args["tensor1"], args["tensor2"]], "addcmul")


@op("nan_to_num", "input:tensor, nan:float=0.0, posinf:float=None, neginf:float=None", expose="tt method",
    tags=("elementwise",), signature=_SAME)
def nan_to_num(args: Args) -> Result:
    return _same_shape(args)


@op("isclose", "input:tensor, other:tensor, rtol:float=1e-05, atol:float=1e-08, equal_nan:bool=False",
    expose="tt method", python="tt method",
    tags=("elementwise",), dtype_rule="bool", differentiable=False, gradient="boolean result")
def isclose(args: Args) -> Result:
    return broadcast_shapes(args["input"], args["other"], "isclose") if all(
        isinstance(args[k], Shape) for k in ("input", "other")) else UNKNOWN

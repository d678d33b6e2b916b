"""Each traced primitive as ONNX nodes (opset 18): one small function per primitive, in one table.

A primitive that is one ONNX node (``exp`` as ``Exp``, ``cat`` as ``Concat``) is mapped by
its op-table entry (NOTE [ ONNX slot ] in typedtensor/shapes/registry.py) and emitted by ``_direct``;
the functions here write the others, composed of several nodes. An emitter gets the export context, the node and the ONNX names of its inputs, and returns the
names of its outputs. Numbers that depend on a named dim (a reshape's target, a slice's bounds) are
asked of the context as polynomials (NOTE [ Symbolic dims by tracing at several sizes ]) and
computed in the graph from ``Shape`` nodes; everything else is a constant.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from typedtensor.graph.ir import NodeInfo
    from typedtensor.onnx._export import Context

INT64_MAX = 2**63 - 1
DTYPES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]  # the backend's enum order
NP_DTYPES = {"bool": np.bool_, "uint8": np.uint8, "int32": np.int32, "int64": np.int64, "float16": np.float16,
             "float32": np.float32, "float64": np.float64}
FLOATS = frozenset({"float16", "bfloat16", "float32", "float64"})

Emitter = Callable[["Context", "NodeInfo", list[str]], list[str]]
EMITTERS: dict[str, Emitter] = {}


def emits(*ops: str) -> Callable[[Emitter], Emitter]:
    def register(fn: Emitter) -> Emitter:
        for op in ops:
            EMITTERS[op] = fn
        return fn
    return register


def _in_dtype(c: Context, n: NodeInfo, i: int = 0) -> str:
    return c.dtype(n.inputs[i])


# ---------------------------------------------------------------- elementwise

# The ops that become one ONNX node, from the op table's ``onnx`` slot (NOTE [ ONNX slot ] in
# typedtensor/shapes/registry.py): op name -> (ONNX operator, ((ONNX attribute, type, node attribute), ...)).
DirectSpec = tuple[str, tuple[tuple[str, str, str], ...]]
_ATTR_TYPES: dict[str, Callable[[Any], Any]] = {
    "int": int, "float": float, "ints": lambda v: [int(d) for d in v],
}


def parse_direct(spec: str) -> DirectSpec:
    """``"Gather(axis=int:dim)"`` as ``("Gather", (("axis", "int", "dim"),))``."""
    name, _, rest = spec.partition("(")
    attrs: list[tuple[str, str, str]] = []
    for item in filter(None, (part.strip() for part in rest.rstrip(")").split(","))):
        onnx_attr, _, typed = item.partition("=")
        kind, _, node_attr = typed.partition(":")
        if kind not in _ATTR_TYPES or not node_attr:
            raise ValueError(f"onnx slot {spec!r}: an attribute is written name=int|float|ints:node_attribute")
        attrs.append((onnx_attr.strip(), kind, node_attr.strip()))
    return name.strip(), tuple(attrs)


def _direct_from_table() -> dict[str, DirectSpec]:
    from typedtensor.shapes.registry import all_ops

    return {name: parse_direct(op.onnx) for name, op in all_ops().items() if op.onnx is not None}


DIRECT: dict[str, DirectSpec] = _direct_from_table()


def _elementwise_prims() -> frozenset[str]:
    from typedtensor.shapes.registry import all_ops

    return frozenset(name for name, op in all_ops().items() if op.cpp and op.cpp.startswith(("BinaryOp::", "UnaryOp::")))


# the ops of the backend's Binary and Unary primitives (op table: cpp = BinaryOp:: / UnaryOp::)
ELEMENTWISE_PRIMS: frozenset[str] = _elementwise_prims()


# ONNX operators written between Casts to float32 and back for bfloat16 operands: opset 18 allows
# bfloat16 MatMul, but onnxruntime's CPU provider has no kernel for it. The backend's bfloat16
# matmul sums in float32 and rounds once (NOTE [ bfloat16 GEMM ] in backend/src/cpu/gemm.cpp),
# which is what Cast, the float32 MatMul and Cast compute.
_WIDENED_FOR_BFLOAT16 = frozenset({"MatMul"})


def _in_float32(c: Context, onnx_op: str, x: list[str], **kw: Any) -> str:
    """``onnx_op`` on bfloat16 operands computed in float32 and rounded back once."""
    wide = [c.b.node("Cast", [v], to=c.onnx_type("float32")) for v in x]
    return c.b.node("Cast", [c.b.node(onnx_op, wide, **kw)], to=c.onnx_type("bfloat16"))


def _direct(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    onnx_op, attrs = DIRECT[n.op]
    kw = {a: _ATTR_TYPES[kind](n.attrs[key]) for a, kind, key in attrs}
    if onnx_op in _WIDENED_FOR_BFLOAT16 and _in_dtype(c, n) == "bfloat16":
        return [_in_float32(c, onnx_op, x, **kw)]
    return [c.b.node(onnx_op, x, **kw)]


emits(*DIRECT)(_direct)


@emits("exp2", "expm1", "log2", "log10", "log1p", "rsqrt", "gelu", "gelu_tanh", "silu", "erfc", "trunc", "frac",
       "square", "isnan", "isinf", "isfinite", "mish", "logsigmoid", "relu6", "hardsigmoid", "logical_not", "bitwise_not")
def _unary_composed(c: Context, n: NodeInfo, ins: list[str]) -> list[str]:
    b, x, dt = c.b, ins[0], _in_dtype(c, n)

    def k(v: float) -> str:
        return c.scalar(v, dt)

    op = n.op
    if op == "exp2":
        out = b.node("Pow", [k(2.0), x])
    elif op == "expm1":
        out = b.node("Sub", [b.node("Exp", [x]), k(1.0)])
    elif op in ("log2", "log10"):
        out = b.node("Div", [b.node("Log", [x]), k(math.log(2.0 if op == "log2" else 10.0))])
    elif op == "log1p":
        out = b.node("Log", [b.node("Add", [x, k(1.0)])])
    elif op == "rsqrt":
        out = b.node("Reciprocal", [b.node("Sqrt", [x])])
    elif op == "gelu":  # 0.5 x (1 + erf(x / sqrt 2))
        out = b.node("Mul", [b.node("Mul", [x, k(0.5)]), b.node("Add", [k(1.0), b.node("Erf", [b.node("Div", [x, k(math.sqrt(2.0))])])])])
    elif op == "gelu_tanh":  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = b.node("Mul", [b.node("Mul", [x, x]), x])
        inner = b.node("Mul", [k(math.sqrt(2.0 / math.pi)), b.node("Add", [x, b.node("Mul", [k(0.044715), cube])])])
        out = b.node("Mul", [b.node("Mul", [x, k(0.5)]), b.node("Add", [k(1.0), b.node("Tanh", [inner])])])
    elif op == "silu":
        out = b.node("Mul", [x, b.node("Sigmoid", [x])])
    elif op == "erfc":
        out = b.node("Sub", [k(1.0), b.node("Erf", [x])])
    elif op in ("trunc", "frac"):  # sign(x) * floor(|x|): keeps trunc(-0.5) = -0.0 (onnxruntime's Where would not)
        t = b.node("Mul", [b.node("Sign", [x]), b.node("Floor", [b.node("Abs", [x])])])
        out = t if op == "trunc" else b.node("Sub", [x, t])
    elif op == "square":
        out = b.node("Mul", [x, x])
    elif op in ("isnan", "isinf"):  # integers are never NaN or infinite
        out = b.node("IsNaN" if op == "isnan" else "IsInf", [x]) if dt in FLOATS else b.node("Not", [b.node("Equal", [x, x])])
    elif op == "isfinite":
        out = b.node("Not", [b.node("Or", [b.node("IsNaN", [x]), b.node("IsInf", [x])])]) if dt in FLOATS else b.node("Equal", [x, x])
    elif op == "mish":
        out = b.node("Mul", [x, b.node("Tanh", [b.node("Softplus", [x])])])
    elif op == "logsigmoid":
        out = b.node("Neg", [b.node("Softplus", [b.node("Neg", [x])])])
    elif op == "relu6":
        out = b.node("Clip", [x, k(0.0), k(6.0)])
    elif op == "hardsigmoid":
        out = b.node("HardSigmoid", [x], alpha=1.0 / 6.0, beta=0.5)
    elif op == "logical_not":
        out = b.node("Not", [c.as_bool(x, dt)])
    else:  # bitwise_not
        out = b.node("Not", [x]) if dt == "bool" else b.node("BitwiseNot", [x])
    return [out]


@emits("div", "floor_divide", "remainder", "fmod", "ne", "logical_and", "logical_or", "logical_xor",
       "bitwise_and", "bitwise_or", "bitwise_xor", "atan2", "hypot", "copysign")
def _binary_composed(c: Context, n: NodeInfo, ins: list[str]) -> list[str]:
    b, (x, y), dt, op = c.b, ins[:2], _in_dtype(c, n), n.op
    is_float = dt in FLOATS
    if op == "div":
        return [b.node("Div", [x, y])]
    if op == "ne":
        return [b.node("Not", [b.node("Equal", [x, y])])]
    if op in ("logical_and", "logical_or", "logical_xor"):
        return [b.node({"logical_and": "And", "logical_or": "Or", "logical_xor": "Xor"}[op], [c.as_bool(x, dt), c.as_bool(y, dt)])]
    if op.startswith("bitwise_"):
        kind = op.split("_")[1]
        if dt == "bool":
            return [b.node({"and": "And", "or": "Or", "xor": "Xor"}[kind], [x, y])]
        return [b.node({"and": "BitwiseAnd", "or": "BitwiseOr", "xor": "BitwiseXor"}[kind], [x, y])]
    if op == "fmod":
        return [b.node("Mod", [x, y], fmod=1)]
    if op == "floor_divide":
        if is_float:
            return [b.node("Floor", [b.node("Div", [x, y])])]
        q = b.node("Div", [x, y])  # truncates; step down where the remainder's sign differs from y's
        r = b.node("Sub", [x, b.node("Mul", [q, y])])
        zero = c.scalar(0, dt)
        fix = b.node("And", [b.node("Not", [b.node("Equal", [r, zero])]),
                             b.node("Xor", [b.node("Less", [r, zero]), b.node("Less", [y, zero])])])
        return [b.node("Sub", [q, b.node("Cast", [fix], to=c.onnx_type(dt))])]
    if op == "remainder":  # the sign of the divisor, as Python's %
        if is_float:
            return [b.node("Sub", [x, b.node("Mul", [b.node("Floor", [b.node("Div", [x, y])]), y])])]
        return [b.node("Mod", [x, y], fmod=0)]
    if op == "hypot":
        return [b.node("Sqrt", [b.node("Add", [b.node("Mul", [x, x]), b.node("Mul", [y, y])])])]
    if op == "copysign":  # |x| with the sign of y (-0.0 included)
        ax = b.node("Abs", [x])
        return [b.node("Where", [_signbit(c, y, c.scalar(0.0, dt)), b.node("Neg", [ax]), ax])]
    # atan2(x, y) = the angle of the point (y, x), signed zeros as torch: atan(x / y) moved by the quadrant
    zero, pi = c.scalar(0.0, dt), c.scalar(math.pi, dt)
    y_neg = _signbit(c, y, zero)
    signed_pi = b.node("Where", [_signbit(c, x, zero), b.node("Neg", [pi]), pi])
    base = b.node("Atan", [b.node("Div", [x, y])])
    general = b.node("Where", [y_neg, b.node("Add", [base, signed_pi]), base])
    on_zero = b.node("Where", [y_neg, signed_pi, x])
    return [b.node("Where", [b.node("Equal", [x, zero]), on_zero, general])]


def _signbit(c: Context, v: str, zero: str) -> str:
    """v < 0, or v is -0.0 (1 / -0.0 is -inf)."""
    b = c.b
    return b.node("Or", [b.node("Less", [v, zero]), b.node("And", [b.node("Equal", [v, zero]), b.node("Less", [b.node("Reciprocal", [v]), zero])])])


@emits("masked_fill")
def _masked_fill(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    value = x[2] if len(x) > 2 else c.scalar(float(n.attrs.get("value", 0.0)), _in_dtype(c, n))
    return [c.b.node("Where", [x[1], value, x[0]])]


@emits("to")
def _cast(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    return [c.b.node("Cast", [x[0]], to=c.onnx_type(DTYPES[int(n.attrs["dtype"])]))]


@emits("clamp")
def _clamp(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    dt = _in_dtype(c, n)
    lo = c.scalar(n.attrs["lo"], dt) if "lo" in n.attrs else ""
    hi = c.scalar(n.attrs["hi"], dt) if "hi" in n.attrs else ""
    return [c.b.node("Clip", [x[0], lo, hi])]


# ---------------------------------------------------------------- layout


@emits("reshape")
def _reshape(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    return [c.b.node("Reshape", [x[0], c.shape_tensor(c.shape_polys(n.outputs[0]))])]


@emits("expand")
def _expand(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    return [c.b.node("Expand", [x[0], c.shape_tensor(c.shape_polys(n.outputs[0]))])]


@emits("slice", "select", "as_strided", "diagonal")
def _view(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    k = c.current
    view = c.view(k)
    if view is None:
        raise NotImplementedError(f"tt.onnx.export: the strided view {n.op} {n.attrs} is not a slice of its input")
    src = c.shape_polys(n.inputs[0])
    axes, starts, ends, steps, dropped = [], [], [], [], []
    for e, (start, step, size) in enumerate(view.dims):
        p_start = c.fact(("view", k, "start", e))
        if size is None:
            dropped.append(e)
            axes.append(e)
            starts.append(p_start)
            ends.append(p_start + 1)
            steps.append(1)
            continue
        p_size = c.fact(("view", k, "size", e))
        if start == 0 and step == 1 and p_size == src[e]:
            continue  # the whole dim
        axes.append(e)
        starts.append(p_start)
        ends.append(p_start + p_size.scale(step) + (1 - step) if size else p_start)
        steps.append(step)
    out = x[0]
    if axes:
        out = c.b.node("Slice", [out, c.shape_tensor(starts), c.shape_tensor(ends), c.ints(axes), c.ints(steps)])
    if dropped:
        out = c.b.node("Squeeze", [out, c.ints(dropped)])
    if view.new_axes:
        out = c.b.node("Unsqueeze", [out, c.ints(list(view.new_axes))])
    return [out]


@emits("flip")
def _flip(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    dims = [int(d) for d in n.attrs["dims"]]
    if not dims:
        return [c.b.node("Identity", [x[0]])]
    return [c.b.node("Slice", [x[0], c.ints([-1] * len(dims)), c.ints([-INT64_MAX - 1] * len(dims)), c.ints(dims),
                               c.ints([-1] * len(dims))])]


@emits("repeat")
def _repeat(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    reps = [c.fact(("attr", c.current, "reps", j)) for j in range(len(n.attrs["reps"]))]
    src = x[0]
    extra = len(reps) - len(c.values[n.inputs[0]].shape)
    if extra:
        src = c.b.node("Unsqueeze", [src, c.ints(list(range(extra)))])
    return [c.b.node("Tile", [src, c.shape_tensor(reps)])]


@emits("tril", "triu")
def _tri(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    return [c.b.node("Trilu", [x[0], c.ints([int(n.attrs["k"])], scalar=True)], upper=int(n.op == "triu"))]


@emits("scatter", "scatter_add")
def _scatter(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    reduction = "add" if n.op == "scatter_add" else "none"
    return [c.b.node("ScatterElements", x[:3], axis=int(n.attrs["dim"]), reduction=reduction)]


# ---------------------------------------------------------------- reductions


def _axes(n: NodeInfo) -> list[int]:
    return [i for i, m in enumerate(n.attrs["mask"]) if m]


def _reduce(c: Context, op: str, x: str, axes: list[int], keepdim: bool) -> str:
    if not axes:
        return c.b.node("Identity", [x])
    return c.b.node(op, [x, c.ints(axes)], keepdims=int(keepdim))


@emits("sum", "mean", "prod", "amax", "amin", "nansum", "norm2", "all", "any")
def _reductions(c: Context, n: NodeInfo, ins: list[str]) -> list[str]:
    x, axes, keep, dt = ins[0], _axes(n), bool(n.attrs["keepdim"]), _in_dtype(c, n)
    op = n.op
    if op in ("all", "any"):
        as_int = c.b.node("Cast", [c.as_bool(x, dt)], to=c.onnx_type("int32"))
        r = _reduce(c, "ReduceMin" if op == "all" else "ReduceMax", as_int, axes, keep)
        return [c.b.node("Cast", [r], to=c.onnx_type("bool"))]
    if op == "nansum":
        x = c.b.node("Where", [c.b.node("IsNaN", [x]), c.scalar(0.0, dt), x])
    name = {"sum": "ReduceSum", "nansum": "ReduceSum", "mean": "ReduceMean", "prod": "ReduceProd",
            "amax": "ReduceMax", "amin": "ReduceMin", "norm2": "ReduceL2"}[op]
    return [_reduce(c, name, x, axes, keep)]


@emits("logsumexp")
def _logsumexp(c: Context, n: NodeInfo, ins: list[str]) -> list[str]:
    x, axes, keep, dt = ins[0], _axes(n), bool(n.attrs["keepdim"]), _in_dtype(c, n)
    if not axes:
        return [c.b.node("Identity", [x])]
    b = c.b
    m = _reduce(c, "ReduceMax", x, axes, True)  # shift by the max, as torch does (infinite max: no shift)
    m = b.node("Where", [b.node("IsInf", [m]), c.scalar(0.0, dt), m])
    s = b.node("Log", [_reduce(c, "ReduceSum", b.node("Exp", [b.node("Sub", [x, m])]), axes, True)])
    out = b.node("Add", [s, m])
    return [out if keep else b.node("Squeeze", [out, c.ints(axes)])]


@emits("var", "std")
def _var(c: Context, n: NodeInfo, ins: list[str]) -> list[str]:
    x, axes, keep = ins[0], _axes(n), bool(n.attrs["keepdim"])
    b, dt = c.b, _in_dtype(c, n)
    shape = c.shape_polys(n.inputs[0])
    count = c.dim_tensor_product([shape[a] for a in axes])
    mean = _reduce(c, "ReduceMean", x, axes, True)
    d = b.node("Sub", [x, mean])
    ss = _reduce(c, "ReduceSum", b.node("Mul", [d, d]), axes, keep)
    corr = float(n.attrs.get("correction", 1))
    denom = b.node("Sub", [b.node("Cast", [count], to=c.onnx_type(dt)), c.scalar(corr, dt)])
    denom = b.node("Max", [denom, c.scalar(0.0, dt)])
    v = b.node("Div", [ss, denom])
    return [v if n.op == "var" else b.node("Sqrt", [v])]


@emits("max", "min")
def _max_min(c: Context, n: NodeInfo, ins: list[str]) -> list[str]:
    dim, keep = int(n.attrs["dim"]), int(bool(n.attrs["keepdim"]))
    if not c.values[n.inputs[0]].shape:
        return [c.b.node("Identity", [ins[0]]), c.zero_index()]
    values = c.b.node("ReduceMax" if n.op == "max" else "ReduceMin", [ins[0], c.ints([dim])], keepdims=keep)
    outs = [values]
    if len(n.outputs) > 1:
        outs.append(c.b.node("ArgMax" if n.op == "max" else "ArgMin", [ins[0]], axis=dim, keepdims=keep))
    return outs


@emits("argmax", "argmin")
def _argmax(c: Context, n: NodeInfo, ins: list[str]) -> list[str]:
    if not c.values[n.inputs[0]].shape:
        return [c.zero_index()]
    return [c.b.node("ArgMax" if n.op == "argmax" else "ArgMin", [ins[0]], axis=int(n.attrs["dim"]),
                     keepdims=int(bool(n.attrs["keepdim"])))]


@emits("softmax", "log_softmax")
def _softmax(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    if not c.values[n.inputs[0]].shape:  # a 0-d softmax is 1 (log: 0); x - x keeps a NaN
        dt = c.dtype(n.inputs[0])
        return [c.b.node("Add", [c.b.node("Sub", [x[0], x[0]]), c.scalar(1.0 if n.op == "softmax" else 0.0, dt)])]
    return [c.b.node("Softmax" if n.op == "softmax" else "LogSoftmax", [x[0]], axis=int(n.attrs["dim"]))]


@emits("cumsum")
def _cumsum(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    return [c.b.node("CumSum", [x[0], c.ints([int(n.attrs["dim"])], scalar=True)])]


# ---------------------------------------------------------------- nn


@emits("scaled_dot_product_attention")
def _attention(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    """The fused primitive written out as ONNX's attention pattern (MatMul, Softmax, MatMul), with torch's
    conventions: a bool mask keeps the True places, a float mask is added, is_causal keeps the lower
    triangle, and a row that may attend nothing gives 0 (its log-sum-exp -inf) rather than NaN."""
    b, dt = c.b, _in_dtype(c, n)
    q, k, v = x[0], x[1], x[2]
    rank = len(c.values[n.inputs[1]].shape)
    perm = [*range(rank - 2), rank - 1, rank - 2]
    scores = b.node("Mul", [b.node("MatMul", [q, b.node("Transpose", [k], perm=perm)]),
                            c.scalar(float(n.attrs["scale"]), dt)])
    kind = int(n.attrs["mask"])
    neg_inf = c.scalar(float("-inf"), dt)
    if kind == 1:  # bool: True attends
        scores = b.node("Where", [x[3], scores, neg_inf])
    elif kind == 2:  # additive
        scores = b.node("Add", [scores, x[3]])
    if bool(n.attrs["causal"]):
        square = b.node("Expand", [c.scalar(1.0, dt), b.node("Shape", [scores], start=-2)])
        keep = b.node("Cast", [b.node("Trilu", [square], upper=0)], to=c.onnx_type("bool"))
        scores = b.node("Where", [keep, scores, neg_inf])
    weights = b.node("Softmax", [scores], axis=-1)
    weights = b.node("Where", [b.node("IsNaN", [weights]), c.scalar(0.0, dt), weights])
    outs = [b.node("MatMul", [weights, v])]
    if len(n.outputs) > 1:
        outs.append(b.node("ReduceLogSumExp", [scores, c.ints([-1])], keepdims=0))
    return outs


@emits("layer_norm")
def _layer_norm(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    shape = c.values[n.inputs[0]].shape
    cols = int(n.attrs["cols"])
    axis, prod = len(shape), 1
    while axis > 0 and prod < cols:
        axis -= 1
        prod *= shape[axis]
    if prod != cols:
        raise NotImplementedError("tt.onnx.export: layer_norm over a part of a dim")
    normalized = list(shape[axis:])
    dt = _in_dtype(c, n)
    rest = list(x[1:])
    scale = rest.pop(0) if n.attrs["weight"] else c.b.const(np.ones(normalized, NP_DTYPES.get(dt, np.float32)), dtype=dt)
    bias = rest.pop(0) if n.attrs["bias"] else ""
    if n.attrs["weight"] and list(c.values[n.inputs[1]].shape) != normalized:
        scale = c.b.node("Reshape", [scale, c.ints(normalized)])
    if bias and list(c.values[n.inputs[2 if n.attrs["weight"] else 1]].shape) != normalized:
        bias = c.b.node("Reshape", [bias, c.ints(normalized)])
    return [c.b.node("LayerNormalization", [x[0], scale, bias] if bias else [x[0], scale], axis=axis,
                     epsilon=float(n.attrs["eps"]))]


@emits("conv2d")
def _conv(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    sh, sw, ph, pw, dh, dw, groups = (int(v) for v in n.attrs["geom"][:7])
    ins = x[:3] if n.attrs["bias"] else x[:2]
    geom: dict[str, Any] = {"strides": [sh, sw], "pads": [ph, pw, ph, pw], "dilations": [dh, dw], "group": groups}
    # opset 18's Conv has no bfloat16 (the backend's bfloat16 convolution sums in float32 too)
    if _in_dtype(c, n) == "bfloat16":
        return [_in_float32(c, "Conv", ins, **geom)]
    return [c.b.node("Conv", ins, **geom)]


def _pool_ceil(size: int, k: int, s: int, p: int, d: int, out: int) -> int:
    eff = d * (k - 1) + 1
    return int(out != (size + 2 * p - eff) // s + 1)


@emits("max_pool2d", "avg_pool2d")
def _pool(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, div = (int(v) for v in n.attrs["geom"])
    h, w = c.values[n.inputs[0]].shape[2:]
    ceil = max(_pool_ceil(h, kh, sh, ph, dh, oh), _pool_ceil(w, kw, sw, pw, dw, ow))
    common: dict[str, Any] = {"kernel_shape": [kh, kw], "strides": [sh, sw], "pads": [ph, pw, ph, pw], "ceil_mode": ceil}
    if n.op == "max_pool2d":
        outs = [c.b.node("MaxPool", [x[0]], dilations=[dh, dw], **common)]
        if len(n.outputs) > 1 and c.used(n.outputs[1]):
            raise NotImplementedError("tt.onnx.export: max_pool2d's indices (return_indices=True) are not exported")
        return outs + [""] * (len(n.outputs) - 1)
    if div:
        raise NotImplementedError("tt.onnx.export: avg_pool2d with divisor_override")
    return [c.b.node("AveragePool", [x[0]], count_include_pad=int(bool(n.attrs["count_include_pad"])), **common)]


@emits("adaptive_avg_pool2d")
def _adaptive(c: Context, n: NodeInfo, x: list[str]) -> list[str]:
    oh, ow = (int(v) for v in n.attrs["geom"][8:10])
    if (oh, ow) == (1, 1):
        return [c.b.node("GlobalAveragePool", [x[0]])]
    h, w = c.values[n.inputs[0]].shape[2:]
    if h % oh or w % ow:
        raise NotImplementedError(f"tt.onnx.export: adaptive_avg_pool2d from {h}x{w} to {oh}x{ow} (not a divisor)")
    return [c.b.node("AveragePool", [x[0]], kernel_shape=[h // oh, w // ow], strides=[h // oh, w // ow])]


__all__ = ["DTYPES", "EMITTERS", "FLOATS", "NP_DTYPES"]

"""Public names -> registry ops: the one table both static tools use to know what a call is.

A name that is not here is not a typedtensor op to the checkers (its result is unknown).
"""

from __future__ import annotations

from typing import Final

from .registry import MODULE_REGISTRY, ModuleDef, all_modules, all_ops

# Ops reachable as ``typedtensor.X`` (torch's top-level functions).
_TOP_LEVEL: Final = (
    # creation
    "zeros", "ones", "empty", "rand", "randn", "randint", "full", "arange", "linspace", "eye",
    "zeros_like", "ones_like", "empty_like", "rand_like", "randn_like", "full_like", "tensor",
    "as_tensor", "from_numpy", "from_dlpack",
    # elementwise
    "abs", "neg", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "relu", "erf",
    "reciprocal", "sign", "floor", "ceil", "round", "trunc", "frac", "logical_not", "isnan", "isinf",
    "isfinite", "positive", "logit", "bitwise_not", "clone", "detach",
    "add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "maximum",
    "minimum", "atan2", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor", "copysign", "hypot", "xlogy",
    "where", "clamp", "clip", "masked_fill", "lerp", "addcmul",
    # reductions
    "sum", "mean", "prod", "amax", "amin", "all", "any", "nansum", "nanmean", "count_nonzero", "var", "std",
    "argmax", "argmin", "max", "min", "median", "mode", "logsumexp", "norm", "softmax", "log_softmax",
    "cumsum", "cumprod", "logcumsumexp",
    # movement
    "reshape", "flatten", "unflatten", "transpose", "swapaxes", "swapdims", "permute", "movedim",
    "unsqueeze", "squeeze", "broadcast_to", "cat", "concat", "concatenate", "stack", "split", "chunk",
    "unbind", "flip", "roll", "narrow", "tril", "triu", "diagonal", "gather", "scatter", "scatter_add",
    "index_select", "masked_select", "nonzero", "t",
    # linalg
    "matmul", "mm", "bmm", "mv", "dot", "outer", "tensordot", "einsum",
    # nn-ish ops that torch exposes at top level too
    "dropout", "alpha_dropout", "layer_norm", "batch_norm", "group_norm", "embedding",
)

# Ops reachable as ``typedtensor.nn.functional.X``.
_FUNCTIONAL: Final = (
    "linear", "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "batch_norm", "layer_norm",
    "group_norm", "softmax", "log_softmax", "relu", "gelu", "silu", "softplus", "elu", "leaky_relu",
    "relu6", "hardtanh", "mish", "sigmoid", "tanh", "embedding", "dropout", "alpha_dropout", "dropout2d",
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "one_hot", "pad",
    "scaled_dot_product_attention",
)

# Tensor methods (the tensor binds the op's first parameter). Method name -> op name.
_METHOD_SAME: Final = (
    "abs", "neg", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "relu", "erf",
    "reciprocal", "sign", "floor", "ceil", "round", "trunc", "frac", "logical_not", "isnan", "isinf",
    "isfinite", "positive", "logit", "bitwise_not", "clone", "contiguous", "detach", "cpu", "cuda",
    "float", "double", "half", "bfloat16", "long", "int", "bool", "to", "type",
    "add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "maximum",
    "minimum", "atan2", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor", "copysign", "hypot", "xlogy",
    "where", "clamp", "clip", "masked_fill", "lerp", "addcmul",
    "sum", "mean", "prod", "amax", "amin", "all", "any", "nansum", "nanmean", "count_nonzero", "var", "std",
    "argmax", "argmin", "max", "min", "median", "mode", "logsumexp", "norm", "softmax", "log_softmax",
    "cumsum", "cumprod", "logcumsumexp",
    "reshape", "view", "reshape_as", "view_as", "flatten", "unflatten", "transpose", "swapaxes", "swapdims",
    "permute", "movedim", "unsqueeze", "squeeze", "expand", "expand_as", "broadcast_to", "repeat",
    "split", "chunk", "unbind", "flip", "roll", "narrow", "tril", "triu", "diagonal", "gather", "scatter",
    "scatter_add", "index_select", "masked_select", "nonzero", "t", "item",
    "matmul", "mm", "bmm", "mv", "dot", "outer",
)
# In-place methods keep the shape of ``self``; ``x.add_(y)`` checks like ``x + y``.
_INPLACE: Final = (
    "add", "sub", "mul", "div", "pow", "clamp", "masked_fill", "fill", "zero", "exp", "log", "sqrt",
    "tanh", "sigmoid", "relu", "neg", "abs", "floor", "ceil", "round", "lerp", "addcmul", "tril", "triu",
    "unsqueeze", "squeeze", "transpose", "t", "scatter", "scatter_add", "clip", "copy",
)

OPERATORS: Final[dict[str, tuple[str, bool]]] = {
    "__add__": ("add", False), "__radd__": ("add", True), "__iadd__": ("add", False),
    "__sub__": ("sub", False), "__rsub__": ("sub", True), "__isub__": ("sub", False),
    "__mul__": ("mul", False), "__rmul__": ("mul", True), "__imul__": ("mul", False),
    "__truediv__": ("div", False), "__rtruediv__": ("div", True), "__itruediv__": ("div", False),
    "__floordiv__": ("floor_divide", False), "__rfloordiv__": ("floor_divide", True),
    "__mod__": ("remainder", False), "__rmod__": ("remainder", True),
    "__pow__": ("pow", False), "__rpow__": ("pow", True), "__ipow__": ("pow", False),
    "__matmul__": ("matmul", False), "__rmatmul__": ("matmul", True),
    "__eq__": ("eq", False), "__ne__": ("ne", False), "__lt__": ("lt", False), "__le__": ("le", False),
    "__gt__": ("gt", False), "__ge__": ("ge", False),
    "__and__": ("logical_and", False), "__rand__": ("logical_and", True),
    "__or__": ("logical_or", False), "__ror__": ("logical_or", True),
    "__xor__": ("logical_xor", False), "__rxor__": ("logical_xor", True),
    "__neg__": ("neg", False), "__pos__": ("positive", False), "__abs__": ("abs", False),
    "__invert__": ("bitwise_not", False), "__getitem__": ("index", False), "__setitem__": ("index_put", False),
}

PROPERTIES: Final[dict[str, str]] = {"T": "T", "mT": "mT"}

FUNCTIONS: Final[dict[str, str]] = {
    **{f"typedtensor.{name}": name for name in _TOP_LEVEL},
    **{f"typedtensor.nn.functional.{name}": name for name in _FUNCTIONAL},
}

METHODS: Final[dict[str, str]] = {
    **{name: name for name in _METHOD_SAME},
    **{f"{name}_": name for name in _INPLACE if name != "copy"},
    "copy_": "expand_as",
    "new_zeros": "zeros", "new_ones": "ones", "new_empty": "empty", "new_full": "full",
}
# ``new_*`` methods take sizes after ``self``: the tensor is NOT their first parameter.
METHODS_WITHOUT_SELF: Final = frozenset({"new_zeros", "new_ones", "new_empty", "new_full"})


def modules() -> dict[str, ModuleDef]:
    """``typedtensor.nn.X`` -> its ``ModuleDef`` (rules are registered on first use)."""
    return all_modules()


def public_ops() -> set[str]:
    """Every op name reachable from the public API (functions, methods, operators, properties)."""
    names = set(FUNCTIONS.values()) | set(METHODS.values()) | {o for o, _ in OPERATORS.values()}
    names |= set(PROPERTIES.values())
    for m in all_modules().values():
        names.update(m.ops)
    return names


def _check_tables() -> None:
    ops = all_ops()
    missing = sorted(n for n in public_ops() if n not in ops)
    assert not missing, f"public names map to unregistered ops: {missing}"


MODULES = MODULE_REGISTRY

"""The eager tensor runtime: ``typedtensor.Tensor`` is the compiled ``_C.Tensor`` class itself
(operators and hot methods are C++), plus the Python-level pieces: repr, ``Tensor[...]``
annotations, ``no_grad``, ``cuda`` and ``functional`` (mounted at ``typedtensor.nn.functional``)."""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator
from typing import Any

from typedtensor._runtime import _loader

_C = _loader.load_core()

from typedtensor._runtime import _repr, cuda, functional  # noqa: E402
from typedtensor._runtime.errors import ShapeError  # noqa: E402

Tensor = _C.Tensor
dtype = _C.dtype
device = _C.device

bool = _C.bool  # noqa: A001 - torch's name
uint8 = _C.uint8
int32 = _C.int32
int64 = _C.int64
float16 = _C.float16
bfloat16 = _C.bfloat16
float32 = _C.float32
float64 = _C.float64
half = float16
float = float32  # noqa: A001
double = float64
long = int64
int = int32  # noqa: A001
bfloat = bfloat16


def _dtype_by_name(name: str) -> Any:
    return getattr(_C, name)


def _class_getitem(cls: type, params: Any) -> types.GenericAlias:
    """``Tensor[Batch, In]`` at run time: an alias whose ``typing.get_args`` are the dims."""
    if not isinstance(params, tuple):
        params = (params,)
    return types.GenericAlias(cls, params)


Tensor.__class_getitem__ = classmethod(_class_getitem)
Tensor.__repr__ = _repr.tensor_repr
Tensor.__str__ = _repr.tensor_repr
Tensor.__module__ = "typedtensor"
Tensor.__array_priority__ = 1000  # numpy defers `ndarray + Tensor` to Tensor.__radd__


def _format(self: Any, spec: str) -> str:
    if self.ndim == 0:
        return format(self.item(), spec)
    return _repr.tensor_repr(self)


Tensor.__format__ = _format
Tensor.__reduce__ = lambda self: (_rebuild, (self.numpy(force=True) if self.dtype != bfloat16 else self.float().numpy(), self.dtype.name))


def _rebuild(array: Any, dtype_name: str) -> Any:
    return _C.tensor(array, dtype=getattr(_C, dtype_name))


def _numpy_ufunc(self: Any, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    return NotImplemented


# ---- grad mode: the classes live in typedtensor.autograd (engine: backend/src/autograd) ----
from typedtensor._runtime import autograd  # noqa: E402
from typedtensor._runtime.autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: E402

builtins_bool = type(True)


@contextlib.contextmanager
def inference_mode() -> Iterator[None]:
    with no_grad():
        yield


def numel(t: Any) -> Any:
    return t.numel()


def is_floating_point(t: Any) -> Any:
    return t.is_floating_point()


def clone(t: Any) -> Any:
    return t.clone()


def split_sizes(*args: Any, **kwargs: Any) -> Any:  # pragma: no cover - alias kept small
    return _C.split(*args, **kwargs)


def allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: builtins_bool = False) -> builtins_bool:
    return builtins_bool(isclose(a, b, rtol, atol, equal_nan).all().item())


def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: builtins_bool = False) -> Any:
    a = a if isinstance(a, Tensor) else _C.tensor(a)
    b = b if isinstance(b, Tensor) else _C.tensor(b)
    ct = _C.promote_types(a.dtype, b.dtype)
    fa, fb = a.to(float64 if ct == float64 else float32), b.to(float64 if ct == float64 else float32)
    close = (fa - fb).abs() <= atol + rtol * fb.abs()
    close = close.logical_or(fa == fb)
    if equal_nan:
        close = close.logical_or(fa.isnan().logical_and(fb.isnan()))
    return close


def equal(a: Any, b: Any) -> builtins_bool:
    return tuple(a.shape) == tuple(b.shape) and builtins_bool((a == b).all().item())


_FROM_C = [
    # creation and interop
    "tensor", "as_tensor", "from_numpy", "from_dlpack", "to_dlpack", "is_tensor", "zeros", "ones", "empty",
    "full", "zeros_like", "ones_like", "empty_like", "full_like", "arange", "linspace", "eye",
    # random
    "manual_seed", "initial_seed", "rand", "randn", "rand_like", "randn_like", "randint", "randint_like",
    "randperm", "bernoulli", "normal",
    # elementwise
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide", "remainder",
    "fmod", "pow", "maximum", "minimum", "atan2", "hypot", "copysign", "eq", "ne", "lt", "le", "gt", "ge",
    "greater", "less", "greater_equal", "less_equal", "not_equal", "logical_and", "logical_or",
    "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
    "neg", "negative", "abs", "absolute", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
    "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "sigmoid", "relu", "silu", "gelu", "erf", "erfc", "floor", "ceil", "round", "trunc", "frac", "sign",
    "reciprocal", "square", "isnan", "isinf", "isfinite", "softplus", "mish", "logsigmoid", "relu6",
    "hardsigmoid", "hardswish", "leaky_relu", "elu", "clamp", "clip", "where", "masked_fill",
    # reductions
    "sum", "nansum", "mean", "prod", "amax", "amin", "all", "any", "max", "min", "argmax", "argmin",
    "var", "std", "logsumexp", "norm", "cumsum", "cumprod", "sort", "argsort", "topk",
    # shape
    "flatten", "unflatten", "transpose", "swapaxes", "swapdims", "t", "permute", "reshape", "broadcast_to",
    "squeeze", "unsqueeze", "narrow", "select", "diagonal", "movedim", "moveaxis", "flip", "roll", "tril",
    "triu", "split", "chunk", "unbind", "cat", "concat", "concatenate", "stack", "hstack", "vstack",
    "broadcast_shapes", "broadcast_tensors",
    # indexing
    "index_select", "gather", "scatter", "scatter_add", "index_add", "masked_select", "nonzero",
    # linear algebra
    "matmul", "mm", "bmm", "dot", "outer", "einsum", "tensordot",
    # nn
    "softmax", "log_softmax", "linear", "layer_norm", "conv2d", "max_pool2d", "avg_pool2d",
    "adaptive_avg_pool2d", "embedding", "dropout", "dropout2d",
    # misc
    "result_type", "promote_types", "can_cast", "set_num_threads", "get_num_threads",
]
for _name in _FROM_C:
    globals()[_name] = getattr(_C, _name)
del _name

concat = _C.cat

__all__ = [
    "Tensor", "ShapeError", "dtype", "device", "cuda", "functional", "autograd",
    "bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64",
    "half", "float", "double", "long", "int",
    "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
    "allclose", "isclose", "equal", "numel", "is_floating_point", "clone",
    *_FROM_C,
]

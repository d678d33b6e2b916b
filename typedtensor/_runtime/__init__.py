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

from typedtensor._runtime import _repr, backends, cuda, functional  # noqa: E402
from typedtensor._runtime.checkpoint import load, save  # noqa: E402
from typedtensor._runtime.errors import ShapeError  # noqa: E402

Tensor = _C.Tensor
dtype = _C.dtype
device = _C.device

bool = _C.bool
uint8 = _C.uint8
int32 = _C.int32
int64 = _C.int64
float16 = _C.float16
bfloat16 = _C.bfloat16
float32 = _C.float32
float64 = _C.float64
half = float16
float = float32
double = float64
long = int64
int = int32
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


def detach(t: Any) -> Any:
    """A tensor sharing ``t``'s storage, cut out of the autograd graph (torch.detach)."""
    return t.detach()


from typedtensor._runtime.compare import allclose, equal, isclose  # noqa: E402

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

from typedtensor._runtime import composite  # noqa: E402

# nn ops torch also exposes at the top level (one implementation, in functional)
alpha_dropout = functional.alpha_dropout
batch_norm = functional.batch_norm
group_norm = functional.group_norm

composite.install(Tensor)
for _name in composite.FUNCTIONS:
    globals()[_name] = getattr(composite, _name)
del _name

__all__ = [
    "Tensor", "ShapeError", "dtype", "device", "cuda", "backends", "functional", "autograd",
    "bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64",
    "half", "float", "double", "long", "int",
    "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
    "allclose", "isclose", "equal", "numel", "is_floating_point", "clone", "detach", "save", "load",
    "alpha_dropout", "batch_norm", "group_norm",
    *_FROM_C,
    *composite.FUNCTIONS,
]

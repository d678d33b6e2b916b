"""Small torch functions written with the backend's primitives (their entries and shape rules:
``shapes/rules/small_math.py``), so autograd, every device and the tracer see primitives only.
typedtensor has no complex dtypes, so the conjugate transposes are transposes and ``isreal`` is true
everywhere."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from typedtensor._runtime import _loader
from typedtensor._runtime.errors import check

_C = _loader.load_core()

__all__ = [
    "addr", "adjoint", "aminmax", "argwhere", "dist", "fliplr", "frexp", "gcd", "ger", "isneginf", "isposinf",
    "isreal", "lcm", "ldexp", "renorm", "split_with_sizes", "sum_to_size", "vdot",
]

_aminmax = namedtuple("aminmax", ("min", "max"))  # type: ignore[name-match]
_aminmax.__module__ = "typedtensor.return_types"


def _swap_last(name: str, input: Any) -> Any:
    check(name, input=input)
    return input if input.ndim == 0 else input.transpose(-2, -1)


def _H_property(self: Any) -> Any:
    """``Tensor.H``: the conjugate transpose of a matrix (a 0-d tensor is itself)."""
    return _swap_last("H", self)


def _mH_property(self: Any) -> Any:
    """``Tensor.mH``: the conjugate transpose of each matrix in a batch (the last two dims swapped)."""
    return _swap_last("mH", self)


PROPERTIES = {"H": _H_property, "mH": _mH_property}


def adjoint(input: Any) -> Any:
    """The conjugate transpose of each matrix in a batch: a view with the last two dims swapped."""
    return _swap_last("adjoint", input)


def fliplr(input: Any) -> Any:
    """The input with dim 1 (its columns) reversed, as torch.fliplr; at least 2 dims."""
    check("fliplr", input=input)
    return input.flip(1)


def aminmax(input: Any, *, dim: int | None = None, keepdim: bool = False) -> Any:
    """(min, max) over ``dim`` (all elements when None): the ``amin`` and ``amax`` of torch, whose
    gradients share a tied extreme evenly."""
    check("aminmax", input=input, dim=dim, keepdim=keepdim)
    if input.ndim == 0:
        return _aminmax(input.clone(), input.clone())
    if dim is None:
        lo, hi = input.amin(), input.amax()
        if keepdim:
            lo, hi = lo.reshape([1] * input.ndim), hi.reshape([1] * input.ndim)
        return _aminmax(lo, hi)
    return _aminmax(input.amin(dim, keepdim), input.amax(dim, keepdim))


def argwhere(input: Any) -> Any:
    """The index of every non-zero element, one row each in row-major order: ``nonzero(input)``."""
    check("argwhere", input=input)
    return _C.nonzero(input)


def _is_float(input: Any) -> bool:
    return bool(input.is_floating_point())


def isposinf(input: Any) -> Any:
    """Where the input is +inf (nowhere for integer and bool tensors)."""
    check("isposinf", input=input)
    if not _is_float(input):
        return _C.zeros_like(input, dtype=_C.bool)
    return input.isinf() & (input > 0)


def isneginf(input: Any) -> Any:
    """Where the input is -inf (nowhere for integer and bool tensors)."""
    check("isneginf", input=input)
    if not _is_float(input):
        return _C.zeros_like(input, dtype=_C.bool)
    return input.isinf() & (input < 0)


def isreal(input: Any) -> Any:
    """Whether each element has a zero imaginary part: every element of a real tensor."""
    check("isreal", input=input)
    return _C.ones_like(input, dtype=_C.bool)


# ---- products and norms ----


def _same_dtype(name: str, a: Any, b: Any, text: str) -> None:
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name}: {text}")


def vdot(input: Any, other: Any) -> Any:
    """The dot product of two vectors of one dtype (the first conjugated: a no-op for real tensors)."""
    check("vdot", input=input, other=other)
    _same_dtype("vdot", input, other, f"dot : expected both vectors to have same dtype, but found "
                f"{_dtype_name(input)} and {_dtype_name(other)}")
    return _C.dot(input, other)


def _dtype_name(t: Any) -> str:
    """torch's scalar type name of a tensor's dtype (``Float``, ``Double``, ``Long``)."""
    names = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
             "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
    key = str(t.dtype).rpartition(".")[2]
    return names.get(key, key)


def ger(input: Any, vec2: Any) -> Any:
    """The outer product of two vectors: torch's older name of ``outer``."""
    check("ger", input=input, vec2=vec2)
    return _C.outer(input, vec2)


def _beta_input_plus(name: str, input: Any, product: Any, beta: Any, alpha: Any) -> Any:
    """``beta * input + alpha * product`` as torch's addmm family: integer results take integer
    factors only, and ``beta == 0`` ignores the input's values (NaN and inf do not propagate)."""
    out_float = bool(input.is_floating_point() or product.is_floating_point())
    for what, v in (("beta", beta), ("alpha", alpha)):
        if not out_float and isinstance(v, float):
            raise RuntimeError(f"For integral input tensors, argument {what} must not be a floating point number.")
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        never = _C.zeros([], dtype=_C.bool, device=product.device)
        return product + _C.where(never, input, _C.zeros([], dtype=input.dtype, device=product.device))
    return product + (input if beta == 1 else input * beta)


def addr(input: Any, vec1: Any, vec2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """``beta * input + alpha * outer(vec1, vec2)``."""
    check("addr", input=input, vec1=vec1, vec2=vec2)
    return _beta_input_plus("addr", input, _C.outer(vec1, vec2), beta, alpha)


def _pnorm(x: Any, p: float, dims: list[int] | None, keepdim: bool = False) -> Any:
    """The ``p``-norm of ``x`` over ``dims`` (all when None) with torch's gradients (norm_backward):
    zero where the norm is 0, where an element is 0 and ``p < 1``, and everywhere for ``p = 0``; the
    extremes' gradient shared by the tied elements for ``p = ±inf``."""
    a = x.abs()
    if p == float("inf"):
        return a.amax(dims, keepdim) if dims is not None else (a.amax().reshape([1] * x.ndim) if keepdim else a.amax())
    if p == float("-inf"):
        return a.amin(dims, keepdim) if dims is not None else (a.amin().reshape([1] * x.ndim) if keepdim else a.amin())

    def total(t: Any) -> Any:
        if dims is None:
            s = t.sum()
            return s.reshape([1] * x.ndim) if keepdim else s
        return t.sum(dims, keepdim)

    zero, one = _C.zeros([], dtype=x.dtype, device=x.device), _C.ones([], dtype=x.dtype, device=x.device)
    never = _C.zeros([], dtype=_C.bool, device=x.device)
    if p == 0:
        return total((a != 0).to(x.dtype)) + total(_C.where(never, a, zero))  # the value, a zero gradient
    if p == 1:
        return total(a)
    hit = a == 0
    fill = _C.full([], float("inf"), dtype=x.dtype, device=x.device) if p < 0 else zero
    powered = _C.where(hit, fill, _C.where(hit, one, a) ** p)
    s = total(powered)
    empty = s == 0
    return _C.where(empty, zero, _C.where(empty, one, s) ** (1.0 / p))


def _float_only(name: str, input: Any) -> None:
    if not input.is_floating_point():
        raise RuntimeError(f"{name}(): input dtype should be either floating point or complex. Got "
                           f"{_dtype_name(input)} instead.")


def dist(input: Any, other: Any, p: float = 2) -> Any:
    """The ``p``-norm of ``input - other`` (broadcast): ``p = 0`` counts the non-zero differences,
    ``±inf`` takes the largest / smallest."""
    check("dist", input=input, other=other, p=p)
    diff = input - other
    _float_only("norm", diff)
    return _pnorm(diff, float(p), None)


def renorm(input: Any, p: float, dim: int, maxnorm: float) -> Any:
    """Each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled to norm ``maxnorm``
    (torch's factor ``maxnorm / (norm + 1e-7)``)."""
    check("renorm", input=input, p=p, dim=dim, maxnorm=maxnorm)
    _float_only("renorm", input)
    d = dim % input.ndim
    norm = _pnorm(input, float(p), [i for i in range(input.ndim) if i != d], keepdim=True)
    factor = _C.where(norm > maxnorm, maxnorm / (norm + 1e-7), _C.ones([], dtype=input.dtype, device=input.device))
    return input * factor


# ---- sizes and pieces ----


def sum_to_size(self: Any, *size: Any) -> Any:
    """``Tensor.sum_to_size``: the sum over the leading dims that ``size`` lacks and the dims where it
    has 1 (``size`` expands to the input's shape)."""
    if not size:
        raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
    sizes = list(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else list(size)
    check("sum_to_size", input=self, size=tuple(sizes))
    lead = self.ndim - len(sizes)
    out = self.sum(list(range(lead))) if lead else self
    ones = [i for i, s in enumerate(sizes) if s == 1 and out.shape[i] != 1]
    return out.sum(ones, keepdim=True) if ones else (out if lead else out.clone())


def split_with_sizes(input: Any, split_sizes: Any, dim: int = 0) -> Any:
    """Views of the given sizes along ``dim`` (they sum to its size)."""
    check("split_with_sizes", input=input, split_sizes=tuple(split_sizes), dim=dim)
    return input.split(list(split_sizes), dim)


# ---- number representations ----

_frexp = namedtuple("frexp", ("mantissa", "exponent"))  # type: ignore[name-match]
_frexp.__module__ = "typedtensor.return_types"


def frexp(input: Any) -> Any:
    """(mantissa, exponent) with ``input = mantissa * 2 ** exponent`` and ``0.5 <= |mantissa| < 1``:
    the exponent (int32) from the host, the mantissa the input scaled by a power of two, so its
    gradient is torch's ``grad / 2 ** exponent``."""
    check("frexp", input=input)
    if not input.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    host = np.asarray(input.detach().cpu().numpy())
    exponent = _C.from_numpy(np.array(np.frexp(host)[1], dtype=np.int32).reshape(host.shape))
    if input.device.type != "cpu":
        exponent = exponent.to(input.device)
    two = _C.full([], 2.0, dtype=input.dtype, device=input.device)
    half = _C.div(exponent, 2, rounding_mode="floor").to(input.dtype)  # two steps: 2 ** 1074 overflows
    return _frexp(input * _C.pow(two, -half) * _C.pow(two, half - exponent.to(input.dtype)), exponent)


def ldexp(input: Any, other: Any) -> Any:
    """``input * 2 ** other`` (integer operands give the default float dtype, as in torch)."""
    check("ldexp", input=input, other=other)
    return input * _C.pow(2.0, other)


def _integral(name: str, *tensors: Any) -> None:
    for t in tensors:
        if t.is_floating_point() or t.dtype == _C.bool:
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_dtype_name(t)}\'')


def gcd(input: Any, other: Any) -> Any:
    """The greatest common divisor, elementwise (non-negative; ``gcd(0, 0) = 0``), by Euclid's steps
    over the whole tensor until every remainder is 0."""
    check("gcd", input=input, other=other)
    _integral("gcd", input, other)
    a, b = _C.broadcast_tensors(input.abs(), other.abs())
    dtype = _C.promote_types(input.dtype, other.dtype)
    a, b = a.to(dtype), b.to(dtype)
    zero, one = _C.zeros([], dtype=dtype, device=a.device), _C.ones([], dtype=dtype, device=a.device)
    while bool((b != 0).any()):
        live = b != 0
        a, b = _C.where(live, b, a), _C.where(live, _C.remainder(a, _C.where(live, b, one)), zero)
    return a


def lcm(input: Any, other: Any) -> Any:
    """The least common multiple, elementwise: ``|input / gcd * other|`` (0 where the gcd is 0)."""
    check("lcm", input=input, other=other)
    g = gcd(input, other)
    safe = _C.where(g == 0, _C.ones([], dtype=g.dtype, device=g.device), g)
    out = (_C.div(input.to(g.dtype), safe, rounding_mode="trunc") * other.to(g.dtype)).abs()
    return _C.where(g == 0, _C.zeros([], dtype=g.dtype, device=g.device), out)

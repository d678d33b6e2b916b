"""Public ops that are compositions of the backend's primitives.

They are written with tensor ops (never numpy on the data path of a differentiable result), so
autograd, every device and the graph tracer see only primitives: a composite needs no kernel and no
VJP of its own. Each validates its shapes against the registry rule first, so a bad call raises
``tt.ShapeError`` worded by the op the user called, not by the primitive it happens to use inside.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from typedtensor._runtime import _exports, _loader
from typedtensor._runtime.activation import hardshrink, prelu  # noqa: F401 (Tensor.hardshrink, Tensor.prelu)
from typedtensor._runtime.arrangement_ops import *  # noqa: F403 (the op table's Python forms are looked up here)
from typedtensor._runtime.autocast import wrap_ops
from typedtensor._runtime.compare import isclose  # noqa: F401 (Tensor.isclose)
from typedtensor._runtime.errors import check
from typedtensor._runtime.sampling import (  # noqa: F401 (the op table's Python forms are looked up here)
    bernoulli,
    bernoulli_,
    exponential_,
    multinomial,
    normal,
    normal_,
    random_,
    uniform_,
)
from typedtensor._runtime.scatter_ops import *  # noqa: F403 (the op table's Python forms are looked up here)
from typedtensor._runtime.small_math import *  # noqa: F403 (the op table's Python forms are looked up here)
from typedtensor._runtime.small_math import PROPERTIES as _PYTHON_PROPERTIES
from typedtensor._runtime.special_ops import *  # noqa: F403 (the op table's Python forms are looked up here)
from typedtensor._runtime.statistics_ops import *  # noqa: F403 (the op table's Python forms are looked up here)
from typedtensor._runtime.surface_ops import *  # noqa: F403 (the op table's Python forms are looked up here)

_C = _loader.load_core()

# the top-level linear-algebra ops and their Tensor methods (NOTE [ Linear algebra ] in linalg.py)
from typedtensor._runtime import linalg as _linalg  # noqa: E402

cholesky = _linalg.cholesky
cholesky_inverse = _linalg.cholesky_inverse
cholesky_solve = _linalg.cholesky_solve
det = _linalg.det
inverse = _linalg.inverse
logdet = _linalg.logdet
matrix_power = _linalg.matrix_power
pinverse = _linalg.pinverse
qr = _linalg.qr_legacy
slogdet = _linalg.slogdet
svd = _linalg.svd_legacy
triangular_solve = _linalg.triangular_solve

values_indices = namedtuple("values_indices", ["values", "indices"])
values_indices.__module__ = "typedtensor.return_types"


def _common_type(*tensors: Any) -> Any:
    """The type torch computes a multi-operand op in: the promotion of all its tensors (a 0-d one
    counts less than one with dims, as in ``result_type``)."""
    acc, ndim = tensors[0].dtype, tensors[0].ndim
    for t in tensors[1:]:
        acc = _C.result_type(_C.zeros([1] * ndim if ndim else [], dtype=acc), t)
        ndim = max(ndim, t.ndim)
    return acc


def addcmul(input: Any, tensor1: Any, tensor2: Any, *, value: float = 1) -> Any:
    """``input + value * tensor1 * tensor2`` (torch's order of evaluation), every operand first
    converted to the common type (int32 * int64 products must not wrap under a float input), half
    types computed in float32."""
    check("addcmul", input=input, tensor1=tensor1, tensor2=tensor2)
    common = _common_type(input, tensor1, tensor2)
    work = _C.float32 if common in (_C.float16, _C.bfloat16) else common  # torch rounds a half result once
    out = input.to(work) + (tensor1.to(work) * tensor2.to(work)) * value
    return out.to(common)


def lerp(input: Any, end: Any, weight: Any) -> Any:
    """``input + weight * (end - input)``; ``weight`` is a number or a broadcastable tensor."""
    number = isinstance(weight, (int, float)) and not isinstance(weight, bool)
    if number and isinstance(input, _C.Tensor) and isinstance(end, _C.Tensor):
        check("lerp", input=input, end=end, weight=0.5)  # any number: the rule needs only that it is one
        return _C._lerp_scalar(input, end, float(weight))  # one fused pass where it can be
    check("lerp", input=input, end=end, weight=weight)
    return input + (end - input) * weight


def logit(input: Any, eps: float | None = None) -> Any:
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    x = input if input.is_floating_point() else input.float()  # 1 - p must not wrap (uint8)
    p = x if eps is None else x.clamp(eps, 1 - eps)
    return (p / (1 - p)).log()


def xlogy(input: Any, other: Any) -> Any:
    """``input * log(other)``, defined as 0 where ``input == 0`` unless ``other`` is NaN."""
    # torch's result type: the operands' promoted type (a Python number as a wrapped scalar), the
    # default float for integers; a number becomes a tensor of that type (never of the other
    # operand's type: xlogy(int_tensor, 1.5) is not log(1))
    common = _C.result_type(input, other)
    if not _C.tensor([], dtype=common).is_floating_point():
        common = _C.float32
    x = input.to(common) if isinstance(input, _C.Tensor) else _C.tensor(input, dtype=common)
    y = other.to(common) if isinstance(other, _C.Tensor) else _C.tensor(other, dtype=common)
    check("xlogy", input=x, other=y)
    # x * log(y) is already 0 at x == 0 unless log(y) is infinite: only those get a 0 factor, so
    # the gradient in x stays log(y) at x == 0, as torch's
    log_y = y.log()
    zero = (x == 0).logical_and(log_y.isinf())
    return x * _C.where(zero, _C.zeros_like(log_y), log_y)


def logaddexp(input: Any, other: Any) -> Any:
    """``log(exp(input) + exp(other))`` without overflow: the larger plus ``log1p(exp(-|difference|))``
    (equal operands, infinite ones included, give the larger plus ``log(2)``)."""
    for position, (name, value) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(value, _C.Tensor):  # as torch: no Python-number form
            raise TypeError(f"logaddexp(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")
    check("logaddexp", input=input, other=other)
    x, y = input, other
    if not x.is_floating_point() or not y.is_floating_point():
        raise TypeError(f"logaddexp: expected floating point tensors, got {x.dtype} and {y.dtype}")
    hi, lo = _C.maximum(x, y), _C.minimum(x, y)
    gap = _C.where(hi == lo, _C.zeros_like(hi), lo - hi)
    return hi + gap.exp().log1p()


def cdist(x1: Any, x2: Any, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Any:
    """The ``p``-norm distance between each row of ``x1`` ``[*b, P, M]`` and each row of ``x2``
    ``[*b, R, M]``: ``[*b, P, R]``. ``compute_mode`` is accepted for torch's sake: the distances are
    always the direct differences' norms (torch's matmul shortcut trades accuracy for speed)."""
    check("cdist", x1=x1, x2=x2, p=p)
    if p < 0:
        raise ValueError(f"cdist only supports non-negative p values, got {p}")
    if not x1.is_floating_point() or not x2.is_floating_point():
        raise TypeError(f"cdist only supports floating-point dtypes, got {x1.dtype} and {x2.dtype}")
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # [*b, P, R, M]
    if p == 0:
        return (diff != 0).to(diff.dtype).sum(-1)
    if p == float("inf"):
        return diff.abs().amax(-1) if diff.shape[-1] else diff.sum(-1)
    return diff.norm(p, -1)


def mv(input: Any, vec: Any) -> Any:
    """Matrix-vector product: exactly a 2-d matrix and a 1-d vector (no broadcasting)."""
    check("mv", input=input, vec=vec)
    return _C.matmul(input, vec)


def positive(input: Any) -> Any:
    """Unary plus returns its input itself, as torch does."""
    if input.dtype == _C.bool:
        raise TypeError("positive is not supported for bool tensors")
    return input


def count_nonzero(input: Any, dim: Any = None) -> Any:
    """How many entries are not zero, over all or the given dims (int64, never keepdim)."""
    check("count_nonzero", input=input, dim=dim)
    nonzero = (input != 0).long()
    return nonzero.sum() if dim is None else nonzero.sum(dim)


def nanmean(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
    """Mean over the entries that are not NaN (NaN where a slice has none, like torch)."""
    if not input.is_floating_point():
        raise TypeError(f"nanmean(): expected a floating point input, got {input.dtype}")
    check("nanmean", input=input, dim=dim, keepdim=keepdim)
    x = input if dtype is None else input.to(dtype)
    present = x.isnan().logical_not()
    total = _C.nansum(x) if dim is None else _C.nansum(x, dim, keepdim)
    count = present.sum() if dim is None else present.sum(dim, keepdim)
    mean = total / count.to(total.dtype)
    return mean.reshape([1] * x.ndim) if dim is None and keepdim else mean


def logcumsumexp(input: Any, dim: int) -> Any:
    """``log(cumsum(exp(x)))`` without overflow or underflow.

    Each step is ``logaddexp(previous, x_i)`` along ``dim``: exact for any range of values (a
    global shift by the row maximum would underflow the small early terms to ``-inf``).
    """
    check("logcumsumexp", input=input, dim=dim)
    if not input.is_floating_point():
        raise TypeError(f"logcumsumexp(): expected a floating point input, got {input.dtype}")
    if input.ndim == 0:
        return input.clone()
    d = dim % input.ndim
    n = input.shape[d]
    if n == 0:
        return input.clone()
    steps = [input.narrow(d, 0, 1)]
    for i in range(1, n):
        prev, cur = steps[-1], input.narrow(d, i, 1)
        hi = _C.maximum(prev, cur)
        finite_hi = _C.where(hi.isinf(), _C.zeros_like(hi), hi)
        steps.append(((prev - finite_hi).exp() + (cur - finite_hi).exp()).log() + finite_hi)
    return _C.cat(steps, d)


def _reduce_dim(op: str, input: Any, dim: int, keepdim: bool) -> tuple[int, Any]:
    check(op, input=input, dim=dim, keepdim=keepdim)
    if input.ndim == 0:
        return 0, input.reshape([1])
    return dim % input.ndim, input


def median(input: Any, dim: Any = None, keepdim: bool = False) -> Any:
    """The lower median (torch's): over everything -> a 0-d tensor; along ``dim`` -> (values, indices).

    The values are gathered from the input by the indices, so they are differentiable.
    """
    if dim is None:
        check("median", input=input)
        flat = input.reshape([-1])
        if flat.shape[0] == 0:
            if input.is_floating_point():  # torch: NaN (for integers it returns an arbitrary value)
                return _C.full([], float("nan"), dtype=input.dtype)
            raise IndexError("median() of an empty tensor")
        order = _C.argsort(flat, 0)
        pick = _nan_first(flat, 0, order.narrow(0, (flat.shape[0] - 1) // 2, 1))
        return flat.index_select(0, pick).reshape([])
    d, x = _reduce_dim("median", input, dim, keepdim)
    order = _C.argsort(x, d)
    pick = _nan_first(x, d, order.narrow(d, (x.shape[d] - 1) // 2, 1))
    values = x.gather(d, pick)
    if input.ndim == 0:
        return values_indices(values.reshape([]), pick.reshape([]))
    if not keepdim:
        values, pick = values.squeeze(d), pick.squeeze(d)
    return values_indices(values, pick)


def _nan_first(x: Any, d: int, pick: Any) -> Any:
    """``pick`` (the median's index along ``d``, kept) where the slice has no NaN, else the index
    of its first NaN: torch's median propagates NaN."""
    if not x.is_floating_point() or x.shape[d] == 0:
        return pick
    nan = x.isnan()
    return _C.where(nan.any(d, keepdim=True), nan.long().argmax(d, keepdim=True), pick)


def mode(input: Any, dim: int = -1, keepdim: bool = False) -> Any:
    """The most frequent value along ``dim`` (the smallest on ties) and an index where it occurs."""
    d, x = _reduce_dim("mode", input, dim, keepdim)
    n = x.shape[d]
    if n == 0:
        raise IndexError("mode(): cannot compute the mode of an empty dimension")
    ordered = _C.sort(x, d)
    vals, idx = ordered.values, ordered.indices
    # run lengths: entry i counts how many of its equal neighbours precede it in sorted order
    counts = _C.ones_like(vals, dtype=_C.int64)
    run = counts.narrow(d, 0, 1)
    runs = [run]
    for i in range(1, n):
        same = (vals.narrow(d, i, 1) == vals.narrow(d, i - 1, 1)).long()
        run = run * same + 1
        runs.append(run)
    lengths = _C.cat(runs, d)
    best = lengths.amax(d, keepdim=True)
    # first position (in sorted order) whose run reaches the longest length: the smallest value
    first = (lengths == best).long().argmax(d, keepdim=True)
    value_pos = idx.gather(d, first)
    values = x.gather(d, value_pos)
    if input.ndim == 0:
        return values_indices(values.reshape([]), value_pos.reshape([]))
    if not keepdim:
        values, value_pos = values.squeeze(d), value_pos.squeeze(d)
    return values_indices(values, value_pos)


def _inplace(name: str) -> Any:
    """``x.name_(...)``: the out-of-place method's result written back into ``x``."""

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return self.copy_(getattr(self, name)(*args, **kwargs))

    method.__name__ = f"{name}_"
    method.__doc__ = f"In-place ``{name}``: writes the result into ``self``."
    return method


wrap_ops(globals())  # the Python-written ops with an autocast policy (NOTE [ Autocast policy ])
FUNCTIONS = tuple(n for n in _exports.FUNCTIONS_IN_PYTHON if n in globals())
_FILLS = (bernoulli_, exponential_, normal_, random_, uniform_)  # attached by install()


_unfold_method = unfold_windows  # noqa: F405  (Tensor.unfold is the entry unfold_windows: NOTE [ Public names ])


def install(tensor_cls: Any) -> None:
    """Attach the Python-written methods of the op table (``x.lerp_(...)``, ``x.median(...)``...),
    ``_X_method`` where the tensor is not the function's first parameter (``polygamma(n, input)``):
    an in-place form is its own function where one is written (``normal_``), else the out-of-place
    method's result written back."""
    for name in _exports.METHODS_IN_PYTHON:  # a method of its own where the function's order differs
        setattr(tensor_cls, name, globals().get(f"_{name}_method") or globals()[name])
    for name in _exports.INPLACE_IN_PYTHON:
        setattr(tensor_cls, f"{name}_", globals().get(f"{name}_") or _inplace(name))
    for name, getter in _PYTHON_PROPERTIES.items():  # the table's properties written in Python (``Tensor.H``)
        setattr(tensor_cls, name, property(getter))


__all__ = [*FUNCTIONS, "install", "values_indices"]

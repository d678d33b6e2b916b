"""Helpers the distributions share (``torch.distributions.utils``): parameter broadcasting, the
probs/logits conversions, and ``lazy_property`` (a parameter computed from the other on first use)."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from functools import update_wrapper
from typing import Any, Generic, TypeVar, overload

Tensor = Any

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits"]

euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant


def _is_tensor(value: object) -> bool:
    import typedtensor as tt

    return isinstance(value, tt.Tensor)


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """The values broadcast to one shape: tensors as ``broadcast_tensors`` does, numbers as tensors of
    the first tensor's dtype and device (the default dtype when all are numbers)."""
    import typedtensor as tt

    if not all(_is_tensor(v) or isinstance(v, numbers.Number) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, "
            "torch.Tensor or objects implementing __torch_function__."
        )
    if not all(_is_tensor(v) for v in values):
        options: dict[str, Any] = {"dtype": tt.float32}  # typedtensor's default dtype
        for value in values:
            if _is_tensor(value):
                options = {"dtype": value.dtype, "device": value.device}
                break
        values = tuple(v if _is_tensor(v) else tt.tensor(v, **options) for v in values)
    return tuple(tt.broadcast_tensors(*values))


def _standard_normal(shape: Sequence[int], dtype: Any, device: Any) -> Tensor:
    """Standard normal draws as torch's ``rsample`` takes them: ``empty(shape).normal_()``."""
    import typedtensor as tt

    return tt.empty(tuple(shape), dtype=dtype, device=device).normal_()


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """``value`` summed over its ``dim`` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape((*tuple(value.shape[:-dim]), -1)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from logits: a sigmoid of log-odds (binary), else a softmax over the last dimension."""
    import typedtensor as tt

    if is_binary:
        return tt.sigmoid(logits)
    return tt.nn.functional.softmax(logits, dim=-1)


def _finfo(dtype: Any) -> Any:
    """A floating dtype's limits (``eps``, ``min``, ``max``) as ``torch.finfo`` gives them."""
    import numpy as np

    if dtype.name == "bfloat16":  # numpy has none: 8 significand bits, float32's exponent range
        return _BFloat16Info()
    return np.finfo(np.dtype(dtype.name))


class _BFloat16Info:
    eps = 2.0**-7
    max = float.fromhex("0x1.fep127")
    min = -max
    tiny = 2.0**-126


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities clamped into ``[eps, 1 - eps]`` with the dtype's machine epsilon."""
    eps = float(_finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits from probabilities (clamped first): log-odds (binary), else their logarithms."""
    import typedtensor as tt

    ps_clamped = clamp_probs(probs)
    if is_binary:
        return tt.log(ps_clamped) - tt.log1p(-ps_clamped)
    return tt.log(ps_clamped)


T = TypeVar("T", contravariant=True)
R = TypeVar("R", covariant=True)


class lazy_property(Generic[T, R]):
    """A value computed on first access and then stored on the instance (with gradients enabled, as
    torch does: ``Categorical(logits=...).probs`` stays differentiable under ``no_grad`` sampling)."""

    def __init__(self, wrapped: Callable[[T], R]) -> None:
        self.wrapped: Callable[[T], R] = wrapped
        update_wrapper(self, wrapped)  # type: ignore[arg-type]

    @overload
    def __get__(self, instance: None, obj_type: Any = None) -> _lazy_property_and_property[T, R]: ...

    @overload
    def __get__(self, instance: T, obj_type: Any = None) -> R: ...

    def __get__(self, instance: T | None, obj_type: Any = None) -> R | _lazy_property_and_property[T, R]:
        import typedtensor as tt

        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with tt.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property[T, R], property):
    """What a lazy property is on the class: a property (for documentation tools) and a lazy property
    (argument validation skips those not computed yet)."""

    def __init__(self, wrapped: Callable[[T], R]) -> None:
        property.__init__(self, wrapped)

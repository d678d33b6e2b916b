"""Gradient clipping (torch.nn.utils.clip_grad): the norm of all gradients together, then one
scale ``min(1, max_norm / (norm + 1e-6))`` applied to each gradient in place."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from typing import Any

from typedtensor._runtime import _C, no_grad

Tensor = Any
TensorOrTensors = Tensor | Iterable[Tensor]


def _tensors(x: TensorOrTensors) -> list[Tensor]:
    return [x] if isinstance(x, _C.Tensor) else list(x)


def _vector_norm(t: Tensor, norm_type: float) -> Tensor:
    flat = t.reshape(-1)
    if math.isinf(norm_type):
        return flat.abs().amax() if norm_type > 0 else flat.abs().amin()
    return flat.norm(norm_type)


def get_total_norm(
    tensors: TensorOrTensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach: bool | None = None,
) -> Tensor:
    """The ``norm_type``-norm of the norms of ``tensors`` (= the norm of them all concatenated)."""
    ts = _tensors(tensors)
    norm_type = float(norm_type)
    if not ts:
        return _C.tensor(0.0)
    with no_grad():
        norms = [_vector_norm(t, norm_type) for t in ts]
        total = _vector_norm(_C.stack([n.to(ts[0].device) for n in norms]), norm_type)
    if error_if_nonfinite and not bool(total.isfinite().item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(
    parameters: TensorOrTensors, max_norm: float, total_norm: Tensor, foreach: bool | None = None,
) -> None:
    """Scale every gradient by ``min(1, max_norm / (total_norm + 1e-6))``."""
    grads = [p.grad for p in _tensors(parameters) if p.grad is not None]
    if not grads:
        return
    with no_grad():
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.device))


def clip_grad_norm_(
    parameters: TensorOrTensors, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Clip the gradients of ``parameters`` in place so that their joint norm is at most
    ``max_norm``; returns the norm before clipping (a 0-d tensor)."""
    params = _tensors(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_norm(
    parameters: TensorOrTensors, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Deprecated spelling of ``clip_grad_norm_`` (torch warns the same way)."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
        FutureWarning, stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: TensorOrTensors, clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient element to ``[-clip_value, clip_value]`` in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _tensors(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)

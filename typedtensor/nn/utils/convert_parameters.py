"""Parameters as one flat vector and back (torch.nn.utils.convert_parameters)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from typedtensor._runtime import _C, no_grad

Tensor = Any


def _one_device(params: list[Tensor]) -> None:
    devices = {str(p.device) for p in params}
    if len(devices) > 1:
        raise TypeError(f"Found parameters on different devices: {sorted(devices)}")


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and concatenated, in order (a new tensor; gradients flow back)."""
    params = list(parameters)
    _one_device(params)
    return _C.cat([p.reshape(-1) for p in params], 0)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into each parameter, in order."""
    if not isinstance(vec, _C.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    params = list(parameters)
    _one_device(params)
    total = sum(int(p.numel()) for p in params)
    if vec.ndim != 1 or int(vec.shape[0]) != total:
        raise ValueError(f"vector_to_parameters: expected a 1-d vector of {total} elements, got shape {list(vec.shape)}")
    offset = 0
    with no_grad():
        for p in params:
            n = int(p.numel())
            p.copy_(vec[offset : offset + n].reshape(p.shape))
            offset += n

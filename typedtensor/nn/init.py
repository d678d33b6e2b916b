"""``nn.init``: fill a tensor in place with torch's initialisation schemes.

Every function runs under ``no_grad`` (filling a parameter is not part of the model's graph) and
returns the tensor it filled. Random values come from the global generator (``tt.manual_seed``)."""

from __future__ import annotations

import math
from typing import Any

from typedtensor._runtime import _C, no_grad

Tensor = Any


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The gain torch recommends for ``nonlinearity`` (scales xavier/kaiming bounds)."""
    linear_fns = {"linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "sigmoid"}
    if nonlinearity in linear_fns:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= int(s)
    return int(tensor.shape[1]) * receptive, int(tensor.shape[0]) * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _fill_from(tensor: Tensor, values: Tensor) -> Tensor:
    with no_grad():
        tensor.copy_(values)
    return tensor


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    if not tensor.is_floating_point():
        raise TypeError(f"uniform_: expected a floating point tensor, got {tensor.dtype}")
    with no_grad():  # torch's init.uniform_ is tensor.uniform_(a, b)
        return tensor.uniform_(a, b)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    if not tensor.is_floating_point():
        raise TypeError(f"normal_: expected a floating point tensor, got {tensor.dtype}")
    with no_grad():  # torch's init.normal_ is tensor.normal_(mean, std)
        return tensor.normal_(mean, std)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0) -> Tensor:
    """Normal(mean, std) restricted to ``[a, b]``: out-of-range draws are redrawn until none remain."""
    if not a < b:
        raise ValueError(f"trunc_normal_: need a < b, got a={a}, b={b}")
    lo, hi = (a - mean) / std, (b - mean) / std
    with no_grad():
        x = _C.randn(*tensor.shape, dtype=_C.float32)
        for _ in range(1000):
            bad = (x < lo).logical_or(x > hi)
            if not bool(bad.any()):
                break
            x = _C.where(bad, _C.randn(*tensor.shape, dtype=_C.float32), x)
        else:  # pragma: no cover - needs [a, b] of negligible mass
            x = x.clamp(lo, hi)
        tensor.copy_(x * std + mean)
    return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    with no_grad():
        tensor.fill_(val)
    return tensor


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def eye_(tensor: Tensor) -> Tensor:
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill_from(tensor, _C.eye(int(tensor.shape[0]), int(tensor.shape[1]), dtype=tensor.dtype))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound)


def xavier_normal_(tensor: Tensor, gain: float = 1.0) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)))


def kaiming_uniform_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu") -> Tensor:
    fan = _fan(tensor, mode)
    if fan == 0:
        return tensor  # torch warns and leaves a zero-element tensor alone
    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu") -> Tensor:
    fan = _fan(tensor, mode)
    if fan == 0:
        return tensor
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan))


def orthogonal_(tensor: Tensor, gain: float = 1.0) -> Tensor:
    """A (semi-)orthogonal matrix, scaled by ``gain``, as torch draws it: the ``Q`` of the QR
    decomposition of a standard-normal ``rows x cols`` matrix (its transpose when wider than tall),
    each column's sign fixed by ``R``'s diagonal so the draw is uniform over orthogonal matrices; a
    tensor of more than 2 dims is filled as ``rows = shape[0]`` by ``cols = the rest``. The
    factorisation runs in float64 on the host (an initialiser, not part of any graph)."""
    import numpy as np

    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor  # torch leaves an empty tensor alone
    rows = int(tensor.shape[0])
    cols = tensor.numel() // rows
    flat = _C.randn(rows, cols, dtype=_C.float32).cpu().numpy().astype(np.float64)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    values = _C.from_numpy(np.ascontiguousarray(q * gain, dtype=np.float32))
    return _fill_from(tensor, values.reshape(tuple(tensor.shape)).to(tensor.dtype).to(tensor.device))


__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "zeros_", "ones_", "eye_",
    "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
]

"""Normalisation modules with torch's parameter and buffer names, defaults and reprs: ``GroupNorm``,
``InstanceNorm1d/2d/3d``, ``BatchNorm3d``, ``LocalResponseNorm`` and ``RMSNorm`` (``BatchNorm1d/2d``
and ``LayerNorm`` are in nn/layers.py)."""

from __future__ import annotations

import warnings
from typing import Any

from typedtensor._runtime import _C
from typedtensor._runtime import functional as F
from typedtensor.nn import init
from typedtensor.nn.layers import _BatchNorm
from typedtensor.nn.module import Module
from typedtensor.nn.parameter import Parameter

Tensor = Any


class GroupNorm(Module):
    """``F.group_norm`` with a per-channel affine ``weight`` / ``bias`` (ones / zeros)."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            dt = dtype if dtype is not None else _C.float32
            self.weight = Parameter(_C.empty(num_channels, dtype=dt, device=device))
            if bias:
                self.bias = Parameter(_C.empty(num_channels, dtype=dt, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class BatchNorm3d(_BatchNorm):
    """Over ``[N, C, D, H, W]``."""

    _ranks = (5,)


class _InstanceNorm(_BatchNorm):
    """Per-(example, channel) statistics; the buffers and parameters of the batch norms (torch's
    ``_NormBase``), with ``affine`` and ``track_running_stats`` off by default."""

    _nd = 1

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input: Tensor) -> Tensor:
        nd = self._nd
        if input.ndim not in (nd + 1, nd + 2):
            raise ValueError(f"expected {nd + 1}D or {nd + 2}D input (got {input.ndim}D input)")
        channels = int(input.shape[input.ndim - nd - 1])
        if channels != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={input.ndim - nd - 1} to match num_features "
                                 f"({self.num_features}), but got: {channels}.")
            warnings.warn(f"input's size at dim={input.ndim - nd - 1} does not match num_features. You can silence "
                          f"this warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        unbatched = input.ndim == nd + 1
        x = input.unsqueeze(0) if unbatched else input
        out = F.instance_norm(
            x, self.running_mean, self.running_var, self.weight, self.bias,
            self.training or not self.track_running_stats, self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )
        return out.squeeze(0) if unbatched else out



class InstanceNorm1d(_InstanceNorm):
    """Over ``[N, C, L]`` (or ``[C, L]``)."""

    _nd = 1


class InstanceNorm2d(_InstanceNorm):
    """Over ``[N, C, H, W]`` (or ``[C, H, W]``)."""

    _nd = 2


class InstanceNorm3d(_InstanceNorm):
    """Over ``[N, C, D, H, W]`` (or ``[C, D, H, W]``)."""

    _nd = 3


class LocalResponseNorm(Module):
    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class RMSNorm(Module):
    """``x / sqrt(mean(x^2) + eps) * weight`` over the trailing ``normalized_shape`` dims."""

    def __init__(self, normalized_shape: Any, eps: float | None = None, elementwise_affine: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape = tuple(int(s) for s in shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            dt = dtype if dtype is not None else _C.float32
            self.weight = Parameter(_C.empty(*self.normalized_shape, dtype=dt, device=device))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, input: Tensor) -> Tensor:
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"

"""The 1-d and 3-d pools, the adaptive pools beyond ``AdaptiveAvgPool2d``, the max unpools and the
power-average pools, with torch's
constructor signatures, stored attributes and reprs (``MaxPool2d`` / ``AvgPool2d`` /
``AdaptiveAvgPool2d`` are in nn/layers.py)."""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import functional as F
from typedtensor.nn.module import Module

Tensor = Any


class _MaxPoolNd(Module):
    _fn = "max_pool1d"

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Any:
        return getattr(F, self._fn)(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                    ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """Max over windows of ``[N, C, L]`` (or ``[C, L]``)."""

    _fn = "max_pool1d"


class MaxPool3d(_MaxPoolNd):
    """Max over windows of ``[N, C, D, H, W]`` (or unbatched)."""

    _fn = "max_pool3d"


def _single(v: Any) -> tuple[Any, ...]:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,)


class AvgPool1d(Module):
    """Average over windows of ``[N, C, L]``; like torch, it keeps its sizes as 1-tuples."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool3d(Module):
    """Average over windows of ``[N, C, D, H, W]`` (or unbatched)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptiveAvgPoolNd(Module):
    _fn = "adaptive_avg_pool1d"

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return getattr(F, self._fn)(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    _fn = "adaptive_avg_pool1d"


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    _fn = "adaptive_avg_pool3d"


class _AdaptiveMaxPoolNd(Module):
    _fn = "adaptive_max_pool1d"

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return getattr(F, self._fn)(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    _fn = "adaptive_max_pool1d"


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    _fn = "adaptive_max_pool2d"


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    _fn = "adaptive_max_pool3d"


def _ntuple(v: Any, n: int) -> tuple[Any, ...]:
    """torch's ``_single`` / ``_pair`` / ``_triple``: a sequence as a tuple, a value repeated."""
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _MaxUnpoolNd(Module):
    _nd = 1

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, self._nd)
        self.stride = _ntuple(stride if stride is not None else kernel_size, self._nd)
        self.padding = _ntuple(padding, self._nd)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return getattr(F, f"max_unpool{self._nd}d")(input, indices, self.kernel_size, self.stride, self.padding,
                                                     output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """max_pool1d's partial inverse: each value back at its index, zeros elsewhere."""

    _nd = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """max_pool2d's partial inverse: each value back at its index, zeros elsewhere."""

    _nd = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """max_pool3d's partial inverse: each value back at its index, zeros elsewhere."""

    _nd = 3


class _LPPoolNd(Module):
    _nd = 1

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return getattr(F, f"lp_pool{self._nd}d")(input, float(self.norm_type), self.kernel_size, self.stride,
                                                 self.ceil_mode)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """The power-average pool over ``[N, C, L]``."""

    _nd = 1


class LPPool2d(_LPPoolNd):
    """The power-average pool over ``[N, C, H, W]``."""

    _nd = 2


class LPPool3d(_LPPoolNd):
    """The power-average pool over ``[N, C, D, H, W]``."""

    _nd = 3

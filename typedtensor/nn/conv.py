"""The convolution modules with torch's constructor signatures, parameter names, initialisation and
reprs: ``Conv1d``, ``Conv2d``, ``Conv3d``, ``ConvTranspose1d``, ``ConvTranspose2d``.

A ``padding_mode`` other than ``'zeros'`` pads with ``F.pad`` first and convolves without padding,
as torch does; the transposed convolutions take ``'zeros'`` only (as in torch)."""

from __future__ import annotations

import math
from typing import Any

from typedtensor._runtime import _C
from typedtensor._runtime import functional as F
from typedtensor._runtime.conv import ntuple, same_padding
from typedtensor.nn import init
from typedtensor.nn.module import Module
from typedtensor.nn.parameter import Parameter

Tensor = Any

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _size(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"{what} must be a non-negative int, got {v!r}")
    return int(v)


class _ConvNd(Module):
    """What the convolutions share: the checks, the parameters, their initialisation and the repr."""

    _nd = 2
    _transposed = False

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
        output_padding: Any, groups: int, bias: bool, padding_mode: str, device: Any, dtype: Any,
    ) -> None:
        super().__init__()
        name, nd = type(self).__name__, self._nd
        self.in_channels = _size(in_channels, f"{name}: in_channels")
        self.out_channels = _size(out_channels, f"{name}: out_channels")
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {list(_PADDING_MODES)}, but got padding_mode='{padding_mode}'")
        if self._transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        self.kernel_size = ntuple(kernel_size, nd, "kernel_size")
        self.stride = ntuple(stride, nd, "stride")
        self.dilation = ntuple(dilation, nd, "dilation")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string '{padding}', should be one of ('valid', 'same')")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding: Any = padding
        else:
            self.padding = ntuple(padding, nd, "padding")
        self.output_padding = ntuple(output_padding, nd, "output_padding")
        self.groups = groups
        self.padding_mode = padding_mode
        if padding == "same":
            self._reversed_padding_repeated_twice = same_padding(self.kernel_size, self.dilation)
        elif padding == "valid":
            self._reversed_padding_repeated_twice = (0,) * (2 * nd)
        else:
            self._reversed_padding_repeated_twice = tuple(p for p in reversed(self.padding) for _ in range(2))
        shape = ((in_channels, out_channels // groups) if self._transposed else (out_channels, in_channels // groups))
        dt = dtype if dtype is not None else _C.float32
        self.weight = Parameter(_C.empty(*shape, *self.kernel_size, dtype=dt, device=device))
        if bias:
            self.bias = Parameter(_C.empty(out_channels, dtype=dt, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # torch's default: kaiming_uniform(a=sqrt(5)) on the weight, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) on the bias
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        nd = self._nd
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * nd:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * nd:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * nd:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _conv(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        fn = getattr(F, f"conv{self._nd}d")
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return fn(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv(input, self.weight, self.bias)


class Conv1d(_ConvNd):
    """1-d convolution over ``[N, C, L]`` (or unbatched ``[C, L]``)."""

    _nd = 1

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
        dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, 0, groups, bias,
                         padding_mode, device, dtype)


class Conv2d(_ConvNd):
    """2-d convolution over ``[N, C, H, W]`` (or unbatched ``[C, H, W]``)."""

    _nd = 2

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
        dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, 0, groups, bias,
                         padding_mode, device, dtype)


class Conv3d(_ConvNd):
    """3-d convolution over ``[N, C, D, H, W]`` (or unbatched ``[C, D, H, W]``)."""

    _nd = 3

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
        dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, 0, groups, bias,
                         padding_mode, device, dtype)


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
        output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1, padding_mode: str = "zeros",
        device: Any = None, dtype: Any = None,
    ) -> None:
        if isinstance(padding, str):
            raise ValueError(f"{type(self).__name__}: padding must be an int or a tuple, not a string")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, output_padding, groups,
                         bias, padding_mode, device, dtype)

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple[int, ...]:
        """torch's rule: the output_padding that makes the output ``output_size`` (its last ``nd``
        values), which must lie between the smallest size and that plus ``stride - 1``."""
        if output_size is None:
            return self.output_padding
        nd = self._nd
        sizes = [int(v) for v in (output_size if isinstance(output_size, (tuple, list)) else (output_size,))]
        if len(sizes) in (nd + 1, nd + 2):
            sizes = sizes[-nd:]
        if len(sizes) != nd:
            raise ValueError(f"ConvTranspose{nd}D: for {input.ndim}D input, output_size must have {nd} or "
                             f"{nd + 2} elements (got {len(sizes)})")
        out = []
        for d in range(nd):
            size = int(input.shape[input.ndim - nd + d])
            lo = ((size - 1) * self.stride[d] - 2 * self.padding[d] + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            hi = lo + self.stride[d] - 1
            if not lo <= sizes[d] <= hi:
                raise ValueError(f"requested an output size of {sizes}, but valid sizes range from {lo} to {hi} "
                                 f"(for an input of {list(input.shape[2:])})")
            out.append(sizes[d] - lo)
        return tuple(out)

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        fn = getattr(F, f"conv_transpose{self._nd}d")
        return fn(input, self.weight, self.bias, self.stride, self.padding, self._output_padding(input, output_size),
                  self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """The transposed 1-d convolution (conv1d's input-gradient) over ``[N, C_in, L]``; weight ``[C_in, C_out / groups, k]``."""

    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """The transposed 2-d convolution (conv2d's input-gradient) over ``[N, C_in, H, W]``; weight
    ``[C_in, C_out / groups, kH, kW]``."""

    _nd = 2

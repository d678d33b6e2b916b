"""torch's padding modules (``torch.nn.modules.padding``): ``F.pad`` with a fixed padding and mode.

``padding`` is an int (the same on every side of every padded dim) or a tuple of ``2 * n`` ints in
``F.pad``'s order (last dim first: left, right, top, bottom, front, back), as in torch; the ``Nd``
of the name is how many trailing dims are padded. The reprs are torch's (``ReflectionPad2d((1, 1,
1, 1))``, ``ConstantPad2d(padding=(1, 1, 1, 1), value=3.5)``)."""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import functional as F
from typedtensor.nn.module import Module

Tensor = Any


def _expand(padding: int | tuple[int, ...] | list[int], dims: int, name: str) -> tuple[int, ...]:
    if isinstance(padding, int):
        return (padding,) * (2 * dims)
    pads = tuple(int(p) for p in padding)
    if len(pads) != 2 * dims:
        raise ValueError(f"{name}: padding must be an int or a tuple of {2 * dims} ints, got {padding!r}")
    return pads


class _PadNd(Module):
    """``F.pad(input, self.padding, mode)``: the shared body of every padding module."""

    _dims = 0
    _mode = "constant"

    def __init__(self, padding: int | tuple[int, ...]) -> None:
        super().__init__()
        self.padding: tuple[int, ...] = _expand(padding, self._dims, type(self).__name__)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: int | tuple[int, ...], value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    _dims = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding: int | tuple[int, ...]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    _dims = 1


class ZeroPad2d(_ZeroPadNd):
    _dims = 2


class ZeroPad3d(_ZeroPadNd):
    _dims = 3


class ReflectionPad1d(_PadNd):
    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    _dims, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    _dims, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    _dims, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    _dims, _mode = 3, "replicate"


class CircularPad1d(_PadNd):
    _dims, _mode = 1, "circular"


class CircularPad2d(_PadNd):
    _dims, _mode = 2, "circular"


class CircularPad3d(_PadNd):
    _dims, _mode = 3, "circular"


__all__ = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
]

"""``finfo``, ``iinfo``, ``Size`` and the default dtype: torch's numeric-limit objects and the shape
tuple type, which attention masks (``torch.finfo(x.dtype).min``), initialisers and shape checks in
real programs reach for before any op runs.

The limits are torch's values (numpy's for the IEEE types; bfloat16's from its 8-bit exponent and
7-bit mantissa) and print as torch prints them. ``Tensor.shape`` stays a plain ``tuple`` (it is read
in every hot loop); ``Size`` is the tuple subclass torch constructs, with ``numel()``, for programs
that build one (``torch.Size([2, 3])``) or compare against one.

The default dtype is float32 and stays so: ``set_default_dtype`` accepts float32 (what it already
is) and refuses the others with a clear error, because the backend's factories and type promotion
fix float32 as the default floating type (docs/torch-differences.md says so).
"""

from __future__ import annotations

from typing import Any, SupportsIndex

import numpy as np

_FLOATS: dict[str, type[np.floating[Any]]] = {"float16": np.float16, "float32": np.float32, "float64": np.float64}
_INTS: dict[str, type[np.integer[Any]]] = {"uint8": np.uint8, "int32": np.int32, "int64": np.int64}


def _name(dtype: Any) -> str:
    """The dtype's short name (``float32``) for a typedtensor dtype."""
    return str(dtype).rsplit(".", 1)[-1]


def _g(v: float) -> str:
    return f"{v:g}"


class finfo:
    """Machine limits of a floating dtype (torch.finfo): bits, eps, max, min, tiny, smallest_normal,
    resolution, and dtype as its name."""

    bits: int
    eps: float
    max: float
    min: float
    tiny: float
    smallest_normal: float
    resolution: float
    dtype: str

    def __init__(self, type: Any = None) -> None:
        from typedtensor._runtime import float32

        name = _name(float32 if type is None else type)
        if name == "bfloat16":
            # 8 exponent bits (float32's range), 7 stored mantissa bits
            self.bits, self.eps = 16, 2.0**-7
            self.max = (2.0 - 2.0**-7) * 2.0**127
            self.tiny = self.smallest_normal = 2.0**-126
            self.resolution = 0.01
        elif name in _FLOATS:
            info = np.finfo(_FLOATS[name])
            self.bits, self.eps, self.max = int(info.bits), float(info.eps), float(info.max)
            self.tiny = self.smallest_normal = float(info.smallest_normal)
            self.resolution = 10.0 ** -int(info.precision)  # torch: 10^-(decimal digits), not rounded to the type
        else:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'")
        self.min = -self.max
        self.dtype = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, max={_g(self.max)}, eps={_g(self.eps)}, "
                f"smallest_normal={_g(self.smallest_normal)}, tiny={_g(self.tiny)}, dtype={self.dtype})")


class iinfo:
    """Machine limits of an integer dtype (torch.iinfo): bits, min, max, and dtype as its name."""

    bits: int
    min: int
    max: int
    dtype: str

    def __init__(self, type: Any) -> None:
        name = _name(type)
        if name not in _INTS:
            raise TypeError(f"torch.{name} is not supported by torch.iinfo")
        info = np.iinfo(_INTS[name])
        self.bits, self.min, self.max, self.dtype = int(info.bits), int(info.min), int(info.max), name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={_g(self.min)}, max={_g(self.max)}, dtype={self.dtype})"


class Size(tuple[int, ...]):
    """torch.Size: a tuple of sizes with ``numel()``; slicing and ``+`` keep the type, as in torch."""

    def __new__(cls, sizes: Any = ()) -> Size:
        items = tuple(sizes)
        for s in items:
            if isinstance(s, bool) or not isinstance(s, SupportsIndex):
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item {len(items)} is '{type(s).__name__}')")
        return super().__new__(cls, (int(s.__index__()) for s in items))

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, idx: Any) -> Any:
        out = super().__getitem__(idx)
        return Size(out) if isinstance(idx, slice) else out

    def __add__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __repr__(self) -> str:
        return f"typedtensor.Size({list(self)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Size, (tuple(self),))


def get_default_dtype() -> Any:
    """The dtype of floating tensors made from Python floats and of the float factories: float32."""
    from typedtensor._runtime import float32

    return float32


def set_default_dtype(d: Any) -> None:
    """torch.set_default_dtype: float32 is accepted (it is the default); any other dtype is refused,
    because the backend fixes float32 as the default floating type (a program that asks for float64
    by default would otherwise compute in float32 without a word)."""
    from typedtensor._runtime import float32

    name = _name(d)
    if name not in _FLOATS and name != "bfloat16":
        raise TypeError(f"only floating-point types are supported as the default type, got {name}")
    if d != float32:
        raise NotImplementedError(
            f"typedtensor.set_default_dtype({name}): the default floating dtype is float32 and cannot be changed; "
            f"pass dtype={name} to the factories (or call .to({name})) instead")


for _cls in (finfo, iinfo, Size):
    _cls.__module__ = "typedtensor"

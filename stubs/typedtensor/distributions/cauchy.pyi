from collections.abc import Sequence
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

from .distribution import Distribution

_T = Tensor[Unpack[tuple[Any, ...]]]

__all__ = ["Cauchy", "Gumbel", "HalfNormal"]

class Cauchy(Distribution):
    loc: _T
    scale: _T
    def __init__(self, loc: _T | float, scale: _T | float, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Cauchy: ...

class Gumbel(Distribution):
    loc: _T
    scale: _T
    def __init__(self, loc: _T | float, scale: _T | float, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Gumbel: ...

class HalfNormal(Distribution):
    scale: _T
    def __init__(self, scale: _T | float, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> HalfNormal: ...

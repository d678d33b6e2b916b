from collections.abc import Sequence
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

from .distribution import Distribution
from .transforms import Transform

_T = Tensor[Unpack[tuple[Any, ...]]]

__all__ = ["LogNormal", "TransformedDistribution"]

class TransformedDistribution(Distribution):
    base_dist: Distribution
    transforms: list[Transform]
    def __init__(self, base_distribution: Distribution, transforms: Transform | Sequence[Transform],
                 validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> TransformedDistribution: ...

class LogNormal(TransformedDistribution):
    def __init__(self, loc: _T | float, scale: _T | float, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> LogNormal: ...
    @property
    def loc(self) -> _T: ...
    @property
    def scale(self) -> _T: ...

from collections.abc import Sequence
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

from .distribution import Distribution

_T = Tensor[Unpack[tuple[Any, ...]]]

__all__ = ["Uniform"]

class Uniform(Distribution):
    low: _T
    high: _T
    def __init__(self, low: _T | float, high: _T | float, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Uniform: ...

from collections.abc import Sequence
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

from .distribution import Distribution

_T = Tensor[Unpack[tuple[Any, ...]]]

__all__ = ["Exponential"]

class Exponential(Distribution):
    rate: _T
    def __init__(self, rate: _T | float, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Exponential: ...

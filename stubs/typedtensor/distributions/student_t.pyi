from collections.abc import Sequence
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

from .distribution import Distribution

_T = Tensor[Unpack[tuple[Any, ...]]]

__all__ = ["StudentT"]

class StudentT(Distribution):
    df: _T
    loc: _T
    scale: _T
    def __init__(self, df: _T | float, loc: _T | float = 0.0, scale: _T | float = 1.0, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> StudentT: ...

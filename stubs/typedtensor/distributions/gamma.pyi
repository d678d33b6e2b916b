from collections.abc import Sequence
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

from .distribution import Distribution

_T = Tensor[Unpack[tuple[Any, ...]]]

__all__ = ["Chi2", "Gamma"]

class Gamma(Distribution):
    concentration: _T
    rate: _T
    def __init__(self, concentration: _T | float, rate: _T | float, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Gamma: ...

class Chi2(Gamma):
    def __init__(self, df: _T | float, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Chi2: ...
    @property
    def df(self) -> _T: ...

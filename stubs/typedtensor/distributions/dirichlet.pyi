from collections.abc import Sequence
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

from .distribution import Distribution

_T = Tensor[Unpack[tuple[Any, ...]]]

__all__ = ["Beta", "Dirichlet"]

class Dirichlet(Distribution):
    concentration: _T
    def __init__(self, concentration: _T, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Dirichlet: ...

class Beta(Distribution):
    def __init__(self, concentration1: _T | float, concentration0: _T | float, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Beta: ...
    @property
    def concentration1(self) -> _T: ...
    @property
    def concentration0(self) -> _T: ...

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from .distribution import Distribution

__all__ = ["Independent"]

_D = TypeVar("_D", bound=Distribution)

class Independent(Distribution, Generic[_D]):
    base_dist: _D
    reinterpreted_batch_ndims: int
    def __init__(
        self, base_distribution: _D, reinterpreted_batch_ndims: int, validate_args: bool | None = None
    ) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Independent[_D]: ...

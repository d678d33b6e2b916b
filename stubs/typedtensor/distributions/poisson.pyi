from collections.abc import Sequence
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

from .distribution import Distribution

_T = Tensor[Unpack[tuple[Any, ...]]]

__all__ = ["Binomial", "Poisson"]

class Poisson(Distribution):
    rate: _T
    def __init__(self, rate: _T | float, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Poisson: ...

class Binomial(Distribution):
    total_count: _T
    probs: _T
    logits: _T
    def __init__(self, total_count: _T | int = 1, probs: _T | float | None = None, logits: _T | float | None = None, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Binomial: ...

from collections.abc import Sequence
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

from .distribution import Distribution

_T = Tensor[Unpack[tuple[Any, ...]]]

__all__ = ["Geometric"]

class Geometric(Distribution):
    probs: _T
    logits: _T
    def __init__(self, probs: _T | float | None = None, logits: _T | float | None = None, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Geometric: ...

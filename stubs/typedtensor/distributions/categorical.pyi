from collections.abc import Sequence
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

from .distribution import Distribution

_T = Tensor[Unpack[tuple[Any, ...]]]

__all__ = ["Categorical"]

class Categorical(Distribution):
    probs: _T
    logits: _T
    def __init__(self, probs: _T | None = None, logits: _T | None = None, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Categorical: ...
    @property
    def param_shape(self) -> tuple[int, ...]: ...

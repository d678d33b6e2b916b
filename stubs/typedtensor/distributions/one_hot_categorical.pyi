from collections.abc import Sequence
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

from .distribution import Distribution

_T = Tensor[Unpack[tuple[Any, ...]]]

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]

class OneHotCategorical(Distribution):
    def __init__(self, probs: _T | None = None, logits: _T | None = None, validate_args: bool | None = None) -> None: ...
    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> OneHotCategorical: ...
    @property
    def probs(self) -> _T: ...
    @property
    def logits(self) -> _T: ...
    @property
    def param_shape(self) -> tuple[int, ...]: ...

class OneHotCategoricalStraightThrough(OneHotCategorical): ...

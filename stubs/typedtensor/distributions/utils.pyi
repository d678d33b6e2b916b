from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

from typing_extensions import Unpack

from typedtensor import Tensor

_T = Tensor[Unpack[tuple[Any, ...]]]
_S = TypeVar("_S", contravariant=True)
_R = TypeVar("_R", covariant=True)

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits"]

euler_constant: float

def broadcast_all(*values: _T | float) -> tuple[_T, ...]: ...
def logits_to_probs(logits: _T, is_binary: bool = False) -> _T: ...
def clamp_probs(probs: _T) -> _T: ...
def probs_to_logits(probs: _T, is_binary: bool = False) -> _T: ...

class lazy_property(Generic[_S, _R]):
    wrapped: Callable[[_S], _R]
    def __init__(self, wrapped: Callable[[_S], _R]) -> None: ...
    @overload
    def __get__(self, instance: None, obj_type: Any = None) -> lazy_property[_S, _R]: ...
    @overload
    def __get__(self, instance: _S, obj_type: Any = None) -> _R: ...

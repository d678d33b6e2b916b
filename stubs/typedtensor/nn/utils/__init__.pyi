from collections.abc import Iterable
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

from . import rnn as rnn

_AnyTensor = Tensor[Unpack[tuple[Any, ...]]]
_Tensors = _AnyTensor | Iterable[_AnyTensor]

def get_total_norm(
    tensors: _Tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach: bool | None = None
) -> _AnyTensor: ...
def clip_grads_with_norm_(parameters: _Tensors, max_norm: float, total_norm: _AnyTensor, foreach: bool | None = None) -> None: ...
def clip_grad_norm_(
    parameters: _Tensors, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> _AnyTensor: ...
def clip_grad_norm(
    parameters: _Tensors, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> _AnyTensor: ...
def clip_grad_value_(parameters: _Tensors, clip_value: float, foreach: bool | None = None) -> None: ...
def parameters_to_vector(parameters: Iterable[_AnyTensor]) -> _AnyTensor: ...
def vector_to_parameters(vec: _AnyTensor, parameters: Iterable[_AnyTensor]) -> None: ...

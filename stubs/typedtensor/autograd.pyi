# typedtensor.autograd: gradients of tensors (the sweep runs in C++, backend/src/autograd).
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, TypeAlias, TypeVar

from typing_extensions import Unpack

from . import Tensor

_F = TypeVar("_F", bound=Callable[..., Any])
_AnyTensor: TypeAlias = Tensor[Unpack[tuple[Any, ...]]]
_Tensors: TypeAlias = _AnyTensor | Sequence[_AnyTensor]
_OptTensors: TypeAlias = _AnyTensor | Sequence[_AnyTensor | None] | None

class Node:
    """A recorded op in the graph (`tensor.grad_fn`)."""

    def name(self) -> str: ...
    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]: ...

class GradcheckError(RuntimeError): ...

class _GradMode:
    def __enter__(self) -> None: ...
    def __exit__(
        self, t: type[BaseException] | None, v: BaseException | None, tb: TracebackType | None
    ) -> None: ...
    def __call__(self, fn: _F) -> _F: ...

class no_grad(_GradMode):
    def __init__(self) -> None: ...

class enable_grad(_GradMode):
    def __init__(self) -> None: ...

class set_grad_enabled(_GradMode):
    def __init__(self, mode: bool) -> None: ...

def is_grad_enabled() -> bool: ...
def backward(
    tensors: _Tensors,
    grad_tensors: _OptTensors = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: _OptTensors = None,
    inputs: _Tensors | None = None,
) -> None: ...
def grad(
    outputs: _Tensors,
    inputs: _Tensors,
    grad_outputs: _OptTensors = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple[_AnyTensor | None, ...]: ...
def gradcheck(
    fn: Callable[..., Any],
    inputs: _AnyTensor | Sequence[Any],
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
) -> bool: ...

"""``nn.Parameter``: a tensor that a ``Module`` registers as one of its learnable weights.

It is a subclass of the compiled ``Tensor`` whose constructor makes a detached alias of ``data``
(same storage, fresh autograd state), so ``Parameter(t)`` never leaks ``t``'s history and the
module owns a leaf that the optimiser updates in place."""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import _C

_TensorBase: Any = _C.Tensor


class Parameter(_TensorBase):  # type: ignore[misc]  # the compiled class is untyped to mypy
    """A leaf tensor that requires grad (unless told otherwise) and is found by ``Module.parameters``."""

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, _C.Tensor):
            raise TypeError(f"Parameter: expected a Tensor, got {type(data).__name__}")
        super().__init__(data)
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + str(super().__repr__())

    __str__ = __repr__

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) not in memo:
            memo[id(self)] = Parameter(self.detach().clone(), self.requires_grad)
        out: Parameter = memo[id(self)]
        return out

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


class Buffer(_TensorBase):  # type: ignore[misc]  # the compiled class is untyped to mypy
    """``nn.Buffer(data, persistent=True)``: assigned as a module attribute, it registers as a buffer
    (``register_buffer(name, data, persistent)``), as a plain tensor does not. Like ``Parameter``, a
    detached alias of ``data``."""

    def __init__(self, data: Any = None, *, persistent: bool = True) -> None:
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, _C.Tensor):
            raise TypeError(f"Buffer: expected a Tensor, got {type(data).__name__}")
        super().__init__(data)
        if data.requires_grad:
            self.requires_grad_(True)
        self.persistent = persistent


_UNINITIALIZED_USE = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
    "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
    "`forward` to initialize the parameters before accessing their attributes."
)


class _UninitializedTensor:
    """What the uninitialised parameter and buffer share (torch's ``UninitializedTensorMixin``): no
    values until ``materialize(shape)``, which gives the object its data and its ``cls_to_become``,
    keeping its identity (an optimiser built before a lazy module's first call still holds it)."""

    cls_to_become: type

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        t: Any = self
        t.data = _C.empty(*_sizes(shape), device=device if device is not None else t.device,
                          dtype=dtype if dtype is not None else t.dtype)
        t.__class__ = self.cls_to_become

    @property
    def shape(self) -> Any:
        raise RuntimeError(_UNINITIALIZED_USE)

    def size(self, dim: Any = None) -> Any:
        raise RuntimeError(_UNINITIALIZED_USE)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__


class UninitializedParameter(_UninitializedTensor, Parameter):
    """A parameter whose shape a lazy module learns from its first input (``nn.LazyLinear``, ...);
    materialised, a plain ``Parameter``."""

    cls_to_become = Parameter

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(_C.empty(0, dtype=dtype if dtype is not None else _C.float32, device=device), requires_grad)

    def __deepcopy__(self, memo: dict[int, Any]) -> UninitializedParameter:
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        out: UninitializedParameter = memo[id(self)]
        return out


class UninitializedBuffer(_UninitializedTensor, Buffer):
    """The buffer counterpart (a lazy norm layer's running statistics); materialised, an
    ``nn.Buffer``: typedtensor's compiled tensor class cannot be switched to from a Python
    subclass, as torch's ``Tensor`` can."""

    cls_to_become = Buffer

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None, *,
                 persistent: bool = True) -> None:
        data = _C.empty(0, dtype=dtype if dtype is not None else _C.float32, device=device)
        super().__init__(data.requires_grad_(requires_grad), persistent=persistent)


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is an ``UninitializedParameter`` or ``UninitializedBuffer``."""
    return isinstance(param, _UninitializedTensor)


def _sizes(shape: Any) -> tuple[int, ...]:
    return (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)

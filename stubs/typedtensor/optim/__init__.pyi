from collections.abc import Callable, Iterable
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

from . import lr_scheduler as lr_scheduler

_Params = Iterable[Tensor[Unpack[tuple[Any, ...]]]] | Iterable[dict[str, Any]]

class Optimizer:
    defaults: dict[str, Any]
    param_groups: list[dict[str, Any]]
    state: dict[Any, dict[str, Any]]
    def __init__(self, params: _Params, defaults: dict[str, Any]) -> None: ...
    def add_param_group(self, param_group: dict[str, Any]) -> None: ...
    def step(self, closure: Callable[[], Any] | None = None) -> Any: ...
    def zero_grad(self, set_to_none: bool = True) -> None: ...
    def state_dict(self) -> dict[str, Any]: ...
    def load_state_dict(self, state_dict: dict[str, Any]) -> None: ...

class SGD(Optimizer):
    def __init__(
        self,
        params: _Params,
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
    ) -> None: ...

class Adam(Optimizer):
    def __init__(
        self,
        params: _Params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ) -> None: ...

class AdamW(Adam):
    def __init__(
        self,
        params: _Params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ) -> None: ...

from collections.abc import Iterable
from typing import Any

from typedtensor import Tensor

_Params = Iterable[Tensor[*tuple[Any, ...]]] | Iterable[dict[str, Any]]

class Optimizer:
    param_groups: list[dict[str, Any]]
    def __init__(self, params: _Params, defaults: dict[str, Any]) -> None: ...
    def step(self) -> None: ...
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
    ) -> None: ...

class Adam(Optimizer):
    def __init__(
        self,
        params: _Params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None: ...

class AdamW(Optimizer):
    def __init__(
        self,
        params: _Params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
    ) -> None: ...

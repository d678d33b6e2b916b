from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

from . import lr_scheduler as lr_scheduler
from . import optimizer as optimizer

_Params = Iterable[Tensor[Unpack[tuple[Any, ...]]]] | Iterable[dict[str, Any]]
_Hook = Callable[..., Any]

class _Handle:
    def remove(self) -> None: ...

class Optimizer:
    defaults: dict[str, Any]
    param_groups: list[dict[str, Any]]
    state: defaultdict[Any, dict[str, Any]]
    def __init__(self, params: _Params, defaults: dict[str, Any]) -> None: ...
    def add_param_group(self, param_group: dict[str, Any]) -> None: ...
    def step(self, closure: Callable[[], Any] | None = None) -> Any: ...
    def zero_grad(self, set_to_none: bool = True) -> None: ...
    def state_dict(self) -> dict[str, Any]: ...
    def load_state_dict(self, state_dict: dict[str, Any]) -> None: ...
    def register_step_pre_hook(self, hook: _Hook) -> _Handle: ...
    def register_step_post_hook(self, hook: _Hook) -> _Handle: ...

class SGD(Optimizer):
    def __init__(
        self, params: _Params, lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
        weight_decay: float = 0.0, nesterov: bool = False, *, maximize: bool = False, foreach: bool | None = None,
        differentiable: bool = False, fused: bool | None = None,
    ) -> None: ...

class Adam(Optimizer):
    def __init__(
        self, params: _Params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
        weight_decay: float = 0.0, amsgrad: bool = False, *, foreach: bool | None = None, maximize: bool = False,
        capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None: ...

class AdamW(Adam):
    def __init__(
        self, params: _Params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
        weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False, foreach: bool | None = None,
        capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
    ) -> None: ...

class Adadelta(Optimizer):
    def __init__(
        self, params: _Params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0.0,
        foreach: bool | None = None, *, capturable: bool = False, maximize: bool = False, differentiable: bool = False,
    ) -> None: ...

class Adagrad(Optimizer):
    def __init__(
        self, params: _Params, lr: float = 1e-2, lr_decay: float = 0.0, weight_decay: float = 0.0,
        initial_accumulator_value: float = 0.0, eps: float = 1e-10, foreach: bool | None = None, *,
        maximize: bool = False, differentiable: bool = False, fused: bool | None = None,
    ) -> None: ...

class RMSprop(Optimizer):
    def __init__(
        self, params: _Params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0.0,
        momentum: float = 0.0, centered: bool = False, capturable: bool = False, foreach: bool | None = None,
        maximize: bool = False, differentiable: bool = False,
    ) -> None: ...

class Adamax(Optimizer):
    def __init__(
        self, params: _Params, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
        weight_decay: float = 0.0, foreach: bool | None = None, *, maximize: bool = False,
        differentiable: bool = False, capturable: bool = False,
    ) -> None: ...

class NAdam(Optimizer):
    def __init__(
        self, params: _Params, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
        weight_decay: float = 0.0, momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *,
        foreach: bool | None = None, maximize: bool = False, capturable: bool = False, differentiable: bool = False,
    ) -> None: ...

class RAdam(Optimizer):
    def __init__(
        self, params: _Params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
        weight_decay: float = 0.0, decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
        maximize: bool = False, capturable: bool = False, differentiable: bool = False,
    ) -> None: ...

class LBFGS(Optimizer):
    def __init__(
        self, params: _Params, lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
        tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None: ...
    def step(self, closure: Callable[[], Any]) -> Any: ...  # type: ignore[override]

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from . import Optimizer

class LRScheduler:
    optimizer: Optimizer
    base_lrs: list[float]
    last_epoch: int
    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None: ...
    def get_lr(self) -> list[float]: ...
    def get_last_lr(self) -> list[float]: ...
    def step(self, epoch: int | None = None) -> None: ...
    def state_dict(self) -> dict[str, Any]: ...
    def load_state_dict(self, state_dict: dict[str, Any]) -> None: ...

_Lambda = Callable[[int], float] | list[Callable[[int], float]]

class LambdaLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, lr_lambda: _Lambda, last_epoch: int = -1) -> None: ...

class MultiplicativeLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, lr_lambda: _Lambda, last_epoch: int = -1) -> None: ...

class StepLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None: ...

class MultiStepLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1, last_epoch: int = -1) -> None: ...

class ConstantLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, factor: float = ..., total_iters: int = 5, last_epoch: int = -1) -> None: ...

class LinearLR(LRScheduler):
    def __init__(
        self, optimizer: Optimizer, start_factor: float = ..., end_factor: float = 1.0, total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None: ...

class ExponentialLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None: ...

class PolynomialLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1) -> None: ...

class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None: ...

class SequentialLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, schedulers: list[LRScheduler], milestones: list[int], last_epoch: int = -1) -> None: ...
    def step(self) -> None: ...  # type: ignore[override]

class ChainedScheduler(LRScheduler):
    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None) -> None: ...
    def step(self) -> None: ...  # type: ignore[override]

class ReduceLROnPlateau(LRScheduler):
    def __init__(
        self, optimizer: Optimizer, mode: Literal["min", "max"] = "min", factor: float = 0.1, patience: int = 10,
        threshold: float = 1e-4, threshold_mode: Literal["rel", "abs"] = "rel", cooldown: int = 0,
        min_lr: list[float] | float = 0, eps: float = 1e-8,
    ) -> None: ...
    def step(self, metrics: Any, epoch: int | None = None) -> None: ...  # type: ignore[override]

class CyclicLR(LRScheduler):
    def __init__(
        self, optimizer: Optimizer, base_lr: float | list[float], max_lr: float | list[float], step_size_up: int = 2000,
        step_size_down: int | None = None, mode: Literal["triangular", "triangular2", "exp_range"] = "triangular",
        gamma: float = 1.0, scale_fn: Callable[[float], float] | None = None,
        scale_mode: Literal["cycle", "iterations"] = "cycle", cycle_momentum: bool = True,
        base_momentum: float = 0.8, max_momentum: float = 0.9, last_epoch: int = -1,
    ) -> None: ...

class CosineAnnealingWarmRestarts(LRScheduler):
    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0, last_epoch: int = -1) -> None: ...
    def step(self, epoch: float | None = None) -> None: ...

class OneCycleLR(LRScheduler):
    def __init__(
        self, optimizer: Optimizer, max_lr: float | list[float], total_steps: int | None = None,
        epochs: int | None = None, steps_per_epoch: int | None = None, pct_start: float = 0.3,
        anneal_strategy: Literal["cos", "linear"] = "cos", cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85, max_momentum: float | list[float] = 0.95, div_factor: float = 25.0,
        final_div_factor: float = 1e4, three_phase: bool = False, last_epoch: int = -1,
    ) -> None: ...

"""``optim.Adam`` and ``optim.AdamW``: torch's single-tensor algorithm, op for op, so float32
trajectories agree with torch's to rounding (bias corrections are folded the way torch folds them)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from typedtensor._runtime import _C
from typedtensor.optim.optimizer import Optimizer, Tensor


def _check(lr: float, betas: tuple[float, float], eps: float, weight_decay: float) -> None:
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class Adam(Optimizer):
    _decoupled = False  # AdamW: decay the weights directly instead of adding to the gradient

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        _check(lr, betas, eps, weight_decay)
        defaults = {
            "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor, state: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        if group["maximize"]:
            grad = -grad
        if not state:
            state["step"] = 0
            state["exp_avg"] = _C.zeros_like(param)
            state["exp_avg_sq"] = _C.zeros_like(param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = _C.zeros_like(param)
        state["step"] += 1
        step = state["step"]
        if wd != 0:
            if self._decoupled:
                param.mul_(1 - lr * wd)
            else:
                grad = grad + param * wd
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.add_((grad - exp_avg) * (1 - beta1))  # torch's lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2)
        exp_avg_sq.add_(grad * grad * (1 - beta2))
        step_size = lr / (1 - beta1**step)
        bias_correction2_sqrt = math.sqrt(1 - beta2**step)
        if group["amsgrad"]:
            max_sq = state["max_exp_avg_sq"]
            max_sq.copy_(_C.maximum(max_sq, exp_avg_sq))
            denom = max_sq.sqrt() / bias_correction2_sqrt + eps
        else:
            denom = exp_avg_sq.sqrt() / bias_correction2_sqrt + eps
        param.sub_(exp_avg / denom * step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay (``param *= 1 - lr * weight_decay`` before the step)."""

    _decoupled = True

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)

"""``optim.Adamax`` (Adam with the infinity norm): torch's single-tensor update."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from typedtensor._runtime import _C
from typedtensor.optim._pointwise import (
    addcdiv_,
    addcdiv_by_,
    bump,
    lerp_,
    maximum_,
    persist_state,
    step_counter,
    step_tensor,
    torch_flags,
    tracing,
)
from typedtensor.optim.optimizer import Optimizer, Tensor


class Adamax(Optimizer):
    _traced_first_step = True  # NOTE [ Compiled optimizer steps ]: zero state, no first-step branch

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict[str, Any]],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        flags = torch_flags("Adamax", foreach=foreach, capturable=capturable, differentiable=differentiable)
        del flags["fused"]
        defaults = {
            "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor, state: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        if not state:
            state["step"] = step_counter()
            state["exp_avg"] = _C.zeros_like(param)
            state["exp_inf"] = _C.zeros_like(param)
            if tracing():
                persist_state(state)
        if group["maximize"]:
            grad = -grad
        traced = tracing()  # NOTE [ Compiled optimizer steps ]: the step count is a tensor
        step: Any = step_tensor(state["step"]) if traced else bump(state["step"])
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        exp_avg = lerp_(state["exp_avg"], grad, 1 - beta1)
        exp_inf = maximum_(state["exp_inf"].mul_(beta2), grad.abs().add_(group["eps"]))
        clr = group["lr"] / (1 - beta1**step)
        (addcdiv_by_ if traced else addcdiv_)(param, exp_avg, exp_inf, -clr)

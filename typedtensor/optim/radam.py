"""``optim.RAdam`` (rectified Adam, Liu et al. 2019): torch's single-tensor update."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from typedtensor._runtime import _C
from typedtensor.optim._pointwise import (
    addcmul_,
    bump,
    lerp_,
    persist_state,
    step_counter,
    step_tensor,
    torch_flags,
    tracing,
)
from typedtensor.optim.optimizer import Optimizer, Tensor


class RAdam(Optimizer):
    _traced_first_step = True  # NOTE [ Compiled optimizer steps ]: zero state, no first-step branch

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
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
        flags = torch_flags("RAdam", foreach=foreach, capturable=capturable, differentiable=differentiable)
        del flags["fused"]
        defaults = {
            "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
            "maximize": maximize, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor, state: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        traced = tracing()  # NOTE [ Compiled optimizer steps ]: the step count is a tensor
        if not state:
            state["step"] = step_counter()
            state["exp_avg"] = _C.zeros_like(param)
            state["exp_avg_sq"] = _C.zeros_like(param)
            if traced:
                persist_state(state)
        if group["maximize"]:
            grad = -grad
        step: Any = step_tensor(state["step"]) if traced else bump(state["step"])
        if wd != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * wd)
            else:
                grad = grad.add(param, alpha=wd)
        exp_avg = lerp_(state["exp_avg"], grad, 1 - beta1)
        exp_avg_sq = addcmul_(state["exp_avg_sq"].mul_(beta2), grad, grad, 1 - beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        rho_inf = 2 / (1 - beta2) - 1  # the longest simple moving average Adam's second moment approximates
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if traced:
            self._traced_update(param, exp_avg, exp_avg_sq, lr, eps, bias_correction1, bias_correction2, rho_inf, rho_t)
            return
        bias_corrected_exp_avg = exp_avg / bias_correction1
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive_lr = (bias_correction2**0.5) / exp_avg_sq.sqrt().add_(eps)
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)

    @staticmethod
    def _traced_update(
        param: Tensor, exp_avg: Tensor, exp_avg_sq: Tensor, lr: float, eps: float, bias_correction1: Tensor,
        bias_correction2: Tensor, rho_inf: float, rho_t: Tensor,
    ) -> None:
        """The update with the step's numbers as 0-d float64 tensors. Whether the variance is
        rectified (``rho_t > 5``) depends on the step, so the graph computes both updates and picks
        one with ``where``; the rectifier is NaN on the steps that do not use it, and only picked
        where it is a number. Each step-dependent number is rounded to the parameter's dtype where
        eager rounds its Python number."""
        dt = param.dtype
        plain = (exp_avg / bias_correction1.to(dt)) * lr
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        adaptive_lr = (bias_correction2**0.5).to(dt) / exp_avg_sq.sqrt().add_(eps)
        rectified = plain * adaptive_lr * rect.to(dt)
        param.add_(_C.where(rho_t > 5.0, rectified, plain), alpha=-1.0)

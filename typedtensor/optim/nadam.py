"""``optim.NAdam`` (Adam with Nesterov momentum, Dozat 2016): torch's single-tensor update. The
momentum product ``mu_product`` is a float32 0-d tensor, as in torch, so it rounds the same way."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from typedtensor._runtime import _C
from typedtensor.optim._pointwise import (
    addcdiv_,
    addcdiv_by_,
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


class NAdam(Optimizer):
    _traced_first_step = True  # NOTE [ Compiled optimizer steps ]: zero state, no first-step branch

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict[str, Any]],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        momentum_decay: float = 4e-3,
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
        if not momentum_decay >= 0.0:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        flags = torch_flags("NAdam", foreach=foreach, capturable=capturable, differentiable=differentiable)
        del flags["fused"]
        defaults = {
            "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
            "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize, "foreach": foreach, "capturable": capturable, "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor, state: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        lr, wd, eps, momentum_decay = group["lr"], group["weight_decay"], group["eps"], group["momentum_decay"]
        traced = tracing()  # NOTE [ Compiled optimizer steps ]: the step count and the product are tensors
        if not state:
            state["step"] = step_counter()
            state["mu_product"] = _C.tensor(1.0, dtype=_C.float32)
            state["exp_avg"] = _C.zeros_like(param)
            state["exp_avg_sq"] = _C.zeros_like(param)
            if traced:
                persist_state(state)
        if group["maximize"]:
            grad = -grad
        step: Any = step_tensor(state["step"]) if traced else bump(state["step"])
        bias_correction2 = 1 - beta2**step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * wd)
            else:
                grad = grad.add(param, alpha=wd)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product = state["mu_product"]
        mu_product.mul_(mu.to(mu_product.dtype) if traced else mu)
        exp_avg = lerp_(state["exp_avg"], grad, 1 - beta1)
        exp_avg_sq = addcmul_(state["exp_avg_sq"].mul_(beta2), grad, grad, 1 - beta2)
        denom = exp_avg_sq.div(bias_correction2.to(param.dtype) if traced else bias_correction2).sqrt()
        # eager reads the float32 product back as a Python number; a traced step keeps it a tensor
        product: Any = mu_product.to(_C.float64) if traced else float(mu_product.item())
        mu_product_next = product * mu_next
        denom.add_(eps)
        add = addcdiv_by_ if traced else addcdiv_
        add(param, grad, denom, -lr * (1.0 - mu) / (1.0 - product))
        add(param, exp_avg, denom, (-lr * mu_next) / (1.0 - mu_product_next))

"""``optim.RMSprop``: torch's single-tensor update (centered and momentum variants included)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from typedtensor._runtime import _C
from typedtensor.optim._pointwise import addcdiv_, addcmul_, lerp_, persist_state, step_counter, torch_flags, tracing
from typedtensor.optim.optimizer import Optimizer, Tensor


class RMSprop(Optimizer):
    _traced_first_step = True  # NOTE [ Compiled optimizer steps ]: zero state, no first-step branch

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        momentum: float = 0.0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not momentum >= 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not alpha >= 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        flags = torch_flags("RMSprop", foreach=foreach, capturable=capturable, differentiable=differentiable)
        del flags["fused"]
        defaults = {
            "lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
            "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor, state: dict[str, Any]) -> None:
        alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
        if not state:
            state["step"] = step_counter()
            state["square_avg"] = _C.zeros_like(param)
            if momentum > 0:
                state["momentum_buffer"] = _C.zeros_like(param)
            if group["centered"]:
                state["grad_avg"] = _C.zeros_like(param)
            if tracing():
                persist_state(state)
        if group["maximize"]:
            grad = -grad
        state["step"].add_(1)  # kept, never read (so no host read inside a compiled step)
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        square_avg = addcmul_(state["square_avg"].mul_(alpha), grad, grad, 1 - alpha)
        if group["centered"]:
            grad_avg = lerp_(state["grad_avg"], grad, 1 - alpha)
            avg = addcmul_(square_avg.clone(), grad_avg, grad_avg, -1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(eps)
        if momentum > 0:
            buf = addcdiv_(state["momentum_buffer"].mul_(momentum), grad, avg)
            param.add_(buf, alpha=-group["lr"])
        else:
            addcdiv_(param, grad, avg, -group["lr"])

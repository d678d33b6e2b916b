"""``optim.Adadelta`` (Zeiler 2012): torch's single-tensor update, op for op."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from typedtensor._runtime import _C
from typedtensor.optim._pointwise import addcmul_, persist_state, step_counter, torch_flags, tracing
from typedtensor.optim.optimizer import Optimizer, Tensor


class Adadelta(Optimizer):
    _traced_first_step = True  # NOTE [ Compiled optimizer steps ]: zero state, no first-step branch

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict[str, Any]],
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0.0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        flags = torch_flags("Adadelta", foreach=foreach, capturable=capturable, differentiable=differentiable)
        del flags["fused"]
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize, **flags}
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor, state: dict[str, Any]) -> None:
        lr, rho, eps, wd = group["lr"], group["rho"], group["eps"], group["weight_decay"]
        if not state:
            state["step"] = step_counter()
            state["square_avg"] = _C.zeros_like(param)
            state["acc_delta"] = _C.zeros_like(param)
            if tracing():
                persist_state(state)
        state["step"].add_(1)  # kept, never read (so no host read inside a compiled step)
        if group["maximize"]:
            grad = -grad
        if wd != 0:
            grad = grad.add(param, alpha=wd)
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        addcmul_(square_avg.mul_(rho), grad, grad, 1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        addcmul_(acc_delta.mul_(rho), delta, delta, 1 - rho)
        param.add_(delta, alpha=-lr)

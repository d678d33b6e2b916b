"""``optim.Adagrad``: torch's single-tensor update; the state is created with the optimizer, as
torch creates it (``sum`` starts at ``initial_accumulator_value``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from typedtensor._runtime import _C
from typedtensor.optim._pointwise import (
    addcdiv_,
    addcdiv_by_,
    addcmul_,
    bump,
    persist_state,
    step_counter,
    step_tensor,
    torch_flags,
    tracing,
)
from typedtensor.optim.optimizer import Optimizer, Tensor


class Adagrad(Optimizer):
    _traced_first_step = True  # NOTE [ Compiled optimizer steps ]: its state is made with the optimizer

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-2,
        lr_decay: float = 0.0,
        weight_decay: float = 0.0,
        initial_accumulator_value: float = 0.0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not lr_decay >= 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not initial_accumulator_value >= 0.0:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        flags = torch_flags("Adagrad", foreach=foreach, differentiable=differentiable, fused=fused)
        del flags["capturable"]
        defaults = {
            "lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value, "foreach": flags["foreach"], "maximize": maximize,
            "differentiable": differentiable, "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = step_counter()
                state["sum"] = _C.full_like(p, initial_accumulator_value)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor, state: dict[str, Any]) -> None:
        if not state:  # a parameter added with add_param_group after construction
            state["step"] = step_counter()
            state["sum"] = _C.full_like(param, group["initial_accumulator_value"])
            if tracing():
                persist_state(state)
        traced = tracing()  # NOTE [ Compiled optimizer steps ]: the step count is a tensor
        step: Any = step_tensor(state["step"]) if traced else bump(state["step"])
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state_sum = addcmul_(state["sum"], grad, grad, 1)
        std = state_sum.sqrt().add_(group["eps"])
        (addcdiv_by_ if traced else addcdiv_)(param, grad, std, -clr)

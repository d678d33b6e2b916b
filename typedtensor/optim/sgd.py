"""``optim.SGD``: torch's update, including momentum, dampening, nesterov and weight decay."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from typedtensor._runtime import _C
from typedtensor.optim._pointwise import persistent, torch_flags, tracing
from typedtensor.optim.optimizer import Optimizer, Tensor, required


class SGD(Optimizer):
    _traced_first_step = True  # NOTE [ Compiled optimizer steps ]

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        flags = torch_flags("SGD", foreach=foreach, differentiable=differentiable, fused=fused)
        del flags["capturable"]  # torch's SGD has no such option
        defaults = {
            "lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
            "nesterov": nesterov, "maximize": maximize, **flags,
        }
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor, state: dict[str, Any]) -> None:
        # ``add_(x, alpha=a)`` is one fused pass in the backend (no ``x * a`` temporary)
        wd, momentum = group["weight_decay"], group["momentum"]
        d_p = -grad if group["maximize"] else grad
        if wd != 0:
            d_p = d_p.add(param, alpha=wd)
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None and tracing():
                # NOTE [ Compiled optimizer steps ]: the graph must hold the later steps' update, so
                # the buffer starts at zero, where that update gives the first step's clone exactly
                # when there is no dampening
                if group["dampening"] != 0:
                    raise NotImplementedError(
                        "tt.compile: the first SGD step with dampening != 0 differs from the later ones; run one "
                        "step eagerly before compiling the training step")
                buf = persistent(_C.zeros_like(param))
                state["momentum_buffer"] = buf
            if buf is None:
                buf = d_p.clone().detach()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(d_p, alpha=1 - group["dampening"])
            d_p = d_p.add(buf, alpha=momentum) if group["nesterov"] else buf
        param.add_(d_p, alpha=-group["lr"])

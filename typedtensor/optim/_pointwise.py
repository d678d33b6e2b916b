"""The fused pointwise updates torch's optimizers call, written with the ops typedtensor has.

Each reproduces torch's CPU kernel's order of operations (``self + value * t1 * t2`` for
``addcmul_``, ``self + value * t1 / t2`` for ``addcdiv_``, the two-branch ``lerp``), so a float32
trajectory rounds as torch's does step by step; ``value`` is rounded to the tensor's dtype by the
multiplication, as torch's kernel rounds its scalar. ``addcdiv_`` is the public op; ``addcmul_`` stays
here because the public ``addcmul`` multiplies ``t1 * t2`` first.
"""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import _C

Tensor = Any


def addcmul_(x: Tensor, t1: Tensor, t2: Tensor, value: float = 1.0) -> Tensor:
    """``x += value * t1 * t2`` in place."""
    return x.add_(t1 * t2 if value == 1 else (t1 * value) * t2)


def addcdiv_(x: Tensor, t1: Tensor, t2: Tensor, value: float = 1.0) -> Tensor:
    """``x += value * t1 / t2`` in place: the public ``Tensor.addcdiv_`` (torch's order of
    operations, bitwise torch's in float32)."""
    return x.addcdiv_(t1, t2, value=value)


def lerp_(x: Tensor, end: Tensor, weight: float) -> Tensor:
    """``x += weight * (end - x)`` in place, with torch's second form for ``weight >= 0.5``."""
    if abs(weight) < 0.5:
        return x.add_((end - x) * weight)
    return x.copy_(end - (end - x) * (1 - weight))


def maximum_(x: Tensor, other: Tensor) -> Tensor:
    """``x = max(x, other)`` in place."""
    return x.copy_(_C.maximum(x, other))


def step_counter() -> Tensor:
    """torch keeps ``state["step"]`` as a float32 0-d tensor; so does typedtensor (state dicts interchange)."""
    return _C.tensor(0.0, dtype=_C.float32)


def bump(step: Tensor) -> float:
    """Advance a step counter and return the new count."""
    step.add_(1)
    return float(step.item())


def tracing() -> bool:
    """Whether ``tt.compile`` is tracing this step into a graph (NOTE [ Compiled optimizer steps ] in
    typedtensor/optim/optimizer.py)."""
    return bool(_C._graph_tracing())


def persistent(t: Tensor) -> Tensor:
    """Declares state made while ``tt.compile`` traces a step to outlive the call: the graph reads
    and writes it by reference like a parameter, instead of keeping its first values as a constant."""
    _C._graph_persist(t)
    return t


def persist_state(state: dict[str, Any]) -> None:
    """``persistent`` for every tensor of a state a traced step has just made."""
    for t in state.values():
        if isinstance(t, _C.Tensor):
            persistent(t)


def addcdiv_by_(x: Tensor, t1: Tensor, t2: Tensor, value: Tensor) -> Tensor:
    """``addcdiv_`` with a 0-d tensor ``value`` (a traced step's step-dependent factor, NOTE [ Compiled
    optimizer steps ] in typedtensor/optim/optimizer.py), in ``addcdiv_``'s order, ``value`` rounded
    to ``x``'s dtype first as eager rounds its Python number."""
    return x.add_((t1 * value.to(x.dtype)) / t2)


def step_tensor(step: Tensor) -> Tensor:
    """Advance a step counter inside a traced step and return the new count as a float64 0-d tensor:
    the graph must compute the bias corrections from it at every call (``bump``'s Python number would
    be frozen at the traced step). float64, so ``1 - beta ** step`` keeps the digits eager's Python
    arithmetic keeps (in float32, ``1 - 0.999 ** 1`` loses four of them)."""
    step.add_(1)
    return step.to(_C.float64)


def torch_flags(
    name: str, *, foreach: bool | None = None, capturable: bool = False, differentiable: bool = False,
    fused: bool | None = None,
) -> dict[str, Any]:
    """torch's implementation switches, kept in the groups (so state dicts carry the same keys).

    ``foreach``, ``fused`` and ``capturable`` choose how torch schedules the same arithmetic; here
    every step runs the per-tensor update, so they are accepted and change nothing.
    ``differentiable=True`` (autograd through the step) is refused: steps run outside autograd.
    """
    if differentiable:
        raise NotImplementedError(f"{name}: differentiable=True is not supported (optimizer steps run outside autograd)")
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    return {"foreach": foreach, "capturable": capturable, "differentiable": differentiable, "fused": fused}

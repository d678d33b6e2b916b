"""``typedtensor.utils.checkpoint``: torch's activation checkpointing, which trades compute for memory.

``checkpoint(function, *args)`` runs ``function`` without recording its graph, so none of the
activations inside it are kept, and runs it again, recording, when the backward pass reaches its
output. The recomputed graph is differentiated there with the gradient that reached the output:
the parameters ``function`` uses accumulate their ``.grad`` from it, and the inputs that require
grad receive theirs on through the outer graph. With ``preserve_rng_state`` (the default) the
recomputation draws the same random numbers as the first run (the same dropout masks).

The recomputation is differentiated with its own ``backward`` call from inside the outer one, as
torch's ``use_reentrant=True`` form does. Both of torch's forms are followed where they differ for
the caller: without ``use_reentrant`` (which torch asks for, with a warning) the reentrant form is
used; the reentrant form's output needs an input that requires grad (otherwise, as in torch, it
warns and no gradient reaches the parameters inside), while ``use_reentrant=False`` also passes
keyword arguments to ``function`` and gives its parameters their gradients whatever the inputs.
Either way it serves ``Tensor.backward`` / ``autograd.backward`` (gradients accumulated into
``.grad``), not ``autograd.grad`` on the parameters inside ``function``, and ``function`` must
return one tensor."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import typedtensor as tt


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = None,
    preserve_rng_state: bool = True,
    **kwargs: Any,
) -> Any:
    """torch.utils.checkpoint.checkpoint: ``function(*args, **kwargs)``, its activations recomputed
    in the backward pass instead of kept. Keyword arguments for ``function`` need
    ``use_reentrant=False``, as in torch."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly; without it the "
            "reentrant form is used (use_reentrant=True). use_reentrant=False is recommended.",
            stacklevel=2,
        )
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if not tt.is_grad_enabled():
        return function(*args, **kwargs)
    rng_state = tt.get_rng_state() if preserve_rng_state else None
    with tt.no_grad():
        out = function(*args, **kwargs)
    if not isinstance(out, tt.Tensor):
        raise TypeError(f"checkpoint: the function must return one tensor, got {type(out).__name__}")
    needs = [i for i, a in enumerate(args) if isinstance(a, tt.Tensor) and a.requires_grad]
    if use_reentrant and not needs:
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)
        return out
    links = {i: args[i].clone() for i in needs}  # where each input's gradient enters the outer graph
    input_grads: dict[int, Any] = {}
    # a leaf keeps the output in the graph when no input requires grad (the parameters inside may)
    anchor = tt.zeros(0, dtype=out.dtype, device=out.device, requires_grad=True)
    zero = anchor.sum()
    for link in links.values():
        zero = zero + link.reshape(-1)[:0].sum().to(out.dtype)  # exactly 0, whatever the values
    carrier = out.detach() + zero

    def recompute(grad: Any) -> Any:
        detached = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, tt.Tensor) else a for a in args]
        after = tt.get_rng_state() if rng_state is not None else None
        if rng_state is not None:
            tt.set_rng_state(rng_state)
        try:
            with tt.enable_grad():
                again = function(*detached, **kwargs)
        finally:
            if after is not None:
                tt.set_rng_state(after)
        if again.requires_grad:
            tt.autograd.backward(again, grad)
        for i in needs:
            input_grads[i] = detached[i].grad if detached[i].grad is not None else tt.zeros_like(args[i])
        return grad

    carrier.register_hook(recompute)
    for i, link in links.items():
        link.register_hook(lambda _unused, i=i: input_grads[i])
    return carrier


__all__ = ["checkpoint"]

"""Small builders shared by the graph tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import typedtensor as tt
from typedtensor import _C
from typedtensor.graph import Graph


def trace(fn: Callable[..., Any], *inputs: Any) -> Graph:
    """The graph of fn on inputs as captured, before any pass."""
    tracer = _C._GraphTracer()
    aliases = tracer.begin(list(inputs))
    try:
        out = fn(*aliases)
    except BaseException:
        tracer.abort()
        raise
    outs = list(out) if isinstance(out, tuple | list) else [out]
    return Graph(tracer.finish(outs))


def ops(g: Graph) -> list[str]:
    return [n.op for n in g.nodes()]


def close(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=rtol, atol=atol)


def leaf_params(seed: int, shapes: Sequence[tuple[int, ...]], scale: float = 0.3) -> list[Any]:
    """Float32 parameters (requires_grad) of these shapes, normal times ``scale``, the same for a seed."""
    rng = np.random.default_rng(seed)
    out = []
    for s in shapes:
        t = tt.tensor((rng.standard_normal(s) * scale).astype(np.float32))
        t.requires_grad = True
        out.append(t)
    return out


def randn(*shape: int) -> Any:
    return tt.randn(*shape)


def run_pipeline(g: Graph, passes: Sequence[str]) -> Graph:
    for p in passes:
        g.run_pass(p)
    return g

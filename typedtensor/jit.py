"""``tt.jit``: save a compiled graph to a file and load it back, without pickle or Python source.

It also has the TorchScript queries and decorators that torch programs call in eager code
(``is_scripting``, ``is_tracing``, ``unused``, ``ignore``, ``_overload_method``): typedtensor has no
TorchScript, so nothing is ever scripted or jit-traced and the decorators return what they decorate,
which is what torch's do outside ``torch.jit.script``.

The file is a versioned binary container (magic ``TTGRAPH``, format version, a text header of values,
nodes and typed attributes, then the raw constant buffers); loading parses and range-checks it,
verifies the graph and executes nothing. ``typedtensor-run MODEL INPUTS.npz`` runs a saved graph
from C++ alone."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from typedtensor._runtime import _loader
from typedtensor.graph.compiled import CompiledFunction
from typedtensor.graph.ir import Graph

_C = _loader.load_core()
GraphError = _C.GraphError


def save(graph: Graph | CompiledFunction | Any, path: str | os.PathLike[str], *example_args: Any) -> None:
    """Writes ``graph`` (or the graph a compiled function runs for ``example_args``; with no
    arguments, its only traced graph) to ``path``. Captured tensors are stored by value."""
    graph = getattr(graph, "compiled", graph)  # tt.compile(module) gives an OptimizedModule
    if isinstance(graph, CompiledFunction):
        if example_args:
            graph = graph.graph_for(*example_args)
        else:
            graphs = [e.graph for e in graph._cache.values() if e.graph is not None]
            if len(graphs) != 1:
                raise ValueError(f"tt.jit.save: the compiled function has {len(graphs)} traced graphs; pass example arguments")
            graph = graphs[0]
    graph.save(os.fspath(path))


def load(path: str | os.PathLike[str], passes: list[str] | None = None) -> Graph:
    """Reads a graph saved by ``save`` and re-applies its pass pipeline (or ``passes``).

    Raises ``GraphError`` (a ValueError) for a file that is not a valid graph: wrong magic, another
    format version, a truncated or inconsistent header or data block, an op it may not hold."""
    raw = _C._graph_load(os.fspath(path))
    g = Graph(raw)
    for p in list(raw.saved_pipeline) if passes is None else passes:
        g.run_pass(p)
    return g


_F = TypeVar("_F", bound=Callable[..., Any])


def is_scripting() -> bool:
    """torch.jit.is_scripting: False, as in torch's eager mode (typedtensor has no TorchScript)."""
    return False


def is_tracing() -> bool:
    """torch.jit.is_tracing: False; ``torch.jit.trace`` has no counterpart here (``tt.compile`` runs
    the program to trace it, as ``torch.compile`` does, and torch answers False under that too)."""
    return False


def unused(fn: _F) -> _F:
    """torch.jit.unused: leaves ``fn`` out of a scripted module; in eager code it is ``fn`` itself."""
    return fn


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """torch.jit.ignore, bare (``@ignore``) or with arguments (``@ignore(drop=True)``): the function itself."""
    if callable(drop):
        return drop
    return lambda fn: fn


def _overload_method(func: _F) -> _F:
    """torch.jit._overload_method: declares a typed overload for the scripting compiler; eager
    Python keeps the last definition of the method, as with torch."""
    return func


__all__ = ["GraphError", "ignore", "is_scripting", "is_tracing", "load", "save", "unused"]

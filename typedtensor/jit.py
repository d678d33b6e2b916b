"""``tt.jit``: save a compiled graph to a file and load it back, without pickle or Python source.

The file is a versioned binary container (magic ``TTGRAPH``, format version, a text header of values,
nodes and typed attributes, then the raw constant buffers); loading parses and range-checks it,
verifies the graph and executes nothing. ``typedtensor-run MODEL INPUTS.npz`` runs a saved graph
from C++ alone."""

from __future__ import annotations

import os
from typing import Any

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


__all__ = ["GraphError", "load", "save"]

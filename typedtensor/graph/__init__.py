"""Graph mode: ``tt.compile`` captures a function into an SSA graph of backend primitives, runs a
named pipeline of passes (``tt.graph.PASSES``: simplify ... fuse, epilogue, memplan) and executes it; ``tt.jit``
saves and loads graphs. See docs/graph-mode.md."""

from typedtensor.graph.compiled import (
    DEFAULT_CACHE_LIMIT,
    CompiledFunction,
    EagerFallbackWarning,
    RecompileWarning,
    compile,
)
from typedtensor.graph.ir import PASSES, Graph, NodeInfo, ValueInfo

__all__ = ["DEFAULT_CACHE_LIMIT", "PASSES", "CompiledFunction", "EagerFallbackWarning", "Graph", "NodeInfo",
           "RecompileWarning", "ValueInfo", "compile"]

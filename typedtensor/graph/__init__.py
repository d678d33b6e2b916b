"""Graph mode: ``tt.compile`` captures a function into an SSA graph of backend primitives, runs a
named pipeline of passes (simplify, fold, cse, dce, fuse, memplan) and executes it; ``tt.jit``
saves and loads graphs. See docs/graph-mode.md."""

from typedtensor.graph.compiled import CompiledFunction, compile
from typedtensor.graph.ir import PASSES, Graph, NodeInfo, ValueInfo

__all__ = ["PASSES", "CompiledFunction", "Graph", "NodeInfo", "ValueInfo", "compile"]

"""``Graph``: the Python face of a captured program (backend/src/graph holds the IR itself)."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from typing import IO, Any

from typedtensor._runtime import _loader

_C = _loader.load_core()

PASSES: tuple[str, ...] = tuple(_C._graph_default_pipeline())
"""The default pipeline, in order: simplify, fold, cse, dce, relu_pool, pool_sums, conv_pool, split_sums,
hoist_scalars, fuse, epilogue, memplan (docs/graph-mode.md describes each)."""


@dataclass(frozen=True)
class NodeInfo:
    """One node: its primitive's name, attributes, operand and result value ids."""

    op: str
    attrs: dict[str, Any]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    body: tuple[NodeInfo, ...] = field(default=())  # a fused node's original nodes
    opaque: bool = False
    where: str = ""  # a captured node: the user's source line that made it ("file.py:12 in forward")


def _node(raw: Any) -> NodeInfo:
    op, attrs, inputs, outputs, body, has_attrs, where = raw
    return NodeInfo(op, dict(attrs), tuple(inputs), tuple(outputs), tuple(_node(b) for b in body), not has_attrs,
                    str(where))


@dataclass(frozen=True)
class ValueInfo:
    kind: str  # "input", "capture", "const" or "node"
    shape: tuple[int, ...]
    dtype: Any
    data: Any  # the tensor of a capture / const
    slot: int  # memory planning: reused buffer number, -1 when freshly allocated


class Graph:
    """An SSA program of backend primitives: print it, run passes over it, run it.

    ``str(graph)`` is the readable IR; the verifier runs after every pass and raises
    ``GraphError`` (a ``ValueError``) when a rewrite broke an invariant."""

    def __init__(self, raw: Any, symbolic: dict[int, str] | None = None) -> None:
        self._raw = raw
        self.symbolic: dict[int, str] = dict(symbolic or {})

    # ---- text ----
    def __str__(self) -> str:
        return str(self._raw)

    def __repr__(self) -> str:
        counts = ", ".join(f"{op}: {n}" for op, n in self.op_counts().items())
        return f"<typedtensor Graph: {len(self.inputs)} inputs, {counts}>"

    def print(self, file: IO[str] | None = None, symbolic: bool = False) -> None:
        """Prints the IR; ``symbolic=True`` shows the dims named by the function's annotations."""
        print(self.text(symbolic), file=file or sys.stdout, end="")

    def text(self, symbolic: bool = False) -> str:
        s = str(self)
        if not symbolic or not self.symbolic:
            return s

        def sub(m: re.Match[str]) -> str:
            vid = int(m.group(1))
            sym = self.symbolic.get(vid)
            return f"%{vid}: {m.group(2)}{sym}" if sym else m.group(0)

        return re.sub(r"%(\d+): ([a-z0-9]+)(\[[^\]]*\])", sub, s)

    # ---- structure ----
    @property
    def inputs(self) -> list[int]:
        return list(self._raw.inputs)

    @property
    def outputs(self) -> list[int]:
        return list(self._raw.outputs)

    @property
    def passes_run(self) -> list[str]:
        return list(self._raw.passes_run)

    @property
    def num_buffers(self) -> int:
        """Buffers the memory plan reuses across values (and across calls)."""
        return int(self._raw.num_slots)

    def nodes(self) -> list[NodeInfo]:
        return [_node(n) for n in self._raw.nodes()]

    def value(self, vid: int) -> ValueInfo:
        kind, shape, dtype, data, slot = self._raw.value(vid)
        return ValueInfo(kind, tuple(shape), dtype, data, slot)

    def op_counts(self) -> dict[str, int]:
        return dict(self._raw.op_counts())

    def kernels(self) -> list[tuple[str, str]]:
        """(mode, generated C++ source) of each fused node; mode is compiled/interpreted/pending."""
        return [(m, s) for m, s in self._raw.kernels()]

    def in_place_writes(self) -> dict[int, int]:
        """{value: capture} for every write-back a fused kernel writes straight into the captured
        tensor (the memplan pass; NOTE [ In-place write-backs ] in backend/src/graph/executor.cpp)."""
        return {int(v): int(c) for v, c in self._raw.in_place_writes()}

    def cuda_kernels(self) -> list[str]:
        """The CUDA C source of each fused node (what NVRTC compiles when the graph runs on a GPU)."""
        return [str(s) for s in self._raw.cuda_kernels()]

    # ---- rewriting ----
    def clone(self) -> Graph:
        return Graph(self._raw.clone(), self.symbolic)

    def freeze(self) -> None:
        """Captured tensors become constants (their current values); passes may fold them."""
        self._raw.freeze()

    def save(self, path: str) -> None:
        self._raw.save(str(path))

    def verify(self) -> None:
        self._raw.verify()

    def run_pass(self, name: str) -> bool:
        """Runs one named pass in place (then the verifier); returns whether it changed the graph."""
        return bool(self._raw.run_pass(name))

    def run_passes(self, names: list[str] | tuple[str, ...] = PASSES) -> Graph:
        for n in names:
            self.run_pass(n)
        return self

    # ---- running ----
    def __call__(self, *tensors: Any) -> list[Any]:
        return list(self._raw.run(list(tensors)))

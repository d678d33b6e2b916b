"""Tracing a function for export, at several sizes of its named dims, and what the sizes determine.

NOTE [ Symbolic dims by tracing at several sizes ]
The traced IR holds concrete sizes: a reshape's target, an expand's shape, a slice's bounds. To
export a graph that accepts other sizes of a named dim (``Batch``), every such number must be
known as a function of the dims. The exporter learns it by tracing the function again with the
dims changed (each example input resized along the axes its annotation names, its values repeated
along them): with ``k`` dims, the ``2**k`` corners of {size, size + 1} determine each number as a
multilinear polynomial with integer coefficients (``Batch * Seq`` for a flattened batch), and a
trace at size + 2 checks it. A dim is exported fixed, with a warning that says why, when

- a trace at another size fails (the weights fix it: ``In`` in ``x @ w``),
- the graph's structure changes with it (Python control flow on the size),
- a constant the function creates depends on it (``tt.arange(x.shape[1])`` is traced as a
  constant of the traced length), or
- a number the export needs is not such a polynomial of it (an odd pooling size).

Only the numbers the ONNX graph must compute at run time need a polynomial; output shapes that are
not one are exported as unnamed dims.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from typedtensor._runtime import _loader, no_grad
from typedtensor.graph import _pytree
from typedtensor.graph.ir import Graph, NodeInfo, ValueInfo

_C = _loader.load_core()

VIEW_OPS = frozenset({"slice", "select", "diagonal", "as_strided"})


# ---------------------------------------------------------------- polynomials in the named dims


@dataclass(frozen=True)
class Poly:
    """An integer polynomial in named dims: ``{(dim names, sorted): coefficient}``, multilinear."""

    terms: tuple[tuple[tuple[str, ...], int], ...]

    @staticmethod
    def make(terms: dict[tuple[str, ...], int]) -> Poly:
        return Poly(tuple(sorted((k, v) for k, v in terms.items() if v)))

    @staticmethod
    def const(c: int) -> Poly:
        return Poly.make({(): c})

    def constant(self) -> int | None:
        """The value, when the polynomial depends on no dim."""
        if all(not names for names, _ in self.terms):
            return sum(c for _, c in self.terms)
        return None

    def symbol(self) -> str | None:
        """The dim's name, when the polynomial is exactly one dim."""
        if len(self.terms) == 1 and len(self.terms[0][0]) == 1 and self.terms[0][1] == 1:
            return self.terms[0][0][0]
        return None

    def symbols(self) -> set[str]:
        return {n for names, _ in self.terms for n in names}

    def __add__(self, other: Poly | int) -> Poly:
        out = dict(self.terms)
        for names, c in (other.terms if isinstance(other, Poly) else (((), other),)):
            out[names] = out.get(names, 0) + c
        return Poly.make(out)

    def scale(self, k: int) -> Poly:
        return Poly.make({names: c * k for names, c in self.terms})

    def __call__(self, sizes: dict[str, int]) -> int:
        total = 0
        for names, c in self.terms:
            v = c
            for n in names:
                v *= sizes[n]
            total += v
        return total

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for names, c in sorted(self.terms, key=lambda t: (-len(t[0]), t[0])):
            mono = "*".join(names)
            parts.append(str(c) if not mono else mono if c == 1 else f"{c}*{mono}")
        return " + ".join(parts).replace("+ -", "- ")


def fit(corner_values: dict[frozenset[str], int], symbols: Sequence[str], base: dict[str, int]) -> Poly:
    """The multilinear polynomial through the corner values (corner = the dims moved from base to base + 1)."""
    # with u_s = x_s - base_s: q = sum over subsets S of d_S * prod(u_s), d_S by Moebius inversion
    coeffs: dict[tuple[str, ...], int] = {}
    for r in range(len(symbols) + 1):
        for subset in itertools.combinations(sorted(symbols), r):
            d = 0
            for k in range(len(subset) + 1):
                for t in itertools.combinations(subset, k):
                    d += (-1) ** (len(subset) - k) * corner_values[frozenset(t)]
            if not d:
                continue
            # prod over s in subset of (x_s - base_s), expanded
            for k in range(len(subset) + 1):
                for kept in itertools.combinations(subset, k):
                    c = d
                    for s in subset:
                        if s not in kept:
                            c *= -base[s]
                    coeffs[kept] = coeffs.get(kept, 0) + c
    return Poly.make(coeffs)


# ---------------------------------------------------------------- one trace


@dataclass
class Trace:
    """One traced graph, with each value's strides (as the primitives lay them out) and the numbers."""

    graph: Graph
    sizes: dict[str, int]
    nodes: list[NodeInfo]
    values: dict[int, ValueInfo]
    strides: dict[int, tuple[int, ...]] = field(default_factory=dict)
    facts: dict[tuple[Any, ...], int] = field(default_factory=dict)
    views: dict[int, ViewSlice] = field(default_factory=dict)  # node index -> its decoded slice
    structure: tuple[Any, ...] = ()


def run_trace(fn: Callable[..., Any], args: Sequence[Any], sizes: dict[str, int]) -> Trace:
    tensors: list[Any] = []
    structure = _pytree.flatten((tuple(args), {}), lambda x: isinstance(x, _C.Tensor), tensors)
    tracer = _C._GraphTracer()
    aliases = tracer.begin([t.contiguous() for t in tensors])
    t_args, _ = _pytree.unflatten(structure, aliases)
    try:
        with no_grad():
            result = fn(*t_args)
        outs: list[Any] = []
        _pytree.flatten(result, lambda x: isinstance(x, _C.Tensor), outs)
        raw = tracer.finish(outs)
    except BaseException:
        tracer.abort()
        raise
    if tracer.writebacks():
        raise ValueError("tt.onnx.export: the function writes one of its inputs or a tensor it closes over in place (a "
                         "buffer such as BatchNorm's running statistics in training mode): an ONNX model cannot update "
                         "it; export the model in eval mode, or return the new value instead")
    graph = Graph(raw)
    nodes = graph.nodes()
    values = {v: graph.value(v) for v in range(raw.num_values())}
    trace = Trace(graph, dict(sizes), nodes, values)
    _layout(trace)
    _collect_facts(trace)
    return trace


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    out = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        out[i] = out[i + 1] * max(shape[i + 1], 1)
    return tuple(out)


def view_strides(old_shape: Sequence[int], old_strides: Sequence[int], new_shape: Sequence[int]) -> tuple[int, ...] | None:
    """The strides of ``reshape`` as a view, or None when it must copy (torch's computeStride)."""
    if not old_shape:
        return tuple(1 for _ in new_shape)
    numel = 1
    for s in old_shape:
        numel *= s
    if numel == 0:
        return contiguous_strides(new_shape) if tuple(old_shape) != tuple(new_shape) else tuple(old_strides)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1 and old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def _layout(trace: Trace) -> None:
    """Each value's strides as the primitives produce them (slices are relative to their input's)."""
    st = trace.strides
    for v, info in trace.values.items():
        if info.kind in ("capture", "const") and info.data is not None:
            st[v] = tuple(int(s) for s in info.data.stride())
        elif info.kind == "input":
            st[v] = contiguous_strides(info.shape)
    for k, n in enumerate(trace.nodes):
        ins = [trace.values[i].shape for i in n.inputs if i >= 0]
        outs = [trace.values[o].shape for o in n.outputs]
        src = st.get(n.inputs[0], ()) if n.inputs and n.inputs[0] >= 0 else ()
        if n.op == "permute":
            st[n.outputs[0]] = tuple(src[d] for d in n.attrs["dims"])
        elif n.op == "expand":
            shape, a = outs[0], ins[0]
            lead = len(shape) - len(a)
            st[n.outputs[0]] = tuple(0 if i < lead or a[i - lead] != shape[i] else src[i - lead] for i in range(len(shape)))
        elif n.op == "reshape":
            view = view_strides(ins[0], src, outs[0])
            st[n.outputs[0]] = view if view is not None else contiguous_strides(outs[0])
        elif n.op in VIEW_OPS:
            st[n.outputs[0]] = tuple(n.attrs["strides"])
            decoded = decode_view(ins[0], src, outs[0], tuple(n.attrs["strides"]), int(n.attrs["offset"]))
            if decoded is not None:
                trace.views[k] = decoded
        else:
            for o in n.outputs:
                st[o] = contiguous_strides(trace.values[o].shape)


# ---------------------------------------------------------------- strided views as slices


@dataclass(frozen=True)
class ViewSlice:
    """A strided view read as basic indexing: per input dim ``(start, step, size)`` or selected
    (``size`` None: indexed at ``start`` and dropped), then size-1 axes inserted at ``new_axes``."""

    dims: tuple[tuple[int, int, int | None], ...]
    new_axes: tuple[int, ...]

    def pattern(self) -> tuple[Any, ...]:
        return tuple(d[2] is None for d in self.dims), self.new_axes


def decode_view(shape: Sequence[int], strides: Sequence[int], vshape: Sequence[int], vstrides: Sequence[int],
                offset: int) -> ViewSlice | None:
    """Reads a strided view of a tensor (``shape``, ``strides``) as slicing, or None if it is not one
    (a diagonal, an overlapping as_strided)."""
    m, r = len(shape), len(vshape)

    def assign(d: int, e: int, chosen: list[tuple[int, int] | None]) -> ViewSlice | None:
        if d == r:
            return _starts(shape, strides, vshape, chosen, offset)
        # output dim d as a new size-1 axis, or mapped to an input dim e' >= e (order is kept)
        options: list[tuple[int, int] | None] = []
        for e2 in range(e, m):
            if strides[e2] > 0 and vstrides[d] > 0 and vstrides[d] % strides[e2] == 0:
                step = vstrides[d] // strides[e2]
                if vshape[d] == 0 or (vshape[d] - 1) * step < shape[e2]:
                    options.append((e2, step))
            elif vshape[d] == shape[e2] and strides[e2] == vstrides[d]:
                options.append((e2, 1))  # a dim of stride 0 (expanded) or a size-1 dim kept as is
            elif vshape[d] <= 1 and shape[e2] >= 1:
                options.append((e2, 1))
        if vshape[d] == 1:
            options.append(None)
        for opt in options:
            found = assign(d + 1, e if opt is None else opt[0] + 1, [*chosen, opt])
            if found is not None:
                return found
        return None

    if r > 8 or m > 8:
        return None
    return assign(0, 0, [])


def _starts(shape: Sequence[int], strides: Sequence[int], vshape: Sequence[int],
            chosen: list[tuple[int, int] | None], offset: int) -> ViewSlice | None:
    mapped = {c[0]: (d, c[1]) for d, c in enumerate(chosen) if c is not None}
    # the offset is sum(start_e * stride_e): take the largest strides first, within each dim's room
    starts = [0] * len(shape)
    rest = offset
    for e in sorted(range(len(shape)), key=lambda e: -strides[e]):
        if strides[e] == 0:
            continue
        if e in mapped:
            d, step = mapped[e]
            room = shape[e] - 1 - max(vshape[d] - 1, 0) * step
        else:
            room = shape[e] - 1
        if room < 0:
            return None
        starts[e] = min(rest // strides[e], room)
        rest -= starts[e] * strides[e]
    if rest != 0:
        return None
    dims: list[tuple[int, int, int | None]] = []
    for e in range(len(shape)):
        if e in mapped:
            d, step = mapped[e]
            dims.append((starts[e], step, vshape[d]))
        else:
            if shape[e] == 0:
                return None
            dims.append((starts[e], 1, None))
    new_axes = tuple(d for d, c in enumerate(chosen) if c is None)
    return ViewSlice(tuple(dims), new_axes)


# ---------------------------------------------------------------- facts


def _collect_facts(trace: Trace) -> None:
    facts = trace.facts
    for v, info in trace.values.items():
        for a, s in enumerate(info.shape):
            facts[("shape", v, a)] = int(s)
    sig: list[Any] = []
    for k, n in enumerate(trace.nodes):
        keys: list[tuple[Any, ...]] = []
        for name, value in sorted(n.attrs.items()):
            if isinstance(value, (bool, float)):
                keys.append((name, value))
            elif isinstance(value, int):
                facts[("attr", k, name, 0)] = value
                keys.append((name, "int"))
            elif isinstance(value, list):
                for j, x in enumerate(value):
                    facts[("attr", k, name, j)] = int(x)
                keys.append((name, "list", len(value)))
        view = trace.views.get(k)
        if view is not None:
            for e, (start, step, size) in enumerate(view.dims):
                facts[("view", k, "start", e)] = start
                facts[("view", k, "step", e)] = step
                if size is not None:
                    facts[("view", k, "size", e)] = size
        sig.append((n.op, tuple(keys), n.inputs, n.outputs, view.pattern() if view else None, n.opaque))
    kinds = tuple((v, info.kind, str(info.dtype), len(info.shape)) for v, info in sorted(trace.values.items()))
    trace.structure = (tuple(sig), kinds, tuple(trace.graph.inputs), tuple(trace.graph.outputs))


__all__ = ["Poly", "Trace", "ViewSlice", "decode_view", "fit", "run_trace", "view_strides"]

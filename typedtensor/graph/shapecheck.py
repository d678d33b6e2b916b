"""Shape propagation over a captured graph with the registry's rules (the one place shapes are
computed), symbolically where the traced function's annotations name the input dims.

Each node's rule runs on its operands' shapes (symbolic: ``Batch``, ``In`` ...) and the result is
checked against the shape the kernel actually produced during the trace, evaluated with the dims'
sizes bound from the example inputs. A rule that reports an ``Issue`` raises ``ShapeError``; a rule
that disagrees with the kernel raises ``GraphError``. Nodes whose op the registry cannot be called
for from the IR's attributes (strided views, fused groups ...) keep their concrete shapes.

The trace ran, so every size agreed: an issue is real only where named dims disagree with each other
(``x.T + x`` with ``Batch`` and ``Feat``). A named dim meeting a plain number (``Pixels`` against a
``Linear(64, ...)`` weight of shape ``[32, 64]``) is a dim the weights fix, not an error: the rule is
asked again with the numbers unknown, and a shape it leaves unknown takes the kernel's sizes."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

from typedtensor._errors import ShapeError
from typedtensor._runtime import _loader
from typedtensor._shape_check import shape_of_annotation
from typedtensor.graph.ir import Graph, NodeInfo
from typedtensor.shapes import UNKNOWN, DimExpr, Issue, Shape, fmt_shape
from typedtensor.shapes import registry as reg
from typedtensor.shapes.dims import Poly, Sym, named_dim, substitute_syms

_GraphError: type[Exception] = _loader.load_core().GraphError


def _ir_families() -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
    """How each IR node's attributes bind its op's parameters, from the op table: masked
    reductions (a ``mask`` attribute for ``dim``, and ``keepdim``), reductions along one ``dim``
    (with ``keepdim``), ops along one ``dim``, and one-operand elementwise ops that keep the shape."""
    ops = reg.all_ops()
    masked = {n for n, o in ops.items() if (o.cpp or "").startswith("ReduceOp::")}
    masked |= {n for n, o in ops.items() if o.prim == "Reduction" and "internal" not in o.tags}
    names = {n: {p.name for p in o.params} for n, o in ops.items()}
    along = {n for n, o in ops.items() if o.prim == "Other" and {"dim", "keepdim"} <= names[n]}
    scans = {n for n, o in ops.items() if o.prim == "Other" and o.preserves_shape and "dim" in names[n]}
    same = {n for n, o in ops.items()
            if o.prim == "Elementwise" and o.preserves_shape and sum(p.kind == "tensor" for p in o.params) == 1}
    return frozenset(masked), frozenset(along), frozenset(scans), frozenset(same)


_MASKED, _ALONG_DIM, _SCANS, _SAME_SHAPE = _ir_families()


def _display(sym: Sym) -> DimExpr:
    short = sym.name.rsplit(".", 1)[-1]
    return named_dim(sym.name, short)


def input_shapes(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], tensors: list[Any]) -> list[Shape | None]:
    """Each tensor input's annotated shape (dims shown by their class names), None where bare."""
    try:
        sig = inspect.signature(fn)
        hints = typing.get_type_hints(fn)
        bound = sig.bind(*args, **kwargs)
    except (TypeError, ValueError, NameError):
        return [None] * len(tensors)
    by_id: dict[int, Shape | None] = {}
    for name, value in bound.arguments.items():
        ann = hints.get(name)
        if ann is None:
            continue
        shape = shape_of_annotation(ann)
        if shape is None or not shape.is_fixed:
            continue
        mapping: dict[Sym, DimExpr] = {}
        for d in shape.prefix:
            if isinstance(d, Poly):
                for s in d.symbols():
                    mapping[s] = _display(s)
        by_id[id(value)] = Shape(tuple(substitute_syms(d, mapping) if isinstance(d, Poly) else d for d in shape.prefix))
    return [by_id.get(id(t)) for t in tensors]


def _bind(shape: Shape, concrete: tuple[int, ...], env: dict[Sym, DimExpr]) -> None:
    if len(shape.prefix) != len(concrete):
        return
    for d, c in zip(shape.prefix, concrete, strict=True):
        if isinstance(d, Poly):
            terms = d.terms()
            if len(terms) == 1 and terms[0][0] == 1 and len(terms[0][1]) == 1 and terms[0][1][0][1] == 1:
                env.setdefault(terms[0][1][0][0], c)


def _call(node: NodeInfo, shapes: list[Shape], concrete: list[tuple[int, ...]], env: dict[Sym, DimExpr]) -> Any:
    op, a = node.op, node.attrs
    opdef = reg.REGISTRY.get(op)
    if op == "expand":
        # the sizes are concrete in the IR; keep the source's (symbolic) dim where it is the one
        # broadcast, and leave the others unknown (never a false positive against a named dim)
        src = shapes[0].prefix
        sizes_in = list(a["shape"])
        k = len(sizes_in) - len(src)
        sizes = [src[i - k] if i >= k and _eval(src[i - k], env) == sizes_in[i] else UNKNOWN for i in range(len(sizes_in))]
        return Shape(tuple(sizes))
    if op == "reshape":
        target: tuple[int, ...] = tuple(a["shape"])
        if target == tuple(_eval(d, env) for d in shapes[0].prefix):
            return shapes[0]
        issue = reg.apply("reshape", [Shape(concrete[0])], {"shape": target})
        return issue if isinstance(issue, Issue) else Shape(tuple(UNKNOWN for _ in target))
    if op == "permute":
        return reg.apply("permute", [shapes[0]], {"dims": tuple(a["dims"])})
    if op in _MASKED:
        dims = tuple(i for i, m in enumerate(a["mask"]) if m)
        return reg.apply(op, [shapes[0]], {"dim": dims, "keepdim": a["keepdim"]})
    if op in _ALONG_DIM:
        return reg.apply(op, [shapes[0]], {"dim": a["dim"], "keepdim": a["keepdim"]})
    if op in _SCANS:
        return reg.apply(op, [shapes[0]], {"dim": a["dim"]})
    if op == "matmul":
        return reg.apply("matmul", shapes[:2])
    if op == "cat":
        return reg.apply("cat", [list(shapes)], {"dim": a["dim"]})
    if op in _SAME_SHAPE:
        return shapes[0]
    if opdef is not None and "elementwise" in opdef.tags and len(shapes) == len(node.inputs):
        return reg.apply(op, list(shapes))
    return UNKNOWN


def _eval(d: DimExpr, env: dict[Sym, DimExpr]) -> int | None:
    if isinstance(d, int):
        return d
    if isinstance(d, Poly):
        v = substitute_syms(d, env)
        return v if isinstance(v, int) else None
    return None


def _numbers_unknown(shape: Shape) -> Shape:
    return Shape(tuple(UNKNOWN if isinstance(d, int) else d for d in shape.prefix))


def _known_from(result: Shape, concrete: tuple[int, ...]) -> Shape:
    """``result`` with its unknown dims taken from the kernel's output shape."""
    if len(result.prefix) != len(concrete):
        return Shape(concrete)
    return Shape(tuple(c if d is UNKNOWN else d for d, c in zip(result.prefix, concrete, strict=True)))


def propagate(graph: Graph, annotated: list[Shape | None]) -> dict[int, str]:
    """Runs the registry's rule for every node; returns value id -> symbolic shape text."""
    env: dict[Sym, DimExpr] = {}
    shapes: dict[int, Shape] = {}
    for vid, ann in zip(graph.inputs, annotated, strict=True):
        concrete = graph.value(vid).shape
        if ann is not None:
            _bind(ann, concrete, env)
            shapes[vid] = ann
    for node in graph.nodes():
        ins: list[Shape] = []
        for v in node.inputs:
            if v >= 0 and v not in shapes:
                shapes[v] = Shape(graph.value(v).shape)
            if v >= 0:
                ins.append(shapes[v])
        outs = [graph.value(o).shape for o in node.outputs]
        in_shapes = [graph.value(v).shape for v in node.inputs if v >= 0]
        result = _call(node, ins, in_shapes, env)
        if isinstance(result, Issue):
            loose = _call(node, [_numbers_unknown(s) for s in ins], in_shapes, env)
            if isinstance(loose, Issue):
                where = f" (at {node.where})" if node.where else ""
                raise ShapeError(f"tt.compile: {result.message}{where}")
            if isinstance(loose, Shape) and loose.is_fixed and len(outs) == 1:
                result = _known_from(loose, outs[0])
            else:
                result = UNKNOWN
        results: list[Any] = [result]
        if isinstance(result, reg.Outputs) and isinstance(result.shapes, tuple):
            results = list(result.shapes)
        for i, o in enumerate(node.outputs):
            r = results[i] if i < len(results) else UNKNOWN
            if isinstance(r, Shape) and r.is_fixed:
                got = tuple(_eval(d, env) for d in r.prefix)
                if None not in got and got != outs[i]:
                    raise _GraphError(
                        f"tt.compile: the registry's rule for {node.op} gives {fmt_shape(r)} = {list(got)}, "
                        f"the kernel produced {list(outs[i])}"
                    )
                shapes[o] = r
            else:
                shapes[o] = Shape(outs[i])
    return {vid: fmt_shape(s) for vid, s in shapes.items() if not s.prefix or any(isinstance(d, Poly) for d in s.prefix)}

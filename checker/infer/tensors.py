"""Tensor ops: every op on a tensor value goes to its registry rule (``calculus``), and the rule's
shape, outputs or ``Issue`` comes back as a value or a report (NOTE [ One bug, one report ])."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import libcst as cst

from typedtensor.shapes import Issue, Outputs, layout
from typedtensor.shapes.dims import Unknown
from typedtensor.shapes.shape import Shape, fmt_shape

from .. import calculus as calc
from ..values import (
    UNKNOWN,
    ConstV,
    OutputsV,
    ScalarV,
    SeqV,
    ShapeV,
    SizeV,
    TensorV,
    TupleV,
    Value,
)
from .core import InferCore

#: Ops whose result has a layout the lints follow (NOTE [ Layout lints ]).
_LAYOUT_OPS = frozenset({
    "transpose", "swapaxes", "swapdims", "permute", "t", "T", "mT", "expand", "expand_as", "broadcast_to",
    "unsqueeze", "squeeze", "contiguous", "view", "reshape", "flatten",
})
#: Ops whose result is a new contiguous tensor.
_FRESH = frozenset({
    "zeros", "ones", "empty", "rand", "randn", "randint", "full", "arange", "linspace", "eye", "tensor", "as_tensor",
    "matmul", "mm", "bmm", "cat", "concat", "concatenate", "stack",
})
#: Ops that join a list of tensors.
_JOINS = frozenset({"cat", "concat", "concatenate", "stack"})
#: Tensor methods that are not shape ops: what they give.
_NOT_OPS = ("item", "tolist", "numel", "nelement", "element_size", "data_ptr", "numpy", "backward", "stride", "__len__")


class IndexTuple:
    """A tuple written inside a subscript (``x[(0, 1)]``): its items splice into the key."""

    __slots__ = ("items",)

    def __init__(self, items: tuple[Any, ...]):
        self.items = items


class TensorOps(InferCore):
    """Shapes of tensor ops, properties, methods and indexing."""

    def shape_value(self, t: TensorV) -> Value:
        """``x.shape``: a tuple of sizes when the rank is fixed, else a ``ShapeV``."""
        s = t.shape
        if isinstance(s, Unknown):
            return UNKNOWN
        if s.is_fixed:
            return TupleV(tuple(SizeV(d) if not isinstance(d, Unknown) else UNKNOWN for d in s.dims))
        return ShapeV(s)

    def index_sizes(self, sizes: Value, i: int) -> Value:
        """``x.shape[i]`` / ``x.size(i)``."""
        if isinstance(sizes, TupleV):
            return sizes.items[i] if -len(sizes.items) <= i < len(sizes.items) else UNKNOWN
        if isinstance(sizes, ShapeV):
            d = sizes.shape.dim(i)
            return SizeV(d) if d is not None and not isinstance(d, Unknown) else UNKNOWN
        return UNKNOWN

    def tensor_method(self, t: TensorV, name: str, args: list[Value], kwargs: dict[str, Value], node: cst.CSTNode) -> Value:
        if name == "size":
            if not args and not kwargs:
                return self.shape_value(t)
            axis = args[0] if args else kwargs.get("dim", UNKNOWN)
            shape_v = self.shape_value(t)
            if isinstance(axis, ConstV) and isinstance(axis.value, int):
                return self.index_sizes(shape_v, axis.value)
            return UNKNOWN
        if name == "dim" and not args:
            return ConstV(t.shape.rank) if isinstance(t.shape, Shape) and t.shape.rank is not None else UNKNOWN
        if name in _NOT_OPS:
            if name == "backward":
                return ConstV(None)
            return ScalarV() if name in ("item", "numel", "nelement") else UNKNOWN
        op = calc.METHODS.get(name)
        if op is None:
            return UNKNOWN
        if name in calc.METHODS_WITHOUT_SELF:
            return self.call_op_values(op, args, kwargs, node)
        return self.call_op_values(op, [t, *args], kwargs, node)

    def call_op_values(self, op: str, args: list[Value], kwargs: dict[str, Value], node: cst.CSTNode) -> Value:
        if op in _JOINS and args and isinstance(args[0], SeqV) and isinstance(args[0].elem, TensorV):
            return self.join_sequence(op, args[0].elem, args[1:], kwargs, node)
        positional = [calc.to_static(a) for a in args]
        keywords = {k: calc.to_static(v) for k, v in kwargs.items()}
        if op in ("tensor", "as_tensor") and args and isinstance(args[0], TupleV):
            positional[0] = literal_shape(args[0])
        try:
            result = calc.call_op(op, positional, keywords)
        except calc.RuleFailure as exc:
            self.ctx.project.note_rule_failure(op, str(exc))
            return UNKNOWN
        value = self.result(result, node, calc.returns_bool(op))
        if isinstance(value, TensorV) and (op in _LAYOUT_OPS or op in _FRESH):
            first = args[0] if args else UNKNOWN
            value = TensorV(value.shape, value.is_bool, self.layout_of(op, first, positional, keywords, value, node))
        return value

    def layout_of(self, op: str, x: Value, positional: list[Any], keywords: dict[str, Any], out: TensorV,
                  node: cst.CSTNode) -> layout.Layout:
        """The result's layout, and the lints on the way (NOTE [ Layout lints ])."""
        if op in _FRESH:
            return layout.CONTIGUOUS
        if not isinstance(x, TensorV) or not isinstance(x.shape, Shape) or not x.shape.is_fixed:
            return None
        dims = x.shape.dims
        if op == "squeeze" and len(positional) == 1 and "dim" not in keywords and any(map(layout.may_be_one, dims)):
            self.report(node, "squeeze-no-dim", f"squeeze() without a dim on shape {fmt_shape(x.shape)} also "
                                                f"drops a dim that is 1 at run time (a batch of one): name the dim",
                        "warning")
        if x.layout == layout.CONTIGUOUS:
            strides = layout.contiguous_strides(dims)
        elif isinstance(x.layout, tuple) and len(x.layout) == len(dims):
            strides = x.layout
        else:
            return None
        if op in ("contiguous", "reshape", "flatten", "view"):
            out_dims = out.shape.dims if isinstance(out.shape, Shape) and out.shape.is_fixed else None
            if op == "view" and x.layout != layout.CONTIGUOUS and out_dims is not None \
                    and layout.view_breaks(dims, strides, out_dims):
                self.report(node, "view-noncontiguous", f"view: shape {fmt_shape(x.shape)} is not contiguous in "
                                                        f"memory (after transpose, permute or expand), so it cannot "
                                                        f"be viewed as {fmt_shape(out.shape)}: call .contiguous() "
                                                        f"first, or use reshape")
            return layout.CONTIGUOUS if x.layout == layout.CONTIGUOUS or op in ("contiguous", "reshape") else None
        return layout.derive(op, dims, strides, positional, keywords, out.shape)

    def join_sequence(self, op: str, elem: TensorV, rest: list[Value], kwargs: dict[str, Value],
                      node: cst.CSTNode) -> Value:
        """``cat``/``stack`` of a list whose length is not known (``[f(x) for x in xs]``): the rule
        runs on two and on three copies of the element; a dim that comes out the same both ways
        is known, the joined one is not."""
        if isinstance(elem.shape, Unknown):
            return TensorV(UNKNOWN)
        two = self.call_op_values(op, [TupleV((elem, elem), True), *rest], kwargs, node)
        if not isinstance(two, TensorV) or not isinstance(two.shape, Shape) or not two.shape.is_fixed:
            return two
        three = self.call_op_values(op, [TupleV((elem, elem, elem), True), *rest], kwargs, node)
        if not isinstance(three, TensorV) or not isinstance(three.shape, Shape) or not three.shape.is_fixed \
                or len(three.shape.dims) != len(two.shape.dims):
            return TensorV(UNKNOWN)
        dims = tuple(a if a == b else UNKNOWN for a, b in zip(two.shape.dims, three.shape.dims, strict=False))
        return TensorV(Shape(dims), two.is_bool)

    def result(self, result: Any, node: cst.CSTNode, is_bool: bool = False) -> Value:
        """A registry result as a value; an ``Issue`` is reported at ``node``."""
        if isinstance(result, Issue):
            return self.issue(node, result)
        if isinstance(result, Outputs):
            return OutputsV(result)
        if isinstance(result, (Shape, Unknown)):
            return TensorV(result, is_bool)
        return UNKNOWN

    def index_tensor(self, t: TensorV, key: tuple[Any, ...], node: cst.CSTNode | None) -> Value:
        """``t[key]``; with ``node`` None (iterating a tensor) nothing is reported."""
        flat: list[Any] = []
        for k in key:
            if isinstance(k, IndexTuple):
                flat.extend(k.items)
            else:
                flat.append(k)
        entry = calc.OPERATORS.get("__getitem__")
        if entry is None or any(k is calc.UNKNOWN_ITEM for k in flat):
            return TensorV(UNKNOWN)
        try:
            result = calc.call_op(entry[0], [t.shape, tuple(flat)], {})
        except calc.RuleFailure as exc:
            self.ctx.project.note_rule_failure(entry[0], str(exc))
            return UNKNOWN
        if node is None:
            return TensorV(result) if isinstance(result, (Shape, Unknown)) else UNKNOWN
        return self.result(result, node, t.is_bool)


def is_number(v: Value) -> bool:
    return isinstance(v, (ScalarV, SizeV)) or (isinstance(v, ConstV) and isinstance(v.value, (int, float, complex)))


def literal_shape(v: Value) -> Any:
    """The nested-list structure of a literal (``[[1, 2], [3, 4]]`` is ``[2, 2]``). Its innermost
    items must all be numbers: anything else (``[xs[-8:]]`` with ``xs: list[int]``, whose length
    is not known) makes the whole shape unknown, as a program that builds a ``[Batch, Seq]``
    tensor from one row means its ``1`` to be ``Batch`` (checker-fp: no false positive)."""
    dims: list[int] = []
    cur: Value = v
    while isinstance(cur, TupleV):
        dims.append(len(cur.items))
        items: Sequence[Value] = cur.items
        if not items:
            break
        if all(isinstance(i, TupleV) for i in items):
            lens = {len(i.items) for i in items if isinstance(i, TupleV)}
            if len(lens) != 1:
                return UNKNOWN
            cur = items[0]
            continue
        if all(is_number(i) for i in items):
            break
        return UNKNOWN
    return Shape(tuple(dims))

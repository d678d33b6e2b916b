"""Expressions other than calls: literals, names, operators (on tensors through the registry, on
sizes through the dim algebra), containers and comprehensions, subscripts, iteration."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import libcst as cst

from typedtensor.shapes.dims import DimExpr, Unknown, d_add, d_floordiv, d_mul, d_sub

from .. import calculus as calc
from .. import names
from ..annotations import int_literal
from ..context import ModuleCtx, Scope
from ..values import (
    UNKNOWN,
    AliasV,
    ConstV,
    DictV,
    FuncV,
    InstanceV,
    LibModuleV,
    OutputsV,
    QualV,
    ScalarV,
    SequentialV,
    SeqV,
    ShapeV,
    SizeV,
    TensorV,
    TupleV,
    Value,
    join,
    join_all,
    output_value,
)
from .syntax import is_tuple_subscript, string_literal
from .tensors import IndexTuple, TensorOps

BINOPS: Final[dict[type[cst.BaseBinaryOp], tuple[str, str]]] = {
    cst.Add: ("__add__", "+"), cst.Subtract: ("__sub__", "-"), cst.Multiply: ("__mul__", "*"),
    cst.Divide: ("__truediv__", "/"), cst.FloorDivide: ("__floordiv__", "//"),
    cst.Modulo: ("__mod__", "%"), cst.Power: ("__pow__", "**"),
    cst.MatrixMultiply: ("__matmul__", "@"), cst.BitAnd: ("__and__", "&"),
    cst.BitOr: ("__or__", "|"), cst.BitXor: ("__xor__", "^"),
    cst.LeftShift: ("__lshift__", "<<"), cst.RightShift: ("__rshift__", ">>"),
}
_COMPARE: Final[dict[type[cst.BaseCompOp], str]] = {
    cst.Equal: "__eq__", cst.NotEqual: "__ne__", cst.LessThan: "__lt__",
    cst.LessThanEqual: "__le__", cst.GreaterThan: "__gt__", cst.GreaterThanEqual: "__ge__",
}
_UNARY: Final[dict[type[cst.BaseUnaryOp], str]] = {
    cst.Minus: "__neg__", cst.Plus: "__pos__", cst.BitInvert: "__invert__",
}


class Expressions(TensorOps):
    """Values of expressions that are not calls."""

    def __init__(self, ctx: ModuleCtx):
        super().__init__(ctx)
        self.handle({
            cst.Name: self.e_name, cst.BinaryOperation: self.e_binop, cst.UnaryOperation: self.e_unary,
            cst.BooleanOperation: self.e_boolop, cst.Comparison: self.e_compare,
            cst.Subscript: self.e_subscript, cst.Integer: self.e_int, cst.Float: self.e_float,
            cst.Imaginary: self.e_nothing, cst.SimpleString: self.e_string,
            cst.ConcatenatedString: self.e_concat, cst.FormattedString: self.e_fstring,
            cst.Tuple: self.e_tuple, cst.List: self.e_list, cst.Set: self.e_set, cst.Dict: self.e_dict,
            cst.ListComp: self.e_comp, cst.SetComp: self.e_comp, cst.GeneratorExp: self.e_comp,
            cst.DictComp: self.e_dictcomp, cst.Lambda: self.e_lambda, cst.IfExp: self.e_ifexp,
            cst.Await: self.e_await, cst.Yield: self.e_yield, cst.Ellipsis: self.e_ellipsis,
        })

    # -- a call up: binding a target belongs to the statements layer --------------------------

    def bind_target(self, target: cst.BaseExpression, value: Value, scope: Scope, node: cst.CSTNode | None) -> None:
        raise NotImplementedError  # statements

    # -- literals and names ------------------------------------------------------------------

    def e_nothing(self, node: cst.CSTNode, scope: Scope) -> Value:
        return UNKNOWN

    def e_ellipsis(self, node: cst.Ellipsis, scope: Scope) -> Value:
        return ConstV(Ellipsis)

    def e_int(self, node: cst.Integer, scope: Scope) -> Value:
        value = int_literal(node.value)
        return ScalarV() if value is None else ConstV(value)

    def e_float(self, node: cst.Float, scope: Scope) -> Value:
        try:
            return ConstV(float(node.value.replace("_", "")))
        except ValueError:
            return ScalarV()

    def e_string(self, node: cst.SimpleString, scope: Scope) -> Value:
        return ConstV(string_literal(node))

    def e_concat(self, node: cst.ConcatenatedString, scope: Scope) -> Value:
        self.eval(node.left, scope)
        self.eval(node.right, scope)
        return ConstV("")

    def e_fstring(self, node: cst.FormattedString, scope: Scope) -> Value:
        for part in node.parts:
            if isinstance(part, cst.FormattedStringExpression):
                self.eval(part.expression, scope)
        return ConstV("")

    def e_name(self, node: cst.Name, scope: Scope) -> Value:
        return self.lookup(node.value, scope)

    # -- operators ---------------------------------------------------------------------------

    def e_binop(self, node: cst.BinaryOperation, scope: Scope) -> Value:
        left = self.eval(node.left, scope)
        right = self.eval(node.right, scope)
        dunder, symbol = BINOPS.get(type(node.operator), ("", ""))
        if not dunder:
            return UNKNOWN
        return self.binop(left, right, dunder, symbol, node)

    def binop(self, left: Value, right: Value, dunder: str, symbol: str, node: cst.CSTNode, inplace: bool = False) -> Value:
        if isinstance(left, TensorV) or isinstance(right, TensorV):
            entry = calc.OPERATORS.get(dunder)
            if entry is None:
                return UNKNOWN
            op, _ = entry
            if isinstance(right, TensorV) and not isinstance(left, (TensorV, ConstV, ScalarV, SizeV)):
                return UNKNOWN  # the left operand's own dunder may handle it
            return self.call_op_values(op, [left, right], {}, node)
        if isinstance(left, (InstanceV, LibModuleV)) or isinstance(right, (InstanceV, LibModuleV)):
            return UNKNOWN
        return self.scalar_binop(left, right, dunder)

    def scalar_binop(self, left: Value, right: Value, dunder: str) -> Value:
        """Arithmetic on sizes stays in the dim algebra (``C // nh``, ``h * d``); tuples concatenate
        and repeat; anything else numeric is a number."""
        if isinstance(left, TupleV) and isinstance(right, TupleV) and dunder == "__add__":
            return TupleV(left.items + right.items, left.is_list and right.is_list)
        if isinstance(left, TupleV) and isinstance(right, ConstV) and dunder == "__mul__" \
                and isinstance(right.value, int) and 0 <= right.value <= 64 and not isinstance(right.value, bool):
            return TupleV(left.items * right.value, left.is_list)
        a, b = as_dim(left), as_dim(right)
        if a is None or b is None:
            if isinstance(left, (ScalarV, ConstV, SizeV)) and isinstance(right, (ScalarV, ConstV, SizeV)):
                return ScalarV()
            return UNKNOWN
        both_const = isinstance(left, ConstV) and isinstance(right, ConstV)
        out: DimExpr
        if dunder == "__add__":
            out = d_add(a, b)
        elif dunder == "__sub__":
            out = d_sub(a, b)
        elif dunder == "__mul__":
            out = d_mul(a, b)
        elif dunder == "__floordiv__":
            if isinstance(b, int) and b == 0:
                return ScalarV()
            out = d_floordiv(a, b)
        elif both_const and dunder == "__mod__" and isinstance(a, int) and isinstance(b, int) and b != 0:
            out = a % b
        elif both_const and dunder == "__pow__" and isinstance(a, int) and isinstance(b, int) and 0 <= b <= 64 and abs(a) < 2**32:
            out = a ** b
        elif dunder == "__pow__" and isinstance(b, int) and not isinstance(b, bool) and 0 <= b <= 4:
            out = 1
            for _ in range(b):
                out = d_mul(out, a)  # (image // patch) ** 2 patches
        else:
            return ScalarV()
        if isinstance(out, int) and both_const:
            return ConstV(out)
        if isinstance(out, Unknown):
            return ScalarV()
        if isinstance(out, int) and abs(out) > 2**62:
            return ScalarV()
        return SizeV(out)

    def e_unary(self, node: cst.UnaryOperation, scope: Scope) -> Value:
        v = self.eval(node.expression, scope)
        if isinstance(node.operator, cst.Not):
            return UNKNOWN
        dunder = _UNARY.get(type(node.operator))
        if isinstance(v, TensorV) and dunder is not None:
            entry = calc.OPERATORS.get(dunder)
            if entry is not None:
                return self.call_op_values(entry[0], [v], {}, node)
            return UNKNOWN
        if isinstance(node.operator, cst.Minus):
            if isinstance(v, ConstV) and isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
                return ConstV(-v.value)
            if isinstance(v, SizeV):
                return SizeV(d_sub(0, v.dim))
        if isinstance(node.operator, cst.Plus) and isinstance(v, (ConstV, SizeV)):
            return v
        return ScalarV() if isinstance(v, (ScalarV, ConstV, SizeV)) else UNKNOWN

    def e_boolop(self, node: cst.BooleanOperation, scope: Scope) -> Value:
        left = self.eval(node.left, scope)
        right = self.eval(node.right, scope)
        return join(left, right) if isinstance(left, TensorV) and isinstance(right, TensorV) else UNKNOWN

    def e_compare(self, node: cst.Comparison, scope: Scope) -> Value:
        left = self.eval(node.left, scope)
        result: Value = UNKNOWN
        for target in node.comparisons:
            right = self.eval(target.comparator, scope)
            dunder = _COMPARE.get(type(target.operator))
            if dunder is not None and (isinstance(left, TensorV) or isinstance(right, TensorV)) \
                    and len(node.comparisons) == 1:
                entry = calc.OPERATORS.get(dunder)
                scalars = (ConstV, ScalarV, SizeV)
                if entry is not None and (isinstance(left, (TensorV, *scalars)) or isinstance(right, scalars)):
                    result = self.call_op_values(entry[0], [left, right], {}, node)
                    if isinstance(result, TensorV):
                        result = TensorV(result.shape, True)
            left = right
        return result

    # -- subscripts --------------------------------------------------------------------------

    def e_subscript(self, node: cst.Subscript, scope: Scope) -> Value:
        obj = self.eval(node.value, scope)
        if isinstance(obj, QualV) and names.is_type_form(obj.qual):
            return AliasV(node)  # ``Side = Literal[8]``: a type alias
        if isinstance(obj, DictV) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            name = self.eval(node.slice[0].slice.value, scope)
            found = obj.get(name.value) if isinstance(name, ConstV) and isinstance(name.value, str) else None
            return found if found is not None else UNKNOWN
        items = [self.eval_slice(el.slice, scope) for el in node.slice]
        if isinstance(obj, TensorV):
            key = tuple(items) if len(items) != 1 or is_tuple_subscript(node) else (items[0],)
            return self.index_tensor(obj, key, node)
        if len(items) != 1:
            return UNKNOWN
        item = items[0]
        if isinstance(obj, TupleV):
            if isinstance(item, int) and not isinstance(item, bool):
                if -len(obj.items) <= item < len(obj.items):
                    return obj.items[item]
                return UNKNOWN
            sl = py_slice(item)
            if sl is not None:
                return TupleV(obj.items[sl], obj.is_list)
            return join_all(obj.items) if obj.items else UNKNOWN
        if isinstance(obj, ShapeV):
            if isinstance(item, int) and not isinstance(item, bool):
                return self.index_sizes(obj, item)
            return UNKNOWN
        if isinstance(obj, SequentialV):
            if isinstance(item, int) and not isinstance(item, bool) and -len(obj.layers) <= item < len(obj.layers):
                return obj.layers[item]
            sl = py_slice(item)
            return SequentialV(obj.layers[sl]) if sl is not None else UNKNOWN
        if isinstance(obj, SeqV):
            return obj.elem if py_slice(item) is None else obj
        if isinstance(obj, OutputsV):
            shapes = obj.outputs.shapes
            if isinstance(item, int) and not isinstance(item, bool):
                if isinstance(shapes, Unknown):
                    return TensorV(obj.outputs.element)
                if -len(shapes) <= item < len(shapes):
                    return output_value(shapes[item])
            return UNKNOWN
        if isinstance(obj, InstanceV):
            target = obj.cls.lookup("__getitem__")
            if isinstance(target, FuncV):
                return self.call_function(FuncV(target.func, obj, target.transparent), [(from_index(item), None)], {},
                                          cst.Call(func=node.value), False)
        return UNKNOWN

    def eval_slice(self, sl: cst.BaseSlice, scope: Scope) -> Any:
        """A subscript item as an index value (for tensors) or a Python index (for tuples)."""
        if isinstance(sl, cst.Slice):
            lo = self.eval(sl.lower, scope) if sl.lower is not None else None
            hi = self.eval(sl.upper, scope) if sl.upper is not None else None
            st = self.eval(sl.step, scope) if sl.step is not None else None
            return calc.make_slice(lo, hi, st)
        assert isinstance(sl, cst.Index)
        v = self.eval(sl.value, scope)
        if sl.star is not None:
            return calc.UNKNOWN_ITEM
        if isinstance(sl.value, cst.Tuple) and isinstance(v, TupleV):
            return IndexTuple(tuple(calc.index_item(i) for i in v.items))
        return calc.index_item(v)

    # -- containers and the rest -------------------------------------------------------------

    def e_tuple(self, node: cst.Tuple, scope: Scope) -> Value:
        return self.elements(node.elements, scope, False)

    def e_list(self, node: cst.List, scope: Scope) -> Value:
        return self.elements(node.elements, scope, True)

    def elements(self, elements: Sequence[cst.BaseElement], scope: Scope, is_list: bool) -> Value:
        items: list[Value] = []
        exact = True
        for el in elements:
            v = self.eval(el.value, scope)
            if isinstance(el, cst.StarredElement):
                if isinstance(v, TupleV):
                    items.extend(v.items)
                else:
                    exact = False
                    items.append(self.iter_elem(v, None))
            else:
                items.append(v)
        if not exact:
            return SeqV(join_all(items))
        return TupleV(tuple(items), is_list)

    def e_set(self, node: cst.Set, scope: Scope) -> Value:
        for el in node.elements:
            self.eval(el.value, scope)
        return UNKNOWN

    def e_dict(self, node: cst.Dict, scope: Scope) -> Value:
        keys: list[str] = []
        values: list[Value] = []
        exact = True
        for el in node.elements:
            key = self.eval(el.key, scope) if isinstance(el, cst.DictElement) else UNKNOWN
            value = self.eval(el.value, scope)
            if isinstance(key, ConstV) and isinstance(key.value, str) and key.value not in keys:
                keys.append(key.value)
                values.append(value)
            else:
                exact = False  # ``**other``, a computed or repeated key
        return DictV(tuple(keys), tuple(values)) if exact else UNKNOWN

    def comp_scope(self, for_in: cst.CompFor, scope: Scope) -> Scope:
        inner = Scope({}, parent=scope, func=scope.func, self_name=scope.self_name)
        f: cst.CompFor | None = for_in
        first = True
        while f is not None:
            iterable = self.eval(f.iter, scope if first else inner)
            first = False
            self.bind_target(f.target, self.iter_elem(iterable, f.iter), inner, None)
            for cond in f.ifs:
                self.eval(cond.test, inner)
            f = f.inner_for_in
        return inner

    def e_comp(self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp, scope: Scope) -> Value:
        inner = self.comp_scope(node.for_in, scope)
        elem = self.eval(node.elt, inner)
        return SeqV(elem) if not isinstance(node, cst.SetComp) else UNKNOWN

    def e_dictcomp(self, node: cst.DictComp, scope: Scope) -> Value:
        inner = self.comp_scope(node.for_in, scope)
        self.eval(node.key, inner)
        self.eval(node.value, inner)
        return UNKNOWN

    def e_lambda(self, node: cst.Lambda, scope: Scope) -> Value:
        inner = Scope({}, parent=scope, func=scope.func)
        for p in (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params):
            inner.vars[p.name.value] = UNKNOWN
        if isinstance(node.params.star_arg, cst.Param):
            inner.vars[node.params.star_arg.name.value] = UNKNOWN
        if node.params.star_kwarg is not None:
            inner.vars[node.params.star_kwarg.name.value] = UNKNOWN
        self.quiet += 1  # a lambda's parameters are unknown; its body is checked where it is called
        try:
            self.eval(node.body, inner)
        finally:
            self.quiet -= 1
        return UNKNOWN

    def e_ifexp(self, node: cst.IfExp, scope: Scope) -> Value:
        self.eval(node.test, scope)
        return join(self.eval(node.body, scope), self.eval(node.orelse, scope))

    def e_await(self, node: cst.Await, scope: Scope) -> Value:
        self.eval(node.expression, scope)
        return UNKNOWN

    def e_yield(self, node: cst.Yield, scope: Scope) -> Value:
        if isinstance(node.value, cst.From):
            self.eval(node.value.item, scope)
        elif node.value is not None:
            self.eval(node.value, scope)
        return UNKNOWN

    def iter_elem(self, v: Value, node: cst.CSTNode | None) -> Value:
        """What iterating ``v`` gives each time round."""
        if isinstance(v, TupleV):
            return join_all(v.items) if v.items else UNKNOWN
        if isinstance(v, SeqV):
            return v.elem
        if isinstance(v, TensorV):
            return self.index_tensor(v, (0,), None)
        if isinstance(v, OutputsV):
            shapes = v.outputs.shapes
            if isinstance(shapes, Unknown):
                return TensorV(v.outputs.element)
            return join_all([output_value(s) for s in shapes]) if shapes else UNKNOWN
        if isinstance(v, SequentialV):
            return join_all(v.layers) if v.layers else UNKNOWN
        return UNKNOWN


def py_slice(item: Any) -> slice | None:
    """A subscript item as a Python slice, when all its bounds are known ints."""
    from typedtensor.shapes import SliceIndex

    if isinstance(item, SliceIndex):
        parts = [item.start, item.stop, item.step]
        if all(p is None or (isinstance(p, int) and not isinstance(p, bool)) for p in parts):
            return slice(*parts)
        return None
    return None


def from_index(item: Any) -> Value:
    if isinstance(item, int) and not isinstance(item, bool):
        return ConstV(item)
    return UNKNOWN


def as_dim(v: Value) -> DimExpr | None:
    """A size or an int literal as a dim; None for anything else."""
    if isinstance(v, SizeV):
        return v.dim
    if isinstance(v, ConstV) and isinstance(v.value, int) and not isinstance(v.value, bool):
        return v.value
    return None

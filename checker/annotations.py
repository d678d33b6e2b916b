"""Annotations → the checker value a name of that type holds (an annotation *is* a value).

``Tensor[Batch, In]`` → a tensor of that shape; ``Batch`` or a TypeVar → a size; ``Literal[3]`` →
the size 3; ``Add[A, B]`` → the dim ``A + B``; ``tuple[...]``/``list[...]`` → tuples and sequences;
a class → an instance; ``int``/``float`` → a number. Everything else (``Any``, unions) is
``UNKNOWN``, which is also what an unannotated parameter holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import libcst as cst

from typedtensor.shapes.dims import (
    UNKNOWN,
    DimExpr,
    Unknown,
    d_add,
    d_exact_div,
    d_floordiv,
    d_mul,
    d_sub,
    dim_axis,
    dim_var,
    named_dim,
)
from typedtensor.shapes.shape import Shape, ShapeLike, Star
from typedtensor.shapes.unify import Bindings

from . import names
from .calculus import MODULES, module_ctor_from_type_args
from .jaxtyping import parse_shape
from .values import (
    AliasV,
    ClassInfo,
    ClassV,
    DimClassV,
    InstanceV,
    LibModuleV,
    QualV,
    ScalarV,
    SeqV,
    TensorV,
    TupleV,
    TypeVarV,
    Value,
    size_value,
)

Resolve = Callable[[cst.BaseExpression], Value]
T = TypeVar("T")


def _qual(v: Value) -> str | None:
    return v.qual if isinstance(v, QualV) else None


def _typing(v: Value) -> str | None:
    q = _qual(v)
    return names.typing_name(q) if q else None


CONTIGUOUS = "contiguous"  # NOTE [ Layout lints ]: what a parameter of an annotated type is assumed to be
MAX_ALIAS_DEPTH = 20  # aliases of aliases; deeper (or circular: ``A = Add[A, 1]``) is unknown


class AnnotationReader:
    """Reads annotation expressions with ``resolve`` (the inference's name lookup)."""

    def __init__(self, resolve: Resolve, new_instance: Callable[[ClassInfo, Bindings], InstanceV]):
        self.resolve = resolve
        self.new_instance = new_instance
        self._aliases = 0  # alias expressions being read, nested
        #: Whether jaxtyping axis names are variables here (a function's signature and body) or
        #: unknown sizes (a module-level or attribute annotation: NOTE [ jaxtyping annotations ]).
        self.axes = True

    def _alias(self, v: Value, read: Callable[[cst.BaseExpression], T]) -> T | None:
        """Read a type alias's expression where the alias is used; None when ``v`` is not one."""
        if not isinstance(v, AliasV) or self._aliases >= MAX_ALIAS_DEPTH:
            return None
        self._aliases += 1
        try:
            return read(v.node)
        finally:
            self._aliases -= 1

    # -- whole annotations -------------------------------------------------------------------

    def read(self, expr: cst.BaseExpression | None) -> Value:
        if expr is None:
            return UNKNOWN
        if isinstance(expr, cst.SimpleString | cst.ConcatenatedString):
            parsed = _parse_string(expr)
            return self.read(parsed) if parsed is not None else UNKNOWN
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
            return self._union([expr.left, expr.right])
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr)
        v = self.resolve(expr)
        aliased = self._alias(v, self.read)
        return aliased if aliased is not None else self._plain(v)

    def _plain(self, v: Value) -> Value:
        q = _qual(v)
        if q in names.TENSOR:
            return TensorV(UNKNOWN, layout=CONTIGUOUS)
        if isinstance(v, DimClassV):
            return size_value(named_dim(v.qualname, v.display))
        if isinstance(v, TypeVarV) and not v.is_tuple:
            return size_value(dim_var(v.name))
        if isinstance(v, ClassV):
            return self.new_instance(v.info, Bindings())
        if q is not None and q in MODULES:
            mdef = MODULES[q]
            return LibModuleV(mdef, module_ctor_from_type_args(mdef, ()))
        if q in ("builtins.float", "float", "builtins.int", "int"):
            return ScalarV()
        return UNKNOWN

    def _union(self, parts: list[cst.BaseExpression]) -> Value:
        flat: list[cst.BaseExpression] = []
        todo = list(parts)
        while todo:
            e = todo.pop(0)
            if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, cst.BitOr):
                todo[:0] = [e.left, e.right]
            else:
                flat.append(e)
        real = [e for e in flat if not (isinstance(e, cst.Name) and e.value == "None")]
        if len(real) == 1:
            return self.read(real[0])
        return UNKNOWN

    def _subscript(self, expr: cst.Subscript) -> Value:
        base = self.resolve(expr.value)
        elems = [el.slice for el in expr.slice]
        q = _qual(base)
        if q in names.TENSOR:
            return TensorV(self.shape(elems), layout=CONTIGUOUS)  # NOTE [ Layout lints ]: assumed
        tname = _typing(base)
        values = [e.value for e in elems if isinstance(e, cst.Index)]
        if q in names.JAXTYPING_DTYPES:
            return self._jaxtyping(q, values)
        if tname in ("Optional",) and values:
            return self.read(values[0])
        if tname == "Union":
            return self._union(values)
        if tname == "Annotated" and values:
            return self.read(values[0])
        if tname in ("tuple", "Tuple"):
            if len(values) == 2 and isinstance(values[1], cst.Ellipsis):
                return SeqV(self.read(values[0]))
            if len(values) == 1 and isinstance(values[0], cst.Tuple) and not values[0].elements:
                return TupleV(())
            return TupleV(tuple(self.read(v) for v in values))
        if tname in ("list", "List", "Sequence", "Iterable", "Iterator", "MutableSequence"):
            return SeqV(self.read(values[0])) if values else SeqV(UNKNOWN)
        if tname == "Literal":
            if len(values) == 1:
                d = self.dim(values[0])
                if isinstance(d, int):
                    return size_value(d)
            return UNKNOWN
        if q in names.DIM_ARITH:
            return size_value(self.dim(expr))
        if isinstance(base, ClassV):
            info = base.info
            b = Bindings()
            for name, v in zip(info.typevars, values, strict=False):
                d = self.dim(v)
                if d is not UNKNOWN:
                    b.dims[name] = d
            return self.new_instance(info, b)
        if q is not None and q in MODULES:
            mdef = MODULES[q]
            kinds = {p.name: p.kind for p in mdef.ctor}
            return LibModuleV(mdef, module_ctor_from_type_args(mdef, [
                self.dim(v) if kinds.get(name) in ("size", "sizes") else self.static(v)
                for name, v in zip(mdef.type_params, values, strict=False)
            ]))
        return UNKNOWN

    def _jaxtyping(self, q: str, values: list[cst.BaseExpression]) -> Value:
        """``Float[torch.Tensor, "batch dim"]`` (NOTE [ jaxtyping annotations ]); a jaxtyping type
        in the array's place (``Float[Image, "batch"]``) adds its axes in front of that type's."""
        if len(values) != 2 or not isinstance(values[1], cst.SimpleString | cst.ConcatenatedString):
            return UNKNOWN
        text = values[1].evaluated_value
        if not isinstance(text, str):
            return UNKNOWN
        array = values[0]
        bare = not isinstance(array, cst.Subscript) and _qual(self.resolve(array)) in names.TENSOR
        inner = TensorV(Shape(())) if bare else self.read(array)
        if not isinstance(inner, TensorV):
            return UNKNOWN  # a numpy or JAX array, or an unknown type: not a tensor this checker follows
        axis = dim_axis if self.axes else _unknown_axis
        outer = parse_shape(text, axis, star_names=self.axes)
        is_bool = q == names.JAXTYPING_BOOL or inner.is_bool
        if isinstance(outer, Unknown) or isinstance(inner.shape, Unknown):
            return TensorV(UNKNOWN, is_bool, layout=CONTIGUOUS)
        within = inner.shape
        if outer.star is not None and within.star is not None:
            return TensorV(UNKNOWN, is_bool, layout=CONTIGUOUS)
        if within.star is not None:
            shape = Shape(outer.dims + within.prefix, within.star, within.suffix)
        else:
            shape = Shape(outer.prefix, outer.star, outer.suffix + within.prefix)
        return TensorV(shape, is_bool, layout=CONTIGUOUS)

    # -- shapes and dims ---------------------------------------------------------------------

    def shape(self, elems: list[cst.BaseSlice]) -> ShapeLike:
        if len(elems) == 1 and isinstance(elems[0], cst.Index):
            only = elems[0].value
            if isinstance(only, cst.Tuple) and not only.elements and elems[0].star is None:
                return Shape(())
        prefix: list[DimExpr] = []
        suffix: list[DimExpr] = []
        star: Star | None = None
        for el in elems:
            if not isinstance(el, cst.Index):
                return UNKNOWN
            got = self._star(el)
            if got is not None:
                if star is not None:
                    return UNKNOWN  # two variadic parts: not a shape
                star = got
                continue
            (suffix if star is not None else prefix).append(self.dim(el.value))
        return Shape(tuple(prefix), star, tuple(suffix))

    def _star(self, el: cst.Index) -> Star | None:
        value = el.value
        if el.star is None:
            if isinstance(value, cst.Subscript) and _typing(self.resolve(value.value)) == "Unpack":
                inner = value.slice[0].slice
                if isinstance(inner, cst.Index):
                    return self._star_of(inner.value)
            if isinstance(value, cst.Name | cst.Attribute):
                v = self.resolve(value)
                if isinstance(v, TypeVarV) and v.is_tuple:
                    return Star(v.name)
            return None
        return self._star_of(value)

    def _star_of(self, value: cst.BaseExpression) -> Star:
        if isinstance(value, cst.Name | cst.Attribute):
            v = self.resolve(value)
            if isinstance(v, TypeVarV) and v.is_tuple:
                return Star(v.name)
        return Star(None)

    def static(self, expr: cst.BaseExpression) -> object:
        """A module's type argument that is not a size (``nn.Conv2d[C, H, Literal[3],
        tuple[Literal[2], Literal[1]], Literal["same"]]``, ``None``, ``Literal[False]``): its
        static value, as the mypy plugin reads the same type; anything else a dim or unknown."""
        if isinstance(expr, cst.Name) and expr.value == "None":
            return None
        if isinstance(expr, cst.Subscript):
            base = self.resolve(expr.value)
            args = [el.slice.value for el in expr.slice if isinstance(el.slice, cst.Index)]
            t = _typing(base)
            if t == "Literal" and len(args) == 1:
                lit = args[0]
                if isinstance(lit, cst.Name) and lit.value in ("True", "False"):
                    return lit.value == "True"
                if isinstance(lit, cst.SimpleString):
                    return lit.evaluated_value
            if t in ("tuple", "Tuple") or _qual(base) in ("builtins.tuple", "tuple"):
                return tuple(self.static(a) for a in args)
        return self.dim(expr)

    def dim(self, expr: cst.BaseExpression) -> DimExpr:
        if isinstance(expr, cst.Integer):
            value = int_literal(expr.value)
            return UNKNOWN if value is None else value
        if isinstance(expr, cst.SimpleString):
            parsed = _parse_string(expr)
            return self.dim(parsed) if parsed is not None else UNKNOWN
        if isinstance(expr, cst.Subscript):
            base = self.resolve(expr.value)
            args = [el.slice.value for el in expr.slice if isinstance(el.slice, cst.Index)]
            if _typing(base) == "Literal" and len(args) == 1:
                literal = args[0]
                negative = isinstance(literal, cst.UnaryOperation) and isinstance(literal.operator, cst.Minus)
                if negative and isinstance(literal, cst.UnaryOperation):
                    literal = literal.expression
                if isinstance(literal, cst.Integer):
                    value = int_literal(literal.value)
                    if value is not None:
                        return -value if negative else value
                return UNKNOWN
            q = _qual(base)
            if q in names.DIM_ARITH and args:
                dims = [self.dim(a) for a in args]
                kind = names.DIM_ARITH[q]
                acc = dims[0]
                for d in dims[1:]:
                    if kind == "add":
                        acc = d_add(acc, d)
                    elif kind == "sub":
                        acc = d_sub(acc, d)
                    elif kind == "mul":
                        acc = d_mul(acc, d)
                    else:
                        exact = d_exact_div(acc, d)
                        acc = exact if exact is not None else d_floordiv(acc, d)
                return acc
            return UNKNOWN
        v = self.resolve(expr)
        if isinstance(v, DimClassV):
            return named_dim(v.qualname, v.display)
        if isinstance(v, TypeVarV) and not v.is_tuple:
            return dim_var(v.name)
        aliased = self._alias(v, self.dim)
        return aliased if aliased is not None else UNKNOWN


def _unknown_axis(name: str) -> DimExpr:
    return UNKNOWN


def int_literal(text: str) -> int | None:
    """An int literal's value without ``ast.literal_eval`` (it compiles: slow in a hot path); None
    for one Python will not convert (over 4300 digits)."""
    text = text.replace("_", "")
    try:
        return int(text, 0)
    except ValueError:
        try:
            return int(text)  # "00"
        except ValueError:
            return None


def _parse_string(expr: cst.SimpleString | cst.ConcatenatedString) -> cst.BaseExpression | None:
    text = expr.evaluated_value
    if not isinstance(text, str):
        return None
    try:
        return cst.parse_expression(text.strip())
    except Exception:
        return None


__all__ = ["AnnotationReader", "Resolve", "int_literal"]

"""A call's arguments as the registry's static values (NOTE [ Static values ] in
typedtensor/shapes/registry.py): tensors as shapes, sizes as dims, ints/bools/strs as their literal
value, anything not known statically as `UNKNOWN`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from mypy.checker import TypeChecker
from mypy.nodes import (
    ARG_NAMED,
    ARG_POS,
    ARG_STAR,
    ArgKind,
    CallExpr,
    Context,
    EllipsisExpr,
    Expression,
    FloatExpr,
    GeneratorExpr,
    IntExpr,
    ListComprehension,
    ListExpr,
    MemberExpr,
    NameExpr,
    SliceExpr,
    StrExpr,
    TupleExpr,
    UnaryExpr,
    Var,
)
from mypy.plugin import CheckerPluginInterface
from mypy.types import Instance, NoneType, TupleType, Type, get_proper_type

from typedtensor.shapes import SCALAR, UNKNOWN, Param, SliceIndex, TensorIndex, Unknown
from typedtensor.shapes.shape import Shape

from .index_kind import BOOL, index_kind
from .local_names import single_value
from .translate import Translator, literal_value, with_final_value


class Repeated(NamedTuple):
    """Tensors of one shape, how many not known (a `tensors` argument: `tt.cat(parts)` of a
    comprehension's list)."""

    shape: Any


_SEQUENCES = frozenset({"builtins.list", "builtins.tuple", "typing.Sequence", "collections.abc.Sequence"})


class GiveUp(Exception):
    """The call cannot be translated (e.g. `*args` of unknown length): its result is unknown."""


class Actual(NamedTuple):
    """One argument as written at the call site (a named tuple: hooks make thousands of these, and
    a tuple is built far faster than a frozen dataclass)."""

    kind: ArgKind
    name: str | None
    expr: Expression | None
    type: Type


def actuals_of(
    api: CheckerPluginInterface,
    context: Context,
    args: list[list[Expression]],
    arg_types: list[list[Type]],
    arg_kinds: list[list[ArgKind]],
    arg_names: list[list[str | None]],
) -> list[Actual]:
    """The arguments in the order they are written (mypy groups them by formal parameter)."""
    flat = [
        Actual(kind, name, expr, with_known_value(api, typ, expr))
        for exprs, types, kinds, names in zip(args, arg_types, arg_kinds, arg_names, strict=False)
        for expr, typ, kind, name in zip(exprs, types, kinds, names, strict=False)
    ]
    if isinstance(context, CallExpr):
        written = context.args
        if len(flat) != len(written) or any(a.expr is not e for a, e in zip(flat, written, strict=False)):
            order = {id(e): i for i, e in enumerate(written)}
            flat.sort(key=lambda a: order.get(id(a.expr), len(order)))
    return flat


def expr_type(api: CheckerPluginInterface, expr: Expression) -> Type:
    """The type mypy already inferred for a sub-expression (looked up, not re-checked), with the
    value a `Final` or once-bound name holds."""
    known = api.lookup_type_or_none(expr) if isinstance(api, TypeChecker) else None  # one pass over the type maps
    if known is None:
        known = api.get_expression_type(expr)
    return with_known_value(api, known, expr)


def with_known_value(api: CheckerPluginInterface, t: Type, expr: Expression | None) -> Type:
    """`t`, or for a plain `int` name the literal it provably holds: a `Final` constant's value
    (NOTE [ Final sizes ] in translate.py) or the value of a local bound once (NOTE [ Names bound
    once ] in local_names.py)."""
    if not isinstance(expr, (NameExpr, MemberExpr)):  # the common case first: hooks call this per argument
        return t
    node = expr.node
    if not isinstance(node, Var):
        return t
    if node.is_final:
        return with_final_value(t, expr)
    if not (node.is_inferred and isinstance(expr, NameExpr)):
        return t  # not a local: a parameter, a global, an attribute
    p = get_proper_type(t)
    if not (isinstance(p, Instance) and p.type.fullname == "builtins.int" and p.last_known_value is None):
        return t
    value = single_value(api, expr)
    if value is None or not isinstance(api, TypeChecker):
        return t
    assigned = api.lookup_type_or_none(value)
    return assigned if assigned is not None and isinstance(literal_value(assigned), int) else t


def is_number(t: Type) -> bool:
    p = get_proper_type(t)
    return isinstance(p, Instance) and p.type.fullname in (
        "builtins.int",
        "builtins.float",
        "builtins.bool",
        "builtins.complex",
    )


def _is_int_valued(t: Type) -> bool:
    """An `int`, `bool` or size (`Batch`) value: a number wherever an op takes a tensor or scalar."""
    p = get_proper_type(t)
    return isinstance(p, Instance) and p.type.has_base("builtins.int")


class Converter:
    """Turns actual arguments into registry values for a given parameter kind."""

    def __init__(self, tr: Translator, api: CheckerPluginInterface, operands: bool = False) -> None:
        self.tr = tr
        self.api = api
        self.operands = operands  # an elementwise op: its `any` parameters take tensors or numbers

    def value(self, param: Param, actual: Actual) -> Any:
        kind = param.kind
        t = actual.type
        if kind in ("tensor", "optional_tensor"):
            return self.tensor_or_scalar(t)
        if kind == "tensors":
            return self.tensors(actual)
        if kind == "size":
            return self.tr.dim(t)
        if kind == "sizes":
            return self.sizes(actual)
        if kind == "index":
            return self.index(actual)
        value = self.static(actual.expr, t)
        if self.operands and kind == "any" and value is UNKNOWN and _is_int_valued(t):
            return SCALAR  # `x + n`, `ids < limit` with `n: int`: a number of unknown value
        return value

    def tensor_or_scalar(self, t: Type) -> Any:
        shape = self.tr.shape(t)
        if shape is not None:
            return shape
        if isinstance(get_proper_type(t), NoneType):
            return None
        if is_number(t):
            value = literal_value(t)
            return value if isinstance(value, (int, float)) else SCALAR
        return UNKNOWN

    def tensors(self, actual: Actual) -> Any:
        items = self.items(actual)
        if items is not None:
            return tuple(self.tensor_or_scalar(t) for _, t in items)
        expr = actual.expr
        if isinstance(expr, (ListComprehension, GeneratorExpr)):  # typed in the loosened parameter's context
            generator = expr.generator if isinstance(expr, ListComprehension) else expr
            element = self.tr.shape(expr_type(self.api, generator.left_expr))
            return Repeated(element) if element is not None and not isinstance(element, Unknown) else UNKNOWN
        return self.repeated(actual.type)

    def repeated(self, t: Type) -> Any:
        """A list or `tuple[T, ...]` of tensors whose length is not known (a comprehension, a list
        built by appends): `Repeated(shape of T)`, for `run_op` to join (NOTE [ Sequences of
        unknown length ] in ops.py); else UNKNOWN."""
        p = get_proper_type(t)
        if isinstance(p, Instance) and p.type.fullname in _SEQUENCES and len(p.args) == 1:
            shape = self.tr.shape(p.args[0])
            if shape is not None and not isinstance(shape, Unknown):
                return Repeated(shape)
        return UNKNOWN

    def items(self, actual: Actual) -> list[tuple[Expression | None, Type]] | None:
        """The elements of a tuple or list argument, each with its own type."""
        expr = actual.expr
        once = single_value(self.api, expr) if isinstance(expr, NameExpr) else None
        if isinstance(once, (ListExpr, TupleExpr)):
            expr = once  # `feats = [a, b]; tt.stack(feats)` (NOTE [ Names bound once ])
        if isinstance(expr, (ListExpr, TupleExpr)):
            return [(e, expr_type(self.api, e)) for e in expr.items]
        p = get_proper_type(actual.type)
        if isinstance(p, TupleType):
            return [(None, t) for t in p.items]
        return None

    def sizes(self, actual: Actual) -> Any:
        items = self.items(actual)
        if items is not None:
            return tuple(self.tr.dim(t) for _, t in items)
        return self.tr.dim(actual.type)

    def static(self, expr: Expression | None, t: Type) -> Any:
        """An int, float, bool, str, None, a tuple of them, a tensor's shape, or UNKNOWN."""
        shape = self.tr.shape(t)
        if shape is not None:
            return shape
        value = literal_value(t)
        if not isinstance(value, Unknown):
            return value
        if isinstance(get_proper_type(t), NoneType):
            return None
        if isinstance(expr, (IntExpr, FloatExpr, StrExpr)):
            return expr.value
        if isinstance(expr, UnaryExpr) and expr.op == "-" and isinstance(expr.expr, FloatExpr):
            return -expr.expr.value  # mypy has no float literal types: `-1.0` is a plain float to it
        if isinstance(expr, NameExpr) and expr.fullname in ("builtins.True", "builtins.False"):
            return expr.fullname == "builtins.True"
        if isinstance(expr, (ListExpr, TupleExpr)):
            return tuple(self.static(e, expr_type(self.api, e)) for e in expr.items)
        p = get_proper_type(t)
        if isinstance(p, TupleType):
            return tuple(self.static(None, item) for item in p.items)
        if isinstance(p, Instance) and is_number(p):
            return SCALAR if p.type.fullname == "builtins.float" else UNKNOWN
        return UNKNOWN

    def index(self, actual: Actual) -> Any:
        expr = actual.expr
        if isinstance(expr, TupleExpr):
            return tuple(self.index_item(e) for e in expr.items)
        if expr is None:
            raise GiveUp
        return (self.index_item(expr),)

    def index_item(self, expr: Expression) -> Any:
        if isinstance(expr, ListExpr) and expr.items and all(isinstance(i, IntExpr) for i in expr.items):
            return TensorIndex(Shape.of(len(expr.items)), False)  # `x[[0, 2]]`
        if isinstance(expr, SliceExpr):
            return SliceIndex(self.bound(expr.begin_index), self.bound(expr.end_index), self.bound(expr.stride))
        if isinstance(expr, EllipsisExpr):
            return Ellipsis
        if isinstance(expr, NameExpr) and expr.fullname == "builtins.None":
            return None
        t = expr_type(self.api, expr)
        shape = self.tr.shape(t)
        if shape is not None:
            kind = index_kind(self.api, expr, lambda e: expr_type(self.api, e))  # NOTE [ Index tensors ]
            if kind is None:
                raise GiveUp  # integer or boolean tensor: the dtype is not in the type
            return TensorIndex(shape, kind == BOOL)
        p = get_proper_type(t)
        if isinstance(p, Instance) and p.type.fullname == "builtins.bool":
            raise GiveUp
        if (isinstance(p, Instance) and is_number(p)) or isinstance(expr, (IntExpr, UnaryExpr)):
            value = literal_value(t)
            return value if isinstance(value, int) else UNKNOWN
        if self.tr.dim(t) is not UNKNOWN:
            return UNKNOWN  # a size used as an index: an integer whose value is not known
        raise GiveUp

    def bound(self, expr: Expression | None) -> Any:
        if expr is None:
            return None
        return self.tr.dim(expr_type(self.api, expr))


def bind_values(
    conv: Converter, params: Sequence[Param], actuals: Sequence[Actual]
) -> tuple[list[Any], dict[str, Any]]:
    """Positional and keyword values for `registry.apply`, each converted by its parameter's
    kind. A variadic parameter receives one tuple (so `zeros(n)` with `n: int` is one unknown
    size, not an unknown tuple)."""
    positional_params = [p for p in params if not p.keyword_only or p.variadic]
    by_name = {p.name: p for p in params}
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    variadic: list[Any] | None = None
    index = 0
    expanded: list[Actual] = []
    for actual in actuals:
        if actual.kind == ARG_STAR:
            p = get_proper_type(actual.type)
            if not isinstance(p, TupleType):
                raise GiveUp
            expanded.extend(Actual(ARG_POS, None, None, item) for item in p.items)
        elif actual.kind in (ARG_POS, ARG_NAMED):
            expanded.append(actual)
        else:
            raise GiveUp
    for actual in expanded:
        if actual.kind == ARG_POS:
            if index >= len(positional_params):
                raise GiveUp
            param = positional_params[index]
            if param.variadic:
                items = _variadic_items(conv, param, actual)
                if param.kind != "sizes":
                    positional.extend(items)
                    continue
                if variadic is None:
                    variadic = []
                    positional.append(variadic)
                variadic.extend(items)
                continue
            positional.append(conv.value(param, actual))
            index += 1
        else:
            assert actual.name is not None
            match = by_name.get(actual.name)
            if match is None:
                raise GiveUp
            keywords[actual.name] = conv.value(match, actual)
    return [tuple(v) if isinstance(v, list) else v for v in positional], keywords


def _variadic_items(conv: Converter, param: Param, actual: Actual) -> list[Any]:
    """`reshape(b, s)` and `reshape((b, s))` both bind the sizes `(b, s)`; `einsum(eq, *ops)`
    binds one tensor per argument."""
    if param.kind == "tensors":
        return [conv.tensor_or_scalar(actual.type)]
    if param.kind in ("sizes", "ints"):
        items = conv.items(actual)
        if items is not None:
            return [conv.tr.dim(t) if param.kind == "sizes" else conv.static(e, t) for e, t in items]
        if param.kind == "sizes":
            if conv.tr.dim(actual.type) is UNKNOWN and not is_number(actual.type):
                raise GiveUp  # a list or tuple variable: its length is not known
            return [conv.tr.dim(actual.type)]
        return [conv.static(actual.expr, actual.type)]
    return [conv.value(param, actual)]

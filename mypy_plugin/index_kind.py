"""Whether a tensor used as an index holds booleans or integers.

NOTE [ Index tensors ]
`x[i]` selects along dim 0 when `i` holds integers (the result has `i`'s shape in its place) and
masks when `i` holds booleans (the result has one dim of unknown length), but a tensor's type says
nothing of its dtype (DESIGN §1). The plugin reads it from the expression that made the index, by
the op table's dtype rule of the op that made it (`argmax` is `int64`, a comparison `bool`, a cast
says its dtype, a movement op or arithmetic keeps its input's), and for a local name from every
assignment to it in the function being checked (`_, pred = out.max(1)`; `idx = logits.argmax(-1)`).
A parameter, an attribute or anything else not made in sight stays unknown, and so does the result
of indexing with it: never a guess.
"""

from __future__ import annotations

from collections.abc import Callable

from mypy.nodes import (
    CallExpr,
    ComparisonExpr,
    Expression,
    FloatExpr,
    IndexExpr,
    IntExpr,
    ListExpr,
    MemberExpr,
    NameExpr,
    OpExpr,
    TupleExpr,
    UnaryExpr,
    Var,
)
from mypy.plugin import CheckerPluginInterface
from mypy.types import Instance, Type, get_proper_type

from typedtensor.shapes import api, get_op

from .local_names import bound, single_value
from .translate import tensor_instance

BOOL, INT = "bool", "int"

_INT_DTYPES = frozenset({"long", "int", "int64", "int32", "int16", "int8", "uint8", "short"})
_CAST_METHODS = {"long": INT, "int": INT, "bool": BOOL}
# methods whose result is (values, indices): the second item holds integers
_WITH_INDICES = frozenset({"max", "min", "median", "mode", "topk", "sort", "kthvalue"})
_LOGICAL = frozenset({"&", "|", "^"})
_ARITHMETIC = frozenset({"+", "-", "*", "//", "%"})
_DEPTH = 8


class _Context:
    __slots__ = ("api", "type_of")

    def __init__(self, api: CheckerPluginInterface, type_of: Callable[[Expression], Type]) -> None:
        self.api = api
        self.type_of = type_of  # a sub-expression's inferred type


def index_kind(api_: CheckerPluginInterface, expr: Expression, type_of: Callable[[Expression], Type]) -> str | None:
    """`BOOL`, `INT`, or None when the expression does not say (NOTE [ Index tensors ])."""
    return _kind(_Context(api_, type_of), expr, _DEPTH)


def _kind(chk: _Context, e: Expression, depth: int) -> str | None:
    if depth <= 0:
        return None
    if isinstance(e, ComparisonExpr):
        return BOOL
    if isinstance(e, UnaryExpr):
        return _kind(chk, e.expr, depth - 1) if e.op == "~" else None
    if isinstance(e, OpExpr):
        left, right = _operand(chk, e.left, depth), _operand(chk, e.right, depth)
        if e.op in _LOGICAL and left == right == BOOL:
            return BOOL
        if e.op in _ARITHMETIC and left == right == INT:
            return INT
        return None
    if isinstance(e, IndexExpr):
        if isinstance(e.base, CallExpr) and isinstance(e.index, IntExpr) and _indices_pair(e.base):
            return INT if e.index.value == 1 else None  # `x.topk(k)[1]`
        return _kind(chk, e.base, depth - 1)  # indexing keeps the dtype
    if isinstance(e, MemberExpr):
        if e.name == "indices":
            return INT  # `x.max(dim=1).indices`
        if e.name in ("T", "mT", "data"):
            return _kind(chk, e.expr, depth - 1)
        return None
    if isinstance(e, CallExpr):
        return _call_kind(chk, e, depth)
    if isinstance(e, NameExpr) and isinstance(e.node, Var):
        return _name_kind(chk, e, e.node, depth)
    if isinstance(e, (ListExpr, TupleExpr)):  # `x[[0, 2]]`
        return INT if e.items and all(isinstance(i, IntExpr) for i in e.items) else None
    return None


def _operand(chk: _Context, e: Expression, depth: int) -> str | None:
    if isinstance(e, IntExpr):
        return INT
    if isinstance(e, NameExpr) and e.fullname in ("builtins.True", "builtins.False"):
        return BOOL
    if isinstance(e, FloatExpr):
        return None
    return _kind(chk, e, depth - 1)


def _indices_pair(call: CallExpr) -> bool:
    return isinstance(call.callee, MemberExpr) and call.callee.name in _WITH_INDICES and bool(call.args)


def _call_kind(chk: _Context, call: CallExpr, depth: int) -> str | None:
    callee = call.callee
    receiver: Expression | None = None
    if isinstance(callee, MemberExpr) and callee.name in api.METHODS and not _is_module_ref(callee.expr):
        name, receiver = callee.name, callee.expr
        op_name = api.METHODS[name]
    elif isinstance(callee, (NameExpr, MemberExpr)) and callee.fullname in api.FUNCTIONS:
        name = callee.name
        op_name = api.FUNCTIONS[callee.fullname]
    else:
        return None
    rule = get_op(op_name).dtype_rule
    if rule == "int64":
        return INT
    if rule == "bool":
        return BOOL
    if rule == "cast":
        if name in _CAST_METHODS:
            return _CAST_METHODS[name]
        return _dtype_argument(call)
    if rule in ("factory", "infer"):
        given = _dtype_argument(call)
        if given is not None or any(n == "dtype" for n in call.arg_names):
            return given
        if op_name == "arange":
            return INT if call.args and all(isinstance(a, IntExpr) or _is_int_name(chk, a) for a in call.args) else None
        if rule == "infer" and call.args:
            return _kind(chk, call.args[0], depth - 1) if isinstance(call.args[0], (ListExpr, TupleExpr)) else None
        return None
    if rule == "promote":
        # movement ops and arithmetic: the inputs' dtype when they all agree
        inputs = ([receiver] if receiver is not None else []) + [a for a in call.args if _is_tensor_expr(chk, a)]
        kinds = {_operand(chk, a, depth) for a in inputs}
        if any(isinstance(a, FloatExpr) for a in call.args):
            return None
        return kinds.pop() if len(kinds) == 1 else None
    return None


def _dtype_argument(call: CallExpr) -> str | None:
    for arg, name in zip(call.args, call.arg_names, strict=False):
        if name in (None, "dtype") and isinstance(arg, MemberExpr) and arg.fullname.startswith("typedtensor."):
            if arg.name in _INT_DTYPES:
                return INT
            if arg.name == "bool":
                return BOOL
            return None
    return None


def _is_module_ref(e: Expression) -> bool:
    return isinstance(e, (NameExpr, MemberExpr)) and e.fullname is not None and e.fullname.startswith("typedtensor")


def _is_tensor_expr(chk: _Context, e: Expression) -> bool:
    return tensor_instance(chk.type_of(e)) is not None


def _is_int_name(chk: _Context, e: Expression) -> bool:
    p = get_proper_type(chk.type_of(e))
    return isinstance(p, Instance) and p.type.has_base("builtins.int") and p.type.fullname != "builtins.bool"


# ---- local names -----------------------------------------------------------------------------------
def _name_kind(chk: _Context, e: NameExpr, var: Var, depth: int) -> str | None:
    value = single_value(chk.api, e)
    if value is not None:  # where it is read (NOTE [ Names bound once ])
        return _kind(chk, value, depth - 1)
    b = bound(chk.api, var)
    if b is None or b.other or not b.values:
        return None  # a parameter, a global, an attribute, a loop variable: not made in sight
    kinds = set()
    for position, value in b.values:
        if position is None:
            kinds.add(_kind(chk, value, depth - 1))
        elif isinstance(value, CallExpr) and _indices_pair(value):
            kinds.add(INT if position == 1 else None)
        else:
            kinds.add(None)
    return kinds.pop() if len(kinds) == 1 else None


__all__ = ["BOOL", "INT", "index_kind"]

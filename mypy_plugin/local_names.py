"""What a local name was bound to, in the function being checked.

NOTE [ Names bound once ]
mypy widens a literal on assignment: after `r = 5` or `n = (224 // PATCH) ** 2`, `r` and `n` are
plain `int`, so `u[:, :r]` or `tt.zeros(1, n, d)` would have unknown sizes. A local name bound by
exactly one `name = value` statement and nowhere else in its function (no other assignment,
augmented assignment, loop or `with` target, `del`, no mutating method call on it) holds that value
wherever it is read, so the plugin reads the value's own type from mypy's type map (`Literal[5]?`),
and a list bound once from a literal list keeps its items' types (`tt.stack(feats)`). Parameters,
attributes and names bound more than once keep mypy's type.
"""

from __future__ import annotations

from typing import NamedTuple

from mypy.checker import TypeChecker
from mypy.nodes import (
    AssignmentStmt,
    CallExpr,
    DelStmt,
    Expression,
    ExpressionStmt,
    ForStmt,
    FuncItem,
    IndexExpr,
    ListExpr,
    MemberExpr,
    NameExpr,
    OperatorAssignmentStmt,
    TupleExpr,
    Var,
    WithStmt,
)
from mypy.plugin import CheckerPluginInterface

from .walk import statements

_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort", "__setitem__"})


class Bound(NamedTuple):
    """A local's `name = value` statements (`position` is its place in a tuple target, or None) and
    whether it is bound or changed any other way."""

    values: list[tuple[int | None, Expression]]
    other: bool


def current_function(api: CheckerPluginInterface) -> FuncItem | None:
    return api.scope.current_function() if isinstance(api, TypeChecker) else None


def bound(api: CheckerPluginInterface, var: Var) -> Bound | None:
    """How `var` is bound in the function being checked; None when it is not bound there."""
    func = current_function(api)
    if func is None:
        return None
    return _scan(func).get(var)


def single_value(api: CheckerPluginInterface, e: Expression) -> Expression | None:
    """The value of a local name bound once (NOTE [ Names bound once ]); None otherwise."""
    if not (isinstance(e, NameExpr) and isinstance(e.node, Var) and e.node.is_inferred):
        return None
    b = bound(api, e.node)
    if b is None or b.other or len(b.values) != 1 or b.values[0][0] is not None:
        return None
    return b.values[0][1]


# per function being checked (by identity): each local variable's bindings
_SCANNED: dict[int, tuple[FuncItem, dict[Var, Bound]]] = {}


def _scan(func: FuncItem) -> dict[Var, Bound]:
    known = _SCANNED.get(id(func))
    if known is not None and known[0] is func:
        return known[1]
    values: dict[Var, list[tuple[int | None, Expression]]] = {}
    other: set[Var] = set()

    def targets(lvalue: Expression, into: set[Var]) -> None:
        if isinstance(lvalue, NameExpr) and isinstance(lvalue.node, Var):
            into.add(lvalue.node)
        elif isinstance(lvalue, (TupleExpr, ListExpr)):
            for item in lvalue.items:
                targets(item, into)
        elif isinstance(lvalue, IndexExpr) and isinstance(lvalue.base, NameExpr) and isinstance(lvalue.base.node, Var):
            into.add(lvalue.base.node)  # `name[i] = v` changes a list bound to `name`

    for stmt in statements(func.body.body):
        if isinstance(stmt, AssignmentStmt):
            for lvalue in stmt.lvalues:
                if isinstance(lvalue, NameExpr) and isinstance(lvalue.node, Var):
                    values.setdefault(lvalue.node, []).append((None, stmt.rvalue))
                elif isinstance(lvalue, (TupleExpr, ListExpr)):
                    for i, item in enumerate(lvalue.items):
                        if isinstance(item, NameExpr) and isinstance(item.node, Var):
                            values.setdefault(item.node, []).append((i, stmt.rvalue))
                        else:
                            targets(item, other)
                else:
                    targets(lvalue, other)
        elif isinstance(stmt, OperatorAssignmentStmt):
            targets(stmt.lvalue, other)
        elif isinstance(stmt, ForStmt):
            targets(stmt.index, other)
        elif isinstance(stmt, WithStmt):
            for target in stmt.target:
                if target is not None:
                    targets(target, other)
        elif isinstance(stmt, DelStmt):
            targets(stmt.expr, other)
        elif isinstance(stmt, ExpressionStmt) and isinstance(stmt.expr, CallExpr):
            callee = stmt.expr.callee
            if isinstance(callee, MemberExpr) and callee.name in _MUTATORS:
                targets(callee.expr, other)
    found = {var: Bound(v, var in other) for var, v in values.items()}
    for var in other - set(values):
        found[var] = Bound([], True)
    if len(_SCANNED) >= 256:
        _SCANNED.clear()
    _SCANNED[id(func)] = (func, found)
    return found


__all__ = ["Bound", "bound", "current_function", "single_value"]

"""What a local name was bound to, in the function being checked.

NOTE [ Names bound once ]
mypy widens a literal on assignment: after `r = 5` or `n = (224 // PATCH) ** 2`, `r` and `n` are
plain `int`, so `u[:, :r]` or `tt.zeros(1, n, d)` would have unknown sizes. A local name bound by
exactly one `name = value` statement and nowhere else in its function (no other assignment,
augmented assignment, loop or `with` target, `del`, no mutating method call on it) holds that value
wherever it is read; a name re-bound in the function's own straight-line statements (`y = a @ v;
y = y.transpose(1, 2)`, the usual forward) holds, where it is read, the value of the last
`name = value` before the read, when no branch or loop around the read binds it. The plugin reads
that value's own type from mypy's type map (`Literal[5]?`); a list keeps its items' types
(`tt.stack(feats)`), and the layout lints follow the value (lints.py). Attributes, and names bound
in a branch or loop around the read, keep mypy's type.
"""

from __future__ import annotations

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
    Statement,
    TupleExpr,
    Var,
    WithStmt,
)
from mypy.plugin import CheckerPluginInterface

from .walk import statements

_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort", "__setitem__"})


class Bound:
    """A local's `name = value` statements (`position` is its place in a tuple target, or None) and
    whether it is bound or changed any other way. (A plain class: a NamedTuple costs the plugin's
    import a fraction of a millisecond, paid by every mypy run.)"""

    __slots__ = ("other", "values")

    def __init__(self, values: list[tuple[int | None, Expression]], other: bool) -> None:
        self.values = values
        self.other = other


def current_function(api: CheckerPluginInterface) -> FuncItem | None:
    return api.scope.current_function() if isinstance(api, TypeChecker) else None


def bound(api: CheckerPluginInterface, var: Var) -> Bound | None:
    """How `var` is bound in the function being checked; None when it is not bound there."""
    func = current_function(api)
    if func is None:
        return None
    return _scan(func).bound.get(var)


INITIAL = "initial"
"""`value_at`'s answer for a parameter not bound before the read: the caller's argument."""


def value_at(api: CheckerPluginInterface, e: Expression) -> Expression | str | None:
    """What the local name `e` holds where it is read (NOTE [ Names bound once ]): the value of a
    name bound once; in straight-line code (the function's own statements, not inside a branch or
    loop that binds it), the value of the last `name = value` before the read; `INITIAL` for a
    parameter not bound before it; None when it is not known."""
    if not (isinstance(e, NameExpr) and isinstance(e.node, Var)):
        return None
    var = e.node
    func = current_function(api)
    if func is None or not (var.is_inferred or var.is_argument):
        return None
    scanned = _scan(func)
    b = scanned.bound.get(var)
    if b is None:
        return INITIAL if var.is_argument else None
    if not var.is_argument and not b.other and len(b.values) == 1 and b.values[0][0] is None:
        return b.values[0][1]
    i = next((k for k, (s, _) in enumerate(scanned.top) if s.line <= e.line <= max(s.end_line or s.line, s.line)), -1)
    if i < 0:
        return None
    stmt, binds = scanned.top[i]
    if var in binds and not isinstance(stmt, AssignmentStmt):
        return None  # bound inside the branch or loop that reads it
    for prev, prev_binds in reversed(scanned.top[:i]):
        if var in prev_binds:
            single = len(prev.lvalues) == 1 if isinstance(prev, AssignmentStmt) else False
            if single and isinstance(prev, AssignmentStmt) and isinstance(prev.lvalues[0], NameExpr) \
                    and prev.lvalues[0].node is var:
                return prev.rvalue
            return None
    return INITIAL if var.is_argument else None


def single_value(api: CheckerPluginInterface, e: Expression) -> Expression | None:
    """The expression a local name holds where it is read (`value_at`), when one is known."""
    value = value_at(api, e)
    return value if isinstance(value, Expression) else None


class _Scanned:
    __slots__ = ("bound", "top")

    def __init__(self, bound: dict[Var, Bound], top: list[tuple[Statement, set[Var]]]) -> None:
        self.bound = bound
        self.top = top  # the function's own statements, each with the names it binds


# per function being checked (by identity): its bindings
_SCANNED: dict[int, tuple[FuncItem, _Scanned]] = {}


def _scan(func: FuncItem) -> _Scanned:
    known = _SCANNED.get(id(func))
    if known is not None and known[0] is func:
        return known[1]
    values: dict[Var, list[tuple[int | None, Expression]]] = {}
    other: set[Var] = set()
    top: list[tuple[Statement, set[Var]]] = []
    for stmt in func.body.body:
        binds: set[Var] = set()
        for inner in statements([stmt]):
            _bindings(inner, values, other, binds)
        top.append((stmt, binds))
    found = {var: Bound(v, var in other) for var, v in values.items()}
    for var in other - set(values):
        found[var] = Bound([], True)
    scanned = _Scanned(found, top)
    if len(_SCANNED) >= 256:
        _SCANNED.clear()
    _SCANNED[id(func)] = (func, scanned)
    return scanned


def _targets(lvalue: Expression, into: set[Var]) -> None:
    if isinstance(lvalue, NameExpr) and isinstance(lvalue.node, Var):
        into.add(lvalue.node)
    elif isinstance(lvalue, (TupleExpr, ListExpr)):
        for item in lvalue.items:
            _targets(item, into)
    elif isinstance(lvalue, IndexExpr) and isinstance(lvalue.base, NameExpr) and isinstance(lvalue.base.node, Var):
        into.add(lvalue.base.node)  # `name[i] = v` changes a list bound to `name`


def _bindings(stmt: Statement, values: dict[Var, list[tuple[int | None, Expression]]], other: set[Var],
              binds: set[Var]) -> None:
    """Record the names `stmt` binds: `name = value` in `values`, any other binding or change in
    `other`; every name it binds or changes in `binds`."""
    changed: set[Var] = set()
    if isinstance(stmt, AssignmentStmt):
        for lvalue in stmt.lvalues:
            if isinstance(lvalue, NameExpr) and isinstance(lvalue.node, Var):
                values.setdefault(lvalue.node, []).append((None, stmt.rvalue))
                binds.add(lvalue.node)
            elif isinstance(lvalue, (TupleExpr, ListExpr)):
                for i, item in enumerate(lvalue.items):
                    if isinstance(item, NameExpr) and isinstance(item.node, Var):
                        values.setdefault(item.node, []).append((i, stmt.rvalue))
                        binds.add(item.node)
                    else:
                        _targets(item, changed)
            else:
                _targets(lvalue, changed)
    elif isinstance(stmt, OperatorAssignmentStmt):
        _targets(stmt.lvalue, changed)
    elif isinstance(stmt, ForStmt):
        _targets(stmt.index, changed)
    elif isinstance(stmt, WithStmt):
        for target in stmt.target:
            if target is not None:
                _targets(target, changed)
    elif isinstance(stmt, DelStmt):
        _targets(stmt.expr, changed)
    elif isinstance(stmt, ExpressionStmt) and isinstance(stmt.expr, CallExpr):
        callee = stmt.expr.callee
        if isinstance(callee, MemberExpr) and callee.name in _MUTATORS:
            _targets(callee.expr, changed)
    other |= changed
    binds |= changed


__all__ = ["INITIAL", "Bound", "bound", "current_function", "single_value", "value_at"]

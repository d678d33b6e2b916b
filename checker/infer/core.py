"""The inference's shared state and its two entry points every layer uses: ``eval`` (what an
expression holds) and ``report`` (a finding at a node).

The inference is one object per module, built in layers, each a class with one job over the layer
below it: ``tensors`` (tensor ops through the registry) → ``expressions`` (operators, literals,
containers, subscripts) → ``calls`` (calls, functions, classes, instances, attributes) →
``statements`` (statements, flow, assignment, imports). Each layer adds its expression handlers to
``eval``'s table; the few calls that go up a layer are declared here.

NOTE [ One bug, one report ]
A rule's ``Issue`` is reported at the expression that caused it and the expression's value becomes
``UNKNOWN``, which every later check accepts: one bug gives one report, not a cascade. Code that
runs more than once during inference (a loop body while its loop-carried values settle, a class's
``__init__`` re-run for each construction) runs "quiet" when its values are not exact: it computes
values but reports nothing. Reports are keyed by node and code, so a node is reported once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

import libcst as cst

from typedtensor.shapes import Issue

from ..context import ModuleCtx, Pending, Scope
from ..report import Severity
from ..values import UNKNOWN, ConstV, FuncV, QualV, Value

MAX_EXPR_DEPTH: Final = 300

BUILTIN_NAMES: Final = frozenset({
    "int", "float", "bool", "str", "bytes", "tuple", "list", "dict", "set", "frozenset", "type",
    "object", "range", "len", "zip", "enumerate", "isinstance", "super", "print", "min", "max",
    "sum", "abs", "reversed", "sorted", "iter", "next", "map", "filter", "any", "all", "round",
    "getattr", "setattr", "hasattr", "callable", "repr", "id", "hash", "open", "vars", "dir",
})

Arg = tuple[Value, cst.CSTNode | None]  # an argument's value and the node to report it at (None: none)
Handler = Callable[[Any, Scope], Value]
Self = TypeVar("Self", bound="InferCore")


class InferCore:
    """State, reporting, expression dispatch and name lookup for one module."""

    def __init__(self, ctx: ModuleCtx):
        self.ctx = ctx
        self.quiet = 0
        self.top = -1  # the module-level statement being run (see Pending.top)
        self.loop_depth = 0
        self.call_depth = 0
        self.expr_depth = 0
        self.module_scope = Scope(ctx.env)
        self._dispatch: dict[type[cst.CSTNode], Handler] = {}

    def handle(self, table: dict[type[cst.CSTNode], Handler]) -> None:
        """Add a layer's expression handlers to ``eval``'s table."""
        self._dispatch.update(table)

    def inferrer_of(self: Self, ctx: ModuleCtx) -> Self:
        """The inference of another module (annotations are read, and bodies run, where they were
        written); one per module, kept on its context."""
        if ctx is self.ctx:
            return self
        inf = ctx.inferrer
        if not isinstance(inf, type(self)):
            inf = type(self)(ctx)
            ctx.inferrer = inf
        return inf

    # -- reporting ---------------------------------------------------------------------------

    def report(self, node: cst.CSTNode, code: str, message: str, severity: Severity = "error") -> None:
        if self.quiet:
            return
        key = (id(node), code)
        if key in self.ctx.seen:
            return
        self.ctx.seen.add(key)
        self.ctx.pending.append(Pending(node, code, severity, message, self.top))

    def issue(self, node: cst.CSTNode, issue: Issue) -> Value:
        self.report(node, issue.code, issue.message)
        return UNKNOWN

    # -- expressions -------------------------------------------------------------------------

    def eval(self, node: cst.BaseExpression, scope: Scope) -> Value:
        fn = self._dispatch.get(type(node))
        if fn is None:
            return UNKNOWN
        self.expr_depth += 1
        try:
            if self.expr_depth > MAX_EXPR_DEPTH:
                return UNKNOWN
            return fn(node, scope)
        finally:
            self.expr_depth -= 1

    def lookup(self, name: str, scope: Scope) -> Value:
        s: Scope | None = scope
        first = True
        while s is not None:
            if (first or not s.is_class) and name in s.vars:
                return s.vars[name]
            first = False
            s = s.parent
        if name in self.module_scope.vars:
            return self.module_scope.vars[name]
        if name in ("True", "False"):
            return ConstV(name == "True")
        if name == "None":
            return ConstV(None)
        if name in BUILTIN_NAMES or name in ("staticmethod", "classmethod", "property"):
            return QualV(f"builtins.{name}")
        if name == "reveal_shape":
            return QualV("reveal_shape")
        return UNKNOWN

    # -- calls into higher layers ------------------------------------------------------------

    def exec_suite(self, suite: cst.BaseSuite, scope: Scope) -> None:
        raise NotImplementedError  # statements

    def call_function(self, fv: FuncV, args: Sequence[Arg], kwargs: dict[str, Arg], call: cst.Call,
                      opaque: bool) -> Value:
        raise NotImplementedError  # calls

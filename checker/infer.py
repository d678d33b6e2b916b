"""Inference over a libcst module: what each name and expression holds, and the shape errors the
registry finds on the way.

NOTE [ One bug, one report ]
A rule's ``Issue`` is reported at the expression that caused it and the expression's value becomes
``UNKNOWN``, which every later check accepts: one bug gives one report, not a cascade. Code that
runs more than once during inference (a loop body while its loop-carried values settle, a class's
``__init__`` re-run for each construction) runs "quiet" when its values are not exact: it computes
values but reports nothing. Reports are keyed by node and code, so a node is reported once.

NOTE [ Flow ]
Branches run on copies of the scope and are joined: a name that holds the same value on every live
path keeps it, any disagreement gives ``UNKNOWN`` (never an error). A loop body first runs on the
values it is entered with (exactly the first iteration's: it reports), then quietly until the
values it carries stop changing (a value that changes is widened to unknown), then once more,
reporting what holds for every iteration. Function bodies are checked after the module's top level
has run, against the module's final globals, each exactly once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import libcst as cst

from typedtensor.shapes import Issue, Outputs
from typedtensor.shapes.dims import (
    UNKNOWN,
    DimExpr,
    Poly,
    Unknown,
    d_add,
    d_floordiv,
    d_mul,
    d_sub,
    dim_var,
    fmt_dim,
    named_dim,
)
from typedtensor.shapes.shape import Shape, fmt_shape
from typedtensor.shapes.unify import Bindings, compatible, substitute, substitute_dim, unify

from . import calculus as calc
from . import names
from .annotations import (
    ANY,
    Ann,
    AnnotationReader,
    AnyAnn,
    SeqAnn,
    SizeAnn,
    TensorAnn,
    TupleAnn,
    _int_literal,
    value_of,
)
from .report import REVEAL, SHOW, Severity
from .values import (
    BoundV,
    ClassInfo,
    ClassV,
    ConstV,
    DimClassV,
    FuncInfo,
    FuncV,
    InstanceV,
    LibModuleV,
    ModuleRefV,
    OutputsV,
    QualV,
    ScalarV,
    SequentialV,
    SeqV,
    ShapeV,
    SizeV,
    SuperV,
    TensorV,
    TupleV,
    TypeVarV,
    Value,
)

if TYPE_CHECKING:
    from .project import Project

MAX_LOOP_PASSES: Final = 3
MAX_LOOP_NESTING: Final = 3  # deeper loops widen every name they assign, in one pass
MAX_CALL_DEPTH: Final = 6  # nested constructions (``__init__`` re-runs)
MAX_INIT_RUNS: Final = 500  # ``__init__`` re-runs per checked module (a budget against fan-out)
MAX_EXPR_DEPTH: Final = 300
MAX_INLINE_DEPTH: Final = 3  # nested inlined calls of unannotated functions
MAX_INLINE_STATEMENTS: Final = 40  # a larger unannotated function is not inlined

_BUILTIN_NAMES: Final = frozenset({
    "int", "float", "bool", "str", "bytes", "tuple", "list", "dict", "set", "frozenset", "type",
    "object", "range", "len", "zip", "enumerate", "isinstance", "super", "print", "min", "max",
    "sum", "abs", "reversed", "sorted", "iter", "next", "map", "filter", "any", "all", "round",
    "getattr", "setattr", "hasattr", "callable", "repr", "id", "hash", "open", "vars", "dir",
})

_BINOPS: Final[dict[type[cst.BaseBinaryOp], tuple[str, str]]] = {
    cst.Add: ("__add__", "+"), cst.Subtract: ("__sub__", "-"), cst.Multiply: ("__mul__", "*"),
    cst.Divide: ("__truediv__", "/"), cst.FloorDivide: ("__floordiv__", "//"),
    cst.Modulo: ("__mod__", "%"), cst.Power: ("__pow__", "**"),
    cst.MatrixMultiply: ("__matmul__", "@"), cst.BitAnd: ("__and__", "&"),
    cst.BitOr: ("__or__", "|"), cst.BitXor: ("__xor__", "^"),
    cst.LeftShift: ("__lshift__", "<<"), cst.RightShift: ("__rshift__", ">>"),
}
_AUGOPS: Final[dict[type[cst.BaseAugOp], type[cst.BaseBinaryOp]]] = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide,
    cst.ModuloAssign: cst.Modulo, cst.PowerAssign: cst.Power,
    cst.MatrixMultiplyAssign: cst.MatrixMultiply, cst.BitAndAssign: cst.BitAnd,
    cst.BitOrAssign: cst.BitOr, cst.BitXorAssign: cst.BitXor,
    cst.LeftShiftAssign: cst.LeftShift, cst.RightShiftAssign: cst.RightShift,
}
_COMPARE: Final[dict[type[cst.BaseCompOp], str]] = {
    cst.Equal: "__eq__", cst.NotEqual: "__ne__", cst.LessThan: "__lt__",
    cst.LessThanEqual: "__le__", cst.GreaterThan: "__gt__", cst.GreaterThanEqual: "__ge__",
}
_UNARY: Final[dict[type[cst.BaseUnaryOp], str]] = {
    cst.Minus: "__neg__", cst.Plus: "__pos__", cst.BitInvert: "__invert__",
}
_LIST_MUTATORS: Final = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"})


@dataclass
class Pending:
    """A report before positions are known (positions are computed only for files that have one)."""

    node: cst.CSTNode
    code: str
    severity: Severity
    message: str
    top: int  # index of the module-level statement that contains the node (-1: unknown)


@dataclass
class Param:
    name: str
    kind: str  # positional | normal | vararg | kwonly | kwargs
    ann: Ann
    has_default: bool
    default: cst.BaseExpression | None = None


@dataclass
class Signature:
    params: list[Param]
    returns: Ann
    free: frozenset[str]  # the variables its annotations mention


@dataclass
class Scope:
    vars: dict[str, Value]
    parent: Scope | None = None
    func: FuncInfo | None = None
    is_class: bool = False
    declared: dict[str, Ann] = field(default_factory=dict)
    dead: bool = False
    self_name: str | None = None
    in_init: bool = False
    returns: list[Value] | None = None  # an inlined call's body collects its return values here


def join(a: Value, b: Value) -> Value:
    if a is b or a == b:
        return a
    if isinstance(a, TensorV) and isinstance(b, TensorV):
        return TensorV(UNKNOWN, a.is_bool and b.is_bool)
    if isinstance(a, TupleV) and isinstance(b, TupleV) and len(a.items) == len(b.items):
        return TupleV(tuple(join(x, y) for x, y in zip(a.items, b.items, strict=False)), a.is_list)
    if isinstance(a, SeqV) and isinstance(b, SeqV):
        return SeqV(join(a.elem, b.elem))
    if isinstance(a, (ScalarV, ConstV, SizeV)) and isinstance(b, (ScalarV, ConstV, SizeV)):
        if isinstance(a, ConstV) and not isinstance(a.value, (int, float)):
            return UNKNOWN
        if isinstance(b, ConstV) and not isinstance(b.value, (int, float)):
            return UNKNOWN
        return ScalarV()
    return UNKNOWN


def join_vars(a: dict[str, Value], b: dict[str, Value]) -> dict[str, Value]:
    out = dict(a)
    for k, v in b.items():
        out[k] = join(out[k], v) if k in out else v
    return out


def describe(v: Value) -> str:
    if isinstance(v, TensorV):
        return f"Tensor{fmt_shape(v.shape)}" if not isinstance(v.shape, Unknown) else "Tensor[?]"
    if isinstance(v, SizeV):
        return f"size {fmt_dim(v.dim)}"
    if isinstance(v, ConstV):
        return repr(v.value) if isinstance(v.value, (int, float, bool)) or v.value is None else type(v.value).__name__
    if isinstance(v, TupleV):
        inner = ", ".join(describe(i) for i in v.items)
        return f"[{inner}]" if v.is_list else f"({inner}{',' if len(v.items) == 1 else ''})"
    if isinstance(v, SeqV):
        return f"sequence of {describe(v.elem)}"
    if isinstance(v, ShapeV):
        return f"shape {fmt_shape(v.shape)}"
    if isinstance(v, OutputsV):
        shapes = v.outputs.shapes
        if isinstance(shapes, Unknown):
            return f"tensors of Tensor{fmt_shape(v.outputs.element)}"
        return "(" + ", ".join(f"Tensor{fmt_shape(s)}" for s in shapes) + ")"
    if isinstance(v, LibModuleV):
        args = ", ".join(f"{k}={_fmt_ctor_arg(v.ctor[k])}" for k in v.mdef.type_params if k in v.ctor)
        return f"{v.mdef.name.rsplit('.', 1)[-1]}({args})"
    if isinstance(v, InstanceV):
        args = ", ".join(fmt_dim(v.bindings.dims.get(t, UNKNOWN)) for t in v.cls.typevars)
        return f"{v.cls.qualname.rsplit('.', 1)[-1]}" + (f"[{args}]" if args else "")
    if isinstance(v, ScalarV):
        return "number"
    if isinstance(v, SequentialV):
        return "Sequential(" + ", ".join(describe(layer) for layer in v.layers) + ")"
    return "?"


class ModuleCtx:
    """One module of the checked tree: its tree, its globals and its pending reports."""

    def __init__(self, project: Project, name: str, path: str, module: cst.Module, is_package: bool):
        self.project = project
        self.name = name
        self.path = path
        self.module = module
        self.is_package = is_package
        self.env: dict[str, Value] = {}
        self.pending: list[Pending] = []
        self.seen: set[tuple[int, str]] = set()
        self.deferred: list[tuple[FuncInfo, Scope]] = []
        self.deferred_defs: set[int] = set()
        self.state = "new"  # new | running | toplevel | done
        self.tainted = False
        self.imports: set[str] = set()  # project modules it imported
        self.missing: set[str] = set()  # absolute module names it imported that are not in the tree
        self.show_shapes = project.show_shapes
        self.init_runs = 0
        self.assigned: dict[int, frozenset[str]] = {}  # memo of infer._assigned_names


class Inferrer:
    """Runs one module: its top level, then each function body once."""

    def __init__(self, ctx: ModuleCtx):
        self.ctx = ctx
        self.quiet = 0
        self.top = -1  # the module-level statement being run (see Pending.top)
        self.loop_depth = 0
        self.call_depth = 0
        self.expr_depth = 0
        self.module_scope = Scope(ctx.env)
        self.reader_scope: Scope = self.module_scope
        self.reader = AnnotationReader(self._resolve_ann, self.new_instance)
        self._dispatch: dict[type[cst.CSTNode], Callable[[Any, Scope], Value]] = {
            cst.Name: self.e_name, cst.Attribute: self.e_attribute, cst.Call: self.e_call,
            cst.BinaryOperation: self.e_binop, cst.UnaryOperation: self.e_unary,
            cst.BooleanOperation: self.e_boolop, cst.Comparison: self.e_compare,
            cst.Subscript: self.e_subscript, cst.Integer: self.e_int, cst.Float: self.e_float,
            cst.Imaginary: self.e_nothing, cst.SimpleString: self.e_string,
            cst.ConcatenatedString: self.e_concat, cst.FormattedString: self.e_fstring,
            cst.Tuple: self.e_tuple, cst.List: self.e_list, cst.Set: self.e_set, cst.Dict: self.e_dict,
            cst.ListComp: self.e_comp, cst.SetComp: self.e_comp, cst.GeneratorExp: self.e_comp,
            cst.DictComp: self.e_dictcomp, cst.Lambda: self.e_lambda, cst.IfExp: self.e_ifexp,
            cst.NamedExpr: self.e_walrus, cst.Await: self.e_await, cst.Yield: self.e_yield,
            cst.Ellipsis: self.e_ellipsis,
        }

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

    # -- module ------------------------------------------------------------------------------

    def run_module(self) -> None:
        for i, stmt in enumerate(self.ctx.module.body):
            if self.module_scope.dead:
                break
            self.top = i
            self.exec_stmt(stmt, self.module_scope)
        self.top = -1
        self.ctx.env = self.module_scope.vars

    def check_bodies(self) -> None:
        while self.ctx.deferred:
            func, scope = self.ctx.deferred.pop(0)
            self.check_function(func, scope)

    # -- statements --------------------------------------------------------------------------

    def exec_block(self, body: Sequence[cst.CSTNode], scope: Scope) -> None:
        for stmt in body:
            if scope.dead:
                return
            self.exec_stmt(stmt, scope)

    def exec_suite(self, suite: cst.BaseSuite, scope: Scope) -> None:
        self.exec_block(suite.body, scope)

    def exec_stmt(self, stmt: cst.CSTNode, scope: Scope) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if scope.dead:
                    return
                self.exec_small(small, scope)
            return
        handler = _STATEMENTS.get(type(stmt))
        if handler is not None:
            handler(self, stmt, scope)

    def exec_small(self, s: cst.BaseSmallStatement, scope: Scope) -> None:
        if isinstance(s, cst.Expr):
            self.eval(s.value, scope)
        elif isinstance(s, cst.Assign):
            value = self.eval(s.value, scope)
            for t in s.targets:
                self.assign(t.target, value, scope, s.value)
        elif isinstance(s, cst.AnnAssign):
            self.s_annassign(s, scope)
        elif isinstance(s, cst.AugAssign):
            self.s_augassign(s, scope)
        elif isinstance(s, cst.Return):
            self.s_return(s, scope)
        elif isinstance(s, (cst.Raise,)):
            if s.exc is not None:
                self.eval(s.exc, scope)
            scope.dead = True
        elif isinstance(s, (cst.Break, cst.Continue)):
            scope.dead = True
        elif isinstance(s, cst.Import):
            self.s_import(s, scope)
        elif isinstance(s, cst.ImportFrom):
            self.s_importfrom(s, scope)
        elif isinstance(s, cst.Assert):
            self.eval(s.test, scope)
        elif isinstance(s, cst.Del):
            for name in _target_names(s.target):
                scope.vars.pop(name, None)
        elif isinstance(s, (cst.Global, cst.Nonlocal)):
            for n in s.names:
                scope.vars.pop(n.name.value, None)

    def s_annassign(self, s: cst.AnnAssign, scope: Scope) -> None:
        ann = self.read_ann(s.annotation.annotation, scope)
        target = s.target
        if isinstance(target, cst.Name):
            scope.declared[target.value] = ann
        elif isinstance(target, cst.Attribute) and self._is_self(target.value, scope):
            info = self._self_class(scope)
            if info is not None and not self.quiet:
                info.declared.setdefault(target.attr.value, ann)
        if s.value is None:
            return
        value = self.eval(s.value, scope)
        if self.check_declared(ann, value, s.value, "shape-assign", f"assignment to '{_target_text(target)}'"):
            value = value_of(ann) if not _informative(value) else value
        else:
            value = value_of(ann)
        self.bind_target(target, value, scope, s.value)

    def s_augassign(self, s: cst.AugAssign, scope: Scope) -> None:
        left = self.eval(s.target, scope)
        right = self.eval(s.value, scope)
        op_type = _AUGOPS.get(type(s.operator))
        if op_type is None:
            return
        dunder, symbol = _BINOPS[op_type]
        value = self.binop(left, right, dunder, symbol, s, inplace=True)
        if isinstance(s.target, cst.Name):
            self.bind_name(s.target.value, value, scope, s.target)

    def s_return(self, s: cst.Return, scope: Scope) -> None:
        value = self.eval(s.value, scope) if s.value is not None else ConstV(None)
        if scope.returns is not None:
            scope.returns.append(value)
        func = scope.func
        if func is not None and s.value is not None:
            sig = self.signature_of(func)
            self.check_declared(sig.returns, value, s.value, "shape-return", "return value")
        scope.dead = True

    def s_if(self, s: cst.If, scope: Scope) -> None:
        self.eval(s.test, scope)
        before = dict(scope.vars)
        self.exec_suite(s.body, scope)
        then_vars, then_dead = dict(scope.vars), scope.dead
        scope.vars.clear()
        scope.vars.update(before)
        scope.dead = False
        if isinstance(s.orelse, cst.If):
            self.s_if(s.orelse, scope)
        elif isinstance(s.orelse, cst.Else):
            self.exec_suite(s.orelse.body, scope)
        self._merge(scope, then_vars, then_dead)

    def _merge(self, scope: Scope, other: dict[str, Value], other_dead: bool) -> None:
        """Join the scope's current state with another branch's."""
        if other_dead and scope.dead:
            return
        if other_dead:
            return
        if scope.dead:
            scope.vars.clear()
            scope.vars.update(other)
            scope.dead = False
            return
        merged = join_vars(other, scope.vars)
        scope.vars.clear()
        scope.vars.update(merged)

    def s_for(self, s: cst.For, scope: Scope) -> None:
        iterable = self.eval(s.iter, scope)
        elem = self.iter_elem(iterable, s.iter)
        self._loop(scope, s.body, lambda: self.assign(s.target, elem, scope, s.iter))
        if s.orelse is not None:
            self.exec_suite(s.orelse.body, scope)

    def s_while(self, s: cst.While, scope: Scope) -> None:
        self.eval(s.test, scope)
        self._loop(scope, s.body, lambda: self.eval(s.test, scope))
        if s.orelse is not None:
            self.exec_suite(s.orelse.body, scope)

    def _loop(self, scope: Scope, body: cst.BaseSuite, enter: Callable[[], object]) -> None:
        """NOTE [ Flow ]: the first pass sees exactly the first iteration's values and reports what
        it proves; quiet passes widen what the body changes until nothing does; the last pass,
        over values that hold for every iteration, reports too (each node and code once)."""
        before = dict(scope.vars)
        widened = dict(before)
        if self.loop_depth < MAX_LOOP_NESTING:
            self.loop_depth += 1
            try:
                for attempt in range(MAX_LOOP_PASSES):
                    scope.vars.clear()
                    scope.vars.update(widened)
                    scope.dead = False
                    self.quiet += attempt > 0
                    try:
                        enter()
                        self.exec_suite(body, scope)
                    finally:
                        self.quiet -= attempt > 0
                    nxt = dict(widened)
                    for k, v in scope.vars.items():
                        nxt[k] = join(widened[k], v) if k in widened else v
                    if nxt == widened:
                        break
                    widened = nxt
                else:
                    for k in _assigned_names(body, self.ctx.assigned):
                        widened[k] = UNKNOWN
            finally:
                self.loop_depth -= 1
        else:
            for k in _assigned_names(body, self.ctx.assigned):
                widened[k] = UNKNOWN
        scope.vars.clear()
        scope.vars.update(widened)
        scope.dead = False
        self.loop_depth += 1
        try:
            enter()
            self.exec_suite(body, scope)
        finally:
            self.loop_depth -= 1
        scope.dead = False
        merged = join_vars(before, scope.vars)
        scope.vars.clear()
        scope.vars.update(merged)

    def s_with(self, s: cst.With, scope: Scope) -> None:
        for item in s.items:
            v = self.eval(item.item, scope)
            if item.asname is not None:
                entered = v if isinstance(v, TensorV) else UNKNOWN
                self.bind_target(item.asname.name, entered, scope, item.item)
        self.exec_suite(s.body, scope)

    def s_try(self, s: cst.Try | cst.TryStar, scope: Scope) -> None:
        before = dict(scope.vars)
        self.exec_suite(s.body, scope)
        body_vars, body_dead = dict(scope.vars), scope.dead
        start = join_vars(before, body_vars)
        ends: list[tuple[dict[str, Value], bool]] = []
        for h in s.handlers:
            scope.vars.clear()
            scope.vars.update(start)
            scope.dead = False
            if h.type is not None:
                self.eval(h.type, scope)
            if h.name is not None:
                self.bind_target(h.name.name, UNKNOWN, scope, h)
            self.exec_suite(h.body, scope)
            ends.append((dict(scope.vars), scope.dead))
        scope.vars.clear()
        scope.vars.update(body_vars)
        scope.dead = body_dead
        if s.orelse is not None and not body_dead:
            self.exec_suite(s.orelse.body, scope)
        for vars_, dead in ends:
            self._merge(scope, vars_, dead)
        if s.finalbody is not None:
            was_dead = scope.dead
            scope.dead = False
            self.exec_suite(s.finalbody.body, scope)
            scope.dead = scope.dead or was_dead

    def s_match(self, s: cst.Match, scope: Scope) -> None:
        self.eval(s.subject, scope)
        before = dict(scope.vars)
        ends: list[tuple[dict[str, Value], bool]] = []
        for case in s.cases:
            scope.vars.clear()
            scope.vars.update(before)
            scope.dead = False
            for name in _pattern_names(case.pattern):
                scope.vars[name] = UNKNOWN
            if case.guard is not None:
                self.eval(case.guard, scope)
            self.exec_suite(case.body, scope)
            ends.append((dict(scope.vars), scope.dead))
        scope.vars.clear()
        scope.vars.update(before)
        scope.dead = False
        for vars_, dead in ends:
            self._merge(scope, vars_, dead)

    def s_funcdef(self, s: cst.FunctionDef, scope: Scope) -> None:
        cls = None
        if scope.is_class:
            cls = self._class_of_scope
        kind = "function"
        transparent = True
        for dec in s.decorators:
            d = dec.decorator
            dv = self.eval(d.func if isinstance(d, cst.Call) else d, scope)
            q = dv.qual if isinstance(dv, QualV) else None
            if q in ("builtins.staticmethod", "staticmethod"):
                kind = "staticmethod"
            elif q in ("builtins.classmethod", "classmethod"):
                kind = "classmethod"
            elif q in ("builtins.property", "property", "functools.cached_property"):
                kind = "property"
            elif q is None or (q.removeprefix("builtins.") not in names.TRANSPARENT_DECORATORS
                               and not q.startswith(names.PACKAGE + ".")):
                transparent = False  # an unknown decorator may change the signature
        qual = f"{self._qual_prefix(scope)}{s.name.value}"
        if scope.is_class:
            parent = scope.parent or self.module_scope
        elif scope.func is None:
            parent = self.module_scope
        else:
            parent = scope
        info = FuncInfo(s, self.ctx, qual, cls, parent, kind, top=self.top)
        if not self.quiet and id(s) not in self.ctx.deferred_defs:  # a loop body runs more than once
            self.ctx.deferred_defs.add(id(s))
            self.ctx.deferred.append((info, parent))
        self.bind_name(s.name.value, FuncV(info, None, transparent), scope, None)

    _class_of_scope: ClassInfo | None = None

    def _qual_prefix(self, scope: Scope) -> str:
        if scope.func is not None:
            return f"{scope.func.qualname}.<locals>."
        if scope.is_class and self._class_of_scope is not None:
            return f"{self._class_of_scope.qualname.removeprefix(self.ctx.name + '.')}."
        return ""

    def s_classdef(self, s: cst.ClassDef, scope: Scope) -> None:
        bases = [self.eval(a.value, scope) for a in s.bases if not a.keyword and not a.star]
        for a in s.bases:
            if a.keyword or a.star:
                self.eval(a.value, scope)
        name = s.name.value
        qual = f"{self.ctx.name}.{self._qual_prefix(scope)}{name}"
        if any((isinstance(b, QualV) and b.qual in names.DIM) or isinstance(b, DimClassV) for b in bases):
            self.bind_name(name, DimClassV(qual, name), scope, None)
            return
        info = ClassInfo(s, self.ctx, qual, bases)
        for a in s.bases:
            if isinstance(a.value, cst.Subscript):
                for el in a.value.slice:
                    if isinstance(el.slice, cst.Index):
                        tv = self.eval(el.slice.value, scope)
                        if isinstance(tv, TypeVarV) and tv.name not in info.typevars:
                            info.typevars.append(tv.name)
        info.is_module = any(
            (isinstance(b, QualV) and b.qual in names.MODULE_BASE)
            or (isinstance(b, ClassV) and b.info.is_module)
            for b in bases
        )
        for b in bases:
            if isinstance(b, ClassV):
                for inherited in b.info.typevars:
                    if inherited not in info.typevars and not any(isinstance(a.value, cst.Subscript) for a in s.bases):
                        info.typevars.append(inherited)
        body_scope = Scope(info.namespace, parent=scope if not scope.is_class else scope.parent,
                           func=None, is_class=True)
        outer_cls = self._class_of_scope
        self._class_of_scope = info
        try:
            self.exec_suite(s.body, body_scope)
        finally:
            self._class_of_scope = outer_cls
        info.declared.update(body_scope.declared)
        self.bind_name(name, ClassV(info), scope, None)

    def s_import(self, s: cst.Import, scope: Scope) -> None:
        for alias in s.names:
            full = _dotted(alias.name)
            if full is None:
                continue
            if alias.asname is not None:
                target = alias.asname.name
                value = self.module_value(full)
                if isinstance(target, cst.Name):
                    self.bind_name(target.value, value, scope, None)
            else:
                top = full.split(".")[0]
                self.module_value(full)  # load (and record) the whole chain
                self.bind_name(top, self.module_value(top), scope, None)

    def s_importfrom(self, s: cst.ImportFrom, scope: Scope) -> None:
        base = _dotted(s.module) if s.module is not None else ""
        if base is None:
            return
        from .discover import resolve_relative

        absolute = resolve_relative("." * len(s.relative) + base, self.ctx.name, self.ctx.is_package)
        if absolute is None:
            return
        if isinstance(s.names, cst.ImportStar):
            src = self.module_value(absolute)
            if isinstance(src, ModuleRefV):
                other = self.ctx.project.module_env(src.name, self.ctx)
                if other is not None:
                    for k, v in other.items():
                        if not k.startswith("_"):
                            scope.vars[k] = v
            elif isinstance(src, QualV):
                for k in names.star_names(src.qual, (*calc.FUNCTIONS, *calc.MODULES)):
                    scope.vars[k] = QualV(f"{src.qual}.{k}")
            return
        for alias in s.names:
            name = _dotted(alias.name)
            if name is None:
                continue
            bound = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else name
            value = self.import_from(absolute, name)
            self.bind_name(bound, value, scope, None)

    def module_value(self, full: str) -> Value:
        project = self.ctx.project
        if project.has_module(full):
            project.note_import(self.ctx, full)
            return ModuleRefV(full)
        if full == names.PACKAGE or full.startswith(names.PACKAGE + "."):
            return QualV(full)
        if not project.is_external(full):
            self.ctx.missing.add(full)
        return QualV(full)

    def import_from(self, module: str, name: str) -> Value:
        project = self.ctx.project
        sub = f"{module}.{name}" if module else name
        if project.has_module(sub):
            project.note_import(self.ctx, sub)
            return ModuleRefV(sub)
        if project.has_module(module):
            project.note_import(self.ctx, module)
            env = project.module_env(module, self.ctx)
            if env is None:
                return UNKNOWN
            return env.get(name, UNKNOWN)
        if not project.is_external(module):
            self.ctx.missing.add(module)
            self.ctx.missing.add(sub)
        return QualV(sub)

    # -- assignment --------------------------------------------------------------------------

    def assign(self, target: cst.BaseExpression, value: Value, scope: Scope, value_node: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            ann = self._declared(target.value, scope)
            if ann is not None and not self.check_declared(
                ann, value, value_node, "shape-assign", f"assignment to '{target.value}'"
            ):
                value = value_of(ann)
        elif isinstance(target, cst.Attribute) and self._is_self(target.value, scope):
            info = self._self_class(scope)
            ann = info.lookup_declared(target.attr.value) if info is not None else None
            if ann is not None and not self.check_declared(
                ann, value, value_node, "shape-assign", f"assignment to 'self.{target.attr.value}'"
            ):
                value = value_of(ann)
        self.bind_target(target, value, scope, value_node)

    def bind_target(self, target: cst.BaseExpression, value: Value, scope: Scope, node: cst.CSTNode | None) -> None:
        if isinstance(target, cst.Name):
            self.bind_name(target.value, value, scope, target)
        elif isinstance(target, (cst.Tuple, cst.List)):
            self._unpack(target.elements, value, scope, node)
        elif isinstance(target, cst.Attribute):
            obj = self.eval(target.value, scope)
            if isinstance(obj, InstanceV) and scope.in_init:
                obj.attrs[target.attr.value] = value
            if self._is_self(target.value, scope):
                self._show(f"{scope.self_name}.{target.attr.value}", value, target)
        elif isinstance(target, cst.Subscript):
            obj = self.eval(target.value, scope)
            for el in target.slice:
                self._eval_slice(el.slice, scope)
            if isinstance(target.value, cst.Name) and isinstance(obj, (TupleV, SeqV)):
                scope.vars[target.value.value] = _widen_seq(obj, value)
        elif isinstance(target, cst.StarredElement):
            self.bind_target(target.value, SeqV(UNKNOWN), scope, node)

    def _unpack(self, elements: Sequence[cst.BaseElement], value: Value, scope: Scope, node: cst.CSTNode | None) -> None:
        n = len(elements)
        star_at = next((i for i, e in enumerate(elements) if isinstance(e, cst.StarredElement)), None)
        items: list[Value] | None = None
        if isinstance(value, TupleV):
            items = list(value.items)
        elif isinstance(value, ShapeV):
            s = value.shape
            if star_at is None and s.is_fixed and len(s.dims) == n:
                items = [SizeV(d) for d in s.dims]
            elif star_at is None and not s.is_fixed:
                pre: list[Value] = [SizeV(d) for d in s.prefix]
                suf: list[Value] = [SizeV(d) for d in s.suffix]
                if len(pre) + len(suf) <= n:
                    items = pre + [UNKNOWN] * (n - len(pre) - len(suf)) + suf
        elif isinstance(value, OutputsV) and not isinstance(value.outputs.shapes, Unknown):
            items = [TensorV(sh) for sh in value.outputs.shapes]
        elif isinstance(value, OutputsV):
            items = [TensorV(value.outputs.element)] * n if star_at is None else None
        elif isinstance(value, SeqV):
            items = [value.elem] * n if star_at is None else None
        elif isinstance(value, TensorV) and star_at is None:
            row = self.index_tensor(value, (0,), None)
            items = [row] * n
        if items is not None and star_at is None and len(items) != n:
            items = None
        if items is not None and star_at is not None:
            after = n - star_at - 1
            if len(items) < n - 1:
                items = None
            else:
                middle = items[star_at: len(items) - after]
                items = [*items[:star_at], TupleV(tuple(middle), True), *items[len(items) - after:]]
        for i, el in enumerate(elements):
            v = items[i] if items is not None else UNKNOWN
            tgt = el.value
            if isinstance(el, cst.StarredElement):
                self.bind_target(tgt, v if items is not None else SeqV(UNKNOWN), scope, node)
            elif node is not None:
                self.assign(tgt, v, scope, tgt)  # reported at each target: one report per name
            else:
                self.bind_target(tgt, v, scope, node)

    def bind_name(self, name: str, value: Value, scope: Scope, node: cst.CSTNode | None) -> None:
        if isinstance(value, TupleV) and value.is_list:
            value = SeqV(_join_all(value.items)) if value.items else SeqV(UNKNOWN)
        scope.vars[name] = value
        if node is not None:
            self._show(name, value, node)

    def _show(self, name: str, value: Value, node: cst.CSTNode) -> None:
        """``--show-shapes``: a note with what an assignment stored."""
        if not self.ctx.show_shapes or self.quiet:
            return
        shown = isinstance(value, (TensorV, SizeV, ShapeV, OutputsV, LibModuleV, SequentialV, InstanceV)) or (
            isinstance(value, TupleV) and any(isinstance(i, (TensorV, SizeV)) for i in value.items)
        )
        if shown:
            self.report(node, SHOW, f"{name}: {describe(value)}", "note")

    def _declared(self, name: str, scope: Scope) -> Ann | None:
        return scope.declared.get(name)

    def _is_self(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        return isinstance(expr, cst.Name) and scope.self_name is not None and expr.value == scope.self_name

    def _self_class(self, scope: Scope) -> ClassInfo | None:
        if scope.self_name is None:
            return None
        v = scope.vars.get(scope.self_name)
        return v.cls if isinstance(v, InstanceV) else None

    def check_declared(self, ann: Ann, value: Value, node: cst.CSTNode, code: str, what: str) -> bool:
        """Whether ``value`` may stand where ``ann`` is declared; reports ``code`` when it may not."""
        if isinstance(ann, TensorAnn) and isinstance(value, TensorV):
            if not compatible(ann.shape, value.shape):
                self.report(node, code, f"{what}: shape {fmt_shape(value.shape)} does not match the "
                                        f"declared {fmt_shape(ann.shape)}")
                return False
            return True
        if isinstance(ann, TupleAnn) and isinstance(value, TupleV) and len(ann.items) == len(value.items):
            for a, v in zip(ann.items, value.items, strict=False):
                if isinstance(a, TensorAnn) and isinstance(v, TensorV) and not compatible(a.shape, v.shape):
                    self.report(node, code, f"{what}: shape {fmt_shape(v.shape)} does not match the "
                                            f"declared {fmt_shape(a.shape)}")
                    return False
            return True
        return True

    # -- functions ---------------------------------------------------------------------------

    def read_ann(self, expr: cst.BaseExpression | None, scope: Scope) -> Ann:
        saved = self.reader_scope
        self.reader_scope = scope
        self.quiet += 1
        try:
            return self.reader.read(expr)
        finally:
            self.quiet -= 1
            self.reader_scope = saved

    def _resolve_ann(self, expr: cst.BaseExpression) -> Value:
        return self.eval(expr, self.reader_scope)

    def signature_of(self, func: FuncInfo) -> Signature:
        sig = func.signature
        if isinstance(sig, Signature):
            return sig
        if func.ctx is not self.ctx:  # annotations are read where the function was defined
            return self.ctx.project.inferrer_for(func.ctx).signature_of(func)
        scope = func.closure if isinstance(func.closure, Scope) else self.module_scope
        params: list[Param] = []
        ps = func.node.params
        for p in ps.posonly_params:
            params.append(Param(p.name.value, "positional", self.read_ann(_ann_expr(p), scope), p.default is not None, p.default))
        for p in ps.params:
            params.append(Param(p.name.value, "normal", self.read_ann(_ann_expr(p), scope), p.default is not None, p.default))
        if isinstance(ps.star_arg, cst.Param):
            params.append(Param(ps.star_arg.name.value, "vararg", self.read_ann(_ann_expr(ps.star_arg), scope), True))
        for p in ps.kwonly_params:
            params.append(Param(p.name.value, "kwonly", self.read_ann(_ann_expr(p), scope), p.default is not None, p.default))
        if ps.star_kwarg is not None:
            params.append(Param(ps.star_kwarg.name.value, "kwargs", ANY, True))
        returns = self.read_ann(func.node.returns.annotation, scope) if func.node.returns is not None else ANY
        free: set[str] = set()
        for a in [*(p.ann for p in params), returns]:
            free |= _ann_vars(a)
        sig = Signature(params, returns, frozenset(free))
        func.signature = sig
        return sig

    def check_function(self, func: FuncInfo, parent: Scope) -> None:
        if func.checked:
            return
        func.checked = True
        sig = self.signature_of(func)
        scope = Scope({}, parent=parent, func=func)
        self.top = func.top
        params = list(sig.params)
        if func.cls is not None and func.kind != "staticmethod" and params and params[0].kind in ("positional", "normal"):
            first = params.pop(0)
            if func.kind == "classmethod":
                scope.vars[first.name] = ClassV(func.cls)
            else:
                scope.self_name = first.name
                if func.node.name.value == "__init__":
                    scope.in_init = True
                    scope.vars[first.name] = self.new_instance(func.cls, self.rigid_bindings(func.cls), run_init=False)
                else:
                    scope.vars[first.name] = self.self_view(func.cls)
        for p in params:
            if p.kind == "vararg":
                scope.vars[p.name] = SeqV(value_of(p.ann)) if not isinstance(p.ann, AnyAnn) else SeqV(UNKNOWN)
            elif p.kind == "kwargs":
                scope.vars[p.name] = UNKNOWN
            else:
                scope.vars[p.name] = value_of(p.ann)
                if not isinstance(p.ann, AnyAnn):
                    scope.declared[p.name] = p.ann
            if p.default is not None:
                self.eval(p.default, parent)
        self.exec_suite(func.node.body, scope)

    def rigid_bindings(self, info: ClassInfo) -> Bindings:
        b = Bindings()
        for tv in info.typevars:
            b.dims[tv] = dim_var(tv)
        return b

    def self_view(self, info: ClassInfo) -> InstanceV:
        """The instance a method body sees as ``self``: its class's variables rigid, its attributes
        those ``__init__`` assigns given the annotated parameters."""
        if info.self_view is None:
            info.self_view = self.new_instance(info, self.rigid_bindings(info))
        return info.self_view

    def new_instance(self, info: ClassInfo, bindings: Bindings, run_init: bool = True,
                     args: Sequence[tuple[Value, cst.CSTNode | None]] = (),
                     kwargs: dict[str, tuple[Value, cst.CSTNode | None]] | None = None) -> InstanceV:
        inst = InstanceV(info, bindings)
        if not run_init or self.call_depth >= MAX_CALL_DEPTH:
            return inst
        init = info.lookup("__init__")
        if isinstance(init, FuncV):
            self.run_init(init.func, inst, args, kwargs or {}, None, report=False)
        return inst

    def run_init(self, func: FuncInfo, inst: InstanceV, args: Sequence[tuple[Value, cst.CSTNode | None]],
                 kwargs: dict[str, tuple[Value, cst.CSTNode | None]], call: cst.CSTNode | None, report: bool) -> None:
        """Run ``__init__`` quietly on ``inst`` with these arguments, to learn its attributes."""
        if self.call_depth >= MAX_CALL_DEPTH or self.ctx.init_runs >= MAX_INIT_RUNS:
            return
        self.ctx.init_runs += 1
        sig = self.signature_of(func)
        params = sig.params[1:] if sig.params and sig.params[0].kind in ("positional", "normal") else []
        values = self._bind_args(params, args, kwargs)
        closure = func.closure if isinstance(func.closure, Scope) else self.module_scope
        scope = Scope({}, parent=closure, func=func, self_name=sig.params[0].name if sig.params else None, in_init=True)
        if scope.self_name is not None:
            scope.vars[scope.self_name] = inst
        for p in params:
            given = values.get(p.name)
            declared = value_of(substitute_ann(p.ann, inst.bindings))
            if given is not None and not isinstance(given[0], Unknown):
                scope.vars[p.name] = given[0]
            elif p.kind == "vararg":
                scope.vars[p.name] = SeqV(UNKNOWN)
            else:
                scope.vars[p.name] = declared
        self._run_quietly(func, scope)

    def _run_quietly(self, func: FuncInfo, scope: Scope) -> None:
        """Run ``func``'s body in ``scope`` one call deeper, reporting nothing (an ``__init__`` run
        to learn attributes, an inlined call), by the inferrer of the module that defines it."""
        ctx_inferrer = self if func.ctx is self.ctx else self.ctx.project.inferrer_for(func.ctx)
        ctx_inferrer.call_depth = max(ctx_inferrer.call_depth, self.call_depth) + 1
        ctx_inferrer.quiet += 1
        try:
            ctx_inferrer.exec_suite(func.node.body, scope)
        finally:
            ctx_inferrer.quiet -= 1
            ctx_inferrer.call_depth -= 1

    def _bind_args(self, params: list[Param], args: Sequence[tuple[Value, cst.CSTNode | None]],
                   kwargs: dict[str, tuple[Value, cst.CSTNode | None]]) -> dict[str, tuple[Value, cst.CSTNode | None]]:
        out: dict[str, tuple[Value, cst.CSTNode | None]] = {}
        positional = [p for p in params if p.kind in ("positional", "normal")]
        vararg = next((p for p in params if p.kind == "vararg"), None)
        for i, a in enumerate(args):
            if i < len(positional):
                out[positional[i].name] = a
            elif vararg is not None:
                out.setdefault(vararg.name, (SeqV(UNKNOWN), None))
        for k, a in kwargs.items():
            if any(p.name == k and p.kind != "positional" for p in params):
                out[k] = a
        return out

    def call_function(self, fv: FuncV, args: list[tuple[Value, cst.CSTNode | None]],
                      kwargs: dict[str, tuple[Value, cst.CSTNode | None]], call: cst.Call, opaque: bool) -> Value:
        func = fv.func
        if not fv.transparent:
            return UNKNOWN  # an unknown decorator may change the signature
        sig = self.signature_of(func)
        params = list(sig.params)
        bindings = Bindings()
        bound = fv.bound
        if isinstance(bound, InstanceV):
            bindings.dims.update(bound.bindings.dims)
            bindings.stars.update(bound.bindings.stars)
        if bound is not None and func.kind in ("function", "classmethod", "property") and params \
                and params[0].kind in ("positional", "normal"):
            params.pop(0)
        if func.node.name.value == "__init__" and isinstance(bound, InstanceV):
            self.run_init(func, bound, args, kwargs, call, report=False)
        if opaque:
            return self.result_of(sig, bindings)
        failed = self.check_args(func.qualname, params, args, kwargs, bindings)
        if failed or func.node.asynchronous is not None:  # a coroutine is not its result
            return UNKNOWN
        if isinstance(sig.returns, AnyAnn) and bound is None and func.kind in ("function", "staticmethod"):
            inlined = self.inline(func, params, args, kwargs)
            if inlined is not None:
                return inlined
        return self.result_of(sig, bindings)

    def inline(self, func: FuncInfo, params: list[Param], args: list[tuple[Value, cst.CSTNode | None]],
               kwargs: dict[str, tuple[Value, cst.CSTNode | None]]) -> Value | None:
        """NOTE [ Inlining unannotated functions ]
        A function without a return annotation says nothing about its result, but called with
        known shapes its body can be run on them: ``def project(a, b): return a @ b`` called with
        ``[Batch, In]`` and ``[In, Out]`` gives ``[Batch, Out]``. The body runs quietly (its own
        errors are reported where it is checked on its own, not once per call), on the argument
        values, and its result is the join of what its ``return`` statements give. Bounded: only
        when an argument has a known shape, only small bodies without ``yield``, at most
        ``MAX_INLINE_DEPTH`` inlined calls deep (recursion stops there)."""
        if self.call_depth >= MAX_INLINE_DEPTH or not _inlinable(func):
            return None
        values = self._bind_args(params, args, kwargs)
        if not any(isinstance(v, TensorV) and not isinstance(v.shape, Unknown) for v, _ in values.values()):
            return None
        ctx_inferrer = self if func.ctx is self.ctx else self.ctx.project.inferrer_for(func.ctx)
        closure = func.closure if isinstance(func.closure, Scope) else ctx_inferrer.module_scope
        scope = Scope({}, parent=closure, func=func, returns=[])
        for p in params:
            given = values.get(p.name)
            if given is not None:
                scope.vars[p.name] = given[0]
            elif p.kind == "vararg":
                scope.vars[p.name] = SeqV(UNKNOWN)
            elif p.kind == "kwargs":
                scope.vars[p.name] = UNKNOWN
            elif p.default is not None:
                scope.vars[p.name] = ctx_inferrer.eval(p.default, closure)
            else:
                scope.vars[p.name] = value_of(p.ann)
        self._run_quietly(func, scope)
        results = scope.returns or []
        if not scope.dead:
            results = [*results, ConstV(None)]  # the body can end without a return
        return _join_all(results) if results else UNKNOWN

    def check_args(self, callee: str, params: list[Param], args: list[tuple[Value, cst.CSTNode | None]],
                   kwargs: dict[str, tuple[Value, cst.CSTNode | None]], bindings: Bindings) -> bool:
        """Unify each argument with its parameter (binding the callee's variables); report each
        mismatch at its argument. Whether any failed."""
        failed = False
        values = self._bind_args(params, args, kwargs)
        for p in params:
            got = values.get(p.name)
            if got is None or got[1] is None:
                continue
            issue = self.unify_arg(p.ann, got[0], bindings, f"argument '{p.name}'")
            if issue is not None:
                self.report(got[1], "shape-arg", f"{callee}: {issue.message}")
                failed = True
        return failed

    def unify_arg(self, ann: Ann, value: Value, bindings: Bindings, where: str) -> Issue | None:
        if isinstance(ann, TensorAnn) and isinstance(value, TensorV):
            return unify(ann.shape, value.shape, bindings, where)
        if isinstance(ann, SizeAnn):
            dim = _as_dim(value)  # a size, or an int literal
            return None if dim is None else unify(Shape.of(ann.dim), Shape.of(dim), bindings, where)
        if isinstance(ann, TupleAnn) and isinstance(value, TupleV) and len(ann.items) == len(value.items):
            for i, (a, v) in enumerate(zip(ann.items, value.items, strict=False)):
                issue = self.unify_arg(a, v, bindings, f"{where}, item {i}")
                if issue is not None:
                    return issue
        if isinstance(ann, SeqAnn) and isinstance(value, (SeqV, TupleV)):
            elems = value.items if isinstance(value, TupleV) else (value.elem,)
            for v in elems:
                issue = self.unify_arg(ann.elem, v, bindings, where)
                if issue is not None:
                    return issue
        return None

    def result_of(self, sig: Signature, bindings: Bindings) -> Value:
        return value_of(substitute_ann(sig.returns, bindings, sig.free))

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

    def e_nothing(self, node: cst.CSTNode, scope: Scope) -> Value:
        return UNKNOWN

    def e_ellipsis(self, node: cst.Ellipsis, scope: Scope) -> Value:
        return ConstV(Ellipsis)

    def e_int(self, node: cst.Integer, scope: Scope) -> Value:
        value = _int_literal(node.value)
        return ScalarV() if value is None else ConstV(value)

    def e_float(self, node: cst.Float, scope: Scope) -> Value:
        try:
            return ConstV(float(node.value.replace("_", "")))
        except ValueError:
            return ScalarV()

    def e_string(self, node: cst.SimpleString, scope: Scope) -> Value:
        return ConstV(_string_literal(node))

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
        if name in _BUILTIN_NAMES or name in ("staticmethod", "classmethod", "property"):
            return QualV(f"builtins.{name}")
        if name == "reveal_shape":
            return QualV("reveal_shape")
        return UNKNOWN

    def e_attribute(self, node: cst.Attribute, scope: Scope) -> Value:
        obj = self.eval(node.value, scope)
        return self.attribute(obj, node.attr.value, node)

    def attribute(self, obj: Value, attr: str, node: cst.CSTNode) -> Value:
        if isinstance(obj, Unknown):
            return UNKNOWN
        if isinstance(obj, TensorV):
            if attr == "shape":
                return self.shape_value(obj)
            if attr == "ndim":
                return ConstV(obj.shape.rank) if isinstance(obj.shape, Shape) and obj.shape.rank is not None else UNKNOWN
            if attr in calc.PROPERTIES:
                return self.call_op_values(calc.PROPERTIES[attr], [obj], {}, node)
            if attr in ("grad", "data"):
                return TensorV(obj.shape)
            if attr in ("dtype", "device", "is_cuda", "requires_grad", "is_leaf", "names", "layout"):
                return UNKNOWN
            return BoundV(obj, attr)
        if isinstance(obj, QualV):
            return QualV(f"{obj.qual}.{attr}")
        if isinstance(obj, ModuleRefV):
            return self.import_from(obj.name, attr)
        if isinstance(obj, OutputsV):
            if obj.outputs.names is not None and attr in obj.outputs.names:
                return TensorV(obj.outputs.get(attr))
            return UNKNOWN
        if isinstance(obj, InstanceV):
            if attr in obj.attrs:
                return obj.attrs[attr]
            found = obj.cls.lookup(attr)
            if isinstance(found, FuncV):
                if found.func.kind == "property":
                    return self.result_of(self.signature_of(found.func), _copy_bindings(obj.bindings))
                if found.func.kind == "staticmethod":
                    return found
                return FuncV(found.func, obj if found.func.kind != "classmethod" else ClassV(obj.cls), found.transparent)
            if found is not None:
                return found
            declared = obj.cls.lookup_declared(attr)
            if declared is not None:
                return value_of(substitute_ann(declared, obj.bindings))
            if attr in ("forward", "__call__") or (obj.cls.is_module and attr in ("to", "cuda", "cpu", "train", "eval", "float", "double", "half")):
                return BoundV(obj, attr)
            return UNKNOWN
        if isinstance(obj, ClassV):
            found = obj.info.lookup(attr)
            if isinstance(found, FuncV) and found.func.kind == "classmethod":
                return FuncV(found.func, obj, found.transparent)
            return found if found is not None else UNKNOWN
        if isinstance(obj, SuperV):
            for base in obj.cls.bases:
                if isinstance(base, ClassV):
                    found = base.info.lookup(attr)
                    if isinstance(found, FuncV):
                        return FuncV(found.func, obj.instance, found.transparent)
            return UNKNOWN
        if isinstance(obj, (LibModuleV, TupleV, SeqV, SequentialV)):
            return BoundV(obj, attr)
        return UNKNOWN

    def shape_value(self, t: TensorV) -> Value:
        s = t.shape
        if isinstance(s, Unknown):
            return UNKNOWN
        if s.is_fixed:
            return TupleV(tuple(SizeV(d) if not isinstance(d, Unknown) else UNKNOWN for d in s.dims))
        return ShapeV(s)

    # calls

    def e_call(self, node: cst.Call, scope: Scope) -> Value:
        self._current_scope = scope
        func = self.eval(node.func, scope)
        args: list[tuple[Value, cst.CSTNode | None]] = []
        kwargs: dict[str, tuple[Value, cst.CSTNode | None]] = {}
        opaque = False
        for a in node.args:
            v = self.eval(a.value, scope)
            if a.star == "*":
                opaque = True
                if isinstance(v, TupleV):
                    args.extend((i, None) for i in v.items)
                    opaque = False
                continue
            if a.star == "**":
                opaque = True
                continue
            if a.keyword is not None:
                kwargs[a.keyword.value] = (v, a.value)
            else:
                args.append((v, a.value))
        result = self.call(func, args, kwargs, node, opaque)
        if isinstance(func, BoundV) and func.name in _LIST_MUTATORS and isinstance(func.obj, (TupleV, SeqV)) \
                and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name):
            added = args[0][0] if func.name == "append" and args else UNKNOWN
            scope.vars[node.func.value.value] = _widen_seq(func.obj, added)
        return result

    def call(self, func: Value, args: list[tuple[Value, cst.CSTNode | None]],
             kwargs: dict[str, tuple[Value, cst.CSTNode | None]], node: cst.Call, opaque: bool = False) -> Value:
        if isinstance(func, QualV):
            return self.call_qual(func.qual, args, kwargs, node, opaque)
        if isinstance(func, BoundV):
            return self.call_method(func.obj, func.name, args, kwargs, node, opaque)
        if isinstance(func, FuncV):
            return self.call_function(func, args, kwargs, node, opaque)
        if isinstance(func, ClassV):
            return self.construct(func.info, args, kwargs, node, opaque)
        if isinstance(func, DimClassV):
            return SizeV(named_dim(func.qualname, func.display))
        if isinstance(func, (InstanceV, LibModuleV)):
            return self.call_method(func, "__call__", args, kwargs, node, opaque)
        if isinstance(func, SequentialV):
            return self.call_sequential(func, args, kwargs, node, opaque)
        if isinstance(func, TypeVarV):
            return UNKNOWN
        return UNKNOWN

    def call_sequential(self, seq: SequentialV, args: list[tuple[Value, cst.CSTNode | None]],
                        kwargs: dict[str, tuple[Value, cst.CSTNode | None]], node: cst.Call, opaque: bool) -> Value:
        """``nn.Sequential(a, b, c)(x)`` is ``c(b(a(x)))``; a mismatch is reported at the call."""
        if opaque or kwargs or len(args) != 1:
            return UNKNOWN
        value = args[0][0]
        for layer in seq.layers:
            if isinstance(value, Unknown):
                return UNKNOWN
            value = self.call(layer, [(value, node)], {}, node)
        return value

    def construct(self, info: ClassInfo, args: list[tuple[Value, cst.CSTNode | None]],
                  kwargs: dict[str, tuple[Value, cst.CSTNode | None]], node: cst.Call, opaque: bool) -> Value:
        bindings = Bindings()
        init = info.lookup("__init__")
        if isinstance(init, FuncV) and not opaque:
            sig = self.signature_of(init.func)
            params = sig.params[1:] if sig.params else []
            short = info.qualname.removeprefix(info.ctx.name + ".")
            if self.check_args(f"{short}.__init__", params, args, kwargs, bindings):
                return UNKNOWN
        return self.new_instance(info, bindings, True, args, kwargs)

    def call_qual(self, q: str, args: list[tuple[Value, cst.CSTNode | None]],
                  kwargs: dict[str, tuple[Value, cst.CSTNode | None]], node: cst.Call, opaque: bool) -> Value:
        if q in names.REVEAL:
            if args and not self.quiet:
                self.report(node, REVEAL, f'Revealed shape is "{describe(args[0][0])}"', "note")
            return ConstV(None)
        if opaque:
            return UNKNOWN
        op = calc.FUNCTIONS.get(q)
        if op is not None:
            return self.call_op_values(op, [a for a, _ in args], {k: v for k, (v, _) in kwargs.items()}, node)
        if q in names.SEQUENTIAL:
            # no layers: one built by `append` later, whose layers are unknown (the plugin agrees)
            return SequentialV(tuple(a for a, _ in args)) if args and not kwargs else UNKNOWN
        if q in names.MODULE_LIST:
            if not args:
                return TupleV((), True)
            first = args[0][0]
            return TupleV(first.items, True) if isinstance(first, TupleV) else SeqV(self.iter_elem(first, None))
        mdef = calc.MODULES.get(q)
        if mdef is not None:
            ctor = calc.module_ctor(mdef, [calc.to_static(a) for a, _ in args],
                                    {k: calc.to_static(v) for k, (v, _) in kwargs.items()})
            return LibModuleV(mdef, ctor) if ctor is not None else UNKNOWN
        if q in ("typing.cast", "typing_extensions.cast") and len(args) == 2 and isinstance(args[0][1], cst.BaseExpression):
            scope = self._current_scope or self.module_scope
            return value_of(self.read_ann(args[0][1], scope))  # what the user asserts
        if q in ("typing.TypeVar", "typing_extensions.TypeVar", "typing.TypeVarTuple", "typing_extensions.TypeVarTuple"):
            if args and isinstance(args[0][1], cst.SimpleString):
                name = args[0][1].evaluated_value
                if isinstance(name, str):
                    return TypeVarV(name, q.endswith("Tuple"))
            return UNKNOWN
        if q.startswith("builtins."):
            return self.call_builtin(q[9:], args, kwargs, node)
        if q.startswith(names.SCALAR_MODULES):
            return ScalarV()
        return UNKNOWN

    def call_builtin(self, name: str, args: list[tuple[Value, cst.CSTNode | None]],
                     kwargs: dict[str, tuple[Value, cst.CSTNode | None]], node: cst.Call) -> Value:
        vals = [a for a, _ in args]
        if name == "len" and len(vals) == 1:
            v = vals[0]
            if isinstance(v, TensorV) and isinstance(v.shape, Shape):
                d = v.shape.dim(0)
                if d is not None and not isinstance(d, Unknown):
                    return SizeV(d) if not isinstance(d, int) else ConstV(d)
            if isinstance(v, TupleV):
                return ConstV(len(v.items))
            if isinstance(v, ShapeV) and v.shape.is_fixed:
                return ConstV(len(v.shape.dims))
            return ScalarV()
        if name == "int" and len(vals) == 1 and isinstance(vals[0], (SizeV, ConstV)):
            return vals[0]
        if name in ("tuple", "list") and len(vals) == 1:
            v = vals[0]
            if isinstance(v, TupleV):
                return TupleV(v.items, name == "list")
            if isinstance(v, ShapeV):
                return v if name == "tuple" else UNKNOWN
            return SeqV(self.iter_elem(v, None))
        if name == "zip":
            return SeqV(TupleV(tuple(self.iter_elem(v, None) for v in vals)))
        if name == "enumerate" and vals:
            return SeqV(TupleV((ScalarV(), self.iter_elem(vals[0], None))))
        if name in ("reversed", "sorted", "iter") and vals:
            return SeqV(self.iter_elem(vals[0], None))
        if name == "range":
            return SeqV(ScalarV())
        if name == "super":
            return self._super(node)  # uses the scope e_call saw last
        if name in ("float", "abs", "round", "min", "max", "sum") and vals and not any(isinstance(v, TensorV) for v in vals):
            return ScalarV()
        return UNKNOWN

    _current_scope: Scope | None = None

    def _super(self, node: cst.Call) -> Value:
        scope = self._current_scope
        while scope is not None and scope.func is None:
            scope = scope.parent
        if scope is None or scope.func is None or scope.func.cls is None or scope.self_name is None:
            return UNKNOWN
        inst = scope.vars.get(scope.self_name, UNKNOWN)
        return SuperV(scope.func.cls, inst)

    def call_method(self, obj: Value, name: str, args: list[tuple[Value, cst.CSTNode | None]],
                    kwargs: dict[str, tuple[Value, cst.CSTNode | None]], node: cst.Call, opaque: bool) -> Value:
        if isinstance(obj, TensorV):
            if opaque:
                return UNKNOWN
            return self.tensor_method(obj, name, [a for a, _ in args], {k: v for k, (v, _) in kwargs.items()}, node)
        if isinstance(obj, SequentialV):
            if name == "forward":
                return self.call_sequential(obj, args, kwargs, node, opaque)
            return obj if name in ("to", "cuda", "cpu", "train", "eval", "float", "double", "half") else UNKNOWN
        if isinstance(obj, LibModuleV):
            if name in ("__call__", "forward"):
                if opaque:
                    return UNKNOWN
                result = calc.module_call(obj.mdef, obj.ctor, [calc.to_static(a) for a, _ in args],
                                          {k: calc.to_static(v) for k, (v, _) in kwargs.items()})
                return self.result(result, node)
            if name in ("to", "cuda", "cpu", "train", "eval", "float", "double", "half", "requires_grad_"):
                return obj
            return UNKNOWN
        if isinstance(obj, InstanceV):
            if name in ("to", "cuda", "cpu", "train", "eval", "float", "double", "half") and obj.cls.is_module \
                    and obj.cls.lookup(name) is None:
                return obj
            target = None
            if name == "__call__":
                if obj.cls.is_module:
                    target = obj.cls.lookup("forward") or obj.cls.lookup("__call__")
                else:
                    target = obj.cls.lookup("__call__")
            else:
                target = obj.cls.lookup(name)
            if isinstance(target, FuncV):
                bound = FuncV(target.func, obj, target.transparent)
                return self.call_function(bound, args, kwargs, node, opaque)
            return UNKNOWN
        return UNKNOWN

    def tensor_method(self, t: TensorV, name: str, args: list[Value], kwargs: dict[str, Value], node: cst.CSTNode) -> Value:
        if name == "size":
            if not args and not kwargs:
                return self.shape_value(t)
            axis = args[0] if args else kwargs.get("dim", UNKNOWN)
            shape_v = self.shape_value(t)
            if isinstance(axis, ConstV) and isinstance(axis.value, int):
                return self._index_sizes(shape_v, axis.value)
            return UNKNOWN
        if name == "dim" and not args:
            return ConstV(t.shape.rank) if isinstance(t.shape, Shape) and t.shape.rank is not None else UNKNOWN
        if name in ("item", "tolist", "numel", "nelement", "element_size", "data_ptr", "numpy", "backward", "stride", "__len__"):
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
        positional = [calc.to_static(a) for a in args]
        keywords = {k: calc.to_static(v) for k, v in kwargs.items()}
        if op in ("tensor", "as_tensor") and args and isinstance(args[0], TupleV):
            positional[0] = _literal_shape(args[0])
        try:
            result = calc.call_op(op, positional, keywords)
        except calc.RuleFailure as exc:
            self.ctx.project.note_rule_failure(op, str(exc))
            return UNKNOWN
        return self.result(result, node, calc.returns_bool(op))

    def result(self, result: Any, node: cst.CSTNode, is_bool: bool = False) -> Value:
        if isinstance(result, Issue):
            return self.issue(node, result)
        if isinstance(result, Outputs):
            return OutputsV(result)
        if isinstance(result, (Shape, Unknown)):
            return TensorV(result, is_bool)
        return UNKNOWN

    # operators

    def e_binop(self, node: cst.BinaryOperation, scope: Scope) -> Value:
        left = self.eval(node.left, scope)
        right = self.eval(node.right, scope)
        dunder, symbol = _BINOPS.get(type(node.operator), ("", ""))
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
        if isinstance(left, TupleV) and isinstance(right, TupleV) and dunder == "__add__":
            return TupleV(left.items + right.items, left.is_list and right.is_list)
        if isinstance(left, TupleV) and isinstance(right, ConstV) and dunder == "__mul__" \
                and isinstance(right.value, int) and 0 <= right.value <= 64 and not isinstance(right.value, bool):
            return TupleV(left.items * right.value, left.is_list)
        a, b = _as_dim(left), _as_dim(right)
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

    # subscripts

    def e_subscript(self, node: cst.Subscript, scope: Scope) -> Value:
        obj = self.eval(node.value, scope)
        items = [self._eval_slice(el.slice, scope) for el in node.slice]
        if isinstance(obj, TensorV):
            key = tuple(items) if len(items) != 1 or _is_tuple_subscript(node) else (items[0],)
            return self.index_tensor(obj, key, node)
        if len(items) != 1:
            return UNKNOWN
        item = items[0]
        if isinstance(obj, TupleV):
            if isinstance(item, int) and not isinstance(item, bool):
                if -len(obj.items) <= item < len(obj.items):
                    return obj.items[item]
                return UNKNOWN
            sl = _py_slice(item)
            if sl is not None:
                return TupleV(obj.items[sl], obj.is_list)
            return _join_all(obj.items) if obj.items else UNKNOWN
        if isinstance(obj, ShapeV):
            if isinstance(item, int) and not isinstance(item, bool):
                return self._index_sizes(obj, item)
            return UNKNOWN
        if isinstance(obj, SequentialV):
            if isinstance(item, int) and not isinstance(item, bool) and -len(obj.layers) <= item < len(obj.layers):
                return obj.layers[item]
            sl = _py_slice(item)
            return SequentialV(obj.layers[sl]) if sl is not None else UNKNOWN
        if isinstance(obj, SeqV):
            return obj.elem if _py_slice(item) is None else obj
        if isinstance(obj, OutputsV):
            shapes = obj.outputs.shapes
            if isinstance(item, int) and not isinstance(item, bool):
                if isinstance(shapes, Unknown):
                    return TensorV(obj.outputs.element)
                if -len(shapes) <= item < len(shapes):
                    return TensorV(shapes[item])
            return UNKNOWN
        if isinstance(obj, InstanceV):
            target = obj.cls.lookup("__getitem__")
            if isinstance(target, FuncV):
                return self.call_function(FuncV(target.func, obj, target.transparent), [(_from_index(item), None)], {}, cst.Call(func=node.value), False)
        return UNKNOWN

    def _index_sizes(self, sizes: Value, i: int) -> Value:
        if isinstance(sizes, TupleV):
            return sizes.items[i] if -len(sizes.items) <= i < len(sizes.items) else UNKNOWN
        if isinstance(sizes, ShapeV):
            d = sizes.shape.dim(i)
            return SizeV(d) if d is not None and not isinstance(d, Unknown) else UNKNOWN
        return UNKNOWN

    def _eval_slice(self, sl: cst.BaseSlice, scope: Scope) -> Any:
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
            return _IndexTuple(tuple(calc.index_item(i) for i in v.items))
        return calc.index_item(v)

    def index_tensor(self, t: TensorV, key: tuple[Any, ...], node: cst.CSTNode | None) -> Value:
        flat: list[Any] = []
        for k in key:
            if isinstance(k, _IndexTuple):
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

    # containers and the rest

    def e_tuple(self, node: cst.Tuple, scope: Scope) -> Value:
        return self._elements(node.elements, scope, False)

    def e_list(self, node: cst.List, scope: Scope) -> Value:
        return self._elements(node.elements, scope, True)

    def _elements(self, elements: Sequence[cst.BaseElement], scope: Scope, is_list: bool) -> Value:
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
            return SeqV(_join_all(items))
        return TupleV(tuple(items), is_list)

    def e_set(self, node: cst.Set, scope: Scope) -> Value:
        for el in node.elements:
            self.eval(el.value, scope)
        return UNKNOWN

    def e_dict(self, node: cst.Dict, scope: Scope) -> Value:
        for el in node.elements:
            if isinstance(el, cst.DictElement):
                self.eval(el.key, scope)
            self.eval(el.value, scope)
        return UNKNOWN

    def _comp_scope(self, for_in: cst.CompFor, scope: Scope) -> Scope:
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
        inner = self._comp_scope(node.for_in, scope)
        elem = self.eval(node.elt, inner)
        return SeqV(elem) if not isinstance(node, cst.SetComp) else UNKNOWN

    def e_dictcomp(self, node: cst.DictComp, scope: Scope) -> Value:
        inner = self._comp_scope(node.for_in, scope)
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

    def e_walrus(self, node: cst.NamedExpr, scope: Scope) -> Value:
        v = self.eval(node.value, scope)
        self.bind_target(node.target, v, scope, node.target)
        return v

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
        if isinstance(v, TupleV):
            return _join_all(v.items) if v.items else UNKNOWN
        if isinstance(v, SeqV):
            return v.elem
        if isinstance(v, TensorV):
            return self.index_tensor(v, (0,), None)
        if isinstance(v, OutputsV):
            shapes = v.outputs.shapes
            if isinstance(shapes, Unknown):
                return TensorV(v.outputs.element)
            return _join_all([TensorV(s) for s in shapes]) if shapes else UNKNOWN
        if isinstance(v, SequentialV):
            return _join_all(v.layers) if v.layers else UNKNOWN
        return UNKNOWN


def _fmt_ctor_arg(v: object) -> str:
    """A module's constructor argument in ``reveal_shape``: a size as a dim, a tuple item by item,
    a flag or string (``padding='same'``) as written."""
    if isinstance(v, tuple):
        return "(" + ", ".join(_fmt_ctor_arg(i) for i in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, (bool, str)) or v is None:
        return repr(v)
    if isinstance(v, (int, Poly, Unknown)):
        return fmt_dim(v)
    return "?"


def _string_literal(node: cst.SimpleString) -> str:
    """A short one-line string's value (einsum equations, ``mode=`` arguments). Docstrings, long
    and prefixed strings are never needed by a rule and are not decoded."""
    text = node.value
    if len(text) > 200 or text[:1] not in "'\"" or text[:3] in ('"""', "'''"):
        return ""
    if "\\" not in text:
        return text[1:-1]
    try:
        value = node.evaluated_value
    except Exception:
        return ""
    return value if isinstance(value, str) else ""


class _IndexTuple:
    """A tuple written inside a subscript (``x[(0, 1)]``): its items splice into the key."""

    __slots__ = ("items",)

    def __init__(self, items: tuple[Any, ...]):
        self.items = items


def _is_tuple_subscript(node: cst.Subscript) -> bool:
    return len(node.slice) == 1 and node.slice[0].comma is not cst.MaybeSentinel.DEFAULT and \
        isinstance(node.slice[0].comma, cst.Comma)


def _py_slice(item: Any) -> slice | None:
    from typedtensor.shapes import SliceIndex

    if isinstance(item, SliceIndex):
        parts = [item.start, item.stop, item.step]
        if all(p is None or (isinstance(p, int) and not isinstance(p, bool)) for p in parts):
            return slice(*parts)
        return None
    return None


def _from_index(item: Any) -> Value:
    if isinstance(item, int) and not isinstance(item, bool):
        return ConstV(item)
    return UNKNOWN


def _as_dim(v: Value) -> DimExpr | None:
    if isinstance(v, SizeV):
        return v.dim
    if isinstance(v, ConstV) and isinstance(v.value, int) and not isinstance(v.value, bool):
        return v.value
    return None


def _inlinable(func: FuncInfo) -> bool:
    """Small, and neither a generator nor a coroutine (NOTE [ Inlining unannotated functions ])."""
    if func.inlinable is None:
        func.inlinable = func.node.asynchronous is None and _small_without_yield(func.node.body)
    return func.inlinable


def _small_without_yield(body: cst.CSTNode) -> bool:
    """At most ``MAX_INLINE_STATEMENTS`` statements and no ``yield`` (nested functions, classes
    and lambdas count as one statement and are not looked into)."""
    count = 0
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Yield):
            return False
        if isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            count += 1
            if count > MAX_INLINE_STATEMENTS:
                return False
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                continue
        if isinstance(node, cst.Lambda):
            continue
        stack.extend(node.children)
    return True


def _join_all(values: Sequence[Value]) -> Value:
    if not values:
        return UNKNOWN
    out = values[0]
    for v in values[1:]:
        out = join(out, v)
    return out


def _widen_seq(seq: Value, added: Value) -> Value:
    elem = seq.elem if isinstance(seq, SeqV) else _join_all(seq.items) if isinstance(seq, TupleV) and seq.items else added
    return SeqV(join(elem, added) if not isinstance(added, Unknown) else UNKNOWN)


def _informative(v: Value) -> bool:
    if isinstance(v, TensorV):
        return not isinstance(v.shape, Unknown)
    return not isinstance(v, Unknown)


def _copy_bindings(b: Bindings) -> Bindings:
    return Bindings(dict(b.dims), dict(b.stars), dict(b.origin))


def _is_number(v: Value) -> bool:
    return isinstance(v, (ScalarV, SizeV)) or (isinstance(v, ConstV) and isinstance(v.value, (int, float, complex)))


def _literal_shape(v: Value) -> Any:
    """The nested-list structure of a literal (``[[1, 2], [3, 4]]`` is ``[2, 2]``). Its innermost
    items must all be numbers: anything else (``[xs[-8:]]`` with ``xs: list[int]``, whose length
    is not known) makes the whole shape unknown, as a program that builds a ``[Batch, Seq]``
    tensor from one row means its ``1`` to be ``Batch`` (checker-fp: no false positive)."""
    dims: list[int] = []
    cur: Value = v
    while isinstance(cur, TupleV):
        dims.append(len(cur.items))
        items = cur.items
        if not items:
            break
        if all(isinstance(i, TupleV) for i in items):
            lens = {len(i.items) for i in items if isinstance(i, TupleV)}
            if len(lens) != 1:
                return UNKNOWN
            cur = items[0]
            continue
        if all(_is_number(i) for i in items):
            break
        return UNKNOWN
    return Shape(tuple(dims))


def substitute_ann(ann: Ann, bindings: Bindings, free: frozenset[str] | None = None) -> Ann:
    """An annotation with a call's (or an instance's) variable bindings applied; with ``free``,
    variables of the callee left unbound become unknown."""
    if not bindings.dims and not bindings.stars and not free:
        return ann
    if isinstance(ann, TensorAnn) and isinstance(ann.shape, Shape):
        return TensorAnn(substitute(ann.shape, bindings, free))
    if isinstance(ann, SizeAnn):
        return SizeAnn(substitute_dim(ann.dim, bindings, free))
    if isinstance(ann, TupleAnn):
        return TupleAnn(tuple(substitute_ann(a, bindings, free) for a in ann.items))
    if isinstance(ann, SeqAnn):
        return SeqAnn(substitute_ann(ann.elem, bindings, free))
    return ann


def _ann_vars(ann: Ann) -> set[str]:
    if isinstance(ann, TensorAnn) and isinstance(ann.shape, Shape):
        return calc.var_names(ann.shape)
    if isinstance(ann, SizeAnn):
        return calc.var_names(Shape.of(ann.dim))
    if isinstance(ann, TupleAnn):
        out: set[str] = set()
        for a in ann.items:
            out |= _ann_vars(a)
        return out
    if isinstance(ann, SeqAnn):
        return _ann_vars(ann.elem)
    return set()


def _ann_expr(p: cst.Param) -> cst.BaseExpression | None:
    return p.annotation.annotation if p.annotation is not None else None


def _dotted(node: cst.CSTNode | None) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base is not None else None
    return None


def _target_text(t: cst.BaseExpression) -> str:
    d = _dotted(t)
    return d if d is not None else "target"


def _target_names(t: cst.CSTNode) -> Iterator[str]:
    if isinstance(t, cst.Name):
        yield t.value
    elif isinstance(t, (cst.Tuple, cst.List)):
        for el in t.elements:
            yield from _target_names(el.value)
    elif isinstance(t, cst.StarredElement):
        yield from _target_names(t.value)


def _assigned_names(body: cst.CSTNode, memo: dict[int, frozenset[str]]) -> frozenset[str]:
    """Names a block may assign (statement targets, loop and ``with``/``except`` names, nested
    definitions; not walrus targets inside expressions), memoised per block."""
    hit = memo.get(id(body))
    if hit is not None:
        return hit
    names: set[str] = set()
    todo: list[cst.CSTNode] = [body]
    while todo:
        node = todo.pop()
        if isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite, cst.SimpleStatementLine)):
            todo.extend(node.body)
        elif isinstance(node, cst.Assign):
            for t in node.targets:
                names.update(_target_names(t.target))
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            names.update(_target_names(node.target))
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            names.add(node.name.value)
        elif isinstance(node, (cst.For, cst.While, cst.If, cst.With, cst.Try, cst.TryStar, cst.Match,
                               cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase)):
            if isinstance(node, cst.For):
                names.update(_target_names(node.target))
            if isinstance(node, cst.With):
                for item in node.items:
                    if item.asname is not None:
                        names.update(_target_names(item.asname.name))
            if isinstance(node, (cst.ExceptHandler, cst.ExceptStarHandler)) and node.name is not None:
                names.update(_target_names(node.name.name))
            if isinstance(node, cst.MatchCase):
                names.update(_pattern_names(node.pattern))
            if isinstance(node, cst.Match):
                todo.extend(node.cases)
            else:
                todo.append(node.body)
            for attr in ("orelse", "handlers", "finalbody"):
                extra = getattr(node, attr, None)
                if isinstance(extra, (list, tuple)):
                    todo.extend(extra)
                elif isinstance(extra, cst.CSTNode):
                    todo.append(extra)
        elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                target = alias.asname.name if alias.asname is not None else alias.name
                dotted = _dotted(target)
                if dotted:
                    names.add(dotted.split(".")[0])
    frozen = frozenset(names)
    memo[id(body)] = frozen  # the trees outlive the memo (both belong to one ModuleCtx)
    return frozen


def _pattern_names(p: cst.CSTNode) -> set[str]:
    out: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_MatchAs(self, node: cst.MatchAs) -> None:
            if node.name is not None:
                out.add(node.name.value)

        def visit_MatchStar(self, node: cst.MatchStar) -> None:
            if node.name is not None:
                out.add(node.name.value)

        def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
            if node.rest is not None:
                out.add(node.rest.value)

    p.visit(V())
    return out


_STATEMENTS: Final[dict[type[cst.CSTNode], Callable[[Inferrer, Any, Scope], None]]] = {
    cst.If: Inferrer.s_if, cst.For: Inferrer.s_for, cst.While: Inferrer.s_while,
    cst.With: Inferrer.s_with, cst.Try: Inferrer.s_try, cst.TryStar: Inferrer.s_try,
    cst.FunctionDef: Inferrer.s_funcdef, cst.ClassDef: Inferrer.s_classdef,
    cst.Match: Inferrer.s_match,
}

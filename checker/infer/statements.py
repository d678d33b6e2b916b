"""Statements: assignment and unpacking, control flow, function and class definitions, imports,
and the checked body of each function.

NOTE [ Flow ]
Branches run on copies of the scope and are joined (NOTE [ Flow ] (the join) in ``values``). A
loop body first runs on the values it is entered with (exactly the first iteration's: it reports),
then quietly until the values it carries stop changing (a value that changes is widened to
unknown), then once more, reporting what holds for every iteration. Function bodies are checked
after the module's top level has run, against the module's final globals, each exactly once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import libcst as cst

from typedtensor.shapes.dims import Poly, Unknown, symbol
from typedtensor.shapes.shape import Shape, fmt_shape
from typedtensor.shapes.unify import Bindings, compatible, rigid, substitute, unify

from .. import calculus as calc
from .. import names
from ..context import ModuleCtx, Scope, Signature
from ..discover import resolve_relative
from ..report import SHOW
from ..values import (
    UNKNOWN,
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
    SequentialV,
    SeqV,
    ShapeV,
    SizeV,
    TensorV,
    TupleV,
    TypeVarV,
    Value,
    describe,
    join,
    join_vars,
    output_value,
    refine,
    widen_seq,
)
from .calls import Calls, substitute_value, value_vars
from .expressions import BINOPS
from .syntax import assigned_names, dotted, pattern_names, target_names, target_text

MAX_LOOP_PASSES: Final = 3
MAX_LOOP_NESTING: Final = 3  # deeper loops widen every name they assign, in one pass

_AUGOPS: Final[dict[type[cst.BaseAugOp], type[cst.BaseBinaryOp]]] = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide,
    cst.ModuloAssign: cst.Modulo, cst.PowerAssign: cst.Power,
    cst.MatrixMultiplyAssign: cst.MatrixMultiply, cst.BitAndAssign: cst.BitAnd,
    cst.BitOrAssign: cst.BitOr, cst.BitXorAssign: cst.BitXor,
    cst.LeftShiftAssign: cst.LeftShift, cst.RightShiftAssign: cst.RightShift,
}


class Statements(Calls):
    """Runs statements in a scope."""

    def __init__(self, ctx: ModuleCtx):
        super().__init__(ctx)
        self._class_of_scope: ClassInfo | None = None  # the class whose body is running
        self.handle({cst.NamedExpr: self.e_walrus})

    # -- blocks ------------------------------------------------------------------------------

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
            for name in target_names(s.target):
                scope.vars.pop(name, None)
            for deleted in (s.target.elements if isinstance(s.target, cst.Tuple) else [s.target]):
                item = deleted.value if isinstance(deleted, cst.Element) else deleted
                if isinstance(item, cst.Subscript) and isinstance(item.value, cst.Name):
                    held = scope.vars.get(item.value.value)
                    if isinstance(held, (TupleV, SeqV)):
                        scope.vars[item.value.value] = widen_seq(held, UNKNOWN)
        elif isinstance(s, (cst.Global, cst.Nonlocal)):
            for n in s.names:
                scope.vars.pop(n.name.value, None)

    # -- simple statements -------------------------------------------------------------------

    def s_annassign(self, s: cst.AnnAssign, scope: Scope) -> None:
        target = s.target
        # NOTE [ jaxtyping annotations ]: axis names belong to a function's call, not to a module's
        # globals or an instance's attributes
        local = scope.func is not None and isinstance(target, cst.Name)
        ann = self.read_ann(s.annotation.annotation, scope, axes=local)
        if isinstance(target, cst.Name):
            scope.declared[target.value] = ann
        elif isinstance(target, cst.Attribute) and self.is_self(target.value, scope):
            info = self.self_class(scope)
            if info is not None and not self.quiet:
                info.declared.setdefault(target.attr.value, ann)
        if s.value is None:
            return
        value = self.eval(s.value, scope)
        if local and isinstance(ann, TensorV) and isinstance(target, cst.Name):
            ann = self.local_axes(ann, value, scope)
            scope.declared[target.value] = ann
        if self.check_declared(ann, value, s.value, "shape-assign", f"assignment to '{target_text(target)}'"):
            value = refine(ann, value)
        else:
            value = ann
        self.bind_target(target, value, scope, s.value)

    def local_axes(self, ann: TensorV, value: Value, scope: Scope) -> TensorV:
        """NOTE [ Local axis names ]
        A jaxtyping annotation on a local variable (``scores: Float[Tensor, "b h q k"] = ...``)
        is documentation jaxtyping never checks, in the names of the function's own axes. The
        names the parameters mention are the function's variables (rigid in its body: NOTE [ Axis
        names ] in typedtensor/shapes/dims.py); a name they do not mention is new, and
        it names whatever the assigned value holds there (``q`` and ``k`` may both be the
        signature's ``pos``): it is bound by its first annotation in the body, and later
        annotations of the body see that binding. A new name the value does not know keeps its
        name (``h`` where the heads came from an ``int``)."""
        shape = ann.shape
        if not isinstance(shape, Shape) or scope.func is None:
            return ann
        free = param_vars(self.signature_of(scope.func))
        fresh = {s for d in (*shape.prefix, *shape.suffix) if isinstance(d, Poly)
                 for s in d.all_symbols() if s.kind == "axis" and s.name not in free}
        if not fresh:
            return ann
        b = rigid(shape)
        for s in fresh:
            b.dims.pop(s.name, None)
            if s.name in scope.axes:
                b.dims[s.name] = scope.axes[s.name]
        bound = dict(b.dims)
        if isinstance(value, TensorV) and unify(shape, value.shape, b, "") is not None:
            b.dims = bound  # the value disagrees: the assignment's check reports it
        for s in fresh:
            got = b.dims.get(s.name)
            if got is None or isinstance(got, Unknown):
                got = b.dims[s.name] = symbol(s)
            scope.axes.setdefault(s.name, got)
        return TensorV(substitute(shape, b), ann.is_bool, ann.layout)

    def s_augassign(self, s: cst.AugAssign, scope: Scope) -> None:
        left = self.eval(s.target, scope)
        right = self.eval(s.value, scope)
        op_type = _AUGOPS.get(type(s.operator))
        if op_type is None:
            return
        dunder, symbol = BINOPS[op_type]
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
            self.check_declared(self.declared_return(sig, scope), value, s.value, "shape-return", "return value")
        scope.dead = True

    def declared_return(self, sig: Signature, scope: Scope) -> Value:
        """The return annotation as the body must meet it. jaxtyping binds a name that only the
        return mentions (``-> Float[Tensor, "n *rest_out"]`` with no parameter naming
        ``rest_out``) from the returned value, so such a name holds whatever the body returns
        unless a local annotation bound it (NOTE [ Local axis names ])."""
        returns = sig.returns
        if not isinstance(returns, TensorV):
            return returns
        only = frozenset(value_vars(returns) - param_vars(sig))
        if not only:
            return returns
        return substitute_value(returns, Bindings(dims=dict(scope.axes)), free=only)

    # -- flow --------------------------------------------------------------------------------

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
        self.merge(scope, then_vars, then_dead)

    def merge(self, scope: Scope, other: dict[str, Value], other_dead: bool) -> None:
        """Join the scope's current state with another branch's."""
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
        self.loop(scope, s.body, lambda: self.assign(s.target, elem, scope, s.iter))
        if s.orelse is not None:
            self.exec_suite(s.orelse.body, scope)

    def s_while(self, s: cst.While, scope: Scope) -> None:
        self.eval(s.test, scope)
        self.loop(scope, s.body, lambda: self.eval(s.test, scope))
        if s.orelse is not None:
            self.exec_suite(s.orelse.body, scope)

    def loop(self, scope: Scope, body: cst.BaseSuite, enter: Callable[[], object]) -> None:
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
                    for k in assigned_names(body, self.ctx.assigned):
                        widened[k] = UNKNOWN
            finally:
                self.loop_depth -= 1
        else:
            for k in assigned_names(body, self.ctx.assigned):
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
            self.merge(scope, vars_, dead)
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
            for name in pattern_names(case.pattern):
                scope.vars[name] = UNKNOWN
            if case.guard is not None:
                self.eval(case.guard, scope)
            self.exec_suite(case.body, scope)
            ends.append((dict(scope.vars), scope.dead))
        scope.vars.clear()
        scope.vars.update(before)
        scope.dead = False
        for vars_, dead in ends:
            self.merge(scope, vars_, dead)

    # -- definitions -------------------------------------------------------------------------

    def s_funcdef(self, s: cst.FunctionDef, scope: Scope) -> None:
        cls = self._class_of_scope if scope.is_class else None
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

    def check_function(self, func: FuncInfo, parent: Scope) -> None:
        """Check a function's body once, its parameters holding what their annotations declare.

        NOTE [ Re-binding ]
        A parameter's annotation describes the argument, not every later value of the name: the
        idiomatic ``x = self.conv1(x); x = F.relu(x); x = x.view(x.size(0), -1)`` re-binds ``x``
        to each new shape, and later uses see the shape it holds there (flow-sensitive, joined at
        branches and loops). Only an explicit annotation on an assignment (``h: Tensor[B, H] =
        ...``, which declares ``h`` for the rest of the scope) and an attribute's declared type
        are checked against later assignments."""
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
                scope.vars[p.name] = SeqV(p.ann)
            elif p.kind == "kwargs":
                scope.vars[p.name] = UNKNOWN
            else:
                scope.vars[p.name] = p.ann  # NOTE [ Re-binding ]: describes the argument only
            if p.default is not None:
                self.eval(p.default, parent)
        self.exec_suite(func.node.body, scope)

    # -- imports -----------------------------------------------------------------------------

    def s_import(self, s: cst.Import, scope: Scope) -> None:
        for alias in s.names:
            full = dotted(alias.name)
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
        base = dotted(s.module) if s.module is not None else ""
        if base is None:
            return
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
                torch = src.qual == names.TORCH and self.ctx.read_torch  # ``from torch import *``
                for k in names.star_names(names.PACKAGE if torch else src.qual, (*calc.FUNCTIONS, *calc.MODULES)):
                    full = self.external(f"{src.qual}.{k}")
                    if torch and full == f"{src.qual}.{k}":
                        continue  # typedtensor's own (reveal_shape, Dim): torch's ``*`` has no such name
                    scope.vars[k] = QualV(full)
            return
        for alias in s.names:
            name = dotted(alias.name)
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
        return QualV(self.external(full))

    def external(self, full: str) -> str:
        """The name a module outside the tree gives ``full``: torch's names are typedtensor's
        (NOTE [ Reading torch programs ] in ``names``) unless that reading is switched off."""
        return names.from_torch(full) if self.ctx.read_torch else full

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
        return QualV(self.external(sub))

    # -- assignment --------------------------------------------------------------------------

    def assign(self, target: cst.BaseExpression, value: Value, scope: Scope, value_node: cst.CSTNode) -> None:
        """``target = value``: checked against the target's declaration, then bound."""
        if isinstance(target, cst.Name):
            ann = scope.declared.get(target.value)
            if ann is not None and not self.check_declared(
                ann, value, value_node, "shape-assign", f"assignment to '{target.value}'"
            ):
                value = ann
        elif isinstance(target, cst.Attribute) and self.is_self(target.value, scope):
            info = self.self_class(scope)
            ann = info.lookup_declared(target.attr.value) if info is not None else None
            if ann is not None and not self.check_declared(
                ann, value, value_node, "shape-assign", f"assignment to 'self.{target.attr.value}'"
            ):
                value = ann
        self.bind_target(target, value, scope, value_node)

    def bind_target(self, target: cst.BaseExpression, value: Value, scope: Scope, node: cst.CSTNode | None) -> None:
        if isinstance(target, cst.Name):
            self.bind_name(target.value, value, scope, target)
        elif isinstance(target, (cst.Tuple, cst.List)):
            self.unpack(target.elements, value, scope, node)
        elif isinstance(target, cst.Attribute):
            obj = self.eval(target.value, scope)
            if isinstance(obj, InstanceV) and scope.in_init:
                obj.attrs[target.attr.value] = value
            if self.is_self(target.value, scope):
                self.show(f"{scope.self_name}.{target.attr.value}", value, target)
        elif isinstance(target, cst.Subscript):
            obj = self.eval(target.value, scope)
            for el in target.slice:
                self.eval_slice(el.slice, scope)
            if isinstance(target.value, cst.Name) and isinstance(obj, (TupleV, SeqV)):
                scope.vars[target.value.value] = widen_seq(obj, value)
        elif isinstance(target, cst.StarredElement):
            self.bind_target(target.value, SeqV(UNKNOWN), scope, node)

    def unpack(self, elements: Sequence[cst.BaseElement], value: Value, scope: Scope, node: cst.CSTNode | None) -> None:
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
            items = [output_value(sh) for sh in value.outputs.shapes]
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
        """A list keeps its items until something changes it (``append``, ``xs[i] = v``, ``del
        xs[i]``...: then it is a sequence of the joined items)."""
        scope.vars[name] = value
        if node is not None:
            self.show(name, value, node)

    def e_walrus(self, node: cst.NamedExpr, scope: Scope) -> Value:
        v = self.eval(node.value, scope)
        self.bind_target(node.target, v, scope, node.target)
        return v

    def show(self, name: str, value: Value, node: cst.CSTNode) -> None:
        """``--show-shapes``: a note with what an assignment stored."""
        if not self.ctx.show_shapes or self.quiet:
            return
        shown = isinstance(value, (TensorV, SizeV, ShapeV, OutputsV, LibModuleV, SequentialV, InstanceV)) or (
            isinstance(value, TupleV) and any(isinstance(i, (TensorV, SizeV)) for i in value.items)
        )
        if shown:
            self.report(node, SHOW, f"{name}: {describe(value)}", "note")

    def is_self(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        return isinstance(expr, cst.Name) and scope.self_name is not None and expr.value == scope.self_name

    def self_class(self, scope: Scope) -> ClassInfo | None:
        if scope.self_name is None:
            return None
        v = scope.vars.get(scope.self_name)
        return v.cls if isinstance(v, InstanceV) else None

    def check_declared(self, ann: Value, value: Value, node: cst.CSTNode, code: str, what: str) -> bool:
        """Whether ``value`` may stand where ``ann`` is declared; reports ``code`` when it may not."""
        if isinstance(ann, TensorV) and isinstance(value, TensorV):
            if not compatible(ann.shape, value.shape):
                self.report(node, code, f"{what}: shape {fmt_shape(value.shape)} does not match the "
                                        f"declared {fmt_shape(ann.shape)}")
                return False
            return True
        if isinstance(ann, TupleV) and isinstance(value, TupleV) and len(ann.items) == len(value.items):
            for a, v in zip(ann.items, value.items, strict=False):
                if isinstance(a, TensorV) and isinstance(v, TensorV) and not compatible(a.shape, v.shape):
                    self.report(node, code, f"{what}: shape {fmt_shape(v.shape)} does not match the "
                                            f"declared {fmt_shape(a.shape)}")
                    return False
            return True
        return True


def param_vars(sig: Signature) -> set[str]:
    """The variables the parameters' annotations mention (a call binds them before the body runs)."""
    out: set[str] = set()
    for p in sig.params:
        out |= value_vars(p.ann)
    return out


_STATEMENTS: Final[dict[type[cst.CSTNode], Callable[[Statements, Any, Scope], None]]] = {
    cst.If: Statements.s_if, cst.For: Statements.s_for, cst.While: Statements.s_while,
    cst.With: Statements.s_with, cst.Try: Statements.s_try, cst.TryStar: Statements.s_try,
    cst.FunctionDef: Statements.s_funcdef, cst.ClassDef: Statements.s_classdef,
    cst.Match: Statements.s_match,
}

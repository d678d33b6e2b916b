"""Calls and what they call: registry functions and modules, ``nn.Sequential``, builtins, the
project's own functions (checked against their annotated signatures, or inlined when unannotated),
classes and their instances, methods and attributes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import libcst as cst

from typedtensor.shapes import Issue
from typedtensor.shapes.dims import DimExpr, Poly, Unknown, dim_var, named_dim
from typedtensor.shapes.shape import Shape
from typedtensor.shapes.unify import Bindings, substitute, substitute_dim, unify

from .. import calculus as calc
from .. import names
from ..annotations import AnnotationReader
from ..context import ModuleCtx, Param, Scope, Signature
from ..report import REVEAL
from ..values import (
    UNKNOWN,
    BoundV,
    ClassInfo,
    ClassV,
    ConstV,
    DictV,
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
    describe,
    join,
    join_all,
    size_value,
    widen_seq,
)
from .core import Arg
from .expressions import Expressions, as_dim
from .syntax import ann_expr, small_without_yield

MAX_CALL_DEPTH: Final = 6  # nested constructions (``__init__`` re-runs)
MAX_INIT_RUNS: Final = 500  # ``__init__`` re-runs per checked module (a budget against fan-out)
MAX_INLINE_DEPTH: Final = 3  # nested inlined calls of unannotated functions
MAX_INFER_DEPTH: Final = 4  # --infer-all: nested calls inferred through their bodies
MAX_INFER_STATEMENTS: Final = 300  # --infer-all: a larger unannotated body is not inferred

_LIST_MUTATORS: Final = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"})
#: Methods of a module that return the module itself.
MODULE_SELF_METHODS: Final = ("to", "cuda", "cpu", "train", "eval", "float", "double", "half")


class Calls(Expressions):
    """Calls, functions and classes, attributes."""

    def __init__(self, ctx: ModuleCtx):
        super().__init__(ctx)
        self.reader_scope: Scope = self.module_scope
        self.reader = AnnotationReader(self._resolve_ann, self.new_instance)
        self._current_scope: Scope | None = None  # the scope of the call being evaluated (for super())
        self.handle({cst.Call: self.e_call, cst.Attribute: self.e_attribute})

    # -- annotations and signatures ----------------------------------------------------------

    def read_ann(self, expr: cst.BaseExpression | None, scope: Scope, axes: bool = True) -> Value:
        """The value an annotation declares, its names resolved in ``scope``; ``axes``: whether
        jaxtyping axis names are the function's variables (NOTE [ jaxtyping annotations ])."""
        saved, saved_axes = self.reader_scope, self.reader.axes
        self.reader_scope = scope
        self.reader.axes = axes
        self.quiet += 1
        try:
            return self.reader.read(expr)
        finally:
            self.quiet -= 1
            self.reader_scope = saved
            self.reader.axes = saved_axes

    def _resolve_ann(self, expr: cst.BaseExpression) -> Value:
        return self.eval(expr, self.reader_scope)

    def signature_of(self, func: FuncInfo) -> Signature:
        sig = func.signature
        if sig is not None:
            return sig
        if func.ctx is not self.ctx:  # annotations are read where the function was defined
            return self.inferrer_of(func.ctx).signature_of(func)
        scope = func.closure if func.closure is not None else self.module_scope
        params: list[Param] = []
        ps = func.node.params
        for p in ps.posonly_params:
            params.append(Param(p.name.value, "positional", self.read_ann(ann_expr(p), scope), p.default is not None, p.default))
        for p in ps.params:
            params.append(Param(p.name.value, "normal", self.read_ann(ann_expr(p), scope), p.default is not None, p.default))
        if isinstance(ps.star_arg, cst.Param):
            params.append(Param(ps.star_arg.name.value, "vararg", self.read_ann(ann_expr(ps.star_arg), scope), True))
        for p in ps.kwonly_params:
            params.append(Param(p.name.value, "kwonly", self.read_ann(ann_expr(p), scope), p.default is not None, p.default))
        if ps.star_kwarg is not None:
            params.append(Param(ps.star_kwarg.name.value, "kwargs", UNKNOWN, True))
        returns = self.read_ann(func.node.returns.annotation, scope) if func.node.returns is not None else UNKNOWN
        free: set[str] = set()
        for a in [*(p.ann for p in params), returns]:
            free |= value_vars(a)
        sig = Signature(params, returns, frozenset(free))
        func.signature = sig
        return sig

    def result_of(self, sig: Signature, bindings: Bindings) -> Value:
        return substitute_value(sig.returns, bindings, sig.free)

    # -- classes and instances ---------------------------------------------------------------

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
                     args: Sequence[Arg] = (), kwargs: dict[str, Arg] | None = None,
                     constructed: bool = False) -> InstanceV:
        inst = InstanceV(info, bindings)
        if not run_init or self.call_depth >= MAX_CALL_DEPTH:
            return inst
        init = info.lookup("__init__")
        if isinstance(init, FuncV):
            self.run_init(init.func, inst, args, kwargs or {}, constructed)
            return inst
        # NOTE [ Synthesised constructors ]
        # A class of the tree with no ``__init__`` that is called with arguments has one written
        # for it (a dataclass, a NamedTuple, attrs): its fields, in order, take the arguments, so
        # ``Config(n_head=8).n_head`` is 8, not the class's default. ``__post_init__`` then runs
        # on the instance like an ``__init__`` (for the attributes it derives); a field that any
        # ``__post_init__`` of the class or its bases assigns is unknown afterwards (its branches
        # are not decided, and ``super().__post_init__()`` may not be followed), so a default it
        # replaces (``n_heads: int = -1``, "set from d_model // d_head") is never taken for the
        # instance's value.
        if constructed:
            fields = field_names(info)
            for name, (value, _) in zip(fields, args, strict=False):
                inst.attrs[name] = value
            for name, (value, _) in (kwargs or {}).items():
                if name in fields:
                    inst.attrs[name] = value
        post = info.lookup("__post_init__")
        if isinstance(post, FuncV):
            self.run_init(post.func, inst, (), {}, constructed)
            field_set = set(field_names(info))
            for name in post_init_assigned(info):
                if name in field_set:
                    inst.attrs[name] = UNKNOWN
        return inst

    def run_init(self, func: FuncInfo, inst: InstanceV, args: Sequence[Arg], kwargs: dict[str, Arg],
                 constructed: bool = False) -> None:
        """Run ``__init__`` quietly on ``inst`` with these arguments, to learn its attributes. A
        real construction (``constructed``: ``Net()``) takes the defaults of the parameters it
        does not pass; the instance a method body sees (``self_view``) does not: its class may be
        built with any arguments."""
        if self.call_depth >= MAX_CALL_DEPTH or self.ctx.init_runs >= MAX_INIT_RUNS:
            return
        self.ctx.init_runs += 1
        sig = self.signature_of(func)
        params = sig.params[1:] if sig.params and sig.params[0].kind in ("positional", "normal") else []
        values = bind_args(params, args, kwargs)
        closure = func.closure if func.closure is not None else self.module_scope
        scope = Scope({}, parent=closure, func=func, self_name=sig.params[0].name if sig.params else None, in_init=True)
        if scope.self_name is not None:
            scope.vars[scope.self_name] = inst
        for p in params:
            given = values.get(p.name)
            # NOTE [ Axis names ]: __init__'s jaxtyping axes are its own call's; stored in attributes
            # they would meet another method's axes of the same name, so they are unknown sizes there
            declared = erase_axes(substitute_value(p.ann, inst.bindings))
            if given is not None and not isinstance(given[0], Unknown):
                scope.vars[p.name] = given[0]
            elif p.kind == "vararg":
                scope.vars[p.name] = SeqV(UNKNOWN)
            elif constructed and given is None and p.default is not None and p.kind in ("positional", "normal", "kwonly"):
                default = self.inferrer_of(func.ctx).eval(p.default, closure)
                scope.vars[p.name] = default if not isinstance(default, Unknown) else declared
            else:
                scope.vars[p.name] = declared
        self.run_quietly(func, scope)

    def run_quietly(self, func: FuncInfo, scope: Scope) -> None:
        """Run ``func``'s body in ``scope`` one call deeper, reporting nothing (an ``__init__`` run
        to learn attributes, an inlined call), by the inferrer of the module that defines it."""
        inf = self.inferrer_of(func.ctx)
        inf.call_depth = max(inf.call_depth, self.call_depth) + 1
        inf.quiet += 1
        try:
            inf.exec_suite(func.node.body, scope)
        finally:
            inf.quiet -= 1
            inf.call_depth -= 1

    def run_reporting(self, func: FuncInfo, scope: Scope) -> None:
        """Run ``func``'s body in ``scope`` one call deeper, reporting what it finds there
        (NOTE [ Inferring unannotated code from its calls ])."""
        inf = self.inferrer_of(func.ctx)
        saved_top = inf.top
        inf.top = func.top
        inf.call_depth = max(inf.call_depth, self.call_depth) + 1
        inf.quiet += self.quiet > 0 and inf is not self  # a quiet caller keeps the callee quiet
        try:
            inf.exec_suite(func.node.body, scope)
        finally:
            inf.quiet -= self.quiet > 0 and inf is not self
            inf.call_depth -= 1
            inf.top = saved_top

    def construct(self, info: ClassInfo, args: list[Arg], kwargs: dict[str, Arg], node: cst.Call, opaque: bool) -> Value:
        bindings = Bindings()
        init = info.lookup("__init__")
        if isinstance(init, FuncV) and not opaque:
            sig = self.signature_of(init.func)
            params = sig.params[1:] if sig.params else []
            short = info.qualname.removeprefix(info.ctx.name + ".")
            if self.check_args(f"{short}.__init__", params, args, kwargs, bindings):
                return UNKNOWN
        return self.new_instance(info, bindings, True, args, kwargs, constructed=True)

    # -- calling the project's functions -----------------------------------------------------

    def call_function(self, fv: FuncV, args: Sequence[Arg], kwargs: dict[str, Arg], call: cst.Call,
                      opaque: bool) -> Value:
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
            self.run_init(func, bound, args, kwargs)
        if opaque:
            return self.result_of(sig, bindings)
        failed = self.check_args(func.qualname, params, args, kwargs, bindings)
        if failed or func.node.asynchronous is not None:  # a coroutine is not its result
            return UNKNOWN
        # --infer-all: a return annotated ``torch.Tensor`` (no shape) says no more than none
        unannotated = isinstance(sig.returns, Unknown) or (self.ctx.infer_all and shapeless(sig.returns))
        if unannotated and bound is None and func.kind in ("function", "staticmethod"):
            inlined = self.inline(func, params, args, kwargs)
            if inlined is not None:
                return inlined
        if self.ctx.infer_all and unannotated and isinstance(bound, InstanceV) \
                and func.kind == "function" and sig.params:
            inferred = self.inline(func, params, args, kwargs, self_param=sig.params[0].name, instance=bound)
            if inferred is not None:
                return inferred
        return self.result_of(sig, bindings)

    def inline(self, func: FuncInfo, params: list[Param], args: Sequence[Arg], kwargs: dict[str, Arg],
               self_param: str | None = None, instance: InstanceV | None = None) -> Value | None:
        """NOTE [ Inlining unannotated functions ]
        A function without a return annotation says nothing about its result, but called with
        known shapes its body can be run on them: ``def project(a, b): return a @ b`` called with
        ``[Batch, In]`` and ``[In, Out]`` gives ``[Batch, Out]``. The body runs quietly (its own
        errors are reported where it is checked on its own, not once per call), on the argument
        values, and its result is the join of what its ``return`` statements give. Bounded: only
        when an argument has a known shape, only small bodies without ``yield``, at most
        ``MAX_INLINE_DEPTH`` inlined calls deep (recursion stops there).

        NOTE [ Inferring unannotated code from its calls ]
        With ``--infer-all`` the same holds for an unannotated *method* called on an instance (a
        script's ``model(x)`` with ``x = tt.randn(64, 1, 28, 28)``, or a batch from a DataLoader
        of known shapes, reaches ``forward``), for bodies up to ``MAX_INFER_STATEMENTS``
        statements, at most ``MAX_INFER_DEPTH`` calls deep; and the body *reports* what it finds
        on those shapes (each node once), in the module that defines it. A function whose return
        is annotated with a tensor of no shape (``-> torch.Tensor``, ``-> Tensor``) counts as
        unannotated here: that annotation is how a torch program writes "a tensor"."""
        infer_all = self.ctx.infer_all
        if self.call_depth >= (MAX_INFER_DEPTH if infer_all else MAX_INLINE_DEPTH):
            return None
        values = bind_args(params, args, kwargs)
        if not any(isinstance(v, TensorV) and not isinstance(v.shape, Unknown) for v, _ in values.values()):
            return None
        if not inlinable(func, MAX_INFER_STATEMENTS if infer_all else None):
            return None
        inf = self.inferrer_of(func.ctx)
        closure = func.closure if func.closure is not None else inf.module_scope
        scope = Scope({}, parent=closure, func=func, returns=[], self_name=self_param)
        if self_param is not None and instance is not None:
            scope.vars[self_param] = instance
        for p in params:
            given = values.get(p.name)
            if given is not None:
                scope.vars[p.name] = given[0]
            elif p.kind == "vararg":
                scope.vars[p.name] = SeqV(UNKNOWN)
            elif p.kind == "kwargs":
                scope.vars[p.name] = UNKNOWN
            elif p.default is not None:
                scope.vars[p.name] = inf.eval(p.default, closure)
            else:
                scope.vars[p.name] = p.ann
        if infer_all:
            self.run_reporting(func, scope)
        else:
            self.run_quietly(func, scope)
        results = scope.returns or []
        if not scope.dead:
            results = [*results, ConstV(None)]  # the body can end without a return
        return join_all(results) if results else UNKNOWN

    def check_args(self, callee: str, params: list[Param], args: Sequence[Arg], kwargs: dict[str, Arg],
                   bindings: Bindings) -> bool:
        """Unify each argument with its parameter (binding the callee's variables); report each
        mismatch at its argument. Whether any failed."""
        failed = False
        values = bind_args(params, args, kwargs)
        for p in params:
            got = values.get(p.name)
            if got is None or got[1] is None:
                continue
            issue = unify_arg(p.ann, got[0], bindings, f"argument '{p.name}'")
            if issue is not None:
                self.report(got[1], "shape-arg", f"{callee}: {issue.message}")
                failed = True
        return failed

    # -- calls -------------------------------------------------------------------------------

    def e_call(self, node: cst.Call, scope: Scope) -> Value:
        self._current_scope = scope
        func = self.eval(node.func, scope)
        args: list[Arg] = []
        kwargs: dict[str, Arg] = {}
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
        self._current_scope = scope  # evaluating the arguments may have run other scopes' calls
        result = self.call(func, args, kwargs, node, opaque)
        if isinstance(func, BoundV) and func.name in _LIST_MUTATORS and isinstance(func.obj, (TupleV, SeqV)) \
                and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name):
            added = args[0][0] if func.name == "append" and args else UNKNOWN
            scope.vars[node.func.value.value] = widen_seq(func.obj, added)
        return result

    def call(self, func: Value, args: list[Arg], kwargs: dict[str, Arg], node: cst.Call, opaque: bool = False) -> Value:
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
        return UNKNOWN

    def call_sequential(self, seq: SequentialV, args: list[Arg], kwargs: dict[str, Arg], node: cst.Call, opaque: bool) -> Value:
        """``nn.Sequential(a, b, c)(x)`` is ``c(b(a(x)))``; a mismatch is reported at the call."""
        if opaque or kwargs or len(args) != 1:
            return UNKNOWN
        value = args[0][0]
        for layer in seq.layers:
            if isinstance(value, Unknown):
                return UNKNOWN
            value = self.call(layer, [(value, node)], {}, node)
        return value

    def call_qual(self, q: str, args: list[Arg], kwargs: dict[str, Arg], node: cst.Call, opaque: bool) -> Value:
        """A call of a name outside the checked tree: the registry's functions and modules, the
        annotation language, typing, builtins."""
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
        if q in names.TENSOR_DATASET:
            rows = [self.iter_elem(a, None) for a, _ in args]
            return SeqV(TupleV(tuple(rows))) if rows and not kwargs else UNKNOWN
        if q in names.DATA_LOADER:
            dataset = args[0][0] if args else kwargs.get("dataset", (UNKNOWN, None))[0]
            return SeqV(batched(self.iter_elem(dataset, None)))
        if q in names.PARAMETER:
            data = args[0][0] if args else kwargs.get("data", (UNKNOWN, None))[0]
            return data if isinstance(data, TensorV) else TensorV(UNKNOWN)
        if q in names.MODULE_DICT:
            given = args[0][0] if args else UNKNOWN
            return DictV(given.keys, given.values, True) if isinstance(given, DictV) else UNKNOWN
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
            return self.read_ann(args[0][1], scope, axes=scope.func is not None)  # what the user asserts
        if q in ("typing.TypeVar", "typing_extensions.TypeVar", "typing.TypeVarTuple", "typing_extensions.TypeVarTuple"):
            # ``TypeVar("N")`` is a dim variable (DESIGN §1); one with constraints or a bound
            # (``TypeVar("IntOrFloat", int, float)``, ``bound=nn.Module``) is a generic of another kind
            if args and isinstance(args[0][1], cst.SimpleString) and len(args) == 1 and "bound" not in kwargs:
                name = args[0][1].evaluated_value
                if isinstance(name, str):
                    return TypeVarV(name, q.endswith("Tuple"))
            return UNKNOWN
        if q.startswith("builtins."):
            return self.call_builtin(q[9:], args, kwargs, node)
        if q.startswith(names.SCALAR_MODULES):
            return ScalarV()
        return UNKNOWN

    def call_builtin(self, name: str, args: list[Arg], kwargs: dict[str, Arg], node: cst.Call) -> Value:
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
            return self._super()  # uses the scope e_call saw last
        if name == "dict" and not vals:
            keys = tuple(kwargs)
            return DictV(keys, tuple(kwargs[k][0] for k in keys))
        if name == "dict" and len(vals) == 1 and isinstance(vals[0], DictV) and not kwargs:
            return vals[0]
        if name == "setattr" and len(vals) == 3 and isinstance(vals[1], ConstV) and isinstance(vals[1].value, str):
            self.set_attribute(vals[0], vals[1].value, vals[2])
            return ConstV(None)
        if name == "getattr" and len(vals) in (2, 3) and isinstance(vals[1], ConstV) and isinstance(vals[1].value, str):
            found = self.attribute(vals[0], vals[1].value, node)
            return found if len(vals) == 2 else join(found, vals[2])
        if name in ("float", "abs", "round", "min", "max", "sum") and vals and not any(isinstance(v, TensorV) for v in vals):
            return ScalarV()
        return UNKNOWN

    def _super(self) -> Value:
        scope = self._current_scope
        while scope is not None and scope.func is None:
            scope = scope.parent
        if scope is None or scope.func is None or scope.func.cls is None or scope.self_name is None:
            return UNKNOWN
        inst = scope.vars.get(scope.self_name, UNKNOWN)
        return SuperV(scope.func.cls, inst)

    def call_method(self, obj: Value, name: str, args: list[Arg], kwargs: dict[str, Arg], node: cst.Call, opaque: bool) -> Value:
        if isinstance(obj, TensorV):
            if opaque:
                return UNKNOWN
            return self.tensor_method(obj, name, [a for a, _ in args], {k: v for k, (v, _) in kwargs.items()}, node)
        if isinstance(obj, SequentialV):
            if name == "forward":
                return self.call_sequential(obj, args, kwargs, node, opaque)
            return obj if name in MODULE_SELF_METHODS else UNKNOWN
        if isinstance(obj, LibModuleV):
            if name in ("__call__", "forward"):
                if opaque:
                    return UNKNOWN
                result = calc.module_call(obj.mdef, obj.ctor, [calc.to_static(a) for a, _ in args],
                                          {k: calc.to_static(v) for k, (v, _) in kwargs.items()})
                return self.result(result, node)
            if name in (*MODULE_SELF_METHODS, "requires_grad_"):
                return obj
            return UNKNOWN
        if isinstance(obj, DictV):
            return self.dict_method(obj, name, [a for a, _ in args])
        if isinstance(obj, InstanceV):
            if name in MODULE_SELF_METHODS and obj.cls.is_module and obj.cls.lookup(name) is None:
                return obj
            if name in names.REGISTER_METHODS and obj.cls.is_module and obj.cls.lookup(name) is None:
                if len(args) >= 2 and isinstance(args[0][0], ConstV) and isinstance(args[0][0].value, str):
                    self.set_attribute(obj, args[0][0].value, args[1][0])
                return ConstV(None)
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

    def set_attribute(self, obj: Value, name: str, value: Value) -> None:
        """``setattr(self, name, v)`` / ``self.register_buffer(name, v)``: recorded like ``self.name =
        v``, i.e. only while ``__init__`` builds the instance."""
        scope = self._current_scope
        if isinstance(obj, InstanceV) and scope is not None and scope.in_init:
            obj.attrs[name] = value

    def dict_method(self, d: DictV, name: str, args: list[Value]) -> Value:
        if name == "values":
            return SeqV(join_all(d.values)) if d.values else SeqV(UNKNOWN)
        if name == "items":
            return SeqV(TupleV((UNKNOWN, join_all(d.values) if d.values else UNKNOWN)))
        if name == "keys":
            return SeqV(UNKNOWN)
        if name == "get" and args and isinstance(args[0], ConstV) and isinstance(args[0].value, str):
            found = d.get(args[0].value)
            return found if found is not None else (args[1] if len(args) > 1 else ConstV(None))
        return UNKNOWN

    # -- attributes --------------------------------------------------------------------------

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
            return QualV(self.external(f"{obj.qual}.{attr}") if obj.qual.startswith(names.TORCH) else f"{obj.qual}.{attr}")
        if isinstance(obj, ModuleRefV):
            return self.import_from(obj.name, attr)
        if isinstance(obj, OutputsV):
            if obj.outputs.names is not None and attr in obj.outputs.names:
                return TensorV(obj.outputs.get(attr))
            return UNKNOWN
        if isinstance(obj, InstanceV):
            return self.instance_attribute(obj, attr)
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
        if isinstance(obj, DictV):
            found = obj.get(attr) if obj.modules else None
            return found if found is not None else BoundV(obj, attr)
        if isinstance(obj, (LibModuleV, TupleV, SeqV, SequentialV)):
            return BoundV(obj, attr)
        return UNKNOWN

    def instance_attribute(self, obj: InstanceV, attr: str) -> Value:
        if attr in obj.attrs:
            return obj.attrs[attr]
        found = obj.cls.lookup(attr)
        if isinstance(found, FuncV):
            if found.func.kind == "property":
                return self.result_of(self.signature_of(found.func), copy_bindings(obj.bindings))
            if found.func.kind == "staticmethod":
                return found
            return FuncV(found.func, obj if found.func.kind != "classmethod" else ClassV(obj.cls), found.transparent)
        if found is not None:
            return found
        declared = obj.cls.lookup_declared(attr)
        if declared is not None:
            return substitute_value(declared, obj.bindings)
        if attr in ("forward", "__call__") or (obj.cls.is_module and (attr in MODULE_SELF_METHODS
                                                                     or attr in names.REGISTER_METHODS)):
            return BoundV(obj, attr)
        return UNKNOWN

    # -- a call up: module attributes are imports --------------------------------------------

    def import_from(self, module: str, name: str) -> Value:
        raise NotImplementedError  # statements

    def external(self, full: str) -> str:
        raise NotImplementedError  # statements


def field_names(info: ClassInfo, seen: frozenset[int] = frozenset()) -> list[str]:
    """The annotated class attributes a synthesised ``__init__`` takes, in its order: the bases'
    first (NOTE [ Synthesised constructors ]); ``ClassVar`` ones are not fields."""
    out: list[str] = []
    for base in reversed(info.bases):
        if isinstance(base, ClassV) and id(base.info) not in seen:
            out += [n for n in field_names(base.info, seen | {id(info)}) if n not in out]
    body = info.node.body.body if isinstance(info.node.body, cst.IndentedBlock) else ()
    for stmt in body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) \
                    and "ClassVar" not in cst.Module([]).code_for_node(small.annotation.annotation):
                name = small.target.value
                if name not in out:
                    out.append(name)
    return out


def post_init_assigned(info: ClassInfo, seen: frozenset[int] = frozenset()) -> set[str]:
    """The attributes ``self.X`` that the ``__post_init__`` of ``info`` or of its bases assigns."""
    out: set[str] = set()
    for base in info.bases:
        if isinstance(base, ClassV) and id(base.info) not in seen:
            out |= post_init_assigned(base.info, seen | {id(info)})
    post = info.namespace.get("__post_init__")
    if isinstance(post, FuncV):
        params = post.func.node.params.params or post.func.node.params.posonly_params
        if params:
            out |= {t.attr.value for t in _assigned_targets(post.func.node.body)
                    if isinstance(t.value, cst.Name) and t.value.value == params[0].name.value}
    return out


def _assigned_targets(body: cst.CSTNode) -> list[cst.Attribute]:
    """Every attribute an assignment in ``body`` (nested blocks included) writes."""
    found: list[cst.Attribute] = []

    class _Visitor(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            found.extend(_attributes(node.target))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            found.extend(_attributes(node.target))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            found.extend(_attributes(node.target))

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False  # a nested function's ``self`` is its own

    body.visit(_Visitor())
    return found


def _attributes(target: cst.BaseExpression) -> list[cst.Attribute]:
    if isinstance(target, cst.Attribute):
        return [target]
    if isinstance(target, cst.Tuple | cst.List):
        return [a for e in target.elements for a in _attributes(e.value)]
    return []


def inlinable(func: FuncInfo, budget: int | None = None) -> bool:
    """Small, and neither a generator nor a coroutine (NOTE [ Inlining unannotated functions ]);
    ``budget`` raises the statement limit (NOTE [ Inferring unannotated code from its calls ])."""
    if budget is not None:
        return func.node.asynchronous is None and small_without_yield(func.node.body, budget)
    if func.inlinable is None:
        func.inlinable = func.node.asynchronous is None and small_without_yield(func.node.body)
    return func.inlinable


def batched(example: Value) -> Value:
    """A DataLoader's batch of ``example``s: each tensor gains a leading batch dim (unknown: the last
    batch may be smaller)."""
    if isinstance(example, TensorV) and isinstance(example.shape, Shape):
        return TensorV(Shape((UNKNOWN, *example.shape.prefix), example.shape.star, example.shape.suffix), example.is_bool)
    if isinstance(example, TupleV):
        return TupleV(tuple(batched(i) for i in example.items))
    return UNKNOWN


def bind_args(params: list[Param], args: Sequence[Arg], kwargs: dict[str, Arg]) -> dict[str, Arg]:
    """Which argument goes to which parameter (positionally, then by keyword)."""
    out: dict[str, Arg] = {}
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


def unify_arg(ann: Value, value: Value, bindings: Bindings, where: str) -> Issue | None:
    """Unify an argument with the value its parameter declares, binding the callee's variables."""
    if isinstance(ann, TensorV) and isinstance(value, TensorV):
        return unify(ann.shape, value.shape, bindings, where)
    if isinstance(ann, SizeV):
        dim = as_dim(value)  # a size, or an int literal
        return None if dim is None else unify(Shape.of(ann.dim), Shape.of(dim), bindings, where)
    if isinstance(ann, TupleV) and isinstance(value, TupleV) and len(ann.items) == len(value.items):
        for i, (a, v) in enumerate(zip(ann.items, value.items, strict=False)):
            issue = unify_arg(a, v, bindings, f"{where}, item {i}")
            if issue is not None:
                return issue
    if isinstance(ann, SeqV) and isinstance(value, (SeqV, TupleV)):
        elems = value.items if isinstance(value, TupleV) else (value.elem,)
        for v in elems:
            issue = unify_arg(ann.elem, v, bindings, where)
            if issue is not None:
                return issue
    return None


def substitute_value(ann: Value, bindings: Bindings, free: frozenset[str] | None = None) -> Value:
    """A declared value with a call's (or an instance's) variable bindings applied; with ``free``,
    variables of the callee left unbound become unknown."""
    if not bindings.dims and not bindings.stars and not free:
        return ann
    if isinstance(ann, TensorV) and isinstance(ann.shape, Shape):
        return TensorV(substitute(ann.shape, bindings, free), ann.is_bool, ann.layout)
    if isinstance(ann, SizeV):
        return size_value(substitute_dim(ann.dim, bindings, free))
    if isinstance(ann, TupleV):
        return TupleV(tuple(substitute_value(a, bindings, free) for a in ann.items), ann.is_list)
    if isinstance(ann, SeqV):
        return SeqV(substitute_value(ann.elem, bindings, free))
    return ann


def shapeless(v: Value) -> bool:
    """A declared value that says nothing of a shape: none, or a tensor of unknown shape."""
    return isinstance(v, Unknown) or (isinstance(v, TensorV) and isinstance(v.shape, Unknown))


def erase_axes(v: Value) -> Value:
    """``v`` with every dim over a jaxtyping axis name unknown (NOTE [ Axis names ])."""
    if isinstance(v, TensorV) and isinstance(v.shape, Shape):
        s = v.shape
        if not any(_has_axis(d) for d in (*s.prefix, *s.suffix)):
            return v
        erased = Shape(tuple(UNKNOWN if _has_axis(d) else d for d in s.prefix), s.star,
                       tuple(UNKNOWN if _has_axis(d) else d for d in s.suffix))
        return TensorV(erased, v.is_bool, v.layout)
    if isinstance(v, SizeV) and _has_axis(v.dim):
        return SizeV(UNKNOWN)
    if isinstance(v, TupleV):
        return TupleV(tuple(erase_axes(i) for i in v.items), v.is_list)
    if isinstance(v, SeqV):
        return SeqV(erase_axes(v.elem))
    return v


def _has_axis(d: DimExpr) -> bool:
    return isinstance(d, Poly) and any(s.kind == "axis" for s in d.all_symbols())


def value_vars(ann: Value) -> set[str]:
    """The variables a declared value mentions."""
    if isinstance(ann, TensorV) and isinstance(ann.shape, Shape):
        return calc.var_names(ann.shape)
    if isinstance(ann, SizeV):
        return calc.var_names(Shape.of(ann.dim))
    if isinstance(ann, TupleV):
        out: set[str] = set()
        for a in ann.items:
            out |= value_vars(a)
        return out
    if isinstance(ann, SeqV):
        return value_vars(ann.elem)
    return set()


def copy_bindings(b: Bindings) -> Bindings:
    return Bindings(dict(b.dims), dict(b.stars), dict(b.origin))

"""Calls whose shapes the plugin unifies itself: the user's annotated functions and methods,
`Module.__call__` (which runs `forward`), and the registry's `nn` modules.

NOTE [ Loosened signatures ]
mypy compares variadic type arguments covariantly and joins TypeVars: `square(a)` with
`square(x: Tensor[N, N])` and `a: Tensor[Batch, Seq]` solves `N = Dim` and passes. So the
signature hook stores the declared signature (self bound, class variables filled in) keyed by
the call node, and hands mypy a copy whose tensor parameters and result are unknown-shaped;
mypy still checks arity and every other argument. The call hook then unifies each argument's
shape with the calculus (`unify`), reports `shape-arg` with a note saying where each variable
was bound, and substitutes the bindings into the declared result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mypy.nodes import Context, Decorator, FuncDef, TypeInfo
from mypy.plugin import (
    CheckerPluginInterface,
    FunctionContext,
    FunctionSigContext,
    MethodContext,
    MethodSigContext,
)
from mypy.subtypes import find_member
from mypy.types import (
    AnyType,
    CallableType,
    FunctionLike,
    Instance,
    TupleType,
    Type,
    TypeOfAny,
    TypeVarType,
    UnionType,
    get_proper_type,
)

from typedtensor.shapes import UNKNOWN, Bindings, Issue, ModuleDef, Poly, Unknown, fmt_dim, unify
from typedtensor.shapes.shape import Shape, ShapeLike, fmt_shape
from typedtensor.shapes.unify import substitute, substitute_dim

from .errors import report
from .loosen import loosen_signature
from .names import MODULE, PACKAGE
from .ops import GAVE_UP, after_issue, memo_key, run_memoised
from .translate import Translator, tensor_instance
from .values import Converter, GiveUp, actuals_of, bind_values

if TYPE_CHECKING:
    from .plugin import TypedTensorPlugin


def tensor_in(t: Type) -> Instance | None:
    """The tensor in `t`, also through `Optional[...]`."""
    p = get_proper_type(t)
    if isinstance(p, UnionType):
        for item in p.items:
            found = tensor_instance(item)
            if found is not None:
                return found
        return None
    return tensor_instance(p)


def _is_shaped(t: Type) -> bool:
    inst = tensor_in(t)
    if inst is None:
        return False
    return not isinstance(Translator(_no_make).shape(inst), Unknown)


def _no_make(fullname: str, args: list[Type]) -> Instance:
    raise AssertionError("translation only")


def has_shaped_params(sig: CallableType) -> bool:
    return any(_is_shaped(t) for t in sig.arg_types)


def _declared_callable(node: object) -> CallableType | None:
    if isinstance(node, Decorator):
        t = node.var.type if node.var.type is not None else node.func.type
    elif isinstance(node, FuncDef):
        t = node.type
    else:
        return None
    p = get_proper_type(t)
    return p if isinstance(p, CallableType) else None


class CallChecker:
    """Signature and call hooks for calls checked by unification."""

    def __init__(self, plugin: TypedTensorPlugin) -> None:
        self.plugin = plugin
        self.pending: dict[Context, CallableType] = {}

    # ---- deciding ---------------------------------------------------------------------------------
    def _user_function(self, fullname: str) -> bool:
        sym = self.plugin.lookup_fully_qualified(fullname)
        if sym is None:
            return False
        sig = _declared_callable(sym.node)
        return sig is not None and has_shaped_params(sig)

    def _classify_method(self, fullname: str) -> tuple[str, Any] | None:
        """("module", ModuleDef) / ("forward", None) for `Module.__call__` and `forward`,
        ("method", None) for a user method with shaped tensor parameters."""
        cls, _, method = fullname.rpartition(".")
        info = self.plugin.lookup_class(cls)
        if info is None:
            return None
        if info.has_base(MODULE) and method in ("__call__", "forward"):
            caller = info.get_containing_type_info("__call__")
            if method == "forward" or caller is None or caller.fullname.startswith(PACKAGE + "."):
                defining = info.get_containing_type_info("forward")
                if defining is None:
                    return None
                from typedtensor.shapes import api

                if defining.fullname.startswith(PACKAGE + "."):
                    # a library module: the first registry module up the MRO (a loss module's
                    # `forward` is defined once on the stubs' shared `_Loss` base)
                    for base in info.mro:
                        if base.fullname in api.MODULES:
                            return ("module", api.MODULES[base.fullname])
                    return None
                sig = _declared_callable(defining.names["forward"].node)
                return ("forward", None) if sig is not None and has_shaped_params(sig) else None
        node = info.get_method(method)
        if node is None or (node.info is not None and node.info.fullname.startswith(PACKAGE + ".")):
            return None
        sig = _declared_callable(node)
        return ("method", None) if sig is not None and has_shaped_params(sig) else None

    # ---- hooks for plain functions -----------------------------------------------------------------
    def function_signature_hook(self, fullname: str) -> Callable[[FunctionSigContext], FunctionLike] | None:
        if not self._user_function(fullname):
            return None

        def hook(ctx: FunctionSigContext) -> FunctionLike:
            self.pending[ctx.context] = ctx.default_signature
            return loosen_signature(ctx.default_signature, ctx.api.named_generic_type)

        return hook

    def function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        if not self._user_function(fullname):
            return None
        name = fullname.rpartition(".")[2]

        def hook(ctx: FunctionContext) -> Type:
            sig = self.pending.get(ctx.context)
            if sig is None:
                return ctx.default_return_type
            return check_call(ctx.api, sig, ctx.arg_types, ctx.context, ctx.default_return_type, name)

        return hook

    # ---- hooks for methods -------------------------------------------------------------------------
    def method_signature_hook(self, fullname: str) -> Callable[[MethodSigContext], FunctionLike] | None:
        kind = self._classify_method(fullname)
        if kind is None:
            return None
        method = fullname.rpartition(".")[2]

        def hook(ctx: MethodSigContext) -> FunctionLike:
            make = ctx.api.named_generic_type
            if kind[0] == "module":
                return loosen_signature(ctx.default_signature, make)
            sig: CallableType | None = ctx.default_signature
            if kind[0] == "forward" and method == "__call__":
                sig = _bound_forward(ctx.type)
                if sig is None:
                    return ctx.default_signature
            assert sig is not None
            self.pending[ctx.context] = sig
            return loosen_signature(sig, make)

        return hook

    def method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        kind = self._classify_method(fullname)
        if kind is None:
            return None
        cls, _, method = fullname.rpartition(".")
        label = f"{cls.rpartition('.')[2]}.{'forward' if method == '__call__' else method}"

        def hook(ctx: MethodContext) -> Type:
            if kind[0] == "module":
                return module_call(ctx, kind[1])
            sig = self.pending.get(ctx.context)
            if sig is None:
                return ctx.default_return_type
            return check_call(ctx.api, sig, ctx.arg_types, ctx.context, ctx.default_return_type, label)

        return hook


def _bound_forward(receiver: Type) -> CallableType | None:
    p = get_proper_type(receiver)
    if not isinstance(p, Instance):
        return None
    member = find_member("forward", p, p)
    member_p = get_proper_type(member) if member is not None else None
    return member_p if isinstance(member_p, CallableType) else None


# ---- unification of a call ----------------------------------------------------------------------
def _vars_of(shape: ShapeLike) -> list[str]:
    if isinstance(shape, Unknown):
        return []
    names: list[str] = []
    for d in (*shape.prefix, *shape.suffix):
        if isinstance(d, Poly):
            names.extend(sorted(s.name for s in d.all_symbols() if s.kind == "var"))
    if shape.star is not None and shape.star.name is not None:
        names.append(shape.star.name)
    return list(dict.fromkeys(names))


def _binding_notes(shape: ShapeLike, b: Bindings) -> tuple[str, ...]:
    notes = []
    for name in _vars_of(shape):
        where = b.origin.get(name)
        if where is None:
            continue
        if name in b.dims:
            value = fmt_dim(b.dims[name])
            notes.append(f"{name} was bound to {value} by {where}")
        elif name in b.stars:
            bound = b.stars[name]
            shown = fmt_shape(bound) if isinstance(bound, Shape) else fmt_shape(Shape(tuple(bound)))
            notes.append(f"*{name} was bound to {shown} by {where}")
    return tuple(notes)


def check_call(
    api: CheckerPluginInterface,
    sig: CallableType,
    arg_types: list[list[Type]],
    context: Context,
    default: Type,
    callee: str,
) -> Type:
    """Unify every actual shape with its declared one; report; substitute into the result."""
    make = api.named_generic_type
    caller = Translator(make)
    declared = Translator(make, rigid=False)
    b = Bindings()
    for i, formal in enumerate(sig.arg_types):
        if i >= len(arg_types):
            break
        pname = sig.arg_names[i] or f"#{i + 1}"
        where = f"{callee}() argument '{pname}'"
        formal_tensor = tensor_in(formal)
        formal_p = get_proper_type(formal)
        for actual in arg_types[i]:
            issue: Issue | None = None
            param_shape: ShapeLike
            if formal_tensor is not None:
                param_shape = declared.shape_of_args(formal_tensor.args)
                actual_tensor = tensor_in(actual)
                if actual_tensor is None:
                    continue
                issue = unify(param_shape, caller.shape_of_args(actual_tensor.args), b, where)
            elif isinstance(formal_p, TypeVarType):
                size = caller.dim(actual)
                if isinstance(size, Unknown):
                    continue
                param_shape = Shape.of(declared.dim(formal_p))
                issue = unify(param_shape, Shape.of(size), b, where)
            else:
                continue
            if issue is not None:
                report(api, issue, context, _binding_notes(param_shape, b))
                return after_issue(caller, default)
    emitter = Translator(make)
    emitter.syms.update({s: t for s, t in declared.syms.items() if s.kind != "var"})
    emitter.syms.update(caller.syms)
    emitter.stars.update(caller.stars)
    result = _substitute_type(sig.ret_type, declared, emitter, b)
    return default if result is None else result


def _share_dims(declared: Translator, emitter: Translator) -> None:
    """Named dims of the declared result (`-> Tensor[Batch, Hidden]`) keep their types; the
    callee's own variables do not leak into the caller (unbound ones become `Any`)."""
    for sym, t in declared.syms.items():
        if sym.kind != "var":
            emitter.syms.setdefault(sym, t)


def _substitute_type(t: Type, declared: Translator, emitter: Translator, b: Bindings) -> Type | None:
    """The declared result with the call's bindings; None when it holds no tensor or size."""
    p = get_proper_type(t)
    inst = tensor_instance(p)
    if inst is not None:
        shape = substitute(declared.shape_of_args(inst.args), b)
        _share_dims(declared, emitter)
        return emitter.tensor_type(shape)
    if isinstance(p, TypeVarType):
        d = substitute_dim(declared.dim(p), b)
        _share_dims(declared, emitter)
        if isinstance(d, Poly) and any(s.kind == "var" and s.name == p.name for s in d.all_symbols()):
            return None
        return emitter.size_type(d, AnyType(TypeOfAny.special_form)) if d is not UNKNOWN else None
    if isinstance(p, TupleType):
        items = [_substitute_type(i, declared, emitter, b) for i in p.items]
        if all(i is None for i in items):
            return None
        return p.copy_modified(
            items=[new if new is not None else old for new, old in zip(items, p.items, strict=False)]
        )
    return None


# ---- nn modules from the registry -----------------------------------------------------------------
def _module_instance(t: Type, md: ModuleDef) -> Instance | None:
    p = get_proper_type(t)
    if not isinstance(p, Instance):
        return None
    for base in p.type.mro:
        if base.fullname == md.name:
            from mypy.maptype import map_instance_to_supertype

            return map_instance_to_supertype(p, base)
    return None


def ctor_values(tr: Translator, md: ModuleDef, inst: Instance) -> dict[str, Any]:
    """The constructor arguments a module's type carries (its type arguments); the rest unknown."""
    values: dict[str, Any] = {p.name: UNKNOWN for p in md.ctor}
    kinds = {p.name: p.kind for p in md.ctor}
    for name, arg in zip(md.type_params, inst.args, strict=False):
        if kinds.get(name) == "sizes":
            p = get_proper_type(arg)
            if isinstance(p, TupleType):
                values[name] = tuple(tr.dim(i) for i in p.items)
            else:
                d = tr.dim(arg)
                values[name] = UNKNOWN if isinstance(d, Unknown) else (d,)
        else:
            values[name] = tr.dim(arg)
    return values


def module_call(ctx: MethodContext, md: ModuleDef) -> Type:
    """`fc(x)` / `fc.forward(x)` on a registry module: its forward rule over the sizes its type
    carries."""
    tr = Translator(ctx.api.named_generic_type)
    inst = _module_instance(ctx.type, md)
    if inst is None:
        return ctx.default_return_type
    module = inst
    actuals = actuals_of(ctx.context, ctx.args, ctx.arg_types, ctx.arg_kinds, ctx.arg_names)

    def compute() -> Any:
        ctor = ctor_values(tr, md, module)
        try:
            positional, keywords = bind_values(Converter(tr, ctx.api), md.forward_params, actuals)
        except GiveUp:
            return GAVE_UP
        return md.call(ctor, positional, keywords)

    # the same module types are called on the same shapes throughout a model: one computation
    # per module type and arguments (NOTE [ One computation per call site ] in ops.py)
    key = memo_key(("module", md.name), inst, actuals)
    return run_memoised(ctx.api, key, compute, ctx.context, ctx.default_return_type, tr)


def module_constructor_hook(md: ModuleDef) -> Callable[[FunctionContext], Type]:
    """`nn.Linear(In(784), 10)` is `Linear[In, Literal[10]]`; a plain `int` size is `Any`."""

    def hook(ctx: FunctionContext) -> Type:
        default = get_proper_type(ctx.default_return_type)
        if not isinstance(default, Instance) or len(default.args) != len(md.type_params):
            return ctx.default_return_type
        tr = Translator(ctx.api.named_generic_type)
        kinds = {p.name: p.kind for p in md.ctor}
        args: list[Type] = []
        for name in md.type_params:
            group = ctx.arg_types[ctx.callee_arg_names.index(name)] if name in ctx.callee_arg_names else []
            if not group:
                args.append(AnyType(TypeOfAny.special_form))
                continue
            actual = group[0]
            p = get_proper_type(actual)
            if kinds.get(name) == "sizes" and isinstance(p, TupleType):
                args.append(p.copy_modified(items=[tr.dim_type(tr.dim(i)) for i in p.items]))
            elif kinds.get(name) == "sizes" and isinstance(p, Instance) and p.args:
                args.append(AnyType(TypeOfAny.special_form))  # a list: its length is not known
            else:
                args.append(tr.dim_type(tr.dim(actual)))
        return default.copy_modified(args=args)

    return hook


__all__ = ["CallChecker", "TypeInfo", "module_constructor_hook"]

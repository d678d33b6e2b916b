"""Calls whose shapes the plugin unifies itself: the user's annotated functions and methods and
`Module.__call__` (which runs `forward`); it dispatches a call of a registry `nn` module to
`modules.py` and of an `nn.Sequential` to `sequential.py`.

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

from typedtensor.shapes import UNKNOWN, Bindings, Issue, Poly, Unknown, fmt_dim, unify
from typedtensor.shapes.shape import Shape, ShapeLike, fmt_shape
from typedtensor.shapes.unify import substitute, substitute_dim

from .errors import report
from .loosen import loosen_signature
from .modules import module_call, module_forward
from .names import DIM, INT, MODULE, PACKAGE, SEQUENTIAL
from .ops import after_issue
from .sequential import chain, sequential_call, sequential_item
from .translate import MakeInstance, Translator, is_dim_class, tensor_instance

if TYPE_CHECKING:
    from .plugin import TypedTensorPlugin


def tensor_in(t: Type) -> Instance | None:
    """The tensor in `t`, also through `Optional[...]`. A union of several tensor types (a name
    re-bound in one branch of an `if` under `allow_redefinition`) has no one shape: None, as the
    checker joins two shapes into an unknown one."""
    p = get_proper_type(t)
    if isinstance(p, UnionType):
        found: Instance | None = None
        for item in p.items:
            inst = tensor_instance(item)
            if inst is not None:
                if found is not None and inst != found:
                    return None
                found = inst
        return found
    return tensor_instance(p)


def _is_shaped(t: Type) -> bool:
    inst = tensor_in(t)
    if inst is None:
        return False
    return not isinstance(Translator(_no_make).shape(inst), Unknown)


def _no_make(fullname: str, args: list[Type]) -> Instance:
    raise AssertionError("translation only")


def has_shaped_params(sig: CallableType) -> bool:
    """Whether the plugin unifies calls of `sig` itself: a shaped tensor parameter, a size
    parameter typed by a named dim (`b: Batch`, NOTE [ Size parameters ]), or one typed by a
    TypeVar that a shaped result uses (`def make(n: N) -> Tensor[N, N]`). For the latter mypy
    would solve `N` from the declared target first and blame the argument (`f: Tensor[Seq, Seq] =
    make(Batch(3))` an `arg-type`); unified, `N` is bound by the argument and the mismatch is the
    assignment's, as the checker reports it."""
    if any(_is_shaped(t) or _is_dim_param(t) for t in sig.arg_types):
        return True
    return _is_shaped(sig.ret_type) and any(isinstance(get_proper_type(t), TypeVarType) for t in sig.arg_types)


def _is_dim_param(t: Type) -> bool:
    p = get_proper_type(t)
    return isinstance(p, Instance) and is_dim_class(p)


def loosen_user_signature(sig: CallableType, make: MakeInstance) -> CallableType:
    """NOTE [ Size parameters ]
    A plain `int` is an untracked size, compatible with anything (DESIGN §1), but to mypy an `int`
    is not a `Batch`: `sized(n)` for `def sized(b: Batch)` would be mypy's nominal `arg-type`. So a
    user callable's named-dim parameters are loosened to `int` as its tensors are to unknown
    shapes (NOTE [ Loosened signatures ]), and the call hook unifies each size argument with the
    declared dim: another named dim or a literal is `shape-arg` (`dim 0 is In, expected Batch`),
    a plain `int` passes, as in the checker."""
    loose = loosen_signature(sig, make)
    if not any(_is_dim_param(t) for t in loose.arg_types):
        return loose
    return loose.copy_modified(arg_types=[make(INT, []) if _is_dim_param(t) else t for t in loose.arg_types])


def _declared_callable(node: object) -> CallableType | None:
    if isinstance(node, Decorator):
        t = node.var.type if node.var.type is not None else node.func.type
    elif isinstance(node, FuncDef):
        t = node.type
    else:
        return None
    p = get_proper_type(t)
    return p if isinstance(p, CallableType) else None


def _sized_constructor(info: TypeInfo) -> bool:
    """A user class whose `__init__` takes named-dim sizes (`Block(d_model: Model, ...)`) and
    neither tensors nor TypeVars: its size arguments are unified like a function's (NOTE [ Size
    parameters ]). Constructors with tensor or TypeVar parameters keep mypy's own inference, which
    solves the class's type arguments from them."""
    if info.fullname.startswith(PACKAGE + ".") or info.has_base(DIM):
        return False  # a library class, or a size (`Batch(32)`)
    init = info.get_method("__init__")
    if init is None or init.info is None or init.info.fullname.startswith(PACKAGE + "."):
        return False
    sig = _declared_callable(init)
    if sig is None:
        return False
    sized = False
    for t in sig.arg_types:
        p = get_proper_type(t)
        if isinstance(p, TypeVarType) or tensor_in(p) is not None:
            return False
        sized = sized or (isinstance(p, Instance) and is_dim_class(p))
    return sized


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
        if isinstance(sym.node, TypeInfo):
            return _sized_constructor(sym.node)
        sig = _declared_callable(sym.node)
        return sig is not None and has_shaped_params(sig)

    def _classify_method(self, fullname: str) -> tuple[str, Any] | None:
        """("module", ModuleDef) / ("forward", None) / ("sequential", None) for
        `Module.__call__` and `forward`, ("method", None) for a user method with shaped tensor
        parameters."""
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
                    return ("sequential", None) if defining.fullname == SEQUENTIAL else None
                sig = _declared_callable(defining.names["forward"].node)
                return ("forward", None) if sig is not None and has_shaped_params(sig) else None
        if method == "__getitem__" and info.has_base(SEQUENTIAL):
            defining = info.get_containing_type_info("__getitem__")
            return ("sequential_item", None) if defining is not None and defining.fullname == SEQUENTIAL else None
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
            return loosen_user_signature(ctx.default_signature, ctx.api.named_generic_type)

        return hook

    def function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        if not self._user_function(fullname):
            return None
        name = fullname.rpartition(".")[2]
        sym = self.plugin.lookup_fully_qualified(fullname)
        if sym is not None and isinstance(sym.node, TypeInfo):
            name += ".__init__"  # a constructor's arguments are its __init__'s

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
            if kind[0] in ("sequential", "sequential_item"):
                return ctx.default_signature  # nothing to loosen
            if kind[0] == "module":
                return loosen_signature(ctx.default_signature, make)
            sig: CallableType | None = ctx.default_signature
            if kind[0] == "forward" and method == "__call__":
                sig = _bound_forward(ctx.type)
                if sig is None:
                    return ctx.default_signature
            assert sig is not None
            self.pending[ctx.context] = sig
            return loosen_user_signature(sig, make)

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
            if kind[0] == "sequential":
                return sequential_call(ctx, lambda layer, x: self.call_layer(ctx, layer, x))
            if kind[0] == "sequential_item":
                return sequential_item(ctx)
            sig = self.pending.get(ctx.context)
            if sig is None:
                return ctx.default_return_type
            return check_call(ctx.api, sig, ctx.arg_types, ctx.context, ctx.default_return_type, label)

        return hook

    # ---- one layer of a Sequential -----------------------------------------------------------------
    def call_layer(self, ctx: MethodContext, layer: Type, x: Type) -> Type | None:
        """`layer(x)` for one layer of a Sequential; None when its forward is not known."""
        p = get_proper_type(layer)
        if not isinstance(p, Instance):
            return None
        kind = self._classify_method(f"{p.type.fullname}.__call__")
        if kind is None:
            return None
        if kind[0] == "module":
            return module_forward(ctx.api, kind[1], p, x, ctx.context)
        if kind[0] == "sequential":
            return chain(p, x, lambda layer, value: self.call_layer(ctx, layer, value))
        sig = _bound_forward(p)
        if kind[0] != "forward" or sig is None:
            return None
        return check_call(ctx.api, sig, [[x]], ctx.context, AnyType(TypeOfAny.special_form), f"{p.type.name}.forward")


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
            elif isinstance(formal_p, TypeVarType) or _is_dim_param(formal_p):
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


__all__ = ["CallChecker", "check_call", "has_shaped_params", "tensor_in"]

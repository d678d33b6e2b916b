"""Calls whose shapes the plugin unifies itself: the user's annotated functions and methods,
`Module.__call__` (which runs `forward`), the registry's `nn` modules and `nn.Sequential`.

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

from mypy.nodes import ARG_POS, Context, Decorator, FuncDef, SliceExpr, TypeInfo
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
    LiteralType,
    NoneType,
    TupleType,
    Type,
    TypeOfAny,
    TypeVarType,
    UnionType,
    UnpackType,
    get_proper_type,
)

from typedtensor.shapes import UNKNOWN, Bindings, Issue, ModuleDef, Poly, Unknown, fmt_dim, unify
from typedtensor.shapes.registry import REQUIRED
from typedtensor.shapes.shape import Shape, ShapeLike, fmt_shape
from typedtensor.shapes.unify import substitute, substitute_dim

from .errors import report
from .loosen import loosen_signature
from .names import BOOL, DIM, INT, MODULE, PACKAGE, SEQUENTIAL, STR, TUPLE
from .ops import GAVE_UP, after_issue, memo_key, result_type, run_memoised
from .translate import MakeInstance, Translator, is_dim_class, literal_value, tensor_instance
from .values import Converter, GiveUp, actuals_of, bind_values, expr_type

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
                return self.sequential_call(ctx)
            if kind[0] == "sequential_item":
                return sequential_item(ctx)
            sig = self.pending.get(ctx.context)
            if sig is None:
                return ctx.default_return_type
            return check_call(ctx.api, sig, ctx.arg_types, ctx.context, ctx.default_return_type, label)

        return hook


    # ---- nn.Sequential ---------------------------------------------------------------------------
    def sequential_call(self, ctx: MethodContext) -> Type:
        """NOTE [ Sequential chains its layers ]
        `nn.Sequential(a, b, c)` is typed `Sequential[A, B, C]` by its constructor hook, and
        calling it is `c(b(a(x)))`: each layer's forward as if called on the previous result
        (the registry's rule for a library module, unification for the user's), reported at the
        call, as the checker does. A layer the plugin cannot call (a plain `Module`, an unknown
        count of layers) makes the result the stub's unknown tensor."""
        if len(ctx.arg_types) != 1 or len(ctx.arg_types[0]) != 1 or ctx.arg_kinds[0][0] != ARG_POS:
            return ctx.default_return_type
        result = self.chain(ctx, ctx.type, ctx.arg_types[0][0])
        return ctx.default_return_type if result is None else result

    def chain(self, ctx: MethodContext, seq: Type, current: Type) -> Type | None:
        layers = sequential_layers(seq)
        if not layers:
            return None
        for layer in layers:
            nxt = self.call_layer(ctx, layer, current)
            if nxt is None:
                return None
            current = nxt
        return current

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
            return self.chain(ctx, p, x)
        sig = _bound_forward(p)
        if kind[0] != "forward" or sig is None:
            return None
        return check_call(ctx.api, sig, [[x]], ctx.context, AnyType(TypeOfAny.special_form), f"{p.type.name}.forward")


def sequential_layers(t: Type) -> list[Type] | None:
    """The layer types a `Sequential[...]` carries; None when their number is not known."""
    p = get_proper_type(t)
    if not isinstance(p, Instance):
        return None
    inst = p
    if p.type.fullname != SEQUENTIAL:
        from mypy.maptype import map_instance_to_supertype

        base = next((b for b in p.type.mro if b.fullname == SEQUENTIAL), None)
        if base is None:
            return None
        inst = map_instance_to_supertype(p, base)
    layers: list[Type] = []
    for arg in inst.args:
        if isinstance(arg, UnpackType):
            inner = get_proper_type(arg.type)
            if not isinstance(inner, TupleType):
                return None
            layers.extend(inner.items)
        else:
            layers.append(arg)
    return layers


def sequential_item(ctx: MethodContext) -> Type:
    """`seq[1]` is the layer's type and `seq[1:]` a Sequential of those layers, for literal
    indices (as the checker indexes its layers); anything else keeps the stub's `Module`."""
    layers = sequential_layers(ctx.type)
    if not layers or len(ctx.args) != 1 or len(ctx.args[0]) != 1:
        return ctx.default_return_type
    expr = ctx.args[0][0]
    if isinstance(expr, SliceExpr):
        bounds: list[int | None] = []
        for e in (expr.begin_index, expr.end_index, expr.stride):
            value = None if e is None else literal_value(expr_type(ctx.api, e))
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                return ctx.default_return_type
            bounds.append(value)
        if bounds[2] == 0:
            return ctx.default_return_type
        picked = layers[bounds[0]:bounds[1]:bounds[2]]
        default = get_proper_type(ctx.default_return_type)
        if not picked or not isinstance(default, Instance):
            return ctx.default_return_type
        return default.copy_modified(args=picked)
    index = literal_value(ctx.arg_types[0][0])
    if isinstance(index, int) and not isinstance(index, bool) and -len(layers) <= index < len(layers):
        return layers[index]
    return ctx.default_return_type


def sequential_constructor_hook(ctx: FunctionContext) -> Type:
    """`nn.Sequential(a, b, c)` is `Sequential[A, B, C]` (NOTE [ Sequential chains its layers ]).
    No layers (one built by `append`) or `*layers` leave it unknown."""
    default = get_proper_type(ctx.default_return_type)
    types = [t for group in ctx.arg_types for t in group]
    kinds = [k for group in ctx.arg_kinds for k in group]
    if not isinstance(default, Instance) or not types or any(k != ARG_POS for k in kinds):
        return ctx.default_return_type
    return default.copy_modified(args=types)


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


def _is_size_kind(kind: str | None) -> bool:
    return kind in ("size", "sizes")


def static_type(tr: Translator, value: Any) -> Type:
    """A constructor argument that is not a size (a kernel, a stride, `padding="same"`, a flag) as
    a type argument: its static value (NOTE [ Static values ] in the registry) as a literal type,
    a tuple of them, `None`; anything not known statically is `Any`."""
    if value is None:
        return NoneType()
    if isinstance(value, bool):
        return LiteralType(value, fallback=tr.make(BOOL, []))
    if isinstance(value, int):
        return tr.literal(value)
    if isinstance(value, str):
        return LiteralType(value, fallback=tr.make(STR, []))
    if isinstance(value, tuple):
        return TupleType([static_type(tr, v) for v in value], tr.make(TUPLE, [tr.make(INT, [])]))
    if isinstance(value, Poly):
        return tr.dim_type(value)
    return AnyType(TypeOfAny.special_form)


def static_value(tr: Translator, t: Type) -> Any:
    """A type argument made by `static_type`, back to the registry's static value."""
    p = get_proper_type(t)
    if isinstance(p, NoneType):
        return None
    if isinstance(p, TupleType):
        return tuple(static_value(tr, i) for i in p.items)
    value = literal_value(p)
    return value if not isinstance(value, Unknown) else tr.dim(p)


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
        elif _is_size_kind(kinds.get(name)):
            values[name] = tr.dim(arg)
        else:
            values[name] = static_value(tr, arg)
    return values


def module_call(ctx: MethodContext, md: ModuleDef) -> Type:
    """`fc(x)` / `fc.forward(x)` on a registry module: its forward rule over the constructor
    arguments its type carries."""
    tr = Translator(ctx.api.named_generic_type)
    inst = _module_instance(ctx.type, md)
    if inst is None:
        return ctx.default_return_type
    module = inst
    actuals = actuals_of(ctx.context, ctx.args, ctx.arg_types, ctx.arg_kinds, ctx.arg_names)

    def compute() -> Any:
        try:
            positional, keywords = bind_values(Converter(tr, ctx.api), md.forward_params, actuals)
        except GiveUp:
            return GAVE_UP
        return md.call(ctor_values(tr, md, module), positional, keywords)

    # the same module types are called on the same shapes throughout a model: one computation
    # per module type and arguments (NOTE [ One computation per call site ] in ops.py)
    key = memo_key(("module", md.name), inst, actuals)
    return run_memoised(ctx.api, key, compute, ctx.context, ctx.default_return_type, tr)


def module_forward(api: CheckerPluginInterface, md: ModuleDef, layer: Instance, x: Type, context: Context) -> Type | None:
    """A registry module called on one input of type `x` (a layer of a Sequential)."""
    tr = Translator(api.named_generic_type)
    inst = _module_instance(layer, md)
    if inst is None:
        return None
    value = Converter(tr, api).tensor_or_scalar(x)
    return _apply_module(api, tr, md, inst, [value], {}, context, tr.unknown_tensor())


def _apply_module(api: CheckerPluginInterface, tr: Translator, md: ModuleDef, inst: Instance, positional: list[Any],
                  keywords: dict[str, Any], context: Context, default: Type) -> Type:
    result = md.call(ctor_values(tr, md, inst), positional, keywords)
    if isinstance(result, Issue):
        report(api, result, context)
        return after_issue(tr, default)
    return result_type(tr, result, default)


def module_constructor_hook(md: ModuleDef) -> Callable[[FunctionContext], Type]:
    """`nn.Linear(In(784), 10)` is `Linear[In, Literal[10]]`; a plain `int` size is `Any`.
    `nn.Conv2d(3, 16, 3, stride=2)` is `Conv2d[Literal[3], Literal[16], Literal[3], Literal[2],
    Literal[0], Literal[1]]`: an omitted argument is its default, one not known statically `Any`."""
    params = {p.name: p for p in md.ctor}

    def hook(ctx: FunctionContext) -> Type:
        default = get_proper_type(ctx.default_return_type)
        if not isinstance(default, Instance) or len(default.args) != len(md.type_params):
            return ctx.default_return_type
        tr = Translator(ctx.api.named_generic_type)
        args: list[Type] = []
        for name in md.type_params:
            index = ctx.callee_arg_names.index(name) if name in ctx.callee_arg_names else -1
            group = ctx.arg_types[index] if index >= 0 else []
            param = params.get(name)
            kind = param.kind if param is not None else None
            if not group:
                omitted = param.default if param is not None and not _is_size_kind(kind) else UNKNOWN
                args.append(static_type(tr, UNKNOWN if omitted is REQUIRED else omitted))
                continue
            actual = group[0]
            p = get_proper_type(actual)
            if not _is_size_kind(kind):
                value = Converter(tr, ctx.api).static(ctx.args[index][0], actual)
                if isinstance(value, Unknown):
                    value = tr.dim(actual)  # a named size as a kernel
                args.append(static_type(tr, value))
            elif kind == "sizes" and isinstance(p, TupleType):
                args.append(p.copy_modified(items=[tr.dim_type(tr.dim(i)) for i in p.items]))
            elif kind == "sizes" and isinstance(p, Instance) and p.args:
                args.append(AnyType(TypeOfAny.special_form))  # a list: its length is not known
            else:
                args.append(tr.dim_type(tr.dim(actual)))
        return default.copy_modified(args=args)

    return hook


__all__ = ["CallChecker", "TypeInfo", "module_constructor_hook", "sequential_constructor_hook"]

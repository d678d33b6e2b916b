"""The registry's `nn` modules: a constructor's arguments become the module's type arguments, and
calling the module applies the registry's forward rule over them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mypy.maptype import map_instance_to_supertype
from mypy.nodes import Context
from mypy.plugin import CheckerPluginInterface, FunctionContext, MethodContext
from mypy.types import AnyType, Instance, LiteralType, NoneType, TupleType, Type, TypeOfAny, get_proper_type

from typedtensor.shapes import UNKNOWN, Issue, ModuleDef, Poly, Unknown
from typedtensor.shapes.registry import REQUIRED

from .errors import report
from .names import BOOL, INT, STR, TUPLE
from .ops import GAVE_UP, after_issue, memo_key, result_type, run_memoised
from .translate import Translator, literal_value
from .values import Converter, GiveUp, actuals_of, bind_values


def _module_instance(t: Type, md: ModuleDef) -> Instance | None:
    p = get_proper_type(t)
    if not isinstance(p, Instance):
        return None
    for base in p.type.mro:
        if base.fullname == md.name:
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
    actuals = actuals_of(ctx.api, ctx.context, ctx.args, ctx.arg_types, ctx.arg_kinds, ctx.arg_names)

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


__all__ = ["ctor_values", "module_call", "module_constructor_hook", "module_forward", "static_type", "static_value"]

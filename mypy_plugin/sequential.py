"""`nn.Sequential`: its constructor types it by its layers, calling it chains their forwards, and
indexing it picks layers.

NOTE [ Sequential chains its layers ]
`nn.Sequential(a, b, c)` is typed `Sequential[A, B, C]` by its constructor hook, and calling it
is `c(b(a(x)))`: each layer's forward as if called on the previous result (the registry's rule
for a library module, unification for the user's), reported at the call, as the checker does. A
layer the plugin cannot call (a plain `Module`, an unknown count of layers) makes the result the
stub's unknown tensor.
"""

from __future__ import annotations

from collections.abc import Callable

from mypy.maptype import map_instance_to_supertype
from mypy.nodes import ARG_POS, SliceExpr
from mypy.plugin import FunctionContext, MethodContext
from mypy.types import Instance, TupleType, Type, UnpackType, get_proper_type

from .names import SEQUENTIAL
from .translate import literal_value
from .values import expr_type

LayerCall = Callable[[Type, Type], "Type | None"]
"""`call_layer(layer, x)`: one layer's forward on an input of type `x`; None when not known."""


def sequential_call(ctx: MethodContext, call_layer: LayerCall) -> Type:
    """`seq(x)` (NOTE [ Sequential chains its layers ])."""
    if len(ctx.arg_types) != 1 or len(ctx.arg_types[0]) != 1 or ctx.arg_kinds[0][0] != ARG_POS:
        return ctx.default_return_type
    result = chain(ctx.type, ctx.arg_types[0][0], call_layer)
    return ctx.default_return_type if result is None else result


def chain(seq: Type, current: Type, call_layer: LayerCall) -> Type | None:
    """Each layer of `seq` called on the previous one's result; None when a layer is not known."""
    layers = sequential_layers(seq)
    if not layers:
        return None
    for layer in layers:
        nxt = call_layer(layer, current)
        if nxt is None:
            return None
        current = nxt
    return current


def sequential_layers(t: Type) -> list[Type] | None:
    """The layer types a `Sequential[...]` carries; None when their number is not known."""
    p = get_proper_type(t)
    if not isinstance(p, Instance):
        return None
    inst = p
    if p.type.fullname != SEQUENTIAL:
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
    No layers (one built by `append`), `*layers` or an OrderedDict of named layers leave it unknown."""
    default = get_proper_type(ctx.default_return_type)
    types = [t for group in ctx.arg_types for t in group]
    kinds = [k for group in ctx.arg_kinds for k in group]
    if not isinstance(default, Instance) or not types or any(k != ARG_POS for k in kinds):
        return ctx.default_return_type
    if any(isinstance(p, Instance) and p.type.has_base("typing.Mapping") for p in map(get_proper_type, types)):
        return ctx.default_return_type
    return default.copy_modified(args=types)


__all__ = ["chain", "sequential_call", "sequential_constructor_hook", "sequential_item", "sequential_layers"]

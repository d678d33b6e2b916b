"""The checker's one door to the shape calculus (``typedtensor.shapes``): inferred values in,
registry results out. No shape rule lives here; this module only converts representations.

NOTE [ Static values for the registry ]
The registry's rules see tensors as ``ShapeLike`` and every other argument as its static value
(docs/shapes-api.md): an int literal as ``int``, a size as a ``DimExpr``, a number of unknown
value as ``SCALAR``, anything else the checker cannot tell as ``UNKNOWN``. ``to_static`` does that
conversion; ``coerce`` then replaces values a parameter's kind cannot take (a tensor where a size
is expected, say) by ``UNKNOWN``, so a rule never sees a value of the wrong sort.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from typedtensor.shapes import SCALAR, Issue, Scalar, Shape, SliceIndex, TensorIndex
from typedtensor.shapes import api as _api
from typedtensor.shapes.dims import UNKNOWN, DimExpr, Poly, Sym, Unknown, dim_var, substitute_syms
from typedtensor.shapes.dims import symbol as opaque_sym
from typedtensor.shapes.registry import ModuleDef, OpDef, Param, Result, bind, get_op
from typedtensor.shapes.shape import Star
from typedtensor.shapes.unify import Bindings, substitute_dim

from .values import ConstV, OutputsV, ScalarV, ShapeV, SizeV, TensorV, TupleV, Value

FUNCTIONS: Final[dict[str, str]] = _api.FUNCTIONS
METHODS: Final[dict[str, str]] = _api.METHODS
METHODS_WITHOUT_SELF: Final[frozenset[str]] = frozenset(getattr(_api, "METHODS_WITHOUT_SELF", ()))
OPERATORS: Final[dict[str, tuple[str, bool]]] = _api.OPERATORS
PROPERTIES: Final[dict[str, str]] = _api.PROPERTIES
MODULES: Final[Mapping[str, ModuleDef]] = _api.modules()


class RuleFailure(Exception):
    """A registry rule raised (a calculus bug): the checker treats the result as unknown."""


def to_static(v: Value) -> Any:
    """A checker value as the registry's static value (NOTE [ Static values for the registry ])."""
    if isinstance(v, TensorV):
        return v.shape
    if isinstance(v, ConstV):
        return v.value
    if isinstance(v, SizeV):
        return v.dim
    if isinstance(v, ScalarV):
        return SCALAR
    if isinstance(v, TupleV):
        items = tuple(to_static(i) for i in v.items)
        return list(items) if v.is_list else items
    if isinstance(v, ShapeV):
        return UNKNOWN if not v.shape.is_fixed else v.shape.dims
    if isinstance(v, OutputsV):
        shapes = v.outputs.shapes
        return UNKNOWN if isinstance(shapes, Unknown) else tuple(shapes)
    return UNKNOWN


def _is_dim(x: Any) -> bool:
    return (isinstance(x, int) and not isinstance(x, bool)) or isinstance(x, (Poly, Unknown))


def _is_shape(x: Any) -> bool:
    return isinstance(x, (Shape, Unknown))


def _number(x: Any) -> bool:
    return isinstance(x, (int, float, Scalar)) and not isinstance(x, bool)


_ELEMENT_KIND: Final = {"tensors": "tensor", "sizes": "size", "ints": "int"}


def coerce(p: Param, x: Any) -> Any:
    kind = p.kind
    if x is UNKNOWN or kind in ("any", "index", "dtype"):
        return x
    if p.variadic and isinstance(x, tuple):
        if kind == "sizes" and len(x) == 1 and isinstance(x[0], (tuple, list)):
            return coerce(Param(p.name, kind), x[0])  # ``zeros((2, 3))`` as ``zeros(2, 3)``
        item = _ELEMENT_KIND.get(kind, kind)
        return tuple(coerce(Param(p.name, item), i) for i in x)  # type: ignore[arg-type]
    if kind == "tensor":
        return x if _is_shape(x) or _number(x) else UNKNOWN
    if kind == "optional_tensor":
        return x if x is None or _is_shape(x) or _number(x) else UNKNOWN
    if kind == "tensors":
        if isinstance(x, (tuple, list)) and all(_is_shape(i) for i in x):
            return x
        return UNKNOWN
    if kind == "size":
        return x if _is_dim(x) else UNKNOWN
    if kind == "sizes":
        if _is_dim(x):
            return x
        if isinstance(x, (tuple, list)):
            return tuple(i if _is_dim(i) else UNKNOWN for i in x)
        return UNKNOWN
    if kind == "int":
        return x if x is None or (isinstance(x, int) and not isinstance(x, bool)) else UNKNOWN
    if kind == "ints":
        if x is None or (isinstance(x, int) and not isinstance(x, bool)):
            return x
        if isinstance(x, (tuple, list)):
            return tuple(i if isinstance(i, int) and not isinstance(i, bool) else UNKNOWN for i in x)
        return UNKNOWN
    if kind == "float":
        return x if x is None or _number(x) else UNKNOWN
    if kind == "bool":
        return x if x is None or isinstance(x, bool) else UNKNOWN
    if kind == "str":
        return x if x is None or isinstance(x, str) else UNKNOWN
    return x


def _coerce_all(params: Sequence[Param], args: dict[str, Any]) -> dict[str, Any]:
    for p in params:
        if p.name in args:
            args[p.name] = coerce(p, args[p.name])
    return args


def _run(fn: Any, *args: Any) -> Result:
    try:
        result: Result = fn(*args)
    except Exception as exc:  # a rule must never raise; never let a calculus bug crash a check
        raise RuleFailure(f"{type(exc).__name__}: {exc}") from exc
    return result


def op_def(name: str) -> OpDef | None:
    try:
        return get_op(name)
    except KeyError:
        return None


def call_op(name: str, positional: Sequence[Any], keywords: Mapping[str, Any]) -> Result:
    """``apply`` with the checker's coercion between binding and the rule."""
    op = op_def(name)
    if op is None:
        return UNKNOWN
    bound = bind(op, list(positional), dict(keywords))
    if bound is None:
        return UNKNOWN
    if isinstance(bound, Issue):
        return bound
    return _run(op.rule, _coerce_all(op.params, bound))


def module_ctor(mdef: ModuleDef, positional: Sequence[Any], keywords: Mapping[str, Any]) -> dict[str, Any] | None:
    bound = mdef.bind_ctor(list(positional), dict(keywords))
    return None if bound is None else _coerce_all(mdef.ctor, bound)


def module_ctor_from_type_args(mdef: ModuleDef, dims: Sequence[DimExpr]) -> dict[str, Any]:
    """``nn.Linear[In, Out]`` as an annotation: the type arguments fill the type parameters."""
    args: dict[str, Any] = {}
    given = dict(zip(mdef.type_params, dims, strict=False))
    for p in mdef.ctor:
        if p.name in given:
            args[p.name] = given[p.name]
        elif p.variadic:
            args[p.name] = UNKNOWN
        else:
            from typedtensor.shapes.registry import REQUIRED

            args[p.name] = UNKNOWN if p.default is REQUIRED else p.default
    return args


_RIGID: Final = "\x00rigid:"


def _rigid_map(value: Any, out: dict[Sym, DimExpr]) -> Any:
    """Replace var symbols by opaque stand-ins (see ``module_call``)."""
    if isinstance(value, Poly):
        mapping: dict[Sym, DimExpr] = {}
        for s in value.symbols():
            if s.kind == "var":
                stand_in = Sym("opaque", _RIGID + s.name, s.display)
                mapping[s] = opaque_sym(stand_in)
                out[stand_in] = dim_var(s.name)
        return substitute_syms(value, mapping) if mapping else value
    if isinstance(value, tuple):
        return tuple(_rigid_map(v, out) for v in value)
    if isinstance(value, Shape):
        return Shape(tuple(_rigid_map(d, out) for d in value.prefix), value.star,
                     tuple(_rigid_map(d, out) for d in value.suffix))
    return value


def _unrigid(result: Result, back: dict[Sym, DimExpr]) -> Result:
    if not back or not isinstance(result, Shape):
        return result
    return Shape(
        tuple(substitute_syms(d, back) for d in result.prefix), result.star,
        tuple(substitute_syms(d, back) for d in result.suffix),
    )


def module_call(mdef: ModuleDef, ctor: dict[str, Any], positional: Sequence[Any], keywords: Mapping[str, Any]) -> Result:
    """A registry module's forward. Its constructor sizes are rigid: a generic class's TypeVar
    there (``nn.Linear(d_in, d_out)`` with ``d_in: I``) must not be bound by the rule's
    unification, so var symbols travel as opaque stand-ins and come back in the result
    (a workaround until the rules take rigid variables: .coord request R4)."""
    from typedtensor.shapes.registry import OpDef as _OpDef

    fake = _OpDef(mdef.name, mdef.forward_params, lambda a: UNKNOWN)
    bound = bind(fake, list(positional), dict(keywords))
    if not isinstance(bound, dict):
        return UNKNOWN
    back: dict[Sym, DimExpr] = {}
    rigid_ctor = {k: _rigid_map(v, back) for k, v in ctor.items()}
    rigid_args = {k: _rigid_map(v, back) for k, v in _coerce_all(mdef.forward_params, bound).items()}
    return _unrigid(_run(mdef.forward, rigid_ctor, rigid_args), back)


def index_item(v: Value) -> Any:
    """One item of an indexing key (``x[0, :, None, ...]``) as the registry's index value."""
    if isinstance(v, ConstV):
        if v.value is None or v.value is Ellipsis:
            return v.value
        if isinstance(v.value, int) and not isinstance(v.value, bool):
            return v.value
        return UNKNOWN
    if isinstance(v, TensorV):
        return TensorIndex(v.shape, v.is_bool)
    if isinstance(v, TupleV) and all(isinstance(i, (ConstV, SizeV, ScalarV)) for i in v.items):
        return TensorIndex(Shape.of(len(v.items)), False)
    return UNKNOWN


def slice_bound(v: Value | None) -> DimExpr | None:
    if v is None:
        return None
    if isinstance(v, ConstV):
        if v.value is None:
            return None
        if isinstance(v.value, int) and not isinstance(v.value, bool):
            return v.value
        return UNKNOWN
    if isinstance(v, SizeV):
        return v.dim
    return UNKNOWN


def make_slice(lower: Value | None, upper: Value | None, step: Value | None) -> SliceIndex:
    return SliceIndex(slice_bound(lower), slice_bound(upper), slice_bound(step))


def returns_bool(name: str) -> bool:
    op = op_def(name)
    return op is not None and op.dtype_rule == "bool"


def free_vars_to_unknown(d: DimExpr, bindings: Bindings, free: frozenset[str]) -> DimExpr:
    """Substitute bound variables; a dim that still mentions an unbound variable of the callee is
    unknown to the caller (it would otherwise leak as a rigid variable)."""
    if isinstance(d, Poly):
        for s in d.symbols():
            if s.kind == "var" and s.name in free and s.name not in bindings.dims:
                return UNKNOWN
    return substitute_dim(d, bindings)


def substitute_result(shape: Shape, bindings: Bindings, free: frozenset[str]) -> Shape:
    from typedtensor.shapes.unify import substitute

    prefix = tuple(free_vars_to_unknown(d, bindings, free) for d in shape.prefix)
    suffix = tuple(free_vars_to_unknown(d, bindings, free) for d in shape.suffix)
    star = shape.star
    if star is not None and star.name is not None and star.name in free and star.name not in bindings.stars:
        star = Star(None)
    out = substitute(Shape(prefix, star, suffix), bindings)
    assert isinstance(out, Shape)
    return out


def var_names(shape: Shape) -> set[str]:
    names: set[str] = set()
    for d in (*shape.prefix, *shape.suffix):
        if isinstance(d, Poly):
            names.update(s.name for s in d.symbols() if s.kind == "var")
    if shape.star is not None and shape.star.name is not None:
        names.add(shape.star.name)
    return names


__all__ = [
    "FUNCTIONS", "METHODS", "MODULES", "OPERATORS", "PROPERTIES", "RuleFailure", "Sym", "call_op",
    "coerce", "index_item", "make_slice", "module_call", "module_ctor", "to_static",
]

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
from typedtensor.shapes.dims import UNKNOWN, VAR_KINDS, DimExpr, Poly, Sym, Unknown
from typedtensor.shapes.registry import ModuleDef, OpDef, Param, Result, bind, get_op

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


def module_ctor_from_type_args(mdef: ModuleDef, values: Sequence[Any]) -> dict[str, Any]:
    """``nn.Linear[In, Out]`` as an annotation: the type arguments fill the type parameters; every
    other constructor argument is unknown (an annotation says nothing of them: ``nn.Conv2d[C, H]``
    may hold any stride), as the mypy plugin reads such a type."""
    given = dict(zip(mdef.type_params, values, strict=False))
    return {p.name: given.get(p.name, UNKNOWN) for p in mdef.ctor}


def module_call(mdef: ModuleDef, ctor: dict[str, Any], positional: Sequence[Any], keywords: Mapping[str, Any]) -> Result:
    """A registry module's forward (its rules keep the constructor's TypeVars rigid)."""
    from typedtensor.shapes.registry import OpDef as _OpDef

    fake = _OpDef(mdef.name, mdef.forward_params, lambda a: UNKNOWN)
    bound = bind(fake, list(positional), dict(keywords))
    if not isinstance(bound, dict):
        return UNKNOWN
    return _run(mdef.forward, ctor, _coerce_all(mdef.forward_params, bound))


class _UnknownItem:
    """An index item of unknown kind (it may be a tensor, a slice, a bool...): the result is unknown."""


UNKNOWN_ITEM: Final = _UnknownItem()


def index_item(v: Value) -> Any:
    """One item of an indexing key (``x[0, :, None, ...]``) as the registry's index value;
    ``UNKNOWN`` is an integer of unknown value, ``UNKNOWN_ITEM`` an item of unknown kind."""
    if isinstance(v, ConstV):
        if v.value is None or v.value is Ellipsis:
            return v.value
        if isinstance(v.value, int) and not isinstance(v.value, bool):
            return v.value
        return UNKNOWN_ITEM
    if isinstance(v, (SizeV, ScalarV)):
        return UNKNOWN
    if isinstance(v, TensorV):
        return TensorIndex(v.shape, v.is_bool)
    if isinstance(v, TupleV) and all(isinstance(i, (ConstV, SizeV, ScalarV)) for i in v.items):
        return TensorIndex(Shape.of(len(v.items)), False)
    return UNKNOWN_ITEM


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


def var_names(shape: Shape) -> set[str]:
    names: set[str] = set()
    for d in (*shape.prefix, *shape.suffix):
        if isinstance(d, Poly):
            names.update(s.name for s in d.all_symbols() if s.kind in VAR_KINDS)
    if shape.star is not None and shape.star.name is not None:
        names.add(shape.star.name)
    return names


__all__ = [
    "FUNCTIONS", "METHODS", "MODULES", "OPERATORS", "PROPERTIES", "RuleFailure", "Sym", "call_op",
    "coerce", "index_item", "make_slice", "module_call", "module_ctor", "to_static",
]

"""The abstract values the inference computes: what a name or an expression may hold, and what an
annotation declares (a parameter ``x: Tensor[Batch, In]`` holds the value its annotation reads as,
so annotations and values are one family).

Anything the checker cannot follow is ``UNKNOWN`` (the calculus's own singleton): it is compatible
with everything, so unknown code is never reported.

NOTE [ Flow ] (the join)
Branches are joined value by value: a name that holds the same value on every live path keeps it,
any disagreement gives ``UNKNOWN`` (never an error); two tensors of different shapes join to a
tensor of unknown shape, two numbers to a number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from typedtensor.shapes.dims import UNKNOWN, DimExpr, Poly, Unknown, fmt_dim
from typedtensor.shapes.shape import Shape, ShapeLike, fmt_shape

if TYPE_CHECKING:
    import libcst as cst

    from typedtensor.shapes.registry import ModuleDef, Outputs
    from typedtensor.shapes.unify import Bindings

    from .context import ModuleCtx, Scope, Signature


@dataclass(frozen=True)
class TensorV:
    shape: ShapeLike
    is_bool: bool = False
    #: NOTE [ Layout lints ]: "contiguous", the strides (one per dim), or None (not known).
    layout: str | tuple[DimExpr, ...] | None = None


@dataclass(frozen=True)
class SizeV:
    """An int that is a size: ``Batch(32)``, a parameter ``b: Batch``, ``x.shape[1]``, ``h * d``."""

    dim: DimExpr


@dataclass(frozen=True)
class ScalarV:
    """A number whose value is not known (``x: float``, ``t.item()``)."""


@dataclass(frozen=True)
class BoundV:
    """``obj.name`` before it is called: a method of a tensor, a list, a registry module."""

    obj: Value
    name: str


@dataclass(frozen=True)
class ConstV:
    """A Python constant: int, float, bool, str, None, Ellipsis."""

    value: object


@dataclass(frozen=True)
class ShapeV:
    """``x.shape`` / ``x.size()``: a tuple of sizes."""

    shape: Shape


@dataclass(frozen=True)
class TupleV:
    items: tuple[Value, ...]
    is_list: bool = False


@dataclass(frozen=True)
class SeqV:
    """A sequence of unknown length whose elements are all ``elem``."""

    elem: Value


@dataclass(frozen=True)
class OutputsV:
    outputs: Outputs


def output_value(item: ShapeLike | Outputs) -> Value:
    """One element of a rule's ``Outputs``: a tensor, or a nested tuple of them (``nn.LSTM``'s
    ``(h_n, c_n)``)."""
    from typedtensor.shapes.registry import Outputs

    return OutputsV(item) if isinstance(item, Outputs) else TensorV(item)


@dataclass(frozen=True)
class QualV:
    """A name outside the checked tree, by its full name: ``typedtensor.nn.Linear``, ``typing.Literal``."""

    qual: str


@dataclass(frozen=True)
class ModuleRefV:
    """A module of the checked tree (``import models``)."""

    name: str


@dataclass(frozen=True)
class DimClassV:
    qualname: str
    display: str


@dataclass(frozen=True)
class TypeVarV:
    name: str
    is_tuple: bool = False


@dataclass(frozen=True, eq=False)
class AliasV:
    """A type expression bound to a name (``Side = Literal[8]``, ``Image = Tensor[Batch, C, H, W]``):
    an annotation that mentions the name reads the expression."""

    node: cst.BaseExpression


@dataclass(eq=False)
class FuncInfo:
    node: cst.FunctionDef
    ctx: ModuleCtx
    qualname: str
    cls: ClassInfo | None = None
    closure: Scope | None = None  # the scope a nested function (or method) closes over
    kind: str = "function"  # function | staticmethod | classmethod | property
    signature: Signature | None = None  # filled lazily by the inference (``signature_of``)
    checked: bool = False
    top: int = -1  # index of the module-level statement that defines it
    inlinable: bool | None = None  # small enough to inline a call (infer.inline); None: not yet known


@dataclass(frozen=True)
class FuncV:
    func: FuncInfo
    bound: Value | None = None  # the instance (or class) a method is bound to
    transparent: bool = True


@dataclass(eq=False)
class ClassInfo:
    node: cst.ClassDef
    ctx: ModuleCtx
    qualname: str
    bases: list[Value] = field(default_factory=list)
    typevars: list[str] = field(default_factory=list)
    namespace: dict[str, Value] = field(default_factory=dict)
    declared: dict[str, Value] = field(default_factory=dict)  # annotated attributes: name -> declared value
    is_module: bool = False
    self_view: InstanceV | None = None

    def lookup(self, name: str, seen: frozenset[int] = frozenset()) -> Value | None:
        """A class attribute through the project bases (a simple left-to-right MRO)."""
        if name in self.namespace:
            return self.namespace[name]
        for base in self.bases:
            if isinstance(base, ClassV) and id(base.info) not in seen:
                found = base.info.lookup(name, seen | {id(self)})
                if found is not None:
                    return found
        return None

    def lookup_declared(self, name: str) -> Value | None:
        if name in self.declared:
            return self.declared[name]
        for base in self.bases:
            if isinstance(base, ClassV) and base.info is not self:
                found = base.info.lookup_declared(name)
                if found is not None:
                    return found
        return None


@dataclass(frozen=True)
class ClassV:
    info: ClassInfo


@dataclass(eq=False)
class InstanceV:
    cls: ClassInfo
    bindings: Bindings
    attrs: dict[str, Value] = field(default_factory=dict)


@dataclass(frozen=True)
class LibModuleV:
    """An instance of a registry module (``nn.Linear(In(784), Hidden(256))``)."""

    mdef: ModuleDef
    ctor: dict[str, Any] = field(hash=False)


@dataclass(frozen=True)
class SequentialV:
    """``nn.Sequential(a, b, c)``: calling it calls each layer on the previous one's result."""

    layers: tuple[Value, ...]


@dataclass(frozen=True)
class DictV:
    """A dict with string keys (``dict(wte=..., h=...)``, ``{"a": x}``); a ``nn.ModuleDict`` of one
    (``modules``) also answers attribute access: ``self.transformer.wte``."""

    keys: tuple[str, ...]
    values: tuple[Value, ...]
    modules: bool = False

    def get(self, key: str) -> Value | None:
        return self.values[self.keys.index(key)] if key in self.keys else None


@dataclass(frozen=True)
class SuperV:
    cls: ClassInfo
    instance: Value


Value = Union[
    TensorV, SizeV, ScalarV, BoundV, ConstV, ShapeV, TupleV, SeqV, OutputsV, QualV, ModuleRefV, DimClassV,
    TypeVarV, FuncV, ClassV, InstanceV, LibModuleV, SequentialV, SuperV, AliasV, DictV, Unknown,
]


def size_value(dim: DimExpr) -> Value:
    """A size of dim ``dim``; an unknown size is just ``UNKNOWN``."""
    return UNKNOWN if isinstance(dim, Unknown) else SizeV(dim)


def join(a: Value, b: Value) -> Value:
    """NOTE [ Flow ] (the join)."""
    if a is b or a == b:
        return a
    if isinstance(a, TensorV) and isinstance(b, TensorV):
        shape = a.shape if a.shape == b.shape else UNKNOWN
        return TensorV(shape, a.is_bool and b.is_bool, a.layout if a.layout == b.layout else None)
    if isinstance(a, TupleV) and isinstance(b, TupleV) and len(a.items) == len(b.items):
        return TupleV(tuple(join(x, y) for x, y in zip(a.items, b.items, strict=False)), a.is_list)
    if isinstance(a, SeqV) and isinstance(b, SeqV):
        return SeqV(join(a.elem, b.elem))
    if isinstance(a, (SeqV, TupleV)) and isinstance(b, (SeqV, TupleV)) and (_is_list(a) or _is_list(b)):
        if isinstance(a, TupleV) and not a.items:
            return SeqV(_elements(b))  # an empty list that a loop appended to
        if isinstance(b, TupleV) and not b.items:
            return SeqV(_elements(a))
        return SeqV(join(_elements(a), _elements(b)))
    if isinstance(a, (ScalarV, ConstV, SizeV)) and isinstance(b, (ScalarV, ConstV, SizeV)):
        if isinstance(a, ConstV) and not isinstance(a.value, (int, float)):
            return UNKNOWN
        if isinstance(b, ConstV) and not isinstance(b.value, (int, float)):
            return UNKNOWN
        return ScalarV()
    return UNKNOWN


def _is_list(v: Value) -> bool:
    return isinstance(v, SeqV) or (isinstance(v, TupleV) and v.is_list)


def _elements(v: SeqV | TupleV) -> Value:
    return v.elem if isinstance(v, SeqV) else join_all(v.items)


def join_all(values: Sequence[Value]) -> Value:
    if not values:
        return UNKNOWN
    out = values[0]
    for v in values[1:]:
        out = join(out, v)
    return out


def join_vars(a: dict[str, Value], b: dict[str, Value]) -> dict[str, Value]:
    out = dict(a)
    for k, v in b.items():
        out[k] = join(out[k], v) if k in out else v
    return out


def widen_seq(seq: Value, added: Value) -> Value:
    """A list after a mutation that added ``added``: a sequence of the joined elements."""
    if isinstance(seq, SeqV):
        elem = seq.elem
    elif isinstance(seq, TupleV) and seq.items:
        elem = join_all(seq.items)
    else:
        elem = added
    return SeqV(join(elem, added) if not isinstance(added, Unknown) else UNKNOWN)


def informative(v: Value) -> bool:
    """Whether a value says more than its declared type could (a tensor of known shape, ...)."""
    if isinstance(v, TensorV):
        return not isinstance(v.shape, Unknown)
    return not isinstance(v, Unknown)


def refine(declared: Value, value: Value) -> Value:
    """What a name annotated ``declared`` and assigned ``value`` (already checked compatible) holds:
    the value, with the dims it does not know taken from the annotation (``h: Float[Tensor, "b h t
    t"] = q @ k.mT`` keeps ``h`` where the heads came from an ``int``)."""
    if not informative(value):
        return declared
    if isinstance(declared, TensorV) and isinstance(value, TensorV) and isinstance(declared.shape, Shape) \
            and isinstance(value.shape, Shape) and declared.shape.is_fixed and value.shape.is_fixed \
            and len(declared.shape.dims) == len(value.shape.dims):
        dims = tuple(d if isinstance(v, Unknown) else v for d, v in zip(declared.shape.dims, value.shape.dims, strict=True))
        return TensorV(Shape(dims), value.is_bool or declared.is_bool, value.layout)
    return value


def describe(v: Value) -> str:
    """A value as ``reveal_shape`` and ``--show-shapes`` print it."""
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
        return "(" + ", ".join(describe(output_value(s)) for s in shapes) + ")"
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


__all__ = [
    "UNKNOWN", "AliasV", "BoundV", "ClassInfo", "ClassV", "ConstV", "DictV", "DimClassV", "FuncInfo", "FuncV", "InstanceV",
    "LibModuleV", "ModuleRefV", "OutputsV", "QualV", "ScalarV", "SeqV", "SequentialV", "ShapeV", "SizeV", "SuperV",
    "TensorV", "TupleV", "TypeVarV", "Value", "describe", "informative", "join", "join_all", "join_vars", "output_value",
    "refine", "size_value", "widen_seq",
]

"""The abstract values the inference computes: what a name or an expression may hold.

Anything the checker cannot follow is ``UNKNOWN`` (the calculus's own singleton): it is compatible
with everything, so unknown code is never reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from typedtensor.shapes.dims import UNKNOWN, DimExpr, Unknown
from typedtensor.shapes.shape import Shape, ShapeLike

if TYPE_CHECKING:
    import libcst as cst

    from typedtensor.shapes.registry import ModuleDef, Outputs
    from typedtensor.shapes.unify import Bindings

    from .infer import ModuleCtx


@dataclass(frozen=True)
class TensorV:
    shape: ShapeLike
    is_bool: bool = False


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


@dataclass(eq=False)
class FuncInfo:
    node: cst.FunctionDef
    ctx: ModuleCtx
    qualname: str
    cls: ClassInfo | None = None
    closure: Any = None  # the Scope a nested function (or method) closes over
    kind: str = "function"  # function | staticmethod | classmethod | property
    signature: Any = None  # filled lazily by infer.signature_of
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
    declared: dict[str, Any] = field(default_factory=dict)  # annotated attributes: name -> Ann
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

    def lookup_declared(self, name: str) -> Any:
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
class SuperV:
    cls: ClassInfo
    instance: Value


Value = Union[
    TensorV, SizeV, ScalarV, BoundV, ConstV, ShapeV, TupleV, SeqV, OutputsV, QualV, ModuleRefV, DimClassV,
    TypeVarV, FuncV, ClassV, InstanceV, LibModuleV, SequentialV, SuperV, Unknown,
]

__all__ = [
    "UNKNOWN", "BoundV", "ClassInfo", "ClassV", "ConstV", "DimClassV", "FuncInfo", "FuncV", "InstanceV",
    "LibModuleV", "ModuleRefV", "OutputsV", "QualV", "ScalarV", "SeqV", "SequentialV", "ShapeV", "SizeV", "SuperV",
    "TensorV", "TupleV", "TypeVarV", "Value",
]

"""The state the inference works in: one module of the checked tree (``ModuleCtx``), a scope of
names (``Scope``), a function's signature as its annotations read (``Signature``), and a report
waiting for its position (``Pending``).

The inference reaches the rest of the project (other modules' globals, where a module lives)
only through ``ProjectAPI``, so the inference never imports the project that runs it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import libcst as cst

    from typedtensor.shapes.dims import DimExpr

    from .report import Severity
    from .values import FuncInfo, Value


class ProjectAPI(Protocol):
    """What the inference asks of the checked tree as a whole (``project.Project``)."""

    show_shapes: bool
    infer_all: bool
    read_torch: bool

    def has_module(self, name: str) -> bool: ...

    def is_external(self, name: str) -> bool: ...

    def note_import(self, ctx: ModuleCtx, name: str) -> None: ...

    def note_rule_failure(self, op: str, text: str) -> None: ...

    def module_env(self, name: str, asker: ModuleCtx) -> dict[str, Value] | None: ...


@dataclass
class Pending:
    """A report before positions are known (positions are computed only for files that have one)."""

    node: cst.CSTNode
    code: str
    severity: Severity
    message: str
    top: int  # index of the module-level statement that contains the node (-1: unknown)


@dataclass
class Param:
    """One parameter; ``ann`` is the value its annotation declares (``UNKNOWN`` when there is none)."""

    name: str
    kind: str  # positional | normal | vararg | kwonly | kwargs
    ann: Value
    has_default: bool
    default: cst.BaseExpression | None = None


@dataclass
class Signature:
    params: list[Param]
    returns: Value
    free: frozenset[str]  # the variables its annotations mention


@dataclass
class Scope:
    vars: dict[str, Value]
    parent: Scope | None = None
    func: FuncInfo | None = None
    is_class: bool = False
    declared: dict[str, Value] = field(default_factory=dict)  # explicitly annotated names (``h: T = ...``)
    dead: bool = False
    self_name: str | None = None
    in_init: bool = False
    returns: list[Value] | None = None  # an inlined call's body collects its return values here
    axes: dict[str, DimExpr] = field(default_factory=dict)  # NOTE [ Local axis names ] in infer/statements


class ModuleCtx:
    """One module of the checked tree: its tree, its globals and its pending reports."""

    def __init__(self, project: ProjectAPI, name: str, path: str, module: cst.Module, is_package: bool):
        self.project = project
        self.name = name
        self.path = path
        self.module = module
        self.is_package = is_package
        self.env: dict[str, Value] = {}
        self.pending: list[Pending] = []
        self.seen: set[tuple[int, str]] = set()
        self.deferred: list[tuple[FuncInfo, Scope]] = []
        self.deferred_defs: set[int] = set()
        self.state = "new"  # new | running | toplevel | done
        self.tainted = False
        self.imports: set[str] = set()  # project modules it imported
        self.missing: set[str] = set()  # absolute module names it imported that are not in the tree
        self.show_shapes = project.show_shapes
        self.infer_all = project.infer_all
        self.read_torch = project.read_torch  # NOTE [ Reading torch programs ] in names
        self.init_runs = 0
        self.assigned: dict[int, frozenset[str]] = {}  # memo of syntax.assigned_names
        self.inferrer: object | None = None  # the inference that runs this module (one per module)


__all__ = ["ModuleCtx", "Param", "Pending", "ProjectAPI", "Scope", "Signature"]

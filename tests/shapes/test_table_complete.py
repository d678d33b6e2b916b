"""DESIGN §3's completeness walk, in both directions, over the op table, the stubs and the run time.

- every public name of ``typedtensor``, ``Tensor``, ``nn``, ``nn.functional``, ``optim`` and ``data``
  is an op exposed in that form, an ``nn`` module of the registry or a listed non-op (with its
  reason, ``typedtensor.shapes.nonops``), and has a stub;
- every op's form, every registry module and every stub exists at run time;
- every stub parameter exists at run time and every run-time parameter in the stub (pybind11
  functions read from their signature lines, Python ones with ``inspect.signature``);
- every op declares its CUDA support and its gradient (or why none).

The counts of names checked in each direction are printed by ``python -m tests.shapes.test_table_complete``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from typedtensor.shapes import all_modules, all_ops, api
from typedtensor.shapes.nonops import NOT_OPS

from .signatures import compare, fmt, runtime_sigs, stub_sig

tt: Any = pytest.importorskip("typedtensor._C") and importlib.import_module("typedtensor")

STUBS = Path(__file__).resolve().parents[2] / "stubs" / "typedtensor"
# Run-time Tensor attributes that are Python's object protocol, not part of the surface.
_PROTOCOL = {"__class_getitem__", "__array_priority__", "__format__", "__reduce__", "__repr__", "__str__", "__init__",
             "__hash__", "__module__", "__doc__", "__dict__", "__weakref__", "__pybind11_module_local_v1__"}


def _tree(rel: str) -> ast.Module:
    return ast.parse((STUBS / rel).read_text())


def _functions(body: list[ast.stmt]) -> dict[str, list[ast.FunctionDef]]:
    out: dict[str, list[ast.FunctionDef]] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef):
            out.setdefault(node.name, []).append(node)
    return out


def _classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}


def _names(tree: ast.Module) -> set[str]:
    """Every public name a stub module defines (functions, classes, annotated names, imports)."""
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            out.update(a.asname or a.name for a in node.names)
    return out


@dataclass(frozen=True)
class Surface:
    """One public module of the run time and its stub."""

    qualname: str  # "typedtensor.nn.functional"
    stub: str  # "nn/functional.pyi"

    @property
    def module(self) -> Any:
        return importlib.import_module(self.qualname)

    def public(self) -> list[str]:
        mod = self.module
        names = getattr(mod, "__all__", None)
        if self.qualname == "typedtensor":
            names = [*importlib.import_module("typedtensor._runtime").__all__, *mod.__all__,
                     "nn", "optim", "data", "utils", "cuda", "autograd", "jit", "shapes", "compile"]
        return sorted(set(names or [n for n in dir(mod) if not n.startswith("_")]))


SURFACES = [
    Surface("typedtensor", "__init__.pyi"), Surface("typedtensor.nn.functional", "nn/functional.pyi"),
    Surface("typedtensor.nn", "nn/__init__.pyi"), Surface("typedtensor.optim", "optim/__init__.pyi"),
    Surface("typedtensor.data", "data/__init__.pyi"),
]
TENSOR_STUB = _classes(_tree("__init__.pyi"))["Tensor"]
TENSOR_STUB_DEFS = _functions(TENSOR_STUB.body)


def _tensor_public() -> list[str]:
    """Tensor's public methods and properties, and the dunders it defines itself."""
    names = {n for n in dir(tt.Tensor) if not n.startswith("_")}
    names |= {n for n in vars(tt.Tensor) if n.startswith("__") and n not in _PROTOCOL}
    return sorted(names)


def _is_entry(surface: str, name: str) -> bool:
    full = f"{surface}.{name}"
    if surface == "Tensor":
        return name in api.METHODS or name in api.PROPERTIES or name in api.OPERATORS
    return full in api.FUNCTIONS or full in api.MODULES


# ---------------------------------------------------------------------------------------------
# names: run time -> table and stub


def _runtime_names() -> Iterator[tuple[str, str]]:
    for s in SURFACES:
        for n in s.public():
            yield s.qualname, n
    for n in _tensor_public():
        yield "Tensor", n


RUNTIME_NAMES = sorted(_runtime_names())


@pytest.mark.parametrize(("surface", "name"), RUNTIME_NAMES)
def test_every_public_name_is_an_op_a_module_or_a_listed_non_op(surface: str, name: str) -> None:
    full = f"{surface}.{name}"
    assert _is_entry(surface, name) or full in NOT_OPS, f"{full}: no op entry, no module, not listed as a non-op"
    assert not (_is_entry(surface, name) and full in NOT_OPS), f"{full} is an op and listed as a non-op"


@pytest.mark.parametrize(("surface", "name"), RUNTIME_NAMES)
def test_every_public_name_has_a_stub(surface: str, name: str) -> None:
    if surface == "Tensor":
        assert name in TENSOR_STUB_DEFS, f"Tensor.{name} has no stub in stubs/typedtensor/__init__.pyi"
        return
    stub = next(s for s in SURFACES if s.qualname == surface).stub
    assert name in _names(_tree(stub)), f"{surface}.{name} has no stub in stubs/typedtensor/{stub}"


def test_every_listed_non_op_exists_at_run_time() -> None:
    missing = []
    for full in NOT_OPS:
        head, _, name = full.rpartition(".")
        owner = tt.Tensor if head == "Tensor" else importlib.import_module(head)
        if not hasattr(owner, name):
            missing.append(full)
    assert not missing, f"listed as non-ops but not at run time: {missing}"


# ---------------------------------------------------------------------------------------------
# names: table -> run time


def _table_names() -> Iterator[tuple[str, str]]:
    for path in api.FUNCTIONS:
        head, _, name = path.rpartition(".")
        yield head, name
    for name in api.METHODS:
        yield "Tensor", name
    for name in (*api.PROPERTIES, *api.OPERATORS):
        yield "Tensor", name
    for path in api.MODULES:
        head, _, name = path.rpartition(".")
        yield head, name


TABLE_NAMES = sorted(set(_table_names()))


@pytest.mark.parametrize(("surface", "name"), TABLE_NAMES)
def test_every_op_form_and_module_exists_at_run_time(surface: str, name: str) -> None:
    owner = tt.Tensor if surface == "Tensor" else importlib.import_module(surface)
    assert hasattr(owner, name), f"{surface}.{name} is in the op table but not at run time"
    if name not in api.PROPERTIES:
        assert callable(getattr(owner, name)), f"{surface}.{name}"


@pytest.mark.parametrize("name", sorted(api.modules()))
def test_every_registry_module_is_an_nn_module(name: str) -> None:
    nn = importlib.import_module("typedtensor.nn")
    cls = getattr(nn, name.rpartition(".")[2], None)
    assert isinstance(cls, type) and issubclass(cls, nn.Module), name


def test_every_op_declares_cuda_support_and_gradient() -> None:
    for name, op in all_ops().items():
        assert op.cuda in ("kernel", "host", "cpu"), name
        assert op.differentiable or op.gradient, f"{name}: not differentiable, but no reason given"


def test_every_op_is_reachable_or_an_internal_primitive() -> None:
    unreachable = sorted(set(all_ops()) - api.public_ops())
    assert all(not all_ops()[n].expose and (all_ops()[n].cpp or all_ops()[n].prim) for n in unreachable), unreachable


# ---------------------------------------------------------------------------------------------
# parameters: stub <-> run time


def _callables() -> Iterator[tuple[str, Any, list[ast.FunctionDef], bool]]:
    """(name, run-time callable, stub overloads, is_method) for every public callable with a stub."""
    for s in SURFACES:
        tree = _tree(s.stub)
        funcs, classes = _functions(tree.body), _classes(tree)
        for n in s.public():
            obj = getattr(s.module, n, None)
            if n in funcs and callable(obj):
                yield f"{s.qualname}.{n}", obj, funcs[n], False
            elif n in classes and isinstance(obj, type) and n not in ("Tensor", "dtype", "device"):
                init = _functions(classes[n].body).get("__init__")
                if (init and "__init__" in vars(obj)) or (init and any("__init__" in vars(b) for b in obj.__mro__[1:-1])):
                    yield f"{s.qualname}.{n}.__init__", obj.__init__, init, True
    for n in _tensor_public():
        obj = getattr(tt.Tensor, n, None)
        if n.startswith("__") or n not in TENSOR_STUB_DEFS or not callable(obj):
            continue  # operators follow Python's protocol; properties take no arguments
        yield f"Tensor.{n}", obj, TENSOR_STUB_DEFS[n], True


CALLABLES = sorted(_callables(), key=lambda c: c[0])


@pytest.mark.parametrize("case", CALLABLES, ids=[c[0] for c in CALLABLES])
def test_stub_parameters_match_the_run_time(case: tuple[str, Any, list[ast.FunctionDef], bool]) -> None:
    name, obj, defs, method = case
    short = name.rpartition(".")[2] if not name.endswith("__init__") else "__init__"
    runtime = runtime_sigs(obj, short, method)
    assert runtime, f"{name}: no signature found at run time"
    stubs = [stub_sig(d, method) for d in defs]
    problems = compare(runtime, stubs)
    assert not problems, (
        f"{name}: " + "; ".join(problems)
        + f"\n  run time: {' | '.join(fmt(r) for r in runtime)}\n  stub:     {' | '.join(fmt(s) for s in stubs)}"
    )


def counts() -> dict[str, int]:
    return {
        "public run-time names checked against the table and the stubs": len(RUNTIME_NAMES),
        "table names (op forms, operators, properties, modules) checked at run time": len(TABLE_NAMES),
        "callables whose parameters were compared (stub <-> run time)": len(CALLABLES),
        "ops in the table (aliases included)": len(all_ops()),
        "nn modules in the registry": len(all_modules()),
        "listed non-ops": len(NOT_OPS),
    }


if __name__ == "__main__":
    for k, v in counts().items():
        print(f"{v:5d}  {k}")
    _ = inspect  # the module is imported for its signatures helpers' sake

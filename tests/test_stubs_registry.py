"""The stubs (`stubs/typedtensor/**.pyi`) and the op registry list the same ops.

The op signatures in the stubs are generated from the table (scripts/gen_ops.py; kept fresh by
tests/shapes/test_generated.py) and compared with the run time by tests/shapes/test_table_complete.py.
This file checks what is written by hand next to them:

- every registry op is reachable from a public stub function, Tensor method, operator, property
  or nn module (an internal primitive, exposed by no form, is not);
- every nn module class in the stubs is a registry module whose type parameters are the ones the
  registry captures from the constructor.
"""

from __future__ import annotations

import ast
from pathlib import Path

from typedtensor.shapes import all_ops, api

STUBS = Path(__file__).resolve().parents[1] / "stubs" / "typedtensor"
TENSORISH = ("Tensor", "_AnyTensor", "_MaxMin", "Self")
# Public stub callables that are not ops: metadata, autograd and conversion helpers.
NOT_OPS = {
    "size",
    "dim",
    "numel",
    "tolist",
    "numpy",
    "backward",
    "requires_grad_",
    "detach_",
    "zero_",
    "__iter__",
    "__len__",
    "__bool__",
    "__float__",
    "__int__",
    "__index__",
    "__array__",
    "__dlpack__",
    "__dlpack_device__",
    "__init__",
    "__setitem__",
    "shape",
    "ndim",
    "dtype",
    "device",
    "is_cuda",
    "requires_grad",
    "grad",
    "grad_fn",
    "is_leaf",
    "retains_grad",
    "data",
    "__eq__",
    "__ne__",
    "__getitem__",
}


def _defs(body: list[ast.stmt]) -> dict[str, list[ast.FunctionDef]]:
    out: dict[str, list[ast.FunctionDef]] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef):
            out.setdefault(node.name, []).append(node)
    return out


def _module(path: str) -> ast.Module:
    return ast.parse((STUBS / path).read_text())


def _class(tree: ast.Module, name: str) -> ast.ClassDef:
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)


def _returns_tensor(fn: ast.FunctionDef) -> bool:
    text = ast.unparse(fn.returns) if fn.returns else ""
    return any(t in text for t in TENSORISH)


def _param_names(fn: ast.FunctionDef) -> list[str]:
    a = fn.args
    names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    if a.vararg:
        names.append(a.vararg.arg)
    return [n for n in names if n != "self"]


TOP = _module("__init__.pyi")
FUNCTIONAL = _module("nn/functional.pyi")
DISTRIBUTED = _module("distributed.pyi")
LINALG = _module("linalg.pyi")
NN = _module("nn/__init__.pyi")
# the lazy modules are not the registry's (typedtensor.shapes.nonops: their input size is unknown)
NN_LAZY = [n.name for n in NN.body if isinstance(n, ast.ClassDef) and n.name.startswith("Lazy")]
TENSOR = _class(TOP, "Tensor")
FUNCS = {
    **{f"typedtensor.{k}": v for k, v in _defs(TOP.body).items() if not k.startswith("_")},
    **{f"typedtensor.nn.functional.{k}": v for k, v in _defs(FUNCTIONAL.body).items()},
    **{f"typedtensor.distributed.{k}": v for k, v in _defs(DISTRIBUTED.body).items() if not k.startswith("_")},
    **{f"typedtensor.linalg.{k}": v for k, v in _defs(LINALG.body).items() if not k.startswith("_")},
}
METHODS = _defs(TENSOR.body)
PUBLIC_NON_OPS = {
    "typedtensor.checked",
    "typedtensor.is_grad_enabled",
    "typedtensor.manual_seed",
    "typedtensor.compile",
}


def test_every_registry_op_is_reachable_from_the_stubs() -> None:
    reachable = {api.FUNCTIONS[f] for f in FUNCS if f in api.FUNCTIONS}
    reachable |= {api.METHODS[m] for m in METHODS if m in api.METHODS}
    reachable |= {api.OPERATORS[m][0] for m in METHODS if m in api.OPERATORS}
    reachable |= {api.PROPERTIES[m] for m in METHODS if m in api.PROPERTIES}
    nn_classes = {n.name for n in NN.body if isinstance(n, ast.ClassDef)}
    for name, md in api.MODULES.items():
        if name.rpartition(".")[2] in nn_classes:
            reachable |= set(md.ops)
    missing = sorted(n for n in set(all_ops()) - reachable if all_ops()[n].expose or all_ops()[n].operators)
    assert not missing, f"registry ops without a public stub: {missing}"


def test_every_public_name_of_the_api_has_a_stub() -> None:
    assert sorted(set(api.FUNCTIONS) - set(FUNCS)) == []
    assert sorted(set(api.METHODS) - set(METHODS)) == []
    assert sorted(set(api.PROPERTIES) - set(METHODS)) == []


def test_nn_modules_match_the_registry() -> None:
    helpers = {
        "Module", "Parameter", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "DataParallel",
        "_IncompatibleKeys", "_ShapePreserving", "_Loss", "Buffer", "UninitializedParameter", "UninitializedBuffer",
        "_LazyLayer", *NN_LAZY,
        "RNNBase", "RNNCellBase",  # the recurrent modules' base classes (NOT_OPS)
        "_ASMoutput",  # AdaptiveLogSoftmaxWithLoss's named (output, loss) result
    }
    for cls in (n for n in NN.body if isinstance(n, ast.ClassDef) and n.name not in helpers):
        full = f"typedtensor.nn.{cls.name}"
        assert full in api.MODULES, f"{full} has no ModuleDef"
        md = api.MODULES[full]
        generic = [b for b in cls.bases if isinstance(b, ast.Subscript) and ast.unparse(b.value) == "Generic"]
        n_type_params = 0
        if generic:
            sl = generic[0].slice
            n_type_params = len(sl.elts) if isinstance(sl, ast.Tuple) else 1
        assert n_type_params == len(md.type_params), f"{full}: type parameters vs {md.type_params}"
        init = _defs(cls.body).get("__init__")
        if init:
            names = _param_names(init[0])
            assert names == [p.name for p in md.ctor][: len(names)] or set(names) <= {p.name for p in md.ctor} | {
                "args",
                "kwargs",
            }, f"{full}.__init__ parameters {names} vs registry {[p.name for p in md.ctor]}"
            for tp in md.type_params:
                assert tp in names, f"{full}: type parameter {tp} is not a constructor parameter"
    stub_modules = {f"typedtensor.nn.{n.name}" for n in NN.body if isinstance(n, ast.ClassDef)}
    assert sorted(set(api.MODULES) - stub_modules) == []


def test_supported_mypy_range_matches_pyproject() -> None:
    import tomllib

    pyproject = tomllib.loads((STUBS.parents[1] / "pyproject.toml").read_text())
    extra = pyproject["project"]["optional-dependencies"]["mypy"]
    import importlib.util
    import sys

    sys.path.insert(0, str(STUBS.parents[1] / "tests" / "mypy_plugin"))
    from launch import register_plugin_from_source

    if importlib.util.find_spec("typedtensor.mypy_plugin") is None:
        register_plugin_from_source()
    from typedtensor.mypy_plugin import SUPPORTED_MYPY

    assert extra == ["mypy" + ",".join(SUPPORTED_MYPY)]

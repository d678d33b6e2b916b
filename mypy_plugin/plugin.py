"""The plugin class: a dispatch table from full names to the small hooks of the other modules."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from mypy.nodes import OverloadedFuncDef, TypeInfo
from mypy.plugin import (
    AnalyzeTypeContext,
    AttributeContext,
    ClassDefContext,
    FunctionContext,
    FunctionSigContext,
    MethodContext,
    MethodSigContext,
    Plugin,
    ReportConfigContext,
)
from mypy.types import FunctionLike, Type

import typedtensor.shapes
from typedtensor.shapes import api

from . import calls
from .arith import arith_type_hook, pow_hook, size_operator_hook
from .classes import module_class_hook
from .errors import CODE_BY_NAME, LINT_CODES
from .members import (
    class_default,
    config_default_hook,
    module_dict_constructor_hook,
    module_dict_item,
    module_getattr_hook,
)
from .modules import module_constructor_hook
from .names import ARITH_TYPES, DIM, INT, MODULE, MODULE_DICT, PACKAGE, SEQUENTIAL, SIZE_OPERATORS, TENSOR
from .ops import (
    function_call_hook,
    function_op_hook,
    iter_hook,
    loosen_hook,
    method_call_hook,
    method_op_hook,
    property_op_hook,
    size_hook,
)
from .sequential import sequential_constructor_hook

_H = TypeVar("_H")

# Prefixes whose calls are never typedtensor ops or user functions with tensor parameters.
_SKIP_PREFIXES = ("builtins.", "typing.", "typing_extensions.", "collections.", "abc.", "numpy.")
# Names whose hooks never change while the plugin lives (kept under the daemon too).
_STABLE_PREFIXES = (PACKAGE + ".", *_SKIP_PREFIXES)
# The type-analyze hooks of `Add`/`Sub`/`Mul`/`Div`, made once.
_ARITH_HOOKS = {name: arith_type_hook(name) for name in ARITH_TYPES}


def digest_of(roots: list[Path]) -> str:
    """A hash of every `.py` file under `roots` (a root may be one file): its name, size and
    modification time (a stat, not a read: mypy pays for this on every run, and an edit changes
    the time)."""
    digest = hashlib.sha256()
    for root in roots:
        for path in [root] if root.is_file() else sorted(root.rglob("*.py")):
            st = path.stat()
            digest.update(f"{path.relative_to(root.parent if root.is_file() else root).as_posix()}:"
                          f"{st.st_size}:{st.st_mtime_ns};".encode())
    return digest.hexdigest()


@lru_cache(maxsize=1)
def sources_digest() -> str:
    """A hash of every source the plugin's answers depend on: the plugin itself and the shape
    calculus, and the suppression-comment parser the plugin shares with the checker. mypy
    fingerprints only the plugin's entry module, so without this an edit to any other plugin or
    calculus file would leave stale results in the cache."""
    return digest_of([Path(__file__).parent, Path(typedtensor.shapes.__file__).parent,
                      Path(typedtensor.shapes.__file__).parent.with_name("_suppress.py")])


class TypedTensorPlugin(Plugin):
    """Shape checking for typedtensor: every op's result comes from the shape registry."""

    def __init__(self, options: Any) -> None:
        super().__init__(options)
        self.calls = calls.CallChecker(self)
        self._overload_cache: dict[str, bool] = {}
        self._daemon = bool(getattr(options, "fine_grained_incremental", False))
        self._fn_sig_hooks: dict[str, Callable[[FunctionSigContext], FunctionLike] | None] = {}
        self._fn_call_hooks: dict[str, Callable[[FunctionContext], Type] | None] = {}
        self._sig_hooks: dict[str, Callable[[MethodSigContext], FunctionLike] | None] = {}
        self._call_hooks: dict[str, Callable[[MethodContext], Type] | None] = {}
        self._attr_hooks: dict[str, Callable[[AttributeContext], Type] | None] = {}
        self._base_hooks: dict[str, Callable[[ClassDefContext], None] | None] = {}

    # ---- cache -----------------------------------------------------------------------------
    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        return {"typedtensor-mypy-plugin": sources_digest(), "codes": sorted(CODE_BY_NAME), "lints": sorted(LINT_CODES)}

    # ---- classes -------------------------------------------------------------------------------
    def get_base_class_hook(self, fullname: str) -> Callable[[ClassDefContext], None] | None:
        """A class deriving from `nn.Module` (directly or through the user's own base). Asked for
        every base of every class mypy analyses, typeshed's too: an answer is kept once the base
        is analysed (its MRO known), under the daemon only for names that never change."""
        if fullname in self._base_hooks:
            return self._base_hooks[fullname]
        hook: Callable[[ClassDefContext], None] | None = None
        info = None
        if fullname == MODULE:
            hook = module_class_hook
        elif not fullname.startswith(_STABLE_PREFIXES):
            info = self.lookup_class(fullname)
            hook = module_class_hook if info is not None and info.has_base(MODULE) else None
        if (info is None or info.mro) and (not self._daemon or fullname.startswith(_STABLE_PREFIXES)):
            self._base_hooks[fullname] = hook
        return hook

    # ---- annotations ---------------------------------------------------------------------------
    def get_type_analyze_hook(self, fullname: str) -> Callable[[AnalyzeTypeContext], Type] | None:
        return _ARITH_HOOKS.get(fullname)

    # ---- functions -------------------------------------------------------------------------------
    # NOTE [ Hook lookups are one dict hit ]
    # mypy asks every plugin for every hook kind at every call site, attribute access and
    # annotation, thousands of times per run, mostly about names that are not ours. Each lookup
    # is answered from a table by full name; a name is looked at (`_choose`) only the first time.
    def get_function_signature_hook(self, fullname: str) -> Callable[[FunctionSigContext], FunctionLike] | None:
        table = self._fn_sig_hooks
        if fullname in table:
            return table[fullname]
        return self._choose(table, fullname, self._function_signature_hook)

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        table = self._fn_call_hooks
        if fullname in table:
            return table[fullname]
        return self._choose(table, fullname, self._function_hook)

    def _function_signature_hook(self, fullname: str) -> Callable[[FunctionSigContext], FunctionLike] | None:
        if fullname.startswith(_SKIP_PREFIXES):
            return None
        op = api.FUNCTIONS.get(fullname)
        if op is not None:
            return function_op_hook(op) if self._overloaded(fullname) else loosen_hook(op)
        return self.calls.function_signature_hook(fullname)

    def _function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        if fullname.startswith(_SKIP_PREFIXES):
            return None
        if fullname in api.FUNCTIONS:
            return None if self._overloaded(fullname) else function_call_hook(api.FUNCTIONS[fullname])
        if fullname in api.MODULES:
            return module_constructor_hook(api.MODULES[fullname])
        if fullname == SEQUENTIAL:
            return sequential_constructor_hook
        if fullname == MODULE_DICT:
            return module_dict_constructor_hook
        return self.calls.function_hook(fullname)

    # ---- methods ---------------------------------------------------------------------------------
    def get_method_signature_hook(self, fullname: str) -> Callable[[MethodSigContext], FunctionLike] | None:
        table = self._sig_hooks
        if fullname in table:
            return table[fullname]
        return self._choose(table, fullname, self._method_signature_hook)

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        table = self._call_hooks
        if fullname in table:
            return table[fullname]
        return self._choose(table, fullname, self._method_hook)

    def _choose(self, table: dict[str, _H], fullname: str, choose: Callable[[str], _H]) -> _H:
        """mypy asks for a callable's hooks at every call site. The answer is chosen once per name
        and run: the stubs (`Tensor`, `nn.Linear`...) never change, and within one mypy run neither
        do the user's classes and functions. Under the daemon, whose plugin outlives edits, a user
        name is asked about every time (it is never stored)."""
        hook = choose(fullname)
        if not self._daemon or fullname.startswith(_STABLE_PREFIXES):
            table[fullname] = hook
        return hook

    def _method_signature_hook(self, fullname: str) -> Callable[[MethodSigContext], FunctionLike] | None:
        cls, _, method = fullname.rpartition(".")
        if cls == INT or cls.startswith(_SKIP_PREFIXES):
            return None
        if cls == TENSOR or ((method in api.METHODS or method in api.OPERATORS) and self._is_tensor_class(cls)):
            if self._computes_in_call_hook(fullname):
                return loosen_hook(api.METHODS[method])
            return self._tensor_method_hook(method)
        return self.calls.method_signature_hook(fullname)

    def _method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        cls, _, method = fullname.rpartition(".")
        if method in SIZE_OPERATORS and (cls in (INT, DIM) or self._is_size_class(cls)):
            return size_operator_hook(method)
        if method == "__pow__" and (cls in (INT, DIM) or self._is_size_class(cls)):
            return pow_hook
        if cls.startswith(_SKIP_PREFIXES):
            return None
        if method == "__iter__" and (cls == TENSOR or self._is_tensor_class(cls)):
            return iter_hook
        if method == "size" and (cls == TENSOR or self._is_tensor_class(cls)):
            return size_hook
        if cls == TENSOR or ((method in api.METHODS or method in api.OPERATORS) and self._is_tensor_class(cls)):
            if self._computes_in_call_hook(fullname):
                return method_call_hook(api.METHODS[method], binds_self=method not in api.METHODS_WITHOUT_SELF)
            return None
        if fullname == MODULE_DICT + ".__getitem__":
            return module_dict_item
        return self.calls.method_hook(fullname)

    def _computes_in_call_hook(self, fullname: str) -> bool:
        """A plain (not overloaded) tensor method, not an operator: NOTE [ Plain stubs compute in
        the call hook ]."""
        method = fullname.rpartition(".")[2]
        return method in api.METHODS and method not in api.OPERATORS and not self._overloaded(fullname)

    def _overloaded(self, fullname: str) -> bool:
        """Whether the stub `fullname` names is overloaded (asked once per name: mypy asks for a
        hook at every call site)."""
        known = self._overload_cache.get(fullname)
        if known is None:
            known = self._overload_cache[fullname] = self._lookup_overloaded(fullname)
        return known

    def _lookup_overloaded(self, fullname: str) -> bool:
        cls, _, name = fullname.rpartition(".")
        info = self.lookup_class(cls)
        if info is not None:
            node = info.get(name)
        else:
            node = self.lookup_fully_qualified(fullname)
        return node is not None and isinstance(node.node, OverloadedFuncDef)

    def _tensor_method_hook(self, method: str) -> Callable[[MethodSigContext], FunctionLike] | None:
        if method in api.OPERATORS:
            op, reflected = api.OPERATORS[method]
            if method == "__setitem__":
                return None  # `x[i] = v` is a statement: nothing to compute
            return method_op_hook(op, reflected)
        if method in api.METHODS:
            return method_op_hook(api.METHODS[method], binds_self=method not in api.METHODS_WITHOUT_SELF)
        return None

    # ---- attributes ------------------------------------------------------------------------------
    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        table = self._attr_hooks
        if fullname in table:
            return table[fullname]
        return self._choose(table, fullname, self._attribute_hook)

    def _attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        cls, _, attr = fullname.rpartition(".")
        if attr in api.PROPERTIES and (cls == TENSOR or self._is_tensor_class(cls)):
            return property_op_hook(api.PROPERTIES[attr])
        if cls == MODULE:
            return module_getattr_hook(attr)  # NOTE [ Registered attributes ]
        if cls.startswith(_STABLE_PREFIXES):
            return None
        info = self.lookup_class(cls)
        if info is not None and not info.has_base(TENSOR):
            value = class_default(info, attr)
            if value is not None:
                return config_default_hook(value)  # NOTE [ Configuration defaults ]
        return None

    # ---- helpers -----------------------------------------------------------------------------------
    def lookup_class(self, fullname: str) -> TypeInfo | None:
        if not fullname or fullname.startswith(_SKIP_PREFIXES):
            return None
        node = self.lookup_fully_qualified(fullname)
        if node is not None and isinstance(node.node, TypeInfo):
            return node.node
        return None

    def _is_tensor_class(self, cls: str) -> bool:
        info = self.lookup_class(cls)
        return info is not None and info.has_base(TENSOR)

    def _is_size_class(self, cls: str) -> bool:
        if cls in ARITH_TYPES:
            return True
        if not cls.startswith(PACKAGE + ".") and "." not in cls:
            return False
        info = self.lookup_class(cls)
        return info is not None and info.has_base(DIM)

    def is_module_class(self, info: TypeInfo) -> bool:
        return info.has_base(MODULE)


def plugin(version: str) -> type[Plugin]:
    """The entry point mypy calls (`plugins = typedtensor.mypy_plugin`)."""
    return TypedTensorPlugin

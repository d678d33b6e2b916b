"""The objects ``tt.save`` writes beyond tensors and plain values: numpy arrays, whole ``nn.Module``
objects and the functions or classes their attributes name (NOTE [ Saving modules ]).

NOTE [ Saving modules ]
torch programs save a whole model (``torch.save(model, f)``) and numpy arrays; torch pickles both.
safetensors holds tensors, and ``tt.load`` never unpickles, so a module is written as data: its
class's import path, its parameters and buffers (stored as tensors under their state-dict names,
so any safetensors reader sees the weights), its sub-modules, and its other attributes when they
are plain values (numbers, strings, tuples, lists, dicts, sets, dtypes, devices, numpy arrays) or
functions and classes named by import path (``self.activation = F.relu``).

Loading rebuilds a module without running its ``__init__``: the class's ``__new__`` and then its
attributes, as unpickling does. The class (and any function or class an attribute names) is never
imported from the path in the file: it must be one the program hands over, exactly like torch's
``weights_only=True`` loader and its allow-list:

- ``typedtensor.nn``'s own classes and typedtensor's public functions are allowed;
- ``serialization.safe_globals([...])`` (a ``with`` block) or ``add_safe_globals([...])`` allow
  others (word_language_model lists its ``RNNModel`` so);
- ``load(..., weights_only=False)`` also allows ``nn.Module`` classes and functions of modules the
  program has already imported (looked up in ``sys.modules``; still nothing is imported or run).

Anything else is refused with the path it names and how to allow it. numpy arrays come back as
numpy arrays of their dtype (the integer widths safetensors widens are narrowed back exactly).
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import numpy as np

from typedtensor._runtime import _loader

_C = _loader.load_core()

# numpy dtypes an array may have in a file, by their str (little-endian: written so)
NUMPY_DTYPES = frozenset({
    "|b1", "|u1", "|i1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f8",
})


def numpy_array_bytes(arr: np.ndarray) -> np.ndarray:
    """``arr`` as the little-endian C-ordered array its file bytes are; TypeError for dtypes a
    safetensors file cannot hold (complex, strings, objects)."""
    little = arr.dtype.newbyteorder("<") if arr.dtype.byteorder not in ("|", "=", "<") else arr.dtype
    out = np.ascontiguousarray(arr, dtype=little)
    if out.dtype.str not in NUMPY_DTYPES:
        raise TypeError(f"save: numpy arrays of dtype {arr.dtype} cannot be saved (safetensors holds bool, "
                        "integers up to 64 bits and float16/32/64)")
    return out


def path_of(obj: Any) -> str:
    """Where a function or class lives: typedtensor's public name for its own, else
    ``module.qualname``."""
    own = _own_globals_by_id().get(id(obj))
    if own is not None:
        return own
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or "<locals>" in qualname:
        raise TypeError(f"save: cannot name {obj!r} by an import path (a local or anonymous function or class)")
    return f"{module}.{qualname}"


_OWN: dict[str, Any] = {}


def _own_globals() -> dict[str, Any]:
    """typedtensor's own public classes and functions, by their public path: always allowed."""
    if not _OWN:
        import typedtensor
        import typedtensor.nn
        import typedtensor.nn.functional

        for prefix, mod in (("typedtensor.nn.functional", typedtensor.nn.functional), ("typedtensor.nn", typedtensor.nn),
                            ("typedtensor", typedtensor)):
            for name in dir(mod):
                if name.startswith("_"):
                    continue
                value = getattr(mod, name, None)
                if callable(value) and not isinstance(value, _C.Tensor):
                    _OWN.setdefault(f"{prefix}.{name}", value)
    return _OWN


def _own_globals_by_id() -> dict[int, str]:
    return {id(v): k for k, v in reversed(list(_own_globals().items()))}


def _module_class() -> type:
    from typedtensor.nn import Module

    return Module


def is_module(obj: Any) -> bool:
    return isinstance(obj, _module_class())


class Allowed:
    """What a load may rebuild: typedtensor's own, the allow-list, and with ``weights_only=False``
    what the program has imported."""

    def __init__(self, weights_only: bool) -> None:
        from typedtensor.serialization import get_safe_globals

        self.weights_only = weights_only
        self.by_path: dict[str, Any] = dict(_own_globals())
        for obj in get_safe_globals():
            try:
                self.by_path[path_of(obj)] = obj
                self.by_path.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
            except (TypeError, AttributeError):
                continue

    def resolve(self, path: str, what: str) -> Any:
        found = self.by_path.get(path)
        if found is None and not self.weights_only:
            found = _imported(path)
        if found is None:
            name = path.rpartition(".")[2]
            raise PermissionError(
                f"the file holds {what} {path!r}, which typedtensor rebuilds only when the program allows it: load "
                f"inside typedtensor.serialization.safe_globals([{name}]) or after "
                f"typedtensor.serialization.add_safe_globals([{name}]) (nothing in the file runs; the class's own "
                "code, already imported, is used), or pass weights_only=False to allow any class or function the "
                "program has imported"
            )
        return found


def _imported(path: str) -> Any:
    """``path`` looked up in the modules already imported (``sys.modules``); None when absent.
    Never imports anything."""
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        mod = sys.modules.get(".".join(parts[:cut]))
        if mod is None:
            continue
        obj: Any = mod
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
            if obj is None:
                return None
        return obj
    return None


def new_module(cls: Any, path: str) -> Any:
    """An instance of module class ``cls`` made without its ``__init__`` (as unpickling does)."""
    if not isinstance(cls, type) or not issubclass(cls, _module_class()):
        raise PermissionError(f"the file names {path!r} as a module class, but it is not an nn.Module class")
    return cls.__new__(cls)


def ordered(items: Iterable[tuple[Any, Any]], as_ordered: bool) -> dict[Any, Any]:
    return OrderedDict(items) if as_ordered else dict(items)


def is_parameter(obj: Any) -> bool:
    from typedtensor.nn import Parameter

    return isinstance(obj, Parameter)


def parameter(tensor: Any, requires_grad: bool) -> Any:
    from typedtensor.nn import Parameter

    return Parameter(tensor, requires_grad=requires_grad)

"""``tt.save`` / ``tt.load``: safetensors files, for state dicts and for whole checkpoints.

NOTE [ Checkpoint format ]
``tt.save`` always writes safetensors (typedtensor/_runtime/safetensors.py), so what it writes is
readable by the ``safetensors`` package, by torch (``safetensors.torch.load_file``), by the Hugging
Face tools, and back by ``tt.load``:

- a flat ``{str: Tensor}`` mapping (a state dict) is written as is: the names are the keys, and
  ``__metadata__`` is ``{"format": "pt"}`` plus any ``metadata=`` given;
- anything else ``torch.save`` users put in a checkpoint (``{"model": ..., "optimizer": ...,
  "epoch": 3}``: nested dicts, lists and tuples of tensors, str, int, float, bool and None) is
  flattened: each tensor is stored under its path of keys joined with dots
  (``optimizer.state.0.exp_avg``), and the structure, with every non-tensor value, is a JSON tree in
  ``__metadata__["typedtensor.tree"]`` (floats as ``float.hex`` so they round-trip exactly). Other
  tools see the tensors by name; ``tt.load`` rebuilds the object.

One format, rather than safetensors for weights and a second one for nested objects: a checkpoint
written here is still a standard file whose weights any safetensors reader can take out, and there
is one reader to harden. A tensor that appears twice in the object is stored once; views are stored
as independent copies (safetensors has no storage sharing).

``tt.load`` tells the formats apart by their first bytes: safetensors; the older typedtensor format
(``\\x89TTSAVE``, typedtensor/_runtime/serialization.py), still read so that existing files load and
can be re-saved; torch's zip checkpoints, through an unpickler that executes nothing
(typedtensor/_runtime/torch_checkpoint.py); torch's pre-1.6 pickle files are refused with a message.
"""

from __future__ import annotations

import io
import json
import os
from collections import OrderedDict
from collections.abc import Mapping
from typing import IO, Any

import numpy as np

from typedtensor._runtime import _loader, serialization, torch_checkpoint
from typedtensor._runtime import checkpoint_objects as objects
from typedtensor._runtime import safetensors as st

_C = _loader.load_core()

TREE_KEY = "typedtensor.tree"
MAX_DEPTH = 256


def _is_tensor(x: Any) -> bool:
    return isinstance(x, _C.Tensor)


class _Flattener:
    """A nested object -> a JSON tree whose tensors are named leaves, plus the (name, tensor) list."""

    def __init__(self) -> None:
        self.tensors: list[tuple[str, Any]] = []
        self.names: set[str] = set()
        self.seen: dict[int, str] = {}

    def name_for(self, path: list[str]) -> str:
        base = ".".join(path) or "tensor"
        name, n = base, 1
        while name in self.names or name == "__metadata__":
            name, n = f"{base}#{n}", n + 1
        self.names.add(name)
        return name

    def node(self, obj: Any, path: list[str], depth: int = 0) -> dict[str, Any]:
        if depth > MAX_DEPTH:
            raise ValueError(f"save: nesting deeper than {MAX_DEPTH} levels at {'.'.join(path)}")
        if _is_tensor(obj):
            name = self.tensor_leaf(obj, path)
            if objects.is_parameter(obj):
                return {"t": "parameter", "k": name, "requires_grad": bool(obj.requires_grad)}
            return {"t": "tensor", "k": name}
        if obj is None:
            return {"t": "none"}
        if isinstance(obj, bool):
            return {"t": "bool", "v": obj}
        if isinstance(obj, int):
            return {"t": "int", "v": int(obj)}
        if isinstance(obj, float):
            return {"t": "float", "v": float(obj).hex()}
        if isinstance(obj, str):
            return {"t": "str", "v": obj}
        if isinstance(obj, np.ndarray):
            return self.ndarray(obj, path)
        if isinstance(obj, np.generic):
            return {"t": "npscalar", "a": self.ndarray(np.asarray(obj), path)}
        if objects.is_module(obj):
            return self.module(obj, path, depth)
        if isinstance(obj, (_C.dtype, _C.device)):
            return {"t": "dtype" if isinstance(obj, _C.dtype) else "device", "v": str(obj).removeprefix("typedtensor.")}
        if isinstance(obj, (set, frozenset)):
            return {"t": "set" if isinstance(obj, set) else "frozenset",
                    "items": [self.node(v, [*path, str(i)], depth + 1) for i, v in enumerate(obj)]}
        if isinstance(obj, type) or (callable(obj) and hasattr(obj, "__qualname__")):
            return {"t": "global", "path": objects.path_of(obj)}
        if isinstance(obj, Mapping):
            items = []
            for k, v in obj.items():
                if _is_tensor(k):
                    raise TypeError(f"save: a dict key at {'.'.join(path) or 'the top'} is a tensor")
                items.append([self.node(k, [*path, "key"], depth + 1), self.node(v, [*path, str(k)], depth + 1)])
            return {"t": "odict" if isinstance(obj, OrderedDict) else "dict", "items": items}
        if isinstance(obj, (list, tuple)):
            return {"t": "tuple" if isinstance(obj, tuple) else "list",
                    "items": [self.node(v, [*path, str(i)], depth + 1) for i, v in enumerate(obj)]}
        raise TypeError(
            f"save: cannot save an object of type {type(obj).__name__} at {'.'.join(path) or 'the top'}; "
            "supported: tensors, numpy arrays, nn.Module objects, dict, list, tuple, set, str, int, float, bool, "
            "None, dtypes, devices, and functions or classes named by import path (NOTE [ Saving modules ])"
        )

    def tensor_leaf(self, t: Any, path: list[str]) -> str:
        name = self.seen.get(id(t))
        if name is None:
            name = self.name_for(path)
            self.seen[id(t)] = name
            self.tensors.append((name, t))
        return name

    def ndarray(self, arr: np.ndarray, path: list[str]) -> dict[str, Any]:
        """A numpy array: a tensor of its own dtype where typedtensor has one, else its raw bytes."""
        little = objects.numpy_array_bytes(arr)
        stored = little if little.dtype.str in _NATIVE else little.reshape(-1).view(np.uint8)
        name = self.name_for(path)
        self.tensors.append((name, _C.from_numpy(stored.copy())))
        return {"t": "ndarray", "k": name, "dtype": little.dtype.str, "shape": list(arr.shape)}

    def module(self, obj: Any, path: list[str], depth: int) -> dict[str, Any]:
        """An nn.Module as data: its class's path and its attributes; parameters, buffers and
        sub-modules are named by their state-dict paths."""
        items = []
        for k, v in vars(obj).items():
            sub = path if k in ("_parameters", "_buffers", "_modules") else [*path, k]
            items.append([k, self.node(v, sub, depth + 1)])
        return {"t": "module", "class": objects.path_of(type(obj)), "attrs": items}


# numpy dtypes stored as tensors of the same dtype (the others as raw bytes)
_NATIVE = frozenset({"|b1", "|u1", "<i4", "<i8", "<f2", "<f4", "<f8"})


def _is_state_dict(obj: Any) -> bool:
    return isinstance(obj, Mapping) and all(isinstance(k, str) and _is_tensor(v) for k, v in obj.items())


def save(obj: Any, f: str | os.PathLike[str] | IO[bytes], metadata: Mapping[str, str] | None = None) -> None:
    """Write ``obj`` (a state dict, a tensor, or dicts/lists/tuples of tensors and plain values) to
    ``f`` as a safetensors file (NOTE [ Checkpoint format ]); ``metadata`` (str -> str) goes into its
    ``__metadata__``. Nothing is ever pickled."""
    meta = {"format": "pt"}
    if metadata:
        meta.update(metadata)
    if _is_state_dict(obj) and "__metadata__" not in obj:
        st.write(obj.items(), f, meta)
        return
    flat = _Flattener()
    tree = flat.node(obj, [])
    meta[TREE_KEY] = json.dumps(tree, separators=(",", ":"), ensure_ascii=False)
    st.write(flat.tensors, f, meta)


class _Bad(ValueError):
    pass


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _rebuild(node: Any, tensors: dict[str, Any], depth: int = 0, allowed: Any = None) -> Any:
    if depth > MAX_DEPTH:
        raise _Bad(f"the tree nests deeper than {MAX_DEPTH} levels")
    if not isinstance(node, dict) or not isinstance(node.get("t"), str):
        raise _Bad(f"node {str(node)[:60]!r} is not a typed object")
    kind = node["t"]
    if kind == "tensor":
        key = node.get("k")
        if not isinstance(key, str) or key not in tensors:
            raise _Bad(f"the tree names a tensor {str(key)[:60]!r} the file does not hold")
        return tensors[key]
    if kind == "none":
        return None
    if kind in ("parameter", "ndarray", "npscalar", "module", "dtype", "device", "global", "set", "frozenset"):
        return _rebuild_object(kind, node, tensors, depth, allowed)
    if kind in ("str", "int", "bool", "float"):
        v = node.get("v")
        ok = {"str": isinstance(v, str), "int": _is_int(v), "bool": isinstance(v, bool), "float": isinstance(v, str)}[kind]
        if not ok:
            raise _Bad(f"{kind} node holds {str(v)[:60]!r}")
        if kind == "float":
            try:
                return float.fromhex(str(v))
            except (ValueError, OverflowError):
                raise _Bad(f"float node holds {str(v)[:60]!r}") from None
        return v
    items = node.get("items")
    if kind not in ("list", "tuple", "dict", "odict") or not isinstance(items, list):
        raise _Bad(f"unknown node type {kind[:40]!r} or a container without items")
    if kind not in ("dict", "odict"):
        values = [_rebuild(x, tensors, depth + 1, allowed) for x in items]
        return tuple(values) if kind == "tuple" else values
    out: dict[Any, Any] = {}
    for pair in items:
        if not isinstance(pair, list) or len(pair) != 2:
            raise _Bad("a dict item is not a [key, value] pair")
        key = _rebuild(pair[0], tensors, depth + 1, allowed)
        if _is_tensor(key) or isinstance(key, (list, dict)) or (isinstance(key, tuple) and not _hashable(key)):
            raise _Bad(f"a dict key of type {type(key).__name__} cannot be a key")
        out[key] = _rebuild(pair[1], tensors, depth + 1, allowed)
    return OrderedDict(out) if kind == "odict" else out


def _tensor_of(node: dict[str, Any], tensors: dict[str, Any]) -> Any:
    key = node.get("k")
    if not isinstance(key, str) or key not in tensors:
        raise _Bad(f"the tree names a tensor {str(key)[:60]!r} the file does not hold")
    return tensors[key]


def _rebuild_object(kind: str, node: dict[str, Any], tensors: dict[str, Any], depth: int, allowed: Any) -> Any:
    """The objects beyond tensors and plain values (NOTE [ Saving modules ])."""
    if kind == "parameter":
        return objects.parameter(_tensor_of(node, tensors), node.get("requires_grad") is True)
    if kind == "ndarray":
        dtype, shape = node.get("dtype"), node.get("shape")
        if dtype not in objects.NUMPY_DTYPES or not isinstance(shape, list) or not all(
                _is_int(d) and d >= 0 for d in shape):
            raise _Bad(f"an ndarray node holds dtype {str(dtype)[:20]!r} and shape {str(shape)[:60]!r}")
        raw = np.asarray(_tensor_of(node, tensors).cpu().numpy())
        arr = raw if dtype in _NATIVE else raw.reshape(-1).view(np.uint8).view(np.dtype(dtype))
        if int(np.prod(shape)) != arr.size:
            raise _Bad(f"an ndarray of shape {shape} holds {arr.size} elements")
        return arr.reshape(shape).astype(np.dtype(dtype), copy=True)
    if kind == "npscalar":
        inner = node.get("a")
        if not isinstance(inner, dict) or inner.get("t") != "ndarray":
            raise _Bad("a numpy scalar node holds no array")
        return _rebuild_object("ndarray", inner, tensors, depth, allowed)[()]
    if kind in ("dtype", "device"):
        v = node.get("v")
        if not isinstance(v, str):
            raise _Bad(f"a {kind} node holds {str(v)[:60]!r}")
        if kind == "device":
            return _C.device(v)
        found = getattr(_C, v, None)
        if not isinstance(found, _C.dtype):
            raise _Bad(f"unknown dtype {v[:40]!r}")
        return found
    if kind in ("set", "frozenset"):
        items = node.get("items")
        if not isinstance(items, list):
            raise _Bad("a set without items")
        values = [_rebuild(x, tensors, depth + 1, allowed) for x in items]
        if not all(_hashable(v) for v in values):
            raise _Bad("a set holds an unhashable value")
        return set(values) if kind == "set" else frozenset(values)
    if allowed is None:
        allowed = objects.Allowed(weights_only=True)
    if kind == "global":
        path = node.get("path")
        if not isinstance(path, str):
            raise _Bad("a global node without a path")
        return allowed.resolve(path, "the function or class")
    path, attrs = node.get("class"), node.get("attrs")
    if not isinstance(path, str) or not isinstance(attrs, list):
        raise _Bad("a module node without a class path or attributes")
    obj = objects.new_module(allowed.resolve(path, "the nn.Module class"), path)
    for pair in attrs:
        if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
            raise _Bad("a module attribute is not a [name, value] pair")
        obj.__dict__[pair[0]] = _rebuild(pair[1], tensors, depth + 1, allowed)
    return obj


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _peek(f: str | os.PathLike[str] | IO[bytes]) -> tuple[bytes, Any]:
    """The first bytes of ``f`` and something to read it whole from (the path, or a rewound stream)."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return fh.read(16), f
    if hasattr(f, "seekable") and f.seekable():
        pos = f.tell()
        head = f.read(16)
        f.seek(pos)
        if not isinstance(head, bytes):
            raise TypeError("load: the file must be opened in binary mode")
        return head, f
    blob = f.read()
    if not isinstance(blob, bytes):
        raise TypeError("load: the file must be opened in binary mode")
    return blob[:16], io.BytesIO(blob)


def load(f: str | os.PathLike[str] | IO[bytes], map_location: Any = None, weights_only: bool = True,
         mmap: bool | None = None) -> Any:
    """Read a safetensors file (what ``save`` writes), a file of the older typedtensor format, or a
    torch zip checkpoint (NOTE [ Checkpoint format ]). Never executes anything from the file: a
    whole ``nn.Module`` in it is rebuilt only from a class the program allows (NOTE [ Saving
    modules ]); ``weights_only=False`` also allows the ``nn.Module`` classes and functions of modules
    the program has imported. safetensors files on disk are
    memory-mapped (``mmap=False`` reads them instead): tensors share the mapped pages until written."""
    name = os.fspath(f) if isinstance(f, (str, os.PathLike)) else "<stream>"
    head, source = _peek(f)
    if head.startswith(serialization.MAGIC):
        return serialization.load(source, map_location)
    if torch_checkpoint.is_torch_zip(head):
        return torch_checkpoint.load(source, name, map_location)
    if torch_checkpoint.is_legacy_torch(head):
        raise ValueError(f"load: {name} {torch_checkpoint.LEGACY_MESSAGE}")
    tensors, metadata = st.read(source, name, map_location, mmap)
    tree = metadata.get(TREE_KEY)
    if tree is None:
        return tensors
    try:
        return _rebuild(json.loads(tree), tensors, 0, objects.Allowed(weights_only))
    except (_Bad, ValueError, RecursionError) as exc:
        raise ValueError(f"load: {name} holds a malformed {TREE_KEY}: {exc}") from None


def metadata(f: str | os.PathLike[str] | IO[bytes]) -> dict[str, str]:
    """The ``__metadata__`` of a safetensors file (read from its header alone)."""
    name = os.fspath(f) if isinstance(f, (str, os.PathLike)) else "<stream>"
    return st.read_metadata(f, name)


__all__ = ["load", "metadata", "save"]

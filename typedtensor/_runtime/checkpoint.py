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
from collections.abc import Mapping
from typing import IO, Any

from typedtensor._runtime import _loader, serialization, torch_checkpoint
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
            name = self.seen.get(id(obj))
            if name is None:
                name = self.name_for(path)
                self.seen[id(obj)] = name
                self.tensors.append((name, obj))
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
        if isinstance(obj, Mapping):
            items = []
            for k, v in obj.items():
                if _is_tensor(k):
                    raise TypeError(f"save: a dict key at {'.'.join(path) or 'the top'} is a tensor")
                items.append([self.node(k, [*path, "key"], depth + 1), self.node(v, [*path, str(k)], depth + 1)])
            return {"t": "dict", "items": items}
        if isinstance(obj, (list, tuple)):
            return {"t": "tuple" if isinstance(obj, tuple) else "list",
                    "items": [self.node(v, [*path, str(i)], depth + 1) for i, v in enumerate(obj)]}
        raise TypeError(
            f"save: cannot save an object of type {type(obj).__name__} at {'.'.join(path) or 'the top'}; "
            "supported: tensors, dict, list, tuple, str, int, float, bool, None"
        )


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


def _rebuild(node: Any, tensors: dict[str, Any], depth: int = 0) -> Any:
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
    if kind not in ("list", "tuple", "dict") or not isinstance(items, list):
        raise _Bad(f"unknown node type {kind[:40]!r} or a container without items")
    if kind != "dict":
        values = [_rebuild(x, tensors, depth + 1) for x in items]
        return tuple(values) if kind == "tuple" else values
    out: dict[Any, Any] = {}
    for pair in items:
        if not isinstance(pair, list) or len(pair) != 2:
            raise _Bad("a dict item is not a [key, value] pair")
        key = _rebuild(pair[0], tensors, depth + 1)
        if _is_tensor(key) or isinstance(key, (list, dict)) or (isinstance(key, tuple) and not _hashable(key)):
            raise _Bad(f"a dict key of type {type(key).__name__} cannot be a key")
        out[key] = _rebuild(pair[1], tensors, depth + 1)
    return out


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
    torch zip checkpoint (NOTE [ Checkpoint format ]). Never executes anything from the file, so
    ``weights_only`` changes nothing (accepted for torch compatibility). safetensors files on disk are
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
        return _rebuild(json.loads(tree), tensors)
    except (_Bad, ValueError, RecursionError) as exc:
        raise ValueError(f"load: {name} holds a malformed {TREE_KEY}: {exc}") from None


def metadata(f: str | os.PathLike[str] | IO[bytes]) -> dict[str, str]:
    """The ``__metadata__`` of a safetensors file (read from its header alone)."""
    name = os.fspath(f) if isinstance(f, (str, os.PathLike)) else "<stream>"
    return st.read_metadata(f, name)


__all__ = ["load", "metadata", "save"]

"""Reading torch's own checkpoints (``torch.save``'s zip files: ``.pt``, ``.pth``, ``.bin``) without
executing anything from them.

NOTE [ Restricted unpickling ]
A torch checkpoint is a zip archive holding ``data.pkl`` (a pickle of the saved object) and one
entry per storage (``data/0``, ``data/1`` ...: raw little-endian bytes). A pickle is a program: a
plain ``pickle.load`` calls whatever callable the file names. Here, as in torch's own
``weights_only=True`` loader, the unpickler resolves globals from an allow-list only: the tensor
rebuild functions (mapped to this module's own functions, which build typedtensor tensors), the
storage and dtype names, ``collections.OrderedDict``, ``torch.Size`` (a tuple) and the few builtins a
state dict holds. Any other global (a class of the training script, ``torch.device``, a tensor
subclass) is refused with ``ValueError`` naming it and pointing at safetensors. Storages are read
only from uncompressed archive entries of the declared size, and every tensor's size, stride and
offset is checked against its storage before a byte is read.

Dtypes typedtensor lacks are widened as the safetensors reader does (int8/int16/uint16 -> int32,
uint32/uint64 -> int64, float8 -> float32); complex, quantized and sparse tensors are refused.
"""

from __future__ import annotations

import io
import math
import os
import pickle
import struct
import zipfile
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from typedtensor._runtime import _loader
from typedtensor._runtime import safetensors as st
from typedtensor._runtime.map_location import relocate

_C = _loader.load_core()

ZIP_MAGIC = b"PK\x03\x04"
_HINT = ("only plain tensors and containers can be read from a torch checkpoint; "
         "save the weights with safetensors instead (safetensors.torch.save_file(model.state_dict(), "
         "'model.safetensors'), then tt.load('model.safetensors'))")

# torch's storage classes and dtypes, by name -> the safetensors dtype of their elements.
_STORAGES: dict[str, str] = {
    "FloatStorage": "F32", "DoubleStorage": "F64", "HalfStorage": "F16", "BFloat16Storage": "BF16",
    "LongStorage": "I64", "IntStorage": "I32", "ShortStorage": "I16", "CharStorage": "I8",
    "ByteStorage": "U8", "BoolStorage": "BOOL",
}
_DTYPES: dict[str, str] = {
    "float32": "F32", "float64": "F64", "float16": "F16", "bfloat16": "BF16", "int64": "I64", "int32": "I32",
    "int16": "I16", "int8": "I8", "uint8": "U8", "bool": "BOOL", "uint16": "U16", "uint32": "U32",
    "uint64": "U64", "float8_e4m3fn": "F8_E4M3", "float8_e5m2": "F8_E5M2",
}


class _Bad(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class _DType:
    """A torch dtype named in the pickle (``torch.float32``): only its safetensors spelling matters."""

    st: str


@dataclass(frozen=True, slots=True)
class _StorageType:
    st: str | None  # None: torch.UntypedStorage (bytes; the dtype comes with the tensor)


@dataclass(frozen=True, slots=True)
class _Storage:
    data: bytes
    st: str | None
    numel: int


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _tensor(storage: Any, offset: Any, size: Any, stride: Any, dtype: str | None) -> Any:
    """A contiguous tensor of ``size`` read at ``offset`` with ``stride`` (in elements) from ``storage``."""
    if not isinstance(storage, _Storage):
        raise _Bad("a tensor's storage is not a storage")
    dtype = dtype or storage.st
    if dtype is None or (dtype not in st.NATIVE and dtype not in st.WIDENED):
        raise _Bad(f"unsupported tensor dtype {dtype}")
    if not (isinstance(size, tuple) and isinstance(stride, tuple) and len(size) == len(stride) <= st.MAX_RANK):
        raise _Bad("a tensor's size and stride must be tuples of the same length")
    if not (_is_int(offset) and all(_is_int(s) for s in size + stride)) or offset < 0:
        raise _Bad("a tensor's offset, size and stride must be non-negative integers")
    if any(s < 0 for s in size + stride):
        raise _Bad(f"negative size or stride {size}, {stride}")
    esize = st.itemsize(dtype)
    capacity = len(storage.data) // esize
    numel = math.prod(size)
    last = offset + sum((n - 1) * s for n, s in zip(size, stride, strict=True)) if numel else offset - 1
    if numel and last >= capacity:
        raise _Bad(f"a tensor of size {size} and stride {stride} at offset {offset} reads past its storage of {capacity} elements")
    raw = np.frombuffer(storage.data, dtype=np.uint8)
    if numel:
        view = np.lib.stride_tricks.as_strided(
            raw[offset * esize :], shape=(*size, esize), strides=(*(s * esize for s in stride), 1), writeable=False)
        data = bytearray(np.ascontiguousarray(view).tobytes())
    else:
        data = bytearray()
    entry = st.Entry("tensor", dtype, tuple(size), 0, len(data))
    return st._tensor(entry, data, 0, st._address(data) if data else 0)


def _rebuild_tensor_v2(storage: Any, offset: Any, size: Any, stride: Any, requires_grad: Any = False,
                       backward_hooks: Any = None, metadata: Any = None) -> Any:
    t = _tensor(storage, offset, size, stride, None)
    return t.requires_grad_(True) if requires_grad is True and t.is_floating_point() else t


def _rebuild_tensor_v3(storage: Any, offset: Any, size: Any, stride: Any, requires_grad: Any, backward_hooks: Any,
                       dtype: Any, metadata: Any = None) -> Any:
    if not isinstance(dtype, _DType):
        raise _Bad("a tensor's dtype is not a dtype")
    t = _tensor(storage, offset, size, stride, dtype.st)
    return t.requires_grad_(True) if requires_grad is True and t.is_floating_point() else t


def _rebuild_parameter(data: Any, requires_grad: Any, backward_hooks: Any, state: Any = None) -> Any:
    if not isinstance(data, _C.Tensor):
        raise _Bad("a parameter's data is not a tensor")
    return data


def _size(*args: Any) -> tuple[Any, ...]:
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else tuple(args)


def _encode(text: Any, encoding: Any = "latin1") -> bytes:
    """``_codecs.encode``, which protocol-2 pickles use to spell ``bytes``: text to latin-1 only."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise _Bad("_codecs.encode is allowed only to rebuild bytes")
    return text.encode("latin1")


@dataclass(frozen=True, slots=True)
class _Global:
    """An allowed callable, sealed: a pickle's BUILD opcode cannot set attributes on it (or on any
    object here), so one file cannot change how the next one is read."""

    fn: Any

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)


def _allowed() -> dict[tuple[str, str], Any]:
    allowed: dict[tuple[str, str], Any] = {
        ("collections", "OrderedDict"): OrderedDict,
        ("torch._utils", "_rebuild_tensor_v2"): _Global(_rebuild_tensor_v2),
        ("torch._utils", "_rebuild_tensor_v3"): _Global(_rebuild_tensor_v3),
        ("torch._utils", "_rebuild_parameter"): _Global(_rebuild_parameter),
        ("torch._utils", "_rebuild_parameter_with_state"): _Global(_rebuild_parameter),
        ("torch", "Size"): _Global(_size),
        ("torch", "UntypedStorage"): _StorageType(None),
        ("torch.storage", "UntypedStorage"): _StorageType(None),
        ("_codecs", "encode"): _Global(_encode),
        ("builtins", "set"): set,
        ("builtins", "frozenset"): frozenset,
        ("builtins", "bytearray"): bytearray,
    }
    for name, code in _STORAGES.items():
        allowed[("torch", name)] = _StorageType(code)
    for name, code in _DTYPES.items():
        allowed[("torch", name)] = _DType(code)
    return allowed


_ALLOWED = _allowed()


class _Unpickler(pickle.Unpickler):
    """NOTE [ Restricted unpickling ]: globals from the allow-list, storages from the archive."""

    def __init__(self, data: bytes, archive: zipfile.ZipFile, prefix: str) -> None:
        super().__init__(io.BytesIO(data))
        self.archive = archive
        self.prefix = prefix
        self.storages: dict[str, _Storage] = {}

    def find_class(self, module: str, name: str) -> Any:
        found = _ALLOWED.get((module, name))
        if found is None:
            raise _Bad(f"the checkpoint names {module}.{name}, which is not allowed; {_HINT}")
        return found

    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise _Bad(f"unknown persistent id {str(pid)[:80]}")
        _, kind, key, _location, numel = pid
        if not isinstance(kind, _StorageType) or not isinstance(key, str) or not _is_int(numel) or numel < 0:
            raise _Bad(f"malformed storage reference {str(pid)[:80]}")
        if key in self.storages:
            return self.storages[key]
        esize = 1 if kind.st is None else st.itemsize(kind.st)
        try:
            info = self.archive.getinfo(f"{self.prefix}data/{key}")
        except KeyError:
            raise _Bad(f"storage {key!r} is missing from the archive") from None
        if info.compress_type != zipfile.ZIP_STORED:
            raise _Bad(f"storage {key!r} is compressed; torch writes storages uncompressed")
        if info.file_size != numel * esize:
            raise _Bad(f"storage {key!r} holds {info.file_size} bytes, its reference says {numel} x {esize}")
        storage = _Storage(self.archive.read(info), kind.st, numel)
        self.storages[key] = storage
        return storage


def is_torch_zip(head: bytes) -> bool:
    return head.startswith(ZIP_MAGIC)


# torch.save's pre-1.6 format: a bare pickle stream that starts with its magic number, a long.
_LEGACY_MAGIC = pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2)[2:-1]


def is_legacy_torch(head: bytes) -> bool:
    return head[:1] == b"\x80" and head[2 : 2 + len(_LEGACY_MAGIC)] == _LEGACY_MAGIC


def load(f: str | os.PathLike[str] | IO[bytes], name: str, map_location: Any = None) -> Any:
    """The object a torch zip checkpoint holds, with tensors as typedtensor tensors (NOTE [ Restricted
    unpickling ]); ``ValueError`` for anything else."""
    try:
        with zipfile.ZipFile(f) as archive:
            pkls = [n for n in archive.namelist() if n.endswith("data.pkl") and n.count("/") == 1]
            if len(pkls) != 1:
                raise _Bad("it is a zip archive without one top-level */data.pkl: not a torch checkpoint")
            prefix = pkls[0][: -len("data.pkl")]
            info = archive.getinfo(pkls[0])
            if info.file_size > 1 << 30:
                raise _Bad("data.pkl is larger than 1 GiB")
            order = archive.read(f"{prefix}byteorder") if f"{prefix}byteorder" in archive.namelist() else b"little"
            if order.strip() != b"little":
                raise _Bad(f"byte order {order[:20]!r} is not supported")
            obj = _Unpickler(archive.read(info), archive, prefix).load()
    except _Bad as exc:
        raise ValueError(f"load: cannot read {name} as a torch checkpoint: {exc}") from None
    except (pickle.UnpicklingError, zipfile.BadZipFile, zlib.error, struct.error, EOFError, KeyError, IndexError,
            TypeError, AttributeError, ValueError, RecursionError, OverflowError, MemoryError, NotImplementedError,
            RuntimeError, OSError) as exc:  # zipfile's and pickle's ways to say "malformed" (the file was opened already)
        raise ValueError(f"load: cannot read {name} as a torch checkpoint: {type(exc).__name__}: {str(exc)[:200]}") from None
    if map_location is not None:
        obj = _to(obj, map_location)
    return obj


def _to(obj: Any, device: Any) -> Any:
    if isinstance(obj, _C.Tensor):
        return relocate(obj, device)
    if isinstance(obj, dict):
        return type(obj)((k, _to(v, device)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to(v, device) for v in obj)
    return obj


LEGACY_MESSAGE = ("is a torch checkpoint in the pre-1.6 pickle format, which cannot be read without running "
                  "the pickle; re-save it with torch.save (zip format) or, better, with safetensors "
                  "(safetensors.torch.save_file)")

__all__ = ["LEGACY_MESSAGE", "is_legacy_torch", "is_torch_zip", "load"]

"""``tt.save`` / ``tt.load``: tensors and nested containers in a safe, self-describing file.

NOTE [ Save format ]
A file is, in order (all integers little-endian):

    magic        8 bytes   b"\\x89TTSAVE\\n"
    version      u32       1
    header_len   u64       length of the JSON header in bytes
    header_crc   u32       CRC-32 of the header bytes
    header       header_len bytes of UTF-8 JSON (below)
    padding      zero bytes up to the next multiple of 64 (so buffers start aligned)
    data         the raw tensor buffers, each C-contiguous little-endian, at its offset

The header is ``{"format": "typedtensor", "root": NODE, "tensors": [...], "data_size": N,
"data_crc32": C}``. Each tensor entry is ``{"dtype", "shape", "offset", "nbytes"}`` (offset from
the start of ``data``). A NODE is ``{"t": "tensor", "i": index}``, ``{"t": "dict", "items":
[[KEY_NODE, NODE], ...]}``, ``{"t": "list" | "tuple", "items": [NODE, ...]}``, ``{"t": "str" |
"int" | "bool", "v": value}``, ``{"t": "float", "v": float.hex()}`` or ``{"t": "none"}``.

Loading never executes anything from the file (no pickle). Every byte is checked: the magic, the
version, the header's CRC and JSON schema, the padding (zeros), the data's length and CRC, and each
tensor's dtype, shape, size and bounds; any failure raises ``ValueError`` naming the problem.
Views are saved as independent copies (storage sharing is not preserved).
"""

from __future__ import annotations

import io
import json
import math
import os
import struct
import zlib
from typing import IO, Any, TypeGuard

import numpy as np

from typedtensor._runtime import _loader
from typedtensor._runtime.map_location import relocate

_C = _loader.load_core()

MAGIC = b"\x89TTSAVE\n"
VERSION = 1
_PREAMBLE = struct.Struct("<8sIQI")  # magic, version, header_len, header_crc
_ALIGN = 64
_MAX_DEPTH = 256

# numpy dtype (little-endian) for each dtype name; bfloat16 is stored as its raw uint16 bits.
_NP_DTYPES: dict[str, str] = {
    "bool": "|b1", "uint8": "|u1", "int32": "<i4", "int64": "<i8",
    "float16": "<f2", "bfloat16": "<u2", "float32": "<f4", "float64": "<f8",
}


class _Encoder:
    """Turns a Python object tree into header nodes plus a list of contiguous byte buffers."""

    def __init__(self) -> None:
        self.tensors: list[dict[str, Any]] = []
        self.buffers: list[bytes] = []
        self.size = 0

    def node(self, obj: Any, path: str, depth: int = 0) -> dict[str, Any]:
        if depth > _MAX_DEPTH:
            raise ValueError(f"save: nesting deeper than {_MAX_DEPTH} levels at {path}")
        if isinstance(obj, _C.Tensor):
            return {"t": "tensor", "i": self.tensor(obj)}
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
        if isinstance(obj, dict):
            return {
                "t": "dict",
                "items": [[self.node(k, f"{path}[key {k!r}]", depth + 1), self.node(v, f"{path}[{k!r}]", depth + 1)]
                          for k, v in obj.items()],
            }
        if isinstance(obj, (list, tuple)):
            return {
                "t": "tuple" if isinstance(obj, tuple) else "list",
                "items": [self.node(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(obj)],
            }
        raise TypeError(
            f"save: cannot save an object of type {type(obj).__name__} at {path}; "
            "supported: tensors, dict, list, tuple, str, int, float, bool, None"
        )

    def tensor(self, t: Any) -> int:
        name = t.dtype.name if hasattr(t.dtype, "name") else str(t.dtype).rpartition(".")[2]
        if name not in _NP_DTYPES:
            raise TypeError(f"save: dtype {name} is not supported")
        t = t.detach()
        if t.device.type != "cpu":
            t = t.cpu()
        if name == "bfloat16":
            bits = np.ascontiguousarray(t.float().numpy()).view(np.uint32) >> 16
            raw = bits.astype("<u2").tobytes()
        else:
            raw = np.ascontiguousarray(t.numpy()).astype(_NP_DTYPES[name], copy=False).tobytes()
        self.tensors.append({"dtype": name, "shape": [int(s) for s in t.shape], "offset": self.size, "nbytes": len(raw)})
        self.buffers.append(raw)
        self.size += len(raw)
        pad = -self.size % _ALIGN
        if pad:
            self.buffers.append(b"\0" * pad)
            self.size += pad
        return len(self.tensors) - 1


def save(obj: Any, f: str | os.PathLike[str] | IO[bytes]) -> None:
    """Write ``obj`` (a tensor, or dicts/lists/tuples of tensors and plain values) to ``f``."""
    enc = _Encoder()
    root = enc.node(obj, "obj")
    data = b"".join(enc.buffers)
    header = json.dumps(
        {"format": "typedtensor", "root": root, "tensors": enc.tensors, "data_size": len(data),
         "data_crc32": zlib.crc32(data)},
        separators=(",", ":"), ensure_ascii=True,
    ).encode("utf-8")
    pre = _PREAMBLE.pack(MAGIC, VERSION, len(header), zlib.crc32(header))
    pad = b"\0" * (-(len(pre) + len(header)) % _ALIGN)
    blob = pre + header + pad + data
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            fh.write(blob)
    else:
        f.write(blob)


class _Decoder:
    def __init__(self, header: dict[str, Any], data: memoryview, map_location: Any) -> None:
        self.header = header
        self.data = data
        self.map_location = map_location
        self.cache: dict[int, Any] = {}

    def bad(self, what: str) -> ValueError:
        return ValueError(f"load: malformed typedtensor file: {what}")

    def tensor(self, i: Any) -> Any:
        entries = self.header["tensors"]
        if not _is_int(i) or not 0 <= i < len(entries):
            raise self.bad(f"tensor index {i!r} out of range")
        if i in self.cache:
            return self.cache[i]
        e = entries[i]
        if not isinstance(e, dict):
            raise self.bad(f"tensor entry {i} is not an object")
        dtype, shape, offset, nbytes = e.get("dtype"), e.get("shape"), e.get("offset"), e.get("nbytes")
        if not isinstance(dtype, str) or dtype not in _NP_DTYPES:
            raise self.bad(f"tensor {i} has unknown dtype {dtype!r}")
        if not isinstance(shape, list) or not all(_is_int(s) and s >= 0 for s in shape) or len(shape) > 64:
            raise self.bad(f"tensor {i} has invalid shape {shape!r}")
        np_dtype = np.dtype(_NP_DTYPES[dtype])
        count = math.prod(shape)
        if not _is_int(nbytes) or nbytes != count * np_dtype.itemsize:
            raise self.bad(f"tensor {i} of shape {shape} and dtype {dtype} cannot have {nbytes!r} bytes")
        if not _is_int(offset) or offset < 0 or offset + nbytes > len(self.data):
            raise self.bad(f"tensor {i} at offset {offset!r} (+{nbytes} bytes) lies outside the data section")
        arr = np.frombuffer(self.data, dtype=np_dtype, count=count, offset=offset).reshape(shape)
        if dtype == "bool" and count and np.frombuffer(self.data, np.uint8, count, offset).max() > 1:
            raise self.bad(f"bool tensor {i} holds a byte other than 0 or 1")
        if dtype == "bfloat16":
            as_f32 = (arr.astype(np.uint32) << 16).view(np.float32)
            t = _C.tensor(as_f32).to(_C.bfloat16)
        else:
            t = _C.tensor(arr.astype(np_dtype.newbyteorder("="), copy=True))
        if self.map_location is not None:
            t = relocate(t, self.map_location)
        self.cache[i] = t
        return t

    def node(self, n: Any, depth: int = 0) -> Any:
        if depth > _MAX_DEPTH:
            raise self.bad(f"nesting deeper than {_MAX_DEPTH} levels")
        if not isinstance(n, dict) or not isinstance(n.get("t"), str):
            raise self.bad(f"node {str(n)[:60]!r} is not a typed object")
        kind = n["t"]
        if kind == "tensor":
            return self.tensor(n.get("i"))
        if kind == "none":
            return None
        if kind in ("str", "int", "bool", "float"):
            v = n.get("v")
            ok = {"str": isinstance(v, str), "int": _is_int(v), "bool": isinstance(v, bool), "float": isinstance(v, str)}[kind]
            if not ok:
                raise self.bad(f"{kind} node holds {v!r}")
            if kind == "float":
                try:
                    return float.fromhex(str(v))
                except (ValueError, OverflowError):  # "0x1p99999" overflows
                    raise self.bad(f"float node holds {v!r}") from None
            return v
        if kind not in ("list", "tuple", "dict"):
            raise self.bad(f"unknown node type {kind!r}")
        items = n.get("items")
        if not isinstance(items, list):
            raise self.bad(f"{kind} node has no item list")
        if kind in ("list", "tuple"):
            values = [self.node(x, depth + 1) for x in items]
            return tuple(values) if kind == "tuple" else values
        out: dict[Any, Any] = {}
        for pair in items:
            if not isinstance(pair, list) or len(pair) != 2:
                raise self.bad("dict item is not a [key, value] pair")
            key = self.node(pair[0], depth + 1)
            try:
                hash(key)
            except TypeError:
                raise self.bad(f"dict key of type {type(key).__name__} is not hashable") from None
            if isinstance(key, _C.Tensor):
                raise self.bad("dict keys cannot be tensors")
            out[key] = self.node(pair[1], depth + 1)
        return out


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _read(f: str | os.PathLike[str] | IO[bytes]) -> bytes:
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return fh.read()
    blob = f.read()
    if not isinstance(blob, bytes):
        raise TypeError("load: the file must be opened in binary mode")
    return blob


def load(f: str | os.PathLike[str] | IO[bytes], map_location: Any = None, weights_only: bool = True) -> Any:
    """Read what ``save`` wrote. ``weights_only`` is accepted for torch compatibility: this format
    can only ever hold data, never code."""
    blob = _read(f)
    name = f if isinstance(f, (str, os.PathLike)) else "<stream>"
    if len(blob) < _PREAMBLE.size:
        raise ValueError(f"load: {name} is not a typedtensor file (truncated: {len(blob)} bytes, need at least {_PREAMBLE.size})")
    magic, version, header_len, header_crc = _PREAMBLE.unpack_from(blob)
    if magic != MAGIC:
        raise ValueError(f"load: {name} is not a typedtensor file (bad magic {magic!r}); was it written by tt.save?")
    if version != VERSION:
        raise ValueError(f"load: {name} has format version {version}; this typedtensor reads version {VERSION}")
    header_end = _PREAMBLE.size + header_len
    if header_end > len(blob):
        raise ValueError(f"load: {name} is truncated: the header needs {header_len} bytes, the file has {len(blob) - _PREAMBLE.size}")
    header_bytes = blob[_PREAMBLE.size : header_end]
    if zlib.crc32(header_bytes) != header_crc:
        raise ValueError(f"load: {name} is corrupted: header checksum mismatch")
    try:
        header = json.loads(header_bytes.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"load: malformed typedtensor file: header is not valid JSON ({exc})") from None
    if not isinstance(header, dict) or header.get("format") != "typedtensor" or "root" not in header:
        raise ValueError("load: malformed typedtensor file: header lacks format/root")
    tensors, data_size, data_crc = header.get("tensors"), header.get("data_size"), header.get("data_crc32")
    if not isinstance(tensors, list) or not _is_int(data_size) or not _is_int(data_crc):
        raise ValueError("load: malformed typedtensor file: header lacks tensors/data_size/data_crc32")
    data_start = header_end + (-header_end % _ALIGN)
    if data_start + data_size != len(blob):
        got = len(blob) - data_start
        state = "truncated" if got < data_size else "has trailing bytes"
        raise ValueError(f"load: {name} is {state}: data section should be {data_size} bytes, found {max(got, 0)}")
    if any(blob[header_end:data_start]):
        raise ValueError(f"load: {name} is corrupted: non-zero header padding")
    data = memoryview(blob)[data_start:]
    if zlib.crc32(data) != data_crc:
        raise ValueError(f"load: {name} is corrupted: data checksum mismatch")
    try:
        return _Decoder(header, data, map_location).node(header["root"])
    except RecursionError:
        raise ValueError("load: malformed typedtensor file: nesting too deep") from None


def dumps(obj: Any) -> bytes:
    """``save`` into bytes (handy for tests and for sending state over a wire)."""
    buf = io.BytesIO()
    save(obj, buf)
    return buf.getvalue()


def loads(blob: bytes, map_location: Any = None) -> Any:
    return load(io.BytesIO(blob), map_location)


__all__ = ["dumps", "load", "loads", "save"]

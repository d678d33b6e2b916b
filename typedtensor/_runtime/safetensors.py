"""The safetensors format: reading and writing it, with no dependency on the ``safetensors`` package.

NOTE [ safetensors ]
A file is ``N`` (u64, little-endian), then ``N`` bytes of UTF-8 JSON, then the data section. The
JSON maps each tensor's name to ``{"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}``
(offsets relative to the data section) and may hold ``"__metadata__"``, a ``str -> str`` map.

Writing follows the reference writer: the header is padded with spaces to a multiple of 8 bytes,
and the buffers are laid out largest element size first, so every tensor starts at a multiple of
its element size in the file. Reading maps the file (``mmap``, copy-on-write: the tensors are
writable, and writes never reach the file) and wraps each tensor's bytes without copying whenever
its dtype is one the backend has and its address is aligned; other integer and float8 dtypes are
widened (int8/int16/uint16 -> int32, uint32/uint64 -> int64, float8 -> float32) with a copy.

Every field is checked before any tensor is made, as the reference reader does: the header length
against the file, the JSON (duplicate names refused), each dtype, shape and offset pair, and the
offsets together (sorted, they must tile the data section exactly: no overlap, no gap). Anything
else raises ``ValueError`` naming the file and the problem.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import mmap
import os
import struct
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from typedtensor._runtime import _loader
from typedtensor._runtime.map_location import relocate

_C = _loader.load_core()

MAX_HEADER = 100_000_000  # the reference reader's limit
MAX_RANK = 64
_U64 = struct.Struct("<Q")

# safetensors dtype -> (backend dtype name, element size): wrapped without a copy.
NATIVE: dict[str, tuple[str, int]] = {
    "BOOL": ("bool", 1), "U8": ("uint8", 1), "I32": ("int32", 4), "I64": ("int64", 8),
    "F16": ("float16", 2), "BF16": ("bfloat16", 2), "F32": ("float32", 4), "F64": ("float64", 8),
}
# safetensors dtype -> (numpy dtype of the stored bytes, backend dtype name): widened on load.
WIDENED: dict[str, tuple[str, str]] = {
    "I8": ("i1", "int32"), "I16": ("<i2", "int32"), "U16": ("<u2", "int32"),
    "U32": ("<u4", "int64"), "U64": ("<u8", "int64"),
    "F8_E4M3": ("u1", "float32"), "F8_E5M2": ("u1", "float32"),
}
_NAME_OF: dict[str, str] = {tt_name: st for st, (tt_name, _) in NATIVE.items()}


def _f8_table(exp_bits: int, man_bits: int, finite_only: bool) -> np.ndarray:
    """Every byte's value as float32: OCP float8 E4M3FN (no infinities; S.1111.111 is NaN) or E5M2."""
    bias = (1 << (exp_bits - 1)) - 1
    out = np.empty(256, np.float32)
    for b in range(256):
        sign = -1.0 if b & 0x80 else 1.0
        e = (b >> man_bits) & ((1 << exp_bits) - 1)
        m = b & ((1 << man_bits) - 1)
        if finite_only and e == (1 << exp_bits) - 1 and m == (1 << man_bits) - 1:
            out[b] = np.nan
        elif not finite_only and e == (1 << exp_bits) - 1:
            out[b] = sign * np.inf if m == 0 else np.nan
        elif e == 0:
            out[b] = sign * m * 2.0 ** (1 - bias - man_bits)
        else:
            out[b] = sign * (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
    return out


_F8 = {"F8_E4M3": (4, 3, True), "F8_E5M2": (5, 2, False)}


def itemsize(dtype: str) -> int:
    if dtype in NATIVE:
        return NATIVE[dtype][1]
    return np.dtype(WIDENED[dtype][0]).itemsize


# ---------------------------------------------------------------- reading


@dataclass(frozen=True)
class Entry:
    """One tensor of a file's header, validated."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    begin: int
    end: int


@dataclass(frozen=True)
class Header:
    entries: list[Entry]  # in the header's order
    metadata: dict[str, str]
    data_start: int  # byte offset of the data section in the file


class _Bad(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Bad(f"the name {k[:80]!r} appears twice")
        out[k] = v
    return out


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def parse_header(prefix: bytes | memoryview, file_size: int) -> Header:
    """Validates the header at the start of a file of ``file_size`` bytes (``prefix`` holds at least
    the header; raises ``_Bad`` with the reason)."""
    if file_size < 8:
        raise _Bad(f"{file_size} bytes is too short for the 8-byte header length")
    (n,) = _U64.unpack_from(prefix)
    if n > MAX_HEADER:
        raise _Bad(f"header length {n} exceeds the limit of {MAX_HEADER} bytes")
    if 8 + n > file_size:
        raise _Bad(f"header length {n} runs past the end of the file ({file_size} bytes)")
    raw = bytes(prefix[8 : 8 + n])
    try:
        header = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except _Bad:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _Bad(f"header is not valid UTF-8 JSON ({str(exc)[:120]})") from None
    if not isinstance(header, dict):
        raise _Bad("header is not a JSON object")
    metadata = header.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise _Bad("__metadata__ must map strings to strings")
    data_size = file_size - 8 - n
    entries = [_entry(name, info, data_size) for name, info in header.items()]
    expected = 0
    for e in sorted(entries, key=lambda e: (e.begin, e.end)):
        if e.begin != expected:
            what = "overlaps the tensor before it" if e.begin < expected else f"leaves a gap at byte {expected}"
            raise _Bad(f"tensor {e.name[:80]!r} at data_offsets [{e.begin}, {e.end}] {what}")
        expected = e.end
    if expected != data_size:
        raise _Bad(f"the tensors cover {expected} bytes of a {data_size}-byte data section")
    return Header(entries, metadata, 8 + n)


def _entry(name: str, info: Any, data_size: int) -> Entry:
    label = f"tensor {name[:80]!r}"
    if not isinstance(info, dict):
        raise _Bad(f"{label} is not an object")
    dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
    if not isinstance(dtype, str) or (dtype not in NATIVE and dtype not in WIDENED):
        known = ", ".join([*NATIVE, *WIDENED])
        raise _Bad(f"{label} has unsupported dtype {str(dtype)[:40]!r} (known: {known})")
    if not isinstance(shape, list) or len(shape) > MAX_RANK or not all(_is_int(s) and s >= 0 for s in shape):
        raise _Bad(f"{label} has an invalid shape {str(shape)[:80]}")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(_is_int(o) for o in offsets)):
        raise _Bad(f"{label} has invalid data_offsets {str(offsets)[:80]}")
    begin, end = offsets
    if not 0 <= begin <= end <= data_size:
        raise _Bad(f"{label} at data_offsets [{begin}, {end}] lies outside the {data_size}-byte data section")
    nbytes = math.prod(shape) * itemsize(dtype)
    if end - begin != nbytes:
        raise _Bad(f"{label} of dtype {dtype} and shape {shape} needs {nbytes} bytes, its data_offsets give {end - begin}")
    return Entry(name, dtype, tuple(shape), begin, end)


def _tensor(e: Entry, buf: Any, base: int, address: int) -> Any:
    """The tensor of entry ``e``, whose bytes are ``buf[base + e.begin : base + e.end]``."""
    start = base + e.begin
    if e.dtype in NATIVE:
        tt_name, size = NATIVE[e.dtype]
        if (address + start) % size == 0:
            return _C._frombuffer(buf, getattr(_C, tt_name), list(e.shape), start)
        raw = bytearray(memoryview(buf)[start : base + e.end])  # misaligned: copy to an aligned buffer
        return _C._frombuffer(raw, getattr(_C, tt_name), list(e.shape), 0)
    np_dtype, tt_name = WIDENED[e.dtype]
    stored = np.frombuffer(buf, dtype=np_dtype, count=math.prod(e.shape), offset=start)
    if e.dtype in _F8:
        values = _f8_table(*_F8[e.dtype])[stored]
    elif e.dtype == "U64":
        if stored.size and int(stored.max()) > np.iinfo(np.int64).max:
            raise _Bad(f"tensor {e.name[:80]!r} holds uint64 values above the int64 range")
        values = stored.astype(np.int64)
    else:
        values = stored.astype(np.int64 if tt_name == "int64" else np.int32)
    return _C.from_numpy(np.ascontiguousarray(values).reshape(e.shape))


def _address(buf: Any) -> int:
    if len(memoryview(buf)) == 0:
        return 0
    return int(np.frombuffer(buf, np.uint8, count=1).ctypes.data)


def read(f: str | os.PathLike[str] | IO[bytes], name: str, map_location: Any = None,
         use_mmap: bool | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """Every tensor of a safetensors file (in the header's order) and its metadata.

    A path (or a file object with a real file behind it) is memory-mapped unless ``use_mmap`` is
    False; a stream is read into memory."""
    buf: Any
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            buf = _map_or_read(fh, use_mmap)
    else:
        buf = _map_or_read(f, use_mmap)
    try:
        header = parse_header(memoryview(buf)[: 8 + MAX_HEADER], len(buf))
        address = _address(buf)
        tensors = {e.name: _tensor(e, buf, header.data_start, address) for e in header.entries}
    except _Bad as exc:
        raise ValueError(f"load: {name} is not a valid safetensors file: {exc}") from None
    if map_location is not None:
        tensors = {k: relocate(v, map_location) for k, v in tensors.items()}
    return tensors, header.metadata


def _map_or_read(fh: IO[bytes], use_mmap: bool | None) -> Any:
    if use_mmap is not False:
        try:
            fileno = fh.fileno()
            size = os.fstat(fileno).st_size
        except (OSError, AttributeError, io.UnsupportedOperation):
            fileno, size = -1, 0
        if fileno >= 0 and size > 0 and fh.seekable() and fh.tell() == 0:
            return mmap.mmap(fileno, size, access=mmap.ACCESS_COPY)
    blob = fh.read()
    if not isinstance(blob, (bytes, bytearray)):
        raise TypeError("load: the file must be opened in binary mode")
    return bytearray(blob)  # writable, so the tensors are too


def read_metadata(f: str | os.PathLike[str] | IO[bytes], name: str) -> dict[str, str]:
    """The ``__metadata__`` of a safetensors file, reading the header only."""
    fh = open(f, "rb") if isinstance(f, (str, os.PathLike)) else f  # noqa: SIM115
    try:
        start = fh.tell()
        size = fh.seek(0, os.SEEK_END) - start
        fh.seek(start)
        head = fh.read(8)
        n = _U64.unpack(head)[0] if len(head) == 8 else 0
        return parse_header(head + fh.read(min(n, MAX_HEADER, max(size - 8, 0))), size).metadata
    except _Bad as exc:
        raise ValueError(f"load: {name} is not a valid safetensors file: {exc}") from None
    finally:
        if fh is not f:
            fh.close()


# ---------------------------------------------------------------- writing


def _raw(t: Any) -> tuple[str, bytes | memoryview]:
    """A tensor's safetensors dtype and its bytes (C order, little-endian)."""
    name = t.dtype.name if hasattr(t.dtype, "name") else str(t.dtype).rpartition(".")[2]
    if name not in _NAME_OF:
        raise TypeError(f"save: tensors of dtype {name} cannot be saved")
    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if name == "bfloat16":  # bfloat16 -> float32 is exact: the upper half of each float32 is the bf16
        bits = np.ascontiguousarray(t.float().numpy()).view(np.uint32) >> 16
        return "BF16", bits.astype("<u2").tobytes()
    arr = np.ascontiguousarray(t.numpy())
    return _NAME_OF[name], arr.data.cast("B") if arr.size else b""


def write(tensors: Iterable[tuple[str, Any]], f: str | os.PathLike[str] | IO[bytes],
          metadata: Mapping[str, str] | None = None) -> None:
    """Writes ``(name, tensor)`` pairs as a safetensors file (NOTE [ safetensors ])."""
    items = [(name, *_raw(t), tuple(int(s) for s in t.shape)) for name, t in tensors]
    header: dict[str, Any] = {}
    if metadata:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise TypeError("save: metadata must map strings to strings")
        header["__metadata__"] = dict(metadata)
    order = sorted(range(len(items)), key=lambda i: -itemsize(items[i][1]))  # stable: largest elements first
    offsets: dict[int, tuple[int, int]] = {}
    pos = 0
    for i in order:
        offsets[i] = (pos, pos + len(items[i][2]))
        pos += len(items[i][2])
    for i, (name, dtype, _, shape) in enumerate(items):
        if not isinstance(name, str):
            raise TypeError(f"save: tensor names must be strings, got {type(name).__name__}")
        if name == "__metadata__" or name in header:
            raise ValueError(f"save: the tensor name {name!r} is reserved or used twice")
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": list(offsets[i])}
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    chunks: list[bytes | memoryview] = [_U64.pack(len(text)), text, *(items[i][2] for i in order)]
    if isinstance(f, (str, os.PathLike)):
        _replace(os.fspath(f), chunks)
    else:
        for c in chunks:
            f.write(c)


def _replace(path: str, chunks: list[bytes | memoryview]) -> None:
    """Writes a new file beside ``path`` and renames it over ``path``: tensors still mapped from the
    old file (``tt.load`` then ``tt.save`` to the same name) keep their pages, where truncating the
    file in place would make reading them a bus error; and a crash mid-write leaves the old file."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tt-save-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.writelines(chunks)
        os.chmod(tmp, _mode_for(path))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _mode_for(path: str) -> int:
    """The replaced file's permissions, or what ``open(path, "w")`` would give a new file."""
    with contextlib.suppress(OSError):
        return os.stat(path).st_mode & 0o777
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as status:
        for line in status:
            if line.startswith("Umask:"):
                return 0o666 & ~int(line.split()[1], 8)
    return 0o644


def is_safetensors(head: bytes, size: int) -> bool:
    """Whether a file that starts with ``head`` (its first 9+ bytes) and has ``size`` bytes looks
    like safetensors: a plausible header length, then a JSON object."""
    if len(head) < 9:
        return False
    (n,) = _U64.unpack_from(head)
    return 2 <= n <= min(MAX_HEADER, size - 8) and head[8:9] == b"{"


__all__ = ["Header", "is_safetensors", "parse_header", "read", "read_metadata", "write"]

"""NOTE [ Batches through shared memory ]

A DataLoader worker hands a batch to the main process without pickling tensor data:

1. The worker pickles the batch with a ``persistent_id`` hook that takes every tensor out of the
   pickle (wherever it sits: a list, a dict, a user's own batch class) and leaves a small index in
   its place. The pickle holds only structure, strings and numbers.
2. The tensors' bytes are copied into one new POSIX shared-memory segment per batch, each at a
   64-byte aligned offset; the message sent through the result queue is the segment's name, its
   size, each tensor's (offset, dtype, shape) and the small pickle.
3. The main process maps the segment, removes its name at once (the memory lives on while mapped),
   wraps each tensor's bytes as a numpy array over the mapping and makes a tensor of it with
   ``from_numpy``: zero copies. Each tensor keeps the mapping alive; it is unmapped when the last
   tensor of the batch is freed.

Segment names start with the loader's prefix (``tt_dl_<pid>_<random>``), so a loader that shuts
down removes any segment a worker made but the main process never opened (a batch in flight when
iteration stopped, or a killed worker's): no leak in ``/dev/shm``.
"""

from __future__ import annotations

import contextlib
import io
import mmap
import os
import pickle
import secrets
from dataclasses import dataclass
from typing import Any

import numpy as np

from typedtensor._runtime import _C

_posixshmem: Any
try:  # the POSIX shm_open that multiprocessing.shared_memory uses (CPython on Linux and macOS)
    import _posixshmem  # type: ignore[import-not-found,no-redef]
except ImportError:  # pragma: no cover - Windows
    _posixshmem = None

_ALIGN = 64
_SHM_DIR = "/dev/shm"


def new_prefix() -> str:
    return f"tt_dl_{os.getpid()}_{secrets.token_hex(4)}"


@dataclass(frozen=True)
class TensorSpec:
    offset: int
    dtype: str  # typedtensor dtype name
    shape: tuple[int, ...]
    requires_grad: bool


@dataclass(frozen=True)
class Packed:
    """A batch in transit: the shared segment (``None`` when it holds no tensor bytes) and the pickle."""

    segment: str | None
    size: int
    tensors: tuple[TensorSpec, ...]
    payload: bytes


class _Pickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO, tensors: list[Any]) -> None:
        super().__init__(file, protocol=5)
        self.tensors = tensors

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, _C.Tensor):
            self.tensors.append(obj)
            return ("tt.Tensor", len(self.tensors) - 1)
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, tensors: list[Any]) -> None:
        super().__init__(file)
        self.tensors = tensors

    def persistent_load(self, pid: Any) -> Any:
        kind, index = pid
        if kind != "tt.Tensor":
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        return self.tensors[index]


def _host_array(t: Any) -> tuple[np.ndarray, str]:
    """The tensor's bytes as a contiguous numpy array on the host (bfloat16 travels as float32)."""
    t = t.detach()
    if str(t.device) != "cpu":
        t = t.cpu()
    name = t.dtype.name
    if name == "bfloat16":
        t = t.float()
    return np.asarray(t.contiguous().numpy()), name


def _open(name: str, size: int, create: bool) -> mmap.mmap:
    flags = (os.O_CREAT | os.O_EXCL | os.O_RDWR) if create else os.O_RDWR
    if _posixshmem is None:  # pragma: no cover
        raise RuntimeError("DataLoader workers need POSIX shared memory (shm_open), which this platform lacks")
    fd = _posixshmem.shm_open("/" + name, flags, mode=0o600)
    try:
        if create:
            os.ftruncate(fd, size)
        return mmap.mmap(fd, size)
    finally:
        os.close(fd)


def unlink(name: str) -> None:
    if _posixshmem is not None:
        with contextlib.suppress(FileNotFoundError):
            _posixshmem.shm_unlink("/" + name)


def pack(batch: Any, segment_name: str) -> Packed:
    """In a worker: ``batch`` as a small pickle plus one shared segment holding its tensors' bytes."""
    tensors: list[Any] = []
    buf = io.BytesIO()
    _Pickler(buf, tensors).dump(batch)
    arrays, specs, offset = [], [], 0
    for t in tensors:
        array, dtype = _host_array(t)
        specs.append(TensorSpec(offset, dtype, tuple(int(s) for s in array.shape), bool(t.requires_grad)))
        arrays.append(array)
        offset += -(-array.nbytes // _ALIGN) * _ALIGN
    if offset == 0:
        return Packed(None, 0, tuple(specs), buf.getvalue())
    mm = _open(segment_name, offset, create=True)
    try:
        for spec, array in zip(specs, arrays, strict=True):
            if array.nbytes:
                np.copyto(np.frombuffer(mm, dtype=array.dtype, count=array.size, offset=spec.offset).reshape(array.shape), array)
    finally:
        mm.close()
    return Packed(segment_name, offset, tuple(specs), buf.getvalue())


_NP_OF = {"bool": np.bool_, "uint8": np.uint8, "int32": np.int32, "int64": np.int64, "float16": np.float16,
          "float32": np.float32, "float64": np.float64, "bfloat16": np.float32}


def unpack(packed: Packed) -> Any:
    """In the main process: the batch, its tensors viewing the shared segment (which is unlinked here)."""
    mm = None
    if packed.segment is not None:
        try:
            mm = _open(packed.segment, packed.size, create=False)
        finally:
            unlink(packed.segment)
    tensors = []
    for spec in packed.tensors:
        np_dtype = np.dtype(_NP_OF[spec.dtype])
        count = int(np.prod(spec.shape, dtype=np.int64))
        if count == 0 or mm is None:
            array = np.empty(spec.shape, dtype=np_dtype)
        else:
            array = np.frombuffer(mm, dtype=np_dtype, count=count, offset=spec.offset).reshape(spec.shape)
        t = _C.from_numpy(array)
        if spec.dtype == "bfloat16":
            t = t.to(_C.bfloat16)
        if spec.requires_grad:
            t.requires_grad_(True)
        tensors.append(t)
    return _Unpickler(io.BytesIO(packed.payload), tensors).load()


def discard(packed: Packed) -> None:
    """Drop a batch nobody will read (its segment is removed)."""
    if packed.segment is not None:
        unlink(packed.segment)


def sweep(prefix: str) -> None:
    """Remove every segment whose name starts with ``prefix`` (what a shut-down loader left behind)."""
    try:
        names = os.listdir(_SHM_DIR)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix):
            unlink(name)

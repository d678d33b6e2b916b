"""The MPI process group: collectives on CPU tensors through mpi4py, each tensor's own memory handed
to MPI (the Tensor's buffer protocol exposes its storage; nothing is copied for a contiguous tensor).

mpi4py is imported here only, on first use: ``import typedtensor.distributed`` works without it, and
importing ``mpi4py.MPI`` is what initialises MPI (a process started without ``mpirun`` is a world of
one, MPI's "singleton").

NOTE [ Collective timeouts ]
MPI's blocking calls cannot time out. A watchdog thread (torch's NCCL backend has the same design)
watches the one collective a rank is waiting in; past the group's timeout it prints which call on
which rank waited too long and aborts the whole MPI job (``MPI_Abort``), so a rank that died or went
another way never leaves the others hanging. A rank that raises is handled sooner, by the excepthook
``init_process_group`` installs (it aborts the job at once).
"""

from __future__ import annotations

import array
import itertools
import os
import stat
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import numpy as np

_Tensor: TypeAlias = Any  # typedtensor's Tensor (the compiled class, untyped to mypy)

__all__ = ["MpiGroup", "Work", "abort", "shape_mismatch"]

# The dtype codes exchanged in the shape check (any distinct numbers; the same on every rank).
_DTYPE_CODES = {"bool": 1, "uint8": 2, "int32": 3, "int64": 4, "float16": 5, "bfloat16": 6, "float32": 7, "float64": 8}
_HEADER_DIMS = 8


def _mpi() -> Any:
    from mpi4py import MPI

    return MPI


class _Watchdog:
    """NOTE [ Collective timeouts ]: one daemon thread per process, checking five times a second.

    ``enter``/``leave`` run around every collective, so they take no lock: a key from an
    ``itertools.count`` and one dict store or pop are each atomic under the GIL, and the watchdog
    reads a copy of the dict made by one C call (``dict.copy``, which runs no Python code while it
    copies, so no other thread can change the dict under it). ``MpiGroup.all_reduce_in_place``
    makes the same two steps inline on ``waits`` and ``keys``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # starts the thread once
        self.waits: dict[int, tuple[str, float, Any]] = {}
        self.keys = itertools.count()
        self._thread: threading.Thread | None = None

    def enter(self, what: str, timeout_s: float, comm: Any) -> int:
        key = next(self.keys)
        self.waits[key] = (what, time.monotonic() + timeout_s, comm)
        if self._thread is None:
            self.start()
        return key

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="typedtensor-dist-watchdog", daemon=True)
                self._thread.start()

    def leave(self, key: int) -> None:
        self.waits.pop(key, None)

    def _run(self) -> None:
        while True:
            time.sleep(0.2)
            now = time.monotonic()
            late = [(w, c) for w, d, c in self.waits.copy().values() if now > d]
            if late:
                what, comm = late[0]
                sys.stderr.write(
                    f"typedtensor.distributed: rank {comm.Get_rank()}: {what} timed out: another rank failed, "
                    "exited or is not making the same call; aborting the job\n"
                )
                try:
                    abort(comm, 3)
                finally:
                    os._exit(3)


_WATCHDOG = _Watchdog()


def abort(comm: Any, code: int, limit_s: float = 3.0) -> None:
    """``comm.Abort(code)`` once what this rank wrote to stdout and stderr has reached the launcher.

    The launcher forwards each rank's output through pipes it reads when it gets to them, and
    MPI_Abort kills the whole job at once: aborting straight after writing an error lost all but the
    first line of a traceback on a loaded machine. So this flushes both streams and, for each that
    is a pipe, waits (at most ``limit_s`` in all) until the reader has taken everything from it
    (FIONREAD, the bytes still in the pipe, is 0), then a little longer for the launcher to pass
    them on."""
    deadline = time.monotonic() + limit_s
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
            fd = stream.fileno()
            if not stat.S_ISFIFO(os.fstat(fd).st_mode):
                continue
            import fcntl  # POSIX only, like the pipes this waits on
            import termios

            pending = array.array("i", [0])
            while time.monotonic() < deadline:
                fcntl.ioctl(fd, termios.FIONREAD, pending)
                if pending[0] == 0:
                    break
                time.sleep(0.01)
        except (OSError, ValueError, AttributeError, ImportError):  # closed, replaced, not a file: nothing to wait for
            continue
    time.sleep(0.1)
    comm.Abort(code)


class Work:
    """torch's ``Work``: the handle of an ``async_op=True`` call. ``wait()`` blocks until it is done
    (and runs what must follow, e.g. the division of an AVG); ``is_completed()`` asks without blocking."""

    def __init__(
        self, requests: Sequence[Any], what: str, timeout_s: float, comm: Any,
        then: Callable[[], None] | None = None, keep: tuple[Any, ...] = (),
    ) -> None:
        self._requests = list(requests)
        self._what = what
        self._timeout_s = timeout_s
        self._comm = comm
        self._then = then
        self._keep = keep  # the tensors MPI reads and writes stay alive until the call is done
        self._done = not self._requests and then is None

    def _finish(self) -> None:
        if self._then is not None:
            then, self._then = self._then, None
            then()
        self._requests = []
        self._keep = ()
        self._done = True

    def is_completed(self) -> bool:
        if self._done:
            return True
        if all(r.Test() for r in self._requests):
            self._finish()
        return self._done

    def test(self) -> bool:
        """Lets MPI progress this call (MPI moves a non-blocking collective only inside MPI calls)."""
        return self.is_completed()

    def wait(self, timeout: Any = None) -> bool:
        if self._done:
            return True
        limit = self._timeout_s if timeout is None else _seconds(timeout)
        key = _WATCHDOG.enter(self._what, limit, self._comm)
        try:
            _mpi().Request.Waitall(self._requests)
        finally:
            _WATCHDOG.leave(key)
        self._finish()
        return True

    def is_success(self) -> bool:
        return self.is_completed()

    def result(self) -> list[Any]:
        self.wait()
        return list(self._keep)


def _seconds(timeout: Any) -> float:
    return float(timeout.total_seconds()) if hasattr(timeout, "total_seconds") else float(timeout)


_CODE_OF: dict[Any, int] = {}  # dtype object -> its code, filled on first sight


def _dtype_code(dtype: Any) -> int:
    code = _CODE_OF.get(dtype)
    if code is None:
        code = _CODE_OF[dtype] = _DTYPE_CODES.get(str(dtype).removeprefix("typedtensor."), 0)
    return code


def _header(t: _Tensor) -> list[int]:
    """A tensor's dtype code, rank and shape as ``2 + _HEADER_DIMS`` numbers (the same length for
    every tensor, so the exchange itself is valid MPI whatever the ranks pass)."""
    shape = tuple(t.shape)
    code = _dtype_code(t.dtype)
    if len(shape) <= _HEADER_DIMS:
        return [code, len(shape), *shape, *([-1] * (_HEADER_DIMS - len(shape)))]
    # longer shapes: the leading dims and a digest of all of them
    return [code, len(shape), *shape[: _HEADER_DIMS - 1], hash(shape) & 0x7FFFFFFFFFFFFFFF]


def shape_mismatch(what: str, shapes: Sequence[tuple[int, ...]], dtypes: Sequence[str]) -> str | None:
    """The error for ranks that passed different tensors to one collective, naming the dim that differs."""
    for r in range(1, len(shapes)):
        if dtypes[r] != dtypes[0]:
            return f"{what}: tensor dtypes differ between ranks: rank 0 has {dtypes[0]}, rank {r} has {dtypes[r]}"
        a, b = shapes[0], shapes[r]
        if a != b:
            if len(a) != len(b):
                where = f"rank 0 has {len(a)} dims, rank {r} has {len(b)}"
            else:
                d = next(i for i in range(len(a)) if a[i] != b[i])
                where = f"dim {d} is {a[d]} on rank 0 and {b[d]} on rank {r}"
            return (
                f"{what}: tensor shapes differ between ranks ({where}): rank 0 has {a}, rank {r} has {b}; "
                "every rank must pass a tensor of the same shape"
            )
    return None


class MpiGroup:
    """A process group over an MPI communicator (COMM_WORLD, or one ``new_group`` split off)."""

    backend = "mpi"

    def __init__(self, comm: Any, timeout_s: float, global_ranks: Sequence[int]) -> None:
        self.comm = comm
        self._size = int(comm.Get_size())  # a communicator's size never changes
        self.timeout_s = timeout_s
        self.global_ranks = list(global_ranks)  # group rank -> COMM_WORLD rank
        self.nccl: Any = None  # the NCCL communicator of a group opened with "nccl" (CUDA tensors)
        # the shape exchange before each collective costs one small round trip (tens of microseconds;
        # it matters for messages under a few MB); TYPEDTENSOR_DISTRIBUTED_CHECK_SHAPES=0 skips it
        self.check_shapes = os.environ.get("TYPEDTENSOR_DISTRIBUTED_CHECK_SHAPES", "1") != "0"
        # (shape, dtype) of the checked tensors -> the header exchange's buffers: this rank's header,
        # what every rank receives when all agree, and the receive buffer (reused: a group's
        # collectives run one at a time, in the same order on every rank)
        self._headers: dict[Any, tuple[array.array[int], array.array[int], array.array[int]]] = {}
        self._in_place = _mpi().IN_PLACE
        self.mpi_sum = _mpi().SUM
        _WATCHDOG.start()  # here, so that the collectives need not ask

    def rank(self) -> int:
        return int(self.comm.Get_rank())

    def size(self) -> int:
        return self._size

    def group_rank(self, global_rank: int) -> int:
        try:
            return self.global_ranks.index(global_rank)
        except ValueError:
            raise ValueError(f"global rank {global_rank} is not in the group {self.global_ranks}") from None

    # ---- helpers --------------------------------------------------------------------------------

    def blocking(self, what: str, call: Callable[[], Any]) -> Any:
        key = _WATCHDOG.enter(what, self.timeout_s, self.comm)
        try:
            return call()
        finally:
            _WATCHDOG.leave(key)

    def collective(self, what: str, tensors: Sequence[_Tensor], call: Callable[[], Any]) -> Any:
        """``check_same`` then the MPI call ``call()``, under one watchdog entry (NOTE [ The shape
        check before a collective ])."""
        key = _WATCHDOG.enter(what, self.timeout_s, self.comm)
        try:
            if self.check_shapes and tensors:
                self._exchange_headers(what, tensors)
            return call()
        finally:
            _WATCHDOG.leave(key)

    def all_reduce_in_place(self, what: str, t: _Tensor, op: Any) -> None:
        """The blocking all-reduce of one contiguous CPU tensor, in place: ``collective`` and the
        watchdog's ``enter``/``leave`` written out for the most common call. Between two 1 MB
        all-reduces the Python before the data call runs with cold caches, and each function call
        on that path showed in the time of the call: every rank waits for the slowest one's
        Python (measured against mpi4py on two processes: docs/benchmarks.md).

        NOTE [ The shape check before a collective ]
        The headers go first, in a collective of their own, and the data only once they agree:
        MPI requires every rank to pass the same element count to a collective, and ranks that do
        not are erroneous MPI (MPICH may truncate, hang or write past a buffer), so the data call
        cannot start before the counts are known equal, and an error raised after the data call
        would leave the tensors already overwritten. The exchange is one fixed-size Allgather of
        buffers kept per (shape, dtype) (about a microsecond of MPI and as much Python; the buffers
        and the expected answer are built once per shape); the data call after it is the same
        blocking MPI call mpi4py makes. Overlapping the exchange with the data was measured and
        does not pay: a count check must still finish first (a round trip of the same cost as the
        whole header's), and the non-blocking shape exchange beside the data adds a request and a
        wait (``benchmarks/distributed.py check-designs``; docs/benchmarks.md). Where the check is
        provably redundant it is skipped: DistributedDataParallel checks every parameter's shape
        once at construction, and its buckets, laid out from those shapes alike on every rank, go
        to MPI unchecked.
        ``TYPEDTENSOR_DISTRIBUTED_CHECK_SHAPES=0`` turns the check off.
        """
        key = next(_WATCHDOG.keys)
        waits = _WATCHDOG.waits
        waits[key] = (what, time.monotonic() + self.timeout_s, self.comm)
        try:
            if self.check_shapes:
                slot = self._headers.get((t.shape, t.dtype))
                if slot is None:
                    slot = self._header_buffers((t,))
                self.comm.Allgather(slot[0], slot[2])
                if slot[2] != slot[1]:
                    self._mismatch(what, (t,), slot[2])
            self.comm.Allreduce(self._in_place, t, op)
        finally:
            waits.pop(key, None)

    def check_same(self, what: str, tensors: Sequence[_Tensor]) -> None:
        """Exchanges each tensor's dtype and shape first: a mismatch is an error on every rank, not
        a crash or a hang inside MPI."""
        if self.check_shapes and tensors:
            self.blocking(what, lambda: self._exchange_headers(what, tensors))

    def _header_buffers(self, tensors: Sequence[_Tensor]) -> tuple[array.array[int], array.array[int], array.array[int]]:
        """The exchange's buffers for these tensors' shapes and dtypes (made once per shape)."""
        key = (tensors[0].shape, tensors[0].dtype) if len(tensors) == 1 else tuple((t.shape, t.dtype) for t in tensors)
        slot = self._headers.get(key)
        if slot is None:
            mine = array.array("q", [x for t in tensors for x in _header(t)])
            slot = (mine, mine * self._size, array.array("q", bytes(8 * len(mine) * self._size)))
            if len(self._headers) >= 256:  # a program of ever-changing shapes: start afresh
                self._headers.clear()
            self._headers[key] = slot
        return slot

    def _exchange_headers(self, what: str, tensors: Sequence[_Tensor]) -> None:
        mine, expected, got = self._header_buffers(tensors)
        self.comm.Allgather(mine, got)
        if got != expected:
            self._mismatch(what, tensors, got)

    def _mismatch(self, what: str, tensors: Sequence[_Tensor], got: array.array[int]) -> None:
        """Raises the error for headers that differ (the same on every rank: every rank received the
        same headers)."""
        size = self._size
        everyone = np.asarray(got, dtype=np.int64).reshape(size, -1)
        width = 2 + _HEADER_DIMS
        codes = {v: k for k, v in _DTYPE_CODES.items()}
        for i in range(len(tensors)):
            cols = everyone[:, i * width : (i + 1) * width]
            shapes = [tuple(int(x) for x in row[2 : 2 + min(int(row[1]), _HEADER_DIMS)]) for row in cols]
            dtypes = [codes.get(int(row[0]), "?") for row in cols]
            msg = shape_mismatch(what, shapes, dtypes)
            if msg is not None:
                raise ValueError(msg)
        raise ValueError(f"{what}: tensor shapes differ between ranks")

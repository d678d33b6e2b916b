"""``DataLoader``: torch's loader — samplers, batch samplers, collation, and worker processes.

With ``num_workers=0`` batches are built in the calling process. With ``num_workers > 0`` the main
process draws the indices (so the order is the sampler's whatever the number of workers), sends
each batch's indices to one worker in turn, keeps ``prefetch_factor`` batches per worker in flight,
and returns the batches in order; workers hand batches back through shared memory
(NOTE [ Batches through shared memory ] in ``_shm.py``). A worker's exception is re-raised in the
main process with the worker's traceback; a worker that dies, or a batch that takes longer than
``timeout`` seconds, raises ``RuntimeError``. Workers are stopped and joined when an epoch ends
(or, with ``persistent_workers``, when the loader is freed), when iteration stops early, and when
an exception or Ctrl-C leaves the loop: no worker or zombie outlives its loader.

``pin_memory`` is accepted; typedtensor has no page-locked host memory, so it changes nothing (on a
machine without an accelerator torch warns about it; typedtensor warns the same way).
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import math
import multiprocessing
import os
import queue
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from typedtensor._runtime import _C
from typedtensor.data import _shm
from typedtensor.data._worker import ExceptionWrapper, IterableStop, Resume, make_fetcher, worker_loop
from typedtensor.data.collate import default_collate, default_convert
from typedtensor.data.dataset import Dataset, IterableDataset, TensorDataset
from typedtensor.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

T_co = TypeVar("T_co", covariant=True)

__all__ = ["DataLoader", "default_collate", "default_convert"]

_STATUS_CHECK_INTERVAL = 0.5  # seconds between liveness checks while waiting for a batch
_LIVE_PREFIXES: set[str] = set()


@atexit.register
def _sweep_at_exit() -> None:
    for prefix in list(_LIVE_PREFIXES):
        _shm.sweep(prefix)


class _InfiniteConstantSampler(Sampler[None]):
    """An iterable dataset's sampler: ``None`` forever (the dataset decides when it ends)."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


class DataLoader(Generic[T_co]):
    """Batches of a dataset, optionally shuffled, built in this process or in worker processes.

    ``seed`` (typedtensor's shortcut) seeds the shuffling generator; ``generator`` takes a
    ``numpy.random.Generator``; without either, shuffling follows ``tt.manual_seed``."""

    def __init__(
        self,
        dataset: Dataset[T_co] | Sequence[T_co],
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler[Any] | Iterable[Any] | None = None,
        batch_sampler: Sampler[list[Any]] | Iterable[list[Any]] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], Any] | None = None,
        multiprocessing_context: Any = None,
        generator: Any = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
        seed: int | None = None,
    ) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable "
                "multiprocessing, otherwise set prefetch_factor to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0):
            raise ValueError(f"batch_size should be a positive integer value or None, but got batch_size={batch_size!r}")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)

        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but got batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if generator is None and seed is not None:
            generator = np.random.default_rng(seed)
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.shuffle = shuffle
        self.collate_fn = collate_fn if collate_fn is not None else (default_collate if batch_sampler is not None else default_convert)
        self._default_collate = collate_fn is None
        self._iterator: _MultiProcessIter | None = None
        if pin_memory and not _accelerator_available():
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device pinned memory won't be used.",
                stacklevel=2,
            )

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Iterable[Any]:
        return self.batch_sampler if self.batch_sampler is not None else self.sampler

    def __iter__(self) -> Iterator[Any]:
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if self.persistent_workers:
            if self._iterator is None or self._iterator._shutdown:
                self._iterator = _MultiProcessIter(self)
            else:
                self._iterator._reset(first=False)
            return self._iterator
        return _MultiProcessIter(self)

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
            return n
        return len(self._index_sampler)  # type: ignore[arg-type]


def _accelerator_available() -> bool:
    from typedtensor._runtime import cuda

    return cuda.is_available()


class _SingleProcessIter:
    def __init__(self, loader: DataLoader[Any]) -> None:
        self._loader = loader
        self._sampler_iter = iter(loader._index_sampler)
        self._fetcher = make_fetcher(loader._iterable, loader.dataset, loader._auto_collation, loader.collate_fn, loader.drop_last)
        ds = loader.dataset
        self._tensor_rows = loader._default_collate and loader._auto_collation and type(ds) is TensorDataset

    def __iter__(self) -> _SingleProcessIter:
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def __next__(self) -> Any:
        index = next(self._sampler_iter)
        if self._tensor_rows:
            # the same batch as stacking each sample's rows: one gather per tensor
            idx = _C.tensor(index, dtype=_C.int64)
            return [t.index_select(0, idx) for t in self._loader.dataset.tensors]  # type: ignore[union-attr]
        return self._fetcher.fetch(index)


class _MultiProcessIter:
    """The worker processes of one loader, and the batches in flight between them and the caller."""

    def __init__(self, loader: DataLoader[Any]) -> None:
        self._loader = loader
        self._num_workers = loader.num_workers
        self._prefetch = loader.prefetch_factor or 2
        self._timeout = loader.timeout
        self._persistent = loader.persistent_workers
        self._shutdown = False
        self._epoch = 0
        self._prefix = _shm.new_prefix()
        self._receiver = _shm.Receiver()
        _LIVE_PREFIXES.add(self._prefix)
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = multiprocessing.get_context()
        elif isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        self._data_queue = ctx.Queue()
        self._done_event = ctx.Event()
        base_seed = int(_C.randint(0, 2**62, (1,)).item())
        self._index_queues = []
        self._workers = []
        try:
            for i in range(self._num_workers):
                index_queue = ctx.Queue()
                index_queue.cancel_join_thread()
                w = ctx.Process(
                    target=worker_loop,
                    args=(
                        loader._iterable, loader.dataset, index_queue, self._data_queue, self._done_event,
                        loader._auto_collation, loader.collate_fn, loader.drop_last, base_seed, loader.worker_init_fn,
                        i, self._num_workers, self._prefix, os.getpid(),
                    ),
                    daemon=True,
                )
                w.start()
                self._index_queues.append(index_queue)
                self._workers.append(w)
        except BaseException:
            self._shutdown_workers()
            raise
        self._reset(first=True)

    def __iter__(self) -> _MultiProcessIter:
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def _reset(self, first: bool) -> None:
        self._sampler_iter = iter(self._loader._index_sampler)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info: dict[int, tuple[Any, ...]] = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first:  # persistent workers: start the next epoch, dropping what the last one left in flight
            self._epoch += 1
            for q in self._index_queues:
                q.put(Resume(self._epoch))
            pending = self._num_workers
            while pending:
                _, _, data = self._get_data()
                if isinstance(data, Resume) and data.epoch == self._epoch:
                    pending -= 1
                elif isinstance(data, _shm.Packed):
                    self._receiver.discard(data)
        for _ in range(self._prefetch * self._num_workers):
            self._try_put_index()

    def _return_segments(self) -> None:
        """Tell each worker which of its segments the caller has let go of (their tensors are gone)."""
        for worker, name in self._receiver.drain():
            if self._workers[worker].is_alive():
                self._index_queues[worker].put(_shm.FreeSegment(name))

    def _try_put_index(self) -> None:
        self._return_segments()
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker = next(self._worker_cycle)
            if self._workers_status[worker]:
                break
        else:
            return
        self._index_queues[worker].put((self._epoch, self._send_idx, index))
        self._task_info[self._send_idx] = (worker,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _get_data(self) -> tuple[int, int, Any]:
        """The next message from the workers; raises if a worker died or ``timeout`` passed."""
        start = time.monotonic()
        while True:
            wait = _STATUS_CHECK_INTERVAL
            if self._timeout > 0:
                left = self._timeout - (time.monotonic() - start)
                if left <= 0:
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
                wait = min(wait, left)
            try:
                msg: tuple[int, int, Any] = self._data_queue.get(timeout=wait)
                return msg
            except queue.Empty:
                dead = [w for w in self._workers if not w.is_alive()]
                if dead:
                    pids = ", ".join(str(w.pid) for w in dead)
                    codes = ", ".join(str(w.exitcode) for w in dead)
                    self._shutdown_workers()
                    raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly (exit code(s) {codes})") from None

    def __next__(self) -> Any:
        try:
            return self._next()
        except StopIteration:
            raise
        except BaseException:  # a worker's error, a timeout, Ctrl-C: the workers go now, not at garbage collection
            self._shutdown_workers()
            raise

    def _next(self) -> Any:
        while True:
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None and (len(info) == 2 or self._workers_status[info[0]]):
                    break
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process(info[1])
            if self._shutdown:
                raise RuntimeError("DataLoader: its workers were shut down")
            epoch, idx, data = self._get_data()
            if epoch != self._epoch or isinstance(data, Resume):  # left over from an earlier epoch
                if isinstance(data, _shm.Packed):
                    self._receiver.discard(data)
                continue
            self._tasks_outstanding -= 1
            if isinstance(data, IterableStop):
                self._workers_status[data.worker_id] = False
                self._try_put_index()
                continue
            if isinstance(data, _shm.Packed):
                data = self._receiver.unpack(data)
            if idx != self._rcvd_idx:
                self._task_info[idx] += (data,)
                continue
            del self._task_info[idx]
            self._rcvd_idx += 1
            return self._process(data)

    def _process(self, data: Any) -> Any:
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _shutdown_workers(self) -> None:
        if self._shutdown:
            return
        self._shutdown = True
        try:
            self._done_event.set()
            for q in self._index_queues:
                with contextlib.suppress(OSError, ValueError):  # a queue a dead worker broke
                    q.put(None)
            deadline = time.monotonic() + 2.0
            for w in self._workers:
                w.join(timeout=max(0.0, deadline - time.monotonic()))
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                w.join()
            for q in self._index_queues:
                q.close()
            self._data_queue.cancel_join_thread()
            self._data_queue.close()
        finally:
            self._receiver.close()
            _shm.sweep(self._prefix)
            _LIVE_PREFIXES.discard(self._prefix)

    def __del__(self) -> None:
        if not getattr(self, "_shutdown", True):
            with contextlib.suppress(Exception):  # at interpreter exit the modules it needs may be gone
                self._shutdown_workers()

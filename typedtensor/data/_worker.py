"""The DataLoader's worker processes: fetch, collate, hand the batch over shared memory.

A worker takes ``(epoch, task, indices)`` from its index queue, builds the batch with the dataset
and the collate function, and puts ``(epoch, task, Packed)`` on the shared result queue
(NOTE [ Batches through shared memory ] in ``_shm.py``). An exception becomes an ``ExceptionWrapper``
that the main process re-raises with the worker's traceback. ``None`` on the index queue ends the
worker; a ``Resume`` (persistent workers, next epoch) restarts an iterable dataset's stream.
A worker ignores SIGINT (Ctrl-C in a terminal reaches the whole process group: the main process
handles it and stops the workers) and exits by itself if its parent disappears.
"""

from __future__ import annotations

import functools
import os
import pickle
import queue
import random
import signal
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from typedtensor.data import _shm

_STATUS_CHECK_INTERVAL = 1.0  # seconds between checks that the parent is alive


class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker: its ``id``, ``num_workers``, ``seed``, ``dataset``."""

    __initialized = False

    def __init__(self, **kwargs: Any) -> None:
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs)
        self.__initialized = True

    def __setattr__(self, key: str, val: Any) -> None:
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")
        super().__setattr__(key, val)

    def __repr__(self) -> str:
        items = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{type(self).__name__}({items})"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker: its ``WorkerInfo``; in the main process: ``None``."""
    return _worker_info


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process with its traceback."""

    def __init__(self, exc_info: tuple[Any, Any, Any], where: str) -> None:
        exc_type = exc_info[0]
        try:
            pickle.loads(pickle.dumps(exc_type))
        except Exception:
            exc_type = RuntimeError
        self.exc_type: type[BaseException] = exc_type
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self) -> None:
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            raise KeyError(_KeyErrorMessage(msg))
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    """KeyError quotes its argument when printed; this keeps the traceback readable."""

    def __repr__(self) -> str:
        return str(self)


@dataclass(frozen=True)
class IterableStop:
    """A worker's iterable dataset is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class Resume:
    """Persistent workers: a new epoch begins (the worker acknowledges with the same object)."""

    epoch: int


class _MapFetcher:
    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Callable[[Any], Any], drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn

    def fetch(self, index: Any) -> Any:
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            data = getitems(index) if getitems else [self.dataset[i] for i in index]
        else:
            data = self.dataset[index]
        return self.collate_fn(data)


class _IterableFetcher:
    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Callable[[Any], Any], drop_last: bool) -> None:
        self.iterator: Iterator[Any] = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, index: Any) -> Any:
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in index:
                try:
                    data.append(next(self.iterator))
                except StopIteration:
                    self.ended = True
                    break
            if not data or (self.drop_last and len(data) < len(index)):
                raise StopIteration
        else:
            data = next(self.iterator)
        return self.collate_fn(data)


def make_fetcher(iterable: bool, dataset: Any, auto_collation: bool, collate_fn: Callable[[Any], Any], drop_last: bool) -> Any:
    cls = _IterableFetcher if iterable else _MapFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)


def _seed_everything(seed: int) -> None:
    import typedtensor as tt

    random.seed(seed)
    tt.manual_seed(seed)
    np.random.seed(seed % 2**32)


def worker_loop(
    iterable: bool, dataset: Any, index_queue: Any, data_queue: Any, done_event: Any, auto_collation: bool,
    collate_fn: Callable[[Any], Any], drop_last: bool, base_seed: int, init_fn: Callable[[int], Any] | None,
    worker_id: int, num_workers: int, shm_prefix: str, parent_pid: int,
) -> None:
    global _worker_info
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import typedtensor as tt

        tt.set_num_threads(1)  # the workers share the cores; the main process keeps its threads
        seed = base_seed + worker_id
        _seed_everything(seed)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        from typedtensor.data.collate import collate_with, default_collate

        if collate_fn is default_collate:  # stack each batch straight into its shared segment
            collate_fn = functools.partial(collate_with, stack=_shm.defer_stack)
        init_error: ExceptionWrapper | None = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_error = ExceptionWrapper(sys.exc_info(), f"in DataLoader worker process {worker_id}")
        ended = False
        pool = _shm.SegmentPool(f"{shm_prefix}_{worker_id}")
        while os.getppid() == parent_pid:
            try:
                task = index_queue.get(timeout=_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if task is None:
                break
            if isinstance(task, _shm.FreeSegment):
                pool.release(task.name)
                continue
            if isinstance(task, Resume):
                if iterable and init_error is None:
                    fetcher = make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
                ended = False
                data_queue.put((task.epoch, -1, task))
                continue
            if done_event.is_set() or ended:
                continue
            epoch, idx, index = task
            result: Any
            if init_error is not None:
                result, init_error = init_error, None
            else:
                try:
                    batch = fetcher.fetch(index)  # type: ignore[union-attr]
                    result = _shm.pack(batch, pool, worker_id)
                except StopIteration:
                    if not iterable:
                        raise
                    result, ended = IterableStop(worker_id), True
                except Exception:
                    result = ExceptionWrapper(sys.exc_info(), f"in DataLoader worker process {worker_id}")
            data_queue.put((epoch, idx, result))
        pool.close()
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()

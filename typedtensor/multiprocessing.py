"""``typedtensor.multiprocessing``: Python's ``multiprocessing`` with torch's additions.

A tensor sent to another process is pickled, which copies its data (typedtensor has no shared-memory
tensor storage to hand over; the DataLoader's workers use shared-memory blocks of their own). The
sharing-strategy calls are accepted for the programs that set them. ``spawn`` starts ``nprocs``
processes running ``fn(i, *args)`` and, with ``join``, waits for them and raises if one failed.

Where MPI is installed (the ``distributed`` extra), ``spawn`` (and ``start_processes`` with the
``"spawn"`` start method) starts the processes through MPI's launcher, as the ranks of one MPI job:
``fn`` calling ``init_process_group("gloo", rank=i, world_size=nprocs)`` then opens one process group,
as torch's spawned programs expect (``typedtensor.distributed._spawn`` says how). Processes from
``multiprocessing.Process`` are each an MPI world of one and cannot form a group.
"""

from __future__ import annotations

import multiprocessing as _mp
import os
from collections.abc import Callable
from multiprocessing import *  # noqa: F403  (torch.multiprocessing re-exports the standard module)
from typing import Any

__all__ = [
    "ProcessExitedException", "ProcessRaisedException", "get_all_sharing_strategies", "get_sharing_strategy",
    "set_sharing_strategy", "spawn", "start_processes",
]
__all__ += _mp.__all__

_STRATEGIES = {"file_descriptor", "file_system"}
_strategy = "file_descriptor"


def get_all_sharing_strategies() -> set[str]:
    return set(_STRATEGIES)


def get_sharing_strategy() -> str:
    return _strategy


def set_sharing_strategy(new_strategy: str) -> None:
    global _strategy
    if new_strategy not in _STRATEGIES:
        raise ValueError(f"unknown sharing strategy {new_strategy!r}; expected one of {sorted(_STRATEGIES)}")
    _strategy = new_strategy


class ProcessRaisedException(Exception):
    """A spawned process raised; the message holds its traceback."""

    def __init__(self, msg: str, error_index: int, error_pid: int | None) -> None:
        super().__init__(msg)
        self.error_index = error_index
        self.pid = error_pid


class ProcessExitedException(Exception):
    """A spawned process exited with a non-zero code without raising."""

    def __init__(self, msg: str, error_index: int, error_pid: int | None, exit_code: int | None) -> None:
        super().__init__(msg)
        self.error_index = error_index
        self.pid = error_pid
        self.exit_code = exit_code


def _wrap(fn: Callable[..., Any], i: int, args: tuple[Any, ...], errors: Any) -> None:
    import traceback

    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        errors.put(traceback.format_exc())
        raise SystemExit(1) from None


class ProcessContext:
    """The processes ``start_processes`` started; ``join()`` waits for all of them."""

    def __init__(self, processes: list[Any], errors: list[Any]) -> None:
        self.processes = processes
        self.error_queues = errors

    def pids(self) -> list[int | None]:
        return [p.pid for p in self.processes]

    def join(self, timeout: float | None = None) -> bool:
        for p in self.processes:
            p.join(timeout)
        if any(p.is_alive() for p in self.processes):
            return False
        for i, (p, q) in enumerate(zip(self.processes, self.error_queues, strict=True)):
            if p.exitcode:
                for other in self.processes:
                    if other.is_alive():
                        other.terminate()
                if not q.empty():
                    raise ProcessRaisedException(f"\n\n-- Process {i} terminated with the following error:\n{q.get()}", i, p.pid)
                raise ProcessExitedException(f"process {i} terminated with exit code {p.exitcode}", i, p.pid, p.exitcode)
        return True


def _through_mpi() -> bool:
    """``spawn`` starts its processes as one MPI job when MPI is installed, so that the process
    group they open is one group (``typedtensor.distributed._spawn``);
    ``TYPEDTENSOR_SPAWN_MPI=0`` starts them with Python's ``multiprocessing`` instead."""
    if os.environ.get("TYPEDTENSOR_SPAWN_MPI", "1") == "0":
        return False
    from typedtensor.distributed import _spawn

    return _spawn.available()


def start_processes(
    fn: Callable[..., Any], args: tuple[Any, ...] = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None:
    without_mpi = None  # why these processes cannot be one MPI job, when spawn would have made them one
    if start_method == "spawn" and _through_mpi():
        from typedtensor.distributed import _spawn

        call = _spawn.pickled_call(fn, args)
        if isinstance(call, str):
            without_mpi = call
        else:
            return _join_mpi(_spawn.start(call, nprocs), join)
    ctx: Any = _mp.get_context(start_method)
    processes, errors = [], []
    if without_mpi is not None:  # the children inherit it: init_process_group's error says why
        os.environ["TYPEDTENSOR_SPAWNED_WITHOUT_MPI"] = without_mpi
    try:
        for i in range(nprocs):
            q = ctx.SimpleQueue()
            p = ctx.Process(target=_wrap, args=(fn, i, args, q), daemon=daemon)
            p.start()
            processes.append(p)
            errors.append(q)
    finally:
        if without_mpi is not None:
            os.environ.pop("TYPEDTENSOR_SPAWNED_WITHOUT_MPI", None)
    context = ProcessContext(processes, errors)
    if not join:
        return context
    while not context.join():
        pass
    return None


def _join_mpi(mpi_context: Any, join: bool) -> ProcessContext | None:
    """``spawn``'s ending for processes started as one MPI job (``typedtensor.distributed._spawn``)."""
    if not join:
        context: ProcessContext = mpi_context
        return context
    try:
        while not mpi_context.join():
            pass
    except KeyboardInterrupt:
        mpi_context.stop()
        raise
    return None


def spawn(
    fn: Callable[..., Any], args: tuple[Any, ...] = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None:
    """Run ``fn(i, *args)`` for ``i`` in ``range(nprocs)``, each in a new process."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)

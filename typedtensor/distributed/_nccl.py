"""The "nccl" backend: CUDA tensors through NCCL (libnccl.so.2 opened at run time by the compiled
module, backend/src/cuda/nccl.h), the processes joined through MPI.

MPI still starts and connects the processes (``mpirun`` or ``typedtensor.distributed.run``): rank 0
makes NCCL's unique id and MPI broadcasts it, then every rank opens its NCCL communicator on
device ``LOCAL_RANK % device_count``. CPU tensors passed to a group opened with "nccl" still go
through MPI (torch's "cpu:gloo,cuda:nccl"). NCCL calls are ordered on the CUDA backend's stream, so
an ``async_op=True`` handle is complete once that stream has run them: ``wait()`` synchronises.
"""

from __future__ import annotations

import contextlib
import os
import site
import sys
from typing import Any

from typedtensor._runtime import _C
from typedtensor.distributed._mpi import Work

__all__ = ["OPS", "NcclWork", "available", "open_comm", "status"]

# ncclRedOp_t
OPS = {"SUM": 0, "PRODUCT": 1, "MAX": 2, "MIN": 3, "AVG": 4}


def _nccl_dirs() -> list[str]:
    roots = [*sys.path]
    with contextlib.suppress(AttributeError):
        roots += [*site.getsitepackages(), site.getusersitepackages()]
    dirs: list[str] = []
    for root in roots:
        for sub in (("nvidia", "nccl", "lib"), ("nvidia", "cu13", "lib")):
            d = os.path.join(root, *sub)
            if os.path.isdir(d) and d not in dirs:
                dirs.append(d)
    return dirs


def available() -> bool:
    """True when this build has CUDA, a device is present and libnccl.so.2 loads."""
    if not _C._cuda_compiled() or _C._cuda_device_count() == 0:
        return False
    _C._nccl_set_search_path(os.pathsep.join(_nccl_dirs()))
    return bool(_C._nccl_available())


def status() -> str:
    if not _C._cuda_compiled():
        return "typedtensor was built without CUDA"
    if _C._cuda_device_count() == 0:
        return "no CUDA device"
    _C._nccl_set_search_path(os.pathsep.join(_nccl_dirs()))
    return str(_C._nccl_status())


def open_comm(mpi_comm: Any) -> Any:
    """A communicator over the processes of ``mpi_comm``, one CUDA device each."""
    if not available():
        raise RuntimeError(f"init_process_group: the 'nccl' backend is not available: {status()}")
    uid = _C._nccl_unique_id() if mpi_comm.Get_rank() == 0 else None
    uid = mpi_comm.bcast(uid, root=0)
    local = int(os.environ.get("LOCAL_RANK", mpi_comm.Get_rank()))
    return _C._NcclComm(uid, mpi_comm.Get_size(), mpi_comm.Get_rank(), local % _C._cuda_device_count())


class NcclWork(Work):
    """An ``async_op=True`` handle of an NCCL call: done when the CUDA stream has run it."""

    def __init__(self, then: Any = None) -> None:
        super().__init__([], "nccl", 0.0, None)
        self._then = then
        self._done = False

    def wait(self, timeout: Any = None) -> bool:
        if not self._done:
            _C._cuda_synchronize()
            if self._then is not None:
                self._then()
            self._done = True
        return True

    def is_completed(self) -> bool:
        return self.wait()

    def is_success(self) -> bool:
        return self.wait()

    def test(self) -> bool:
        return self.wait()

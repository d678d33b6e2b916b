"""typedtensor.distributed in one process, without a launcher: errors before init, the backend
names, the shape-mismatch message, and a world size that MPI does not have."""

from __future__ import annotations

import sys
from typing import Any

import pytest

import typedtensor.distributed as dist
from typedtensor.distributed._mpi import shape_mismatch

from .helpers import PROGRAMS, run


def test_queries_before_init_raise_as_torch() -> None:
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="has not been initialized"):
        dist.get_rank()
    with pytest.raises(ValueError, match="has not been initialized"):
        dist.get_world_size()
    with pytest.raises(ValueError, match="has not been initialized"):
        dist.all_reduce(None)  # type: ignore[arg-type]


def test_availability() -> None:
    from typedtensor._runtime import _C

    assert dist.is_available() and dist.is_mpi_available()
    if _C._cuda_device_count() == 0:
        assert not dist.is_nccl_available()


def test_default_backend_for_device_is_torchs() -> None:
    import typedtensor as tt

    assert dist.get_default_backend_for_device("cpu") == dist.get_default_backend_for_device(tt.device("cpu")) == "gloo"
    assert dist.get_default_backend_for_device("cuda:1") == "nccl"
    with pytest.raises(ValueError, match="Default backend not registered for device : mps"):
        dist.get_default_backend_for_device("mps")
    assert dist.is_gloo_available()  # "gloo" names the MPI group on CPUs


def test_nccl_and_unknown_backends_are_clear_errors() -> None:
    from typedtensor._runtime import _C

    if _C._cuda_device_count() == 0:
        with pytest.raises(RuntimeError, match="'nccl' backend is not available: "):
            dist.init_process_group("nccl")
    with pytest.raises(ValueError, match="unknown backend 'ucc'"):
        dist.init_process_group("ucc")
    assert not dist.is_initialized()


def test_shape_mismatch_names_the_dim_and_the_ranks() -> None:
    assert shape_mismatch("all_reduce", [(2, 3), (2, 3)], ["float32"] * 2) is None
    msg = shape_mismatch("all_reduce", [(2, 3), (2, 3), (2, 5)], ["float32"] * 3)
    assert msg is not None and "dim 1 is 3 on rank 0 and 5 on rank 2" in msg
    msg = shape_mismatch("broadcast", [(2, 3), (2,)], ["float32"] * 2)
    assert msg is not None and "rank 0 has 2 dims, rank 1 has 1" in msg
    msg = shape_mismatch("broadcast", [(2,), (2,)], ["float32", "int64"])
    assert msg is not None and "dtypes differ" in msg


def test_world_size_without_a_launcher_is_explained() -> None:
    proc = run([sys.executable, str(PROGRAMS / "env.py")], WORLD_SIZE="2")
    assert proc.returncode != 0
    assert "WORLD_SIZE is 2 but the MPI job has 1 processes" in proc.stderr
    assert "mpirun -n N" in proc.stderr and "typedtensor.multiprocessing.spawn" in proc.stderr


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 6, 1024])
def test_divide_by_the_world_size_is_division_bit_for_bit(dtype: str, n: int) -> None:
    """AVG's and DDP's division by the world size: a multiplication by 1/n for a power of two
    must give exactly the bits of a division (and a division otherwise)."""
    import numpy as np

    import typedtensor as tt

    rng = np.random.default_rng(n)
    span = 4 if dtype == "float16" else 30
    a = (rng.standard_normal(20_000) * 10.0 ** rng.uniform(-span, span, 20_000)).astype(dtype)
    a[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, np.finfo(dtype).tiny / 3]
    got, want = tt.tensor(a.copy()), tt.tensor(a.copy())
    dist._divide_in_place(got, n)
    want.div_(n)
    assert got.numpy().tobytes() == want.numpy().tobytes()
    np.testing.assert_array_equal(want.numpy(), a / np.array(n, dtype=dtype))


class _RecordingComm:
    """Stands in for a communicator: ``Abort`` records how much of the output pipe was still unread."""

    def __init__(self, unread: Any) -> None:
        self.unread = unread
        self.aborted: list[tuple[int, int]] = []

    def Abort(self, code: int) -> None:  # mpi4py's name
        self.aborted.append((code, self.unread()))


def test_abort_waits_until_the_launcher_has_read_the_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a failing rank wrote just before MPI_Abort must have left its stderr pipe when the job
    is killed (a loaded machine lost a traceback after its first line): the abort waits until the
    reader has taken everything. The reader here starts late, after the abort was called."""
    import array
    import fcntl
    import os
    import termios
    import threading

    from typedtensor.distributed._mpi import abort

    read_end, write_end = os.pipe()
    stream = os.fdopen(write_end, "w")
    monkeypatch.setattr(sys, "stderr", stream)
    got: list[bytes] = []

    def unread() -> int:
        n = array.array("i", [0])
        fcntl.ioctl(read_end, termios.FIONREAD, n)
        return n[0]

    def reader() -> None:
        threading.Event().wait(0.3)
        while chunk := os.read(read_end, 65536):
            got.append(chunk)
            if b"the last line" in b"".join(got):
                return

    message = "".join(f"line {i} of the traceback\n" for i in range(2000)) + "the last line\n"
    stream.write(message)  # under the pipe's 64 KB: the write does not wait for the reader
    comm = _RecordingComm(unread)
    thread = threading.Thread(target=reader)
    thread.start()
    try:
        abort(comm, 7, limit_s=30)
    finally:
        thread.join()
        stream.close()
        os.close(read_end)
    assert comm.aborted == [(7, 0)]
    assert b"".join(got).decode() == message


def test_ddp_checks_the_module_and_devices_as_torch() -> None:
    """A CUDA program's ``DDP(model, device_ids=[rank])`` run on a CPU model is torch's ValueError,
    as is a device list of several; a module with nothing to train is torch's RuntimeError."""
    from typedtensor import nn
    from typedtensor.nn.parallel import DistributedDataParallel as DDP

    with pytest.raises(ValueError, match=r"device_ids and output_device arguments only work with .* device_ids \[0\]"):
        DDP(nn.Linear(2, 2), device_ids=[0])
    with pytest.raises(ValueError, match="output_device"):
        DDP(nn.Linear(2, 2), output_device=1)
    with pytest.raises(ValueError, match="device_ids can only be None or contain a single element"):
        DDP(nn.Linear(2, 2), device_ids=[0, 1])
    with pytest.raises(RuntimeError, match="not needed when a module doesn't have any parameter that requires a grad"):
        DDP(nn.ReLU())
    frozen = nn.Linear(2, 2).requires_grad_(False)
    with pytest.raises(RuntimeError, match="not needed"):
        DDP(frozen)
    with pytest.raises(RuntimeError, match="init_process_group first"):  # the CPU spelling passes the checks
        DDP(nn.Linear(2, 2), device_ids=None)

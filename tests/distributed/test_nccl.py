"""The nccl backend: compiled in every CUDA build, run where a GPU and libnccl.so.2 are present
(world size 1 on one GPU, through MPI's world of one; more ranks where there are more GPUs)."""

from __future__ import annotations

import sys

import pytest

import typedtensor.distributed as dist
from typedtensor._runtime import _C

from .helpers import PROGRAMS, mpirun, per_rank, run


def test_the_nccl_bindings_exist_in_every_build() -> None:
    assert callable(_C._nccl_available) and callable(_C._nccl_status)
    if not _C._cuda_compiled():
        assert not _C._nccl_available()


@pytest.mark.cuda
@pytest.mark.skipif(not dist.is_nccl_available(), reason="needs a CUDA device and libnccl.so.2 (nvidia-nccl wheel)")
def test_nccl_collectives_on_one_gpu() -> None:
    proc = run([sys.executable, str(PROGRAMS / "nccl.py")])
    for r in per_rank(proc, 1):
        assert r["results"]["nccl"] == "ok", r["results"]["nccl"]


@pytest.mark.cuda
@pytest.mark.skipif(not dist.is_nccl_available() or _C._cuda_device_count() < 2, reason="needs two GPUs")
def test_nccl_collectives_on_two_gpus() -> None:
    for r in per_rank(mpirun(2, "nccl.py"), 2):
        assert r["results"]["nccl"] == "ok", r["results"]["nccl"]

"""What MPI's process managers (MPICH's Hydra, Open MPI, PMIx) tell a process about its place in
the job, read from the environment without initialising MPI, and torchrun's variables made from it.

A module of its own, imported by the package: ``_rank_main`` and ``_spawn`` run as ``python -m``
and must not be imported by the package first (runpy warns of a module run after its import)."""

from __future__ import annotations

import os

__all__ = ["local_rank_from_env", "mpi_rank_from_env", "set_torchrun_env_from_mpi"]


def mpi_rank_from_env() -> int | None:
    """The rank MPI's process manager put in the environment (MPICH's Hydra, Open MPI, PMIx)."""
    for name in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"):
        v = os.environ.get(name)
        if v not in (None, ""):
            return int(v)
    return None


def local_rank_from_env() -> int | None:
    """The rank on this machine, where MPI's process manager says it (MPICH's Hydra, Open MPI)."""
    for name in ("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK"):
        v = os.environ.get(name)
        if v not in (None, ""):
            return int(v)
    return None


def _first_int(*names: str) -> int | None:
    for name in names:
        v = os.environ.get(name)
        if v not in (None, ""):
            return int(v)
    return None


def set_torchrun_env_from_mpi() -> None:
    """In a process MPI's launcher started (``mpirun -n N python prog.py``), the variables torchrun
    would have set and that programs read before ``init_process_group`` (``RANK``, ``WORLD_SIZE``,
    ``LOCAL_RANK``, ``LOCAL_WORLD_SIZE``, and torchrun's defaults ``MASTER_ADDR=127.0.0.1``,
    ``MASTER_PORT=29500``), each only where unset; nothing in a process no MPI launcher started."""
    rank = mpi_rank_from_env()
    size = _first_int("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE")
    if rank is None or size is None:
        return
    local = local_rank_from_env()
    local_size = _first_int("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE")
    for var, value in (
        ("RANK", rank), ("WORLD_SIZE", size), ("LOCAL_RANK", rank if local is None else local),
        ("LOCAL_WORLD_SIZE", size if local_size is None else local_size), ("MASTER_ADDR", "127.0.0.1"),
        ("MASTER_PORT", 29500),
    ):
        os.environ.setdefault(var, str(value))

"""One rank of ``typedtensor.distributed.run``: sets torchrun's per-process variables from the rank
MPI's launcher gave this process, then runs the training script as ``__main__``.

    python -m typedtensor.distributed._rank_main [-m | --no-python] script [args...]
"""

from __future__ import annotations

import os
import runpy
import sys

__all__ = ["local_rank_from_env", "main", "mpi_rank_from_env", "set_torchrun_env_from_mpi"]


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


def main(argv: list[str]) -> int:
    mode = "path"
    if argv and argv[0] in ("-m", "--no-python"):
        mode = argv.pop(0)
    if not argv:
        sys.stderr.write("usage: python -m typedtensor.distributed._rank_main [-m | --no-python] script [args...]\n")
        return 2
    rank = mpi_rank_from_env()
    if rank is None:
        sys.stderr.write("typedtensor.distributed.run: this process was not started by MPI's launcher (no PMI_RANK)\n")
        return 2
    local = local_rank_from_env()
    os.environ["RANK"] = os.environ["ROLE_RANK"] = str(rank)
    os.environ["LOCAL_RANK"] = str(rank if local is None else local)
    script, rest = argv[0], argv[1:]
    if mode == "--no-python":
        os.execvp(script, [script, *rest])
    sys.argv = [script, *rest]
    try:
        if mode == "-m":
            runpy.run_module(script, run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
            runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        # a rank leaving with an error while others may wait in a collective: end the job (an
        # exception is handled by the excepthook init_process_group installs)
        if e.code not in (None, 0):
            from typedtensor import distributed

            distributed._abort_job(f"exited with status {e.code}", e.code if isinstance(e.code, int) else 1)
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""One rank of ``typedtensor.distributed.run``: sets torchrun's per-process variables from the rank
MPI's launcher gave this process, then runs the training script as ``__main__``.

    python -m typedtensor.distributed._rank_main [-m | --no-python] script [args...]
"""

from __future__ import annotations

import os
import runpy
import sys

from typedtensor.distributed._env import local_rank_from_env, mpi_rank_from_env

__all__ = ["main"]


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

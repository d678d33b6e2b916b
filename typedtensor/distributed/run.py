"""``python -m typedtensor.distributed.run``: torchrun's command line for one machine.

    python -m typedtensor.distributed.run --nproc-per-node 4 train.py --lr 0.1

starts 4 processes running ``train.py`` with torchrun's environment (``RANK``, ``LOCAL_RANK``,
``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``, ``GROUP_RANK``, ``MASTER_ADDR``, ``MASTER_PORT``,
``TORCHELASTIC_RUN_ID``).

Why through MPI's launcher (``mpiexec`` from the MPICH the ``distributed`` extra installs) rather than
by forking the processes here: MPI's processes find one another through the process manager that
started them; processes started any other way are each a world of one, and joining them afterwards
(MPI's ports and ``Comm_connect``) would need a rendezvous this launcher would have to invent. The
process manager also gives torchrun's failure behaviour for free: when one rank exits with an error,
``mpiexec`` ends the others and exits non-zero. Only ``--nnodes 1`` is supported: for several
machines, use ``mpiexec`` with a host file directly.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Sequence

__all__ = ["main", "mpiexec_path"]


def mpiexec_path() -> str:
    """MPI's launcher: the one beside this Python (a virtual environment's ``bin``), else on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.exists(beside):
        return beside
    found = shutil.which("mpiexec") or shutil.which("mpirun")
    if found is None:
        raise SystemExit(
            "typedtensor.distributed.run: no mpiexec found; install typedtensor's 'distributed' extra (mpi4py and MPICH)"
        )
    return found


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m typedtensor.distributed.run",
        description="Start N copies of a training script on this machine, as torchrun does (through MPI's launcher).",
    )
    p.add_argument("--nnodes", default="1", help="must be 1 (one machine)")
    p.add_argument("--nproc-per-node", "--nproc_per_node", default="1", help="the number of processes")
    p.add_argument("--node-rank", "--node_rank", type=int, default=0)
    p.add_argument("--master-addr", "--master_addr", default="127.0.0.1")
    p.add_argument("--master-port", "--master_port", type=int, default=29500)
    p.add_argument("--standalone", action="store_true", help="one machine, no rendezvous server (the only mode)")
    p.add_argument("--rdzv-backend", "--rdzv_backend", default=None)
    p.add_argument("--rdzv-endpoint", "--rdzv_endpoint", default=None)
    p.add_argument("--rdzv-id", "--rdzv_id", default=None)
    p.add_argument("--max-restarts", "--max_restarts", type=int, default=0)
    p.add_argument("-m", "--module", action="store_true", help="run the script as a module (python -m)")
    p.add_argument("--no-python", "--no_python", action="store_true", help="run the script as a program")
    p.add_argument("training_script")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def _nproc(value: str) -> int:
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    n = int(value)
    if n < 1:
        raise SystemExit(f"typedtensor.distributed.run: --nproc-per-node must be at least 1, got {n}")
    return n


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.nnodes not in ("1", "1:1"):
        raise SystemExit("typedtensor.distributed.run: only --nnodes 1 is supported; use mpiexec with a host file")
    if args.max_restarts:
        raise SystemExit("typedtensor.distributed.run: --max-restarts is not supported (a failed job is not restarted)")
    n = _nproc(args.nproc_per_node)
    env = dict(os.environ)
    env.update({
        "WORLD_SIZE": str(n), "LOCAL_WORLD_SIZE": str(n), "GROUP_RANK": "0", "ROLE_RANK": "0", "ROLE_NAME": "default",
        "MASTER_ADDR": args.master_addr, "MASTER_PORT": str(args.master_port),
        "TORCHELASTIC_RUN_ID": args.rdzv_id or uuid.uuid4().hex,
    })
    env.setdefault("OMP_NUM_THREADS", "1")  # torchrun's default with several processes per machine
    child = [sys.executable, "-m", "typedtensor.distributed._rank_main"]
    if args.module:
        child.append("-m")
    elif args.no_python:
        child.append("--no-python")
    cmd = [mpiexec_path(), "-n", str(n), *child, args.training_script, *args.training_script_args]
    proc = subprocess.Popen(cmd, env=env)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
        try:
            return proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            return proc.wait()


if __name__ == "__main__":
    sys.exit(main())

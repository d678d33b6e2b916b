"""``typedtensor.multiprocessing.spawn`` through MPI's launcher: ``fn(i, *args)`` in ``nprocs``
processes that are the ranks of one MPI job, so that ``init_process_group`` in ``fn`` joins them.

torch's most common way to start a data-parallel program on one machine is

    def main(rank, world_size):
        os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "localhost", "12355"
        dist.init_process_group("gloo", rank=rank, world_size=world_size)
        ...
    mp.spawn(main, args=(world_size,), nprocs=world_size)

Processes started by Python's ``multiprocessing`` are each an MPI world of one, and MPICH cannot join
such singletons afterwards (MPICH 5.0's ``MPI_Comm_connect`` between two singletons fails with
"Local and remote groups ... must not overlap": both are process 0 of a world 0). So ``spawn`` starts its
processes as one MPI job instead: ``mpiexec -n nprocs python -c _BOOT DIR``, where DIR holds what
Python's spawn start method would send down a pipe (the parent's
``multiprocessing.spawn.get_preparation_data``, then ``(fn, args)`` pickled). Each child prepares
itself as a spawned child does (the parent's ``sys.path``, ``sys.argv``, working directory, and the
main module imported as ``__mp_main__``), unpickles ``fn`` and calls ``fn(rank, *args)`` with its MPI
rank, which is the ``rank`` torch's program passes on to ``init_process_group``.

``fn`` and ``args`` must pickle outside a spawn: a ``multiprocessing`` Queue in ``args`` passes only
down a spawn pipe, so such a spawn starts its processes with Python's ``multiprocessing`` (each
then an MPI world of one, and ``init_process_group`` says why if it is asked for more).

A child that raises writes its traceback to DIR and ends the job (``MPI_Abort`` when it had opened
a process group with other ranks, so none is left waiting in a collective; else the parent, which
watches DIR, stops the job); the parent raises torch's ``ProcessRaisedException`` with it.
"""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from typedtensor.multiprocessing import ProcessContext, ProcessExitedException, ProcessRaisedException

__all__ = ["WITHOUT_MPI", "MpiProcessContext", "available", "pickled_call", "start"]

# what MPI's process managers put in a rank's environment: a nested launch must not see its parent's
_LAUNCHER_VARS = ("PMI_", "PMIX_", "HYDRA_", "MPI_LOCAL", "OMPI_", "MPIR_")
_CALL = "call.pkl"
_PREPARE = "prepare.pkl"
# A child's first lines: the parent's sys.path before anything of typedtensor is imported. Started
# with ``python -m typedtensor.distributed._spawn`` from a checkout of the project (the tests' working
# directory), a child imported the checkout's unbuilt ``typedtensor`` (``-m`` puts the working
# directory first on sys.path) instead of the package the parent runs.
_BOOT = (
    "import pickle, sys\n"
    f"with open(sys.argv[1] + '/{_PREPARE}', 'rb') as f:\n"
    "    sys.path[:] = pickle.load(f)['sys_path']\n"
    "from pathlib import Path\n"
    "from typedtensor.distributed._spawn import _child\n"
    "sys.exit(_child(Path(sys.argv[1])))\n"
)


def available() -> bool:
    """True when mpi4py and an ``mpiexec`` are installed (the ``distributed`` extra)."""
    import importlib.util

    from typedtensor.distributed.run import mpiexec_path

    if importlib.util.find_spec("mpi4py") is None:
        return False
    try:
        mpiexec_path()
    except SystemExit:
        return False
    return True


class MpiProcessContext(ProcessContext):
    """torch's ``ProcessContext`` for processes started as one MPI job: ``join()`` waits for the
    job and raises torch's exceptions when a process failed."""

    def __init__(self, proc: subprocess.Popen[bytes], folder: Path, nprocs: int) -> None:
        super().__init__([], [])  # the ranks are the launcher's children, not this process's
        self.launcher = proc
        self.folder = folder
        self.nprocs = nprocs

    def pids(self) -> list[int | None]:
        """The launcher's pid (the ranks are its children)."""
        return [self.launcher.pid]

    def _first_error(self) -> tuple[int, str] | None:
        found = sorted(self.folder.glob("error-*.txt"), key=lambda p: p.stat().st_mtime)
        for f in found:
            text = f.read_text()
            if text:
                return int(f.stem.split("-")[1]), text
        return None

    def join(self, timeout: float | None = None) -> bool:
        """Waits (at most ``timeout`` seconds) for every process; True when all are done. A process
        that raised stops the others and raises ``ProcessRaisedException`` with its traceback."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.launcher.poll() is None:
            if self._first_error() is not None:
                # a child raised before it could end the job itself (no process group): give it a
                # moment to exit, then stop the job as torch's spawn terminates the other processes
                try:
                    self.launcher.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    self.stop()
                break
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
        code = self.launcher.returncode
        error = self._first_error()
        shutil.rmtree(self.folder, ignore_errors=True)
        if error is not None:
            index, text = error
            raise ProcessRaisedException(f"\n\n-- Process {index} terminated with the following error:\n{text}", index, None)
        if code:
            raise ProcessExitedException(f"the processes' launcher (mpiexec) exited with code {code}", 0,
                                         self.launcher.pid, code)
        return True

    def stop(self) -> None:
        """Ends the job (the launcher passes SIGTERM on to every rank)."""
        if self.launcher.poll() is None:
            self.launcher.send_signal(signal.SIGTERM)
            try:
                self.launcher.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.launcher.kill()
                self.launcher.wait()


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_LAUNCHER_VARS)}
    # the ranks' own numbers come from MPI; a stale value from a launcher above would disagree
    for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"):
        env.pop(k, None)
    return env


# set in the children of a spawn that could not go through MPI: init_process_group's error says why
WITHOUT_MPI = "TYPEDTENSOR_SPAWNED_WITHOUT_MPI"


def pickled_call(fn: Any, args: tuple[Any, ...]) -> bytes | str:
    """``(fn, args)`` pickled for the children, or why it cannot be: objects that pass only by
    inheritance (a ``multiprocessing`` Queue, Pipe or Lock) pickle only down a spawn pipe, which
    the MPI launcher does not give (``spawn`` then starts the processes with Python's own)."""
    try:
        return pickle.dumps((fn, args))
    except Exception as e:  # pickling raises whatever the object's __reduce__ raises
        return f"{type(e).__name__}: {e}"


def start(call: bytes, nprocs: int) -> MpiProcessContext:
    """Starts the pickled ``fn(i, *args)`` (``pickled_call``) for ``i`` in ``range(nprocs)`` as the
    ranks of one MPI job."""
    import multiprocessing.spawn

    from typedtensor.distributed.run import mpiexec_path

    prepare = multiprocessing.spawn.get_preparation_data("SpawnProcess")  # raises while the main module imports
    prepare["authkey"] = bytes(prepare["authkey"])  # an AuthenticationString pickles only down a spawn pipe
    folder = Path(tempfile.mkdtemp(prefix="tt-spawn-"))
    (folder / _PREPARE).write_bytes(pickle.dumps(prepare))
    (folder / _CALL).write_bytes(call)
    cmd = [mpiexec_path(), "-n", str(nprocs), sys.executable, "-c", _BOOT, str(folder)]
    proc = subprocess.Popen(cmd, env=_child_env())
    return MpiProcessContext(proc, folder, nprocs)


def _child(folder: Path) -> int:
    import multiprocessing.process
    import multiprocessing.spawn
    import traceback

    from typedtensor import distributed
    from typedtensor.distributed._env import mpi_rank_from_env

    rank = mpi_rank_from_env()
    if rank is None:
        sys.stderr.write("typedtensor.distributed._spawn: this process was not started by MPI's launcher\n")
        return 2
    me: Any = multiprocessing.process.current_process()
    # as Python's spawned children: while the main module is imported again, a spawn at its top
    # level (no `if __name__ == "__main__":`) is the bootstrapping error, not a new job of its own
    me._inheriting = True
    try:
        multiprocessing.spawn.prepare(pickle.loads((folder / _PREPARE).read_bytes()))
        fn, args = pickle.loads((folder / _CALL).read_bytes())
    except BaseException:
        (folder / f"error-{rank}.tmp").write_text(traceback.format_exc())
        os.replace(folder / f"error-{rank}.tmp", folder / f"error-{rank}.txt")
        return 1
    finally:
        del me._inheriting
    try:
        fn(rank, *args)
    except KeyboardInterrupt:
        return 1
    except SystemExit as e:
        if e.code in (None, 0):
            return 0
        code = e.code if isinstance(e.code, int) else 1
        # the other ranks may be waiting in a collective: end the job now
        distributed._abort_job(f"exited with status {e.code}", code)
        return code
    except BaseException as e:
        # written whole, then renamed: the parent reads any error-*.txt it sees
        (folder / f"error-{rank}.tmp").write_text(traceback.format_exc())
        os.replace(folder / f"error-{rank}.tmp", folder / f"error-{rank}.txt")
        distributed._abort_job(f"raised {type(e).__name__}", 1)
        return 1
    return 0


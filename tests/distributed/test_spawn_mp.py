"""``typedtensor.multiprocessing.spawn`` starts its processes as one MPI job, so torch's recipe
(``mp.spawn`` + ``init_process_group("gloo", init_method="tcp://...", rank=r, world_size=n)``) forms one
process group; a process that raises, before or after joining, surfaces in the parent as torch's
``ProcessRaisedException`` with its traceback, and the others do not hang."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from .helpers import PROGRAMS, child_env, per_rank, run


def spawn(mode: str) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, str(PROGRAMS / "spawn.py"), "2", mode], timeout=120)


@pytest.mark.multiprocess
@pytest.mark.parametrize("mode", ["ok", "ok-join-later"])
def test_spawned_processes_form_one_group_and_train_under_ddp(mode: str) -> None:
    import typedtensor as tt
    from typedtensor import nn

    proc = spawn(mode)
    ranks = per_rank(proc, 2)
    assert "spawn returned" in proc.stdout
    tt.manual_seed(0)  # rank 0's initial weights, which DDP broadcasts
    w0 = nn.Linear(4, 2).weight.detach().numpy()
    # d(sum(xW^T + b))/dW is each row's column sums of x, averaged over the ranks' x = arange + rank
    grad = np.mean([(np.arange(8.0).reshape(2, 4) + r).sum(0) for r in range(2)], axis=0)
    expected = w0 - 0.1 * grad[None, :]
    for r in ranks:
        assert r["world"] == 2
        np.testing.assert_allclose(r["weight"], expected, rtol=1e-6)
        assert r["loaded"] == r["weight"]  # rank 0's checkpoint of ddp.module, read after the barrier
        assert r["keys"] == ["module.bias", "module.weight"]


@pytest.mark.multiprocess
@pytest.mark.parametrize("mode", ["raise-after-init", "raise-before-init"])
def test_a_spawned_process_that_raises_fails_spawn_in_the_parent(mode: str) -> None:
    proc = spawn(mode)
    assert proc.returncode != 0
    err = proc.stderr
    assert "ProcessRaisedException" in err and "-- Process 1 terminated with the following error" in err, err
    assert f"ValueError: rank 1 failed {mode.split('-')[1]} " in err, err
    assert "spawn returned" not in proc.stdout


@pytest.mark.multiprocess
def test_a_spawned_process_that_exits_with_an_error_status_fails_spawn() -> None:
    proc = spawn("exit-after-init")
    assert proc.returncode != 0
    assert "ProcessExitedException" in proc.stderr and "exited with status 3" in proc.stderr, proc.stderr
    assert "spawn returned" not in proc.stdout


@pytest.mark.multiprocess
def test_a_spawn_at_the_top_of_the_main_module_is_pythons_bootstrapping_error(tmp_path: Path) -> None:
    """The children import the main module again: a spawn there, without the `__main__` guard, must
    be Python's error in each child, not a new job per child (and so on without end)."""
    script = tmp_path / "unguarded.py"
    script.write_text("import typedtensor.multiprocessing as mp\n\n\ndef f(rank):\n    pass\n\n\nmp.spawn(f, nprocs=2)\n")
    proc = run([sys.executable, str(script)], timeout=60)
    assert proc.returncode != 0
    assert "ProcessRaisedException" in proc.stderr and "finished its bootstrapping phase" in proc.stderr, proc.stderr


@pytest.mark.multiprocess
def test_args_that_pickle_only_down_a_spawn_pipe_start_without_mpi_and_say_so() -> None:
    """A multiprocessing Queue in spawn's args cannot reach processes started by MPI's launcher:
    spawn starts them with Python's multiprocessing (as torch), and a group of two is then refused
    with the reason and the way out."""
    proc = spawn("queue-arg")
    assert proc.returncode != 0
    assert "ProcessRaisedException" in proc.stderr, proc.stderr
    assert "pickle only down a spawn pipe" in proc.stderr and "Manager().Queue()" in proc.stderr, proc.stderr


@pytest.mark.multiprocess
def test_the_children_import_the_package_the_parent_runs_whatever_the_working_directory(tmp_path: Path) -> None:
    """A working directory holding another ``typedtensor`` (a checkout of the project, say) must not
    shadow the package in the children: Python puts the working directory first on the path of a
    ``python -m`` process, and the children had been started so. They take the parent's path first."""
    decoy = tmp_path / "cwd" / "typedtensor"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("raise ImportError('the decoy package in the working directory')\n")
    script = tmp_path / "prog" / "squares.py"
    script.parent.mkdir()
    script.write_text(
        "import sys\n"
        "import typedtensor.multiprocessing as mp\n\n\n"
        "def f(rank):\n"
        "    import typedtensor as tt\n"
        "    print('child', rank, float((tt.ones(2) * rank).sum()), flush=True)\n\n\n"
        "if __name__ == '__main__':\n"
        "    mp.spawn(f, nprocs=2)\n"
        "    print('spawn returned')\n"
    )
    env = child_env()
    env.pop("PYTHONSAFEPATH")  # as a user's shell: the working directory on a -m process's path
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env,
                          cwd=decoy.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(line for line in proc.stdout.splitlines() if line.startswith("child")) == ["child 0 0.0", "child 1 2.0"]
    assert "spawn returned" in proc.stdout

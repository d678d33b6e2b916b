"""The examples run (in their --short CI mode) and both shape checkers find them clean."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

pytest.importorskip("sklearn")


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.mark.slow  # a few seconds each: a process start, sklearn's import and a short training run
@pytest.mark.parametrize(
    ("script", "expect"),
    [
        ("mlp_digits.py", "mlp_digits: test accuracy"),
        ("cnn_digits.py", "cnn_digits: test accuracy"),
        ("char_transformer.py", "---- sample ----"),
    ],
)
def test_example_runs_in_short_mode(script: str, expect: str, tmp_path: Path) -> None:
    # Run from a scratch folder: the checkout's source `typedtensor/` must not shadow the install.
    proc = _run([sys.executable, str(EXAMPLES / script), "--short"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert expect in proc.stdout


def test_libcst_checker_finds_the_examples_clean() -> None:
    proc = _run([sys.executable, "-m", "typedtensor.checker", "--no-cache", "."], cwd=EXAMPLES)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no issues found in" in proc.stdout


@pytest.mark.slow
def test_mypy_with_the_plugin_finds_the_examples_clean(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    env = dict(os.environ)
    import typedtensor

    installed_stubs = (Path(typedtensor.__file__ or "").parent / "nn" / "__init__.pyi").exists()
    if not installed_stubs:  # an editable install: take the stubs from the checkout
        env["MYPYPATH"] = str(ROOT / "stubs")
    launch = ROOT / "tests" / "mypy_plugin" / "launch.py"
    proc = _run(
        [sys.executable, str(launch), "--config-file", "mypy.ini", "--cache-dir", str(tmp_path / "cache"), "."],
        cwd=EXAMPLES, env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout


_EMULATED_RUN = """
import runpy, sys
import typedtensor as tt
tt._C._testing_emulate_cuda(True)
sys.path.insert(0, sys.argv[1])
script = sys.argv[2]
sys.argv = [script, "--short", "--device", "cuda"]
runpy.run_path(script, run_name="__main__")
"""


def _summary(stdout: str, device: str) -> str:
    """The example's result line with its device and timing cut off: what must agree across devices."""
    line = next(x for x in stdout.splitlines() if f" on {device} after " in x)
    return line.split(f" on {device} after ")[0]


@pytest.mark.slow
@pytest.mark.parametrize("script", ["mlp_digits.py", "cnn_digits.py", "char_transformer.py"])
def test_example_trains_the_same_on_the_emulated_cuda_device(script: str, tmp_path: Path) -> None:
    """`--device cuda` moves the model and every batch: on the host-emulated device (the CUDA dispatch
    path with CPU kernels) the example must reach the CPU's result, and a tensor left on the CPU
    (a mixed-device op) fails the run, as it would on a GPU. The result is compared to within one
    test example (or 0.005 of the loss), not exactly: on the CPU cross-entropy runs as one fused
    kernel, on a device as log_softmax and nll_loss, and the two gradients differ in their last bit
    (AVX2 machines show it), which a training run then carries on."""
    pytest.importorskip("typedtensor._C")
    cpu = _run([sys.executable, str(EXAMPLES / script), "--short", "--device", "cpu"], cwd=tmp_path)
    assert cpu.returncode == 0, cpu.stderr[-3000:]
    cuda = _run([sys.executable, "-c", _EMULATED_RUN, str(EXAMPLES), str(EXAMPLES / script)], cwd=tmp_path)
    assert cuda.returncode == 0, cuda.stderr[-3000:]
    got, want = _summary(cuda.stdout, "cuda").split(), _summary(cpu.stdout, "cpu").split()
    assert got[:-1] == want[:-1], (got, want)
    assert abs(float(got[-1]) - float(want[-1])) <= 0.005, (got, want)

"""The checker-only flavour (``TYPEDTENSOR_CHECKER_ONLY=1`` or ``PRE_COMMIT=1``): a pure-Python wheel
with the checker, the mypy plugin, the stubs and the shape calculus, built without CMake, whose
dependencies leave out numpy and OpenBLAS, and whose checker runs with neither importable."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _flavour() -> ModuleType:
    spec = importlib.util.spec_from_file_location("typedtensor_flavour", ROOT / "build_support" / "typedtensor_flavour.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("env", "expected"), [
    ({}, False), ({"TYPEDTENSOR_CHECKER_ONLY": "1"}, True), ({"TYPEDTENSOR_CHECKER_ONLY": "0"}, False),
    ({"TYPEDTENSOR_CHECKER_ONLY": "off"}, False), ({"TYPEDTENSOR_CHECKER_ONLY": "yes"}, True),
    ({"PRE_COMMIT": "1"}, True), ({"TYPEDTENSOR_CHECKER_ONLY": ""}, False),
])
def test_the_switch_reads_like_scikit_build_cores_if_env(env: dict[str, str], expected: bool) -> None:
    flavour = _flavour()
    assert flavour.checker_only(env) is expected
    settings = {"checker": ["libcst"], "backend": ["numpy"]}
    old = dict(os.environ)
    try:
        for k in flavour.SWITCHES:
            os.environ.pop(k, None)
        os.environ.update(env)
        deps = flavour.dynamic_metadata(settings, {})["dependencies"]
    finally:
        os.environ.clear()
        os.environ.update(old)
    assert deps == (["libcst"] if expected else ["libcst", "numpy"])


@pytest.mark.slow  # builds a wheel (a few seconds, no compiler)
def test_the_checker_only_wheel_is_pure_python_and_checks_the_examples(tmp_path: Path) -> None:
    pytest.importorskip("scikit_build_core")
    env = dict(os.environ, TYPEDTENSOR_CHECKER_ONLY="1")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(ROOT)],
        env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("typedtensor-*.whl")
    assert wheel.name.endswith("-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        metadata = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        z.extractall(tmp_path / "site")
    assert not any(n.endswith((".so", ".pyd")) for n in names)
    for needed in ("typedtensor/py.typed", "typedtensor/__init__.pyi", "typedtensor/nn/__init__.pyi",
                   "typedtensor/checker/cli.py", "typedtensor/mypy_plugin/plugin.py", "typedtensor/shapes/registry.py"):
        assert needed in names, needed
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert any("libcst" in r for r in requires) and not any("numpy" in r or "openblas" in r for r in requires), requires
    # the checker from the wheel alone (no site-packages hooks, numpy made unimportable)
    site = sysconfig.get_paths()["purelib"]
    code = ("import sys; sys.modules['numpy'] = None; sys.modules['scipy_openblas32'] = None; "
            "from typedtensor.checker.cli import main; sys.exit(main(['check', '--no-cache', '.']))")
    run = subprocess.run([sys.executable, "-S", "-c", code], cwd=ROOT / "examples", capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), site])), timeout=300,
                         check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no issues found" in run.stdout
    probe = subprocess.run([sys.executable, "-S", "-c", "import typedtensor as tt; tt.zeros(1)"], capture_output=True,
                           text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), site])),
                           cwd=tmp_path, timeout=120, check=False)
    assert probe.returncode != 0 and "checker-only" in probe.stderr

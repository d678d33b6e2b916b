"""The installed package's shape: what imports, what does not, and what needs no compiled code."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap

import pytest


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)


def test_public_packages_import() -> None:
    for name in ("typedtensor", "typedtensor.shapes", "typedtensor.checker", "typedtensor.mypy_plugin", "typedtensor._C"):
        importlib.import_module(name)


def test_no_top_level_checker_or_plugin() -> None:
    # run outside the repository so that an editable layout cannot leak the folders
    for name in ("checker", "mypy_plugin"):
        proc = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True, text=True, cwd="/", timeout=60)
        assert proc.returncode != 0, f"a top-level {name!r} module is importable"


def test_annotation_language_imports_without_compiled_core() -> None:
    proc = run_python(
        """
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name in ("typedtensor._C", "typedtensor._C_cuda"):
                    raise ImportError("blocked for the test")
                return None
        sys.meta_path.insert(0, Block())
        import typedtensor as tt
        import typedtensor.shapes
        from typedtensor import Dim, Add, Mul, ShapeError, checked
        class Batch(Dim): ...
        assert Batch(32) == 32 and type(Batch(32)).__name__ == "Batch"
        assert "typedtensor._C" not in sys.modules
        print("ok")
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_import_typedtensor_does_not_load_compiled_core() -> None:
    proc = run_python("import sys, typedtensor, typedtensor.shapes; print('typedtensor._C' in sys.modules)")
    assert proc.stdout.strip() == "False", proc.stderr


def test_cuda_reports_unavailable_without_a_device() -> None:
    import typedtensor as tt

    try:
        available = tt.cuda.is_available()
    except AttributeError:
        pytest.skip("tt.cuda is not exposed yet")
    assert isinstance(available, bool)


def test_stubs_and_marker_installed() -> None:
    import importlib.resources as resources

    root = resources.files("typedtensor")
    assert root.joinpath("py.typed").is_file()
    assert root.joinpath("__init__.pyi").is_file()

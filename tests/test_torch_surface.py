"""docs/torch-differences.md is what scripts/torch_surface.py writes now (run the script after
adding a public name), and the script's reasons say what they claim."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "torch_surface.py"


def load_script() -> Any:
    spec = importlib.util.spec_from_file_location("torch_surface", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_table_is_fresh() -> None:
    run = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, cwd=ROOT / "tests")
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize(("name", "kind"), [
    ("to_sparse", "sparse"), ("sparse_coo_tensor", "sparse"), ("quantize_per_tensor", "quantized"),
    ("view_as_complex", "complex"), ("stft", "FFT"), ("refine_names", "named tensors"), ("untyped_storage", "storage"),
    ("cudnn_convolution", "backends"), ("lgamma_", "in-place"), ("lgamma", "not yet"),
])
def test_reasons(name: str, kind: str) -> None:
    assert kind in load_script().reason(name)


def test_names_typedtensor_has_are_not_listed() -> None:
    text = (ROOT / "docs" / "torch-differences.md").read_text(encoding="utf-8")
    for present in ("`torch.unique`", "`Tensor.is_xpu`", "`torch.Generator`", "`nn.Dropout1d`", "`Tensor.addcdiv_`"):
        assert present not in text

"""basedpyright, with the stubs of stubs/typedtensor, finds no error in a file that calls every public
op the way a PyTorch program does (torch_calls.py): the stubs accept what the run time accepts.
On main before the op table's stubs it reported 182 errors on the same file."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _basedpyright() -> list[str]:
    exe = shutil.which("basedpyright") or str(Path(sys.executable).with_name("basedpyright"))
    if not Path(exe).exists():
        pytest.skip("basedpyright is not installed (pip install -e .[test])")
    return [exe]


@pytest.mark.slow
def test_every_public_op_called_torch_style_type_checks() -> None:
    proc = subprocess.run([*_basedpyright(), "--outputjson", "-p", str(HERE / "pyrightconfig.json")],
                          capture_output=True, text=True, timeout=300, cwd=HERE)
    report = json.loads(proc.stdout)
    assert report["summary"]["filesAnalyzed"] == 1
    problems = [f"torch_calls.py:{d['range']['start']['line'] + 1}: {d['message']}" for d in report["generalDiagnostics"]]
    assert not problems, "\n".join(problems)

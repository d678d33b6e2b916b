"""``typedtensor check``: a libcst-based shape checker for typedtensor programs (docs/checker.md).

It infers the shapes of tensors through module and function bodies and takes every shape rule
from the registry in ``typedtensor.shapes``; it needs neither mypy nor the compiled backend.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .report import Report

if TYPE_CHECKING:
    from .runner import RunResult

__all__ = ["Report", "check_paths", "main"]


def check_paths(paths: list[str], **options: object) -> RunResult:
    """Check files or folders with the nearest ``pyproject.toml``'s config; returns the reports."""
    from pathlib import Path

    from .config import load
    from .runner import Options, run

    opts = Options(list(paths), **options)  # type: ignore[arg-type]
    return run(opts, load(None, Path.cwd()))


def main(argv: list[str] | None = None) -> int:
    from .cli import main as _main

    return _main(argv)

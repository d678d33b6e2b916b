"""Run mypy with `typedtensor.mypy_plugin` importable from this checkout's `mypy_plugin/`.

An editable install maps the package's modules when it is made; a plugin module added later (or a
checkout that is not installed) is registered here from source, so the tests always exercise the
working tree's plugin. Usage: `python launch.py [-m mypy] MYPY-ARGS...`.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def register_plugin_from_source() -> None:
    import typedtensor

    source = ROOT / "mypy_plugin"
    name = "typedtensor.mypy_plugin"
    spec = importlib.util.spec_from_file_location(
        name, source / "__init__.py", submodule_search_locations=[str(source)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    typedtensor.mypy_plugin = module  # type: ignore[attr-defined]


def main() -> None:
    if os.environ.get("TT_PLUGIN_FROM_INSTALL") != "1":
        register_plugin_from_source()
    args = sys.argv[1:]
    if args[:2] == ["-m", "mypy"]:
        args = args[2:]
    from mypy.main import main as mypy_main

    sys.argv = ["mypy", *args]
    mypy_main(args=args)


if __name__ == "__main__":
    main()

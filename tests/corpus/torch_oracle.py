"""Runs the corpus under real PyTorch: every bug file must fail on concrete sizes, every fixed twin
and every clean model must run.

The corpus files are typedtensor programs; here ``typedtensor`` is replaced by a thin stand-in
that maps the API onto torch (``tt.randn`` is ``torch.randn``, ``nn.Linear`` is
``torch.nn.Linear``, a ``Dim`` is an ``int``), so the same source runs as a torch program. Each
file defines ``main()``, which builds its model on concrete sizes and runs the path the bug is on.
A bug "fails" when ``main()`` raises, or when torch warns that it broadcast a loss's target
(``mse_loss`` on ``[B, 1]`` and ``[B]``: torch only warns; DESIGN §3 makes it an error).

    python tests/corpus/torch_oracle.py            # every file; exit status 1 on any surprise
    python tests/corpus/torch_oracle.py --json     # one JSON object per file
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import types
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
KINDS = ("bugs", "fixed", "models")


class _Subscriptable:
    """``Tensor[Batch, In]`` / ``Add[A, B]`` evaluated at run time (a type alias, a cast): the
    subscript is ignored."""

    def __init__(self, runtime: Any):
        self.runtime = runtime

    def __getitem__(self, item: object) -> Any:
        return self.runtime

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.runtime(*args, **kwargs)


class Dim(int):
    """A size of a named dimension is just an int under torch."""


def _forwarding(name: str, target: types.ModuleType, extra: dict[str, Any]) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(extra)

    def __getattr__(attr: str) -> Any:
        return getattr(target, attr)

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    return module


def install() -> None:
    """Put the torch-backed stand-in for ``typedtensor`` into ``sys.modules``."""
    import torch
    import torch.nn.functional as torch_functional
    import torch.utils.data as torch_data

    functional = _forwarding("typedtensor.nn.functional", torch_functional, {})
    nn = _forwarding("typedtensor.nn", torch.nn, {"functional": functional})
    data = _forwarding("typedtensor.data", torch_data, {})
    arith = _Subscriptable(int)

    def identity(fn: Any = None, **_: Any) -> Any:
        return fn if fn is not None else (lambda f: f)

    top = _forwarding("typedtensor", torch, {
        "Tensor": _Subscriptable(torch.Tensor), "Dim": Dim, "Add": arith, "Sub": arith, "Mul": arith,
        "Div": arith, "nn": nn, "data": data, "checked": identity, "reveal_shape": lambda *a: None,
        "optim": torch.optim, "no_grad": torch.no_grad,
    })
    sys.modules.update({"typedtensor": top, "typedtensor.nn": nn, "typedtensor.nn.functional": functional,
                        "typedtensor.data": data})


def run_file(path: Path) -> str | None:
    """``None`` when ``main()`` ran clean; else what went wrong, in one line."""
    name = f"_corpus_{path.parent.name}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message=".*target size.*different to the input size.*")
            spec.loader.exec_module(module)
            module.main()
    except Exception as exc:  # every failure torch can give: RuntimeError, IndexError, ValueError...
        text = str(exc).strip().splitlines()
        return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]
    finally:
        sys.modules.pop(name, None)
    return None


def files(kind: str) -> list[Path]:
    return sorted((HERE / kind).glob("*.py"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object per file")
    args = parser.parse_args(argv)
    import torch

    torch.manual_seed(0)
    install()
    surprises = 0
    for kind in KINDS:
        for path in files(kind):
            error = run_file(path)
            ok = (error is not None) if kind == "bugs" else (error is None)
            surprises += not ok
            if args.json:
                print(json.dumps({"kind": kind, "file": path.name, "error": error, "ok": ok}))
            else:
                verdict = "ok  " if ok else "FAIL"
                what = error if error is not None else "ran clean"
                print(f"{verdict} {kind}/{path.name}: {what}")
    if not args.json:
        print(f"{surprises} surprise(s)")
    return 1 if surprises else 0


if __name__ == "__main__":
    sys.exit(main())

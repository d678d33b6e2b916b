"""Runs the torch corpus under real PyTorch with jaxtyping's run-time checks: every bug file must
fail, every fixed twin and every model must run.

Each file is imported through ``jaxtyping.install_import_hook`` with beartype as the type checker,
so every annotated function and method checks its arguments and its result against its
``Float[Tensor, "..."]`` annotations on every call, binding each axis name per call. A clean file
that runs here is correct as jaxtyping reads its annotations, which is what the checker must not
contradict; a bug "fails" when ``main()`` raises (a torch error or a jaxtyping type-check error),
or when torch warns that it broadcast a loss's target (``mse_loss`` on ``[B]`` and ``[B, 1]``:
torch only warns; typedtensor makes it an error).

    python tests/corpus/torch/torch_oracle.py            # every file; exit status 1 on any surprise
    python tests/corpus/torch/torch_oracle.py --json     # one JSON object per file
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
KINDS = ("bugs", "fixed", "models", "infer_all/bugs", "infer_all/fixed")


def run_file(path: Path) -> str | None:
    """``None`` when ``main()`` ran clean; else what went wrong, in one line."""
    from jaxtyping import install_import_hook

    name = path.stem
    sys.path.insert(0, str(path.parent))
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message=".*target size.*different to the input size.*")
            with install_import_hook([name], "beartype.beartype"):
                module = importlib.import_module(name)
            module.main()
    except Exception as exc:  # every failure counts: RuntimeError, IndexError, TypeCheckError...
        text = str(exc).strip().splitlines()
        return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]
    finally:
        sys.modules.pop(name, None)
        sys.path.remove(str(path.parent))
    return None


def files(kind: str) -> list[Path]:
    return sorted((HERE / kind).glob("*.py"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object per file")
    args = parser.parse_args(argv)
    import torch

    torch.manual_seed(0)
    surprises = 0
    for kind in KINDS:
        for path in files(kind):
            error = run_file(path)
            ok = (error is not None) if kind.endswith("bugs") else (error is None)
            surprises += not ok
            if args.json:
                print(json.dumps({"kind": kind, "file": path.name, "error": error, "ok": ok}))
            else:
                print(f"{'ok  ' if ok else 'FAIL'} {kind}/{path.name}: {error if error is not None else 'ran clean'}")
    if not args.json:
        print(f"{surprises} surprise(s)")
    return 1 if surprises else 0


if __name__ == "__main__":
    sys.exit(main())

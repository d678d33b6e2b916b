"""Per-op latency on tiny tensors: typedtensor vs numpy vs torch, in one process, same threads.

    python benchmarks/latency.py [--threads 1] [--size 8] [--markdown]

A tiny op is all overhead (binding, dispatch, allocation), so this lists the call forms a model
uses -- operators with a tensor or a Python number on either side, methods, functions -- and, as
a reference for where the time goes, the bound `__add__` method that `a + b` bypasses
(docs/backend.md, "Per-op latency"). Medians over interleaved rounds, as in ops.py."""

from __future__ import annotations

import argparse
import platform
from collections.abc import Callable
from typing import Any

from ops import compare, spread  # benchmarks/ops.py: the same interleaved medians


def rows(size: int) -> list[tuple[str, Callable[[], Any], Callable[[], Any] | None, Callable[[], Any]]]:
    import numpy as np
    import torch

    import typedtensor as tt

    a, b = tt.randn(size, size), tt.randn(size, size)
    x, y = torch.randn(size, size), torch.randn(size, size)
    n, m = np.random.rand(size, size).astype(np.float32), np.random.rand(size, size).astype(np.float32)
    bound_add = type(a).__add__
    torch_bound_add = type(x).__add__
    return [
        ("a + b", lambda: a + b, lambda: n + m, lambda: x + y),
        ("a * b", lambda: a * b, lambda: n * m, lambda: x * y),
        ("a * 2.0", lambda: a * 2.0, lambda: n * 2.0, lambda: x * 2.0),
        ("2.0 - a", lambda: 2.0 - a, lambda: 2.0 - n, lambda: 2.0 - x),
        ("type(a).__add__(a, b)", lambda: bound_add(a, b), None, lambda: torch_bound_add(x, y)),
        ("add(a, b)", lambda: tt.add(a, b), lambda: np.add(n, m), lambda: torch.add(x, y)),
        ("a.exp()", lambda: a.exp(), lambda: np.exp(n), lambda: x.exp()),
        ("a.relu()", lambda: a.relu(), lambda: np.maximum(n, 0), lambda: x.relu()),
        ("a.sum()", lambda: a.sum(), lambda: n.sum(), lambda: x.sum()),
        ("a > 0", lambda: a > 0, lambda: n > 0, lambda: x > 0),
        ("a @ b", lambda: a @ b, lambda: n @ m, lambda: x @ y),
        ("a.t()", lambda: a.t(), lambda: n.T, lambda: x.t()),
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--size", type=int, default=8)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()

    import numpy as np
    import torch

    import typedtensor as tt

    tt.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    print(f"Machine: {platform.machine()}, threads={args.threads}; {args.size}x{args.size} float32; "
          f"torch {torch.__version__}, numpy {np.__version__}\n")
    print("| call | typedtensor | numpy | torch | tt / torch | per-round range |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, ours, np_fn, torch_fn in rows(args.size):
        fns = [ours, *([np_fn] if np_fn else []), torch_fn]
        med, ratios = compare(fns, min_time=0.3)
        np_cell = f"{med[1] * 1e6:.2f} µs" if np_fn else "—"
        print(f"| `{name}` | {med[0] * 1e6:.2f} µs | {np_cell} | {med[-1] * 1e6:.2f} µs | "
              f"{med[0] / med[-1]:.2f} | {spread(ratios)} |")


if __name__ == "__main__":
    main()

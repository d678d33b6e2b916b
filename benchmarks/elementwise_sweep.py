"""Every elementwise op and the common reductions at 1M elements: typedtensor vs torch (and numpy
where it has the op), in one process, same threads, float32 and float64.

    python benchmarks/elementwise_sweep.py [--threads 1] [--dtype float32] [--markdown] [--only NAME] [--cpu-time]

float16 / bfloat16 (`--dtype bfloat16`): the inputs are the float32 draws rounded to the type on
both sides, and numpy has no column (no bfloat16; its float16 arithmetic is scalar code).
`--cpu-time` times with the process CPU clock (one thread on a loaded machine).

`benchmarks/ops.py` is the issue's table (sizes 1K..16M, matmul, conv); this sweep is the breadth:
the 1.0x-torch target for elementwise ops and reductions holds for each row, not only add/mul/exp.
Inputs are drawn inside each op's domain. Figures are medians; ratios are typedtensor / torch."""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable
from typing import Any

import ops
from ops import compare, spread  # benchmarks/ops.py: the same interleaved medians

N = 1 << 20

# unary op -> input range (inside the domain; standard ranges elsewhere)
UNARY: dict[str, tuple[float, float]] = {
    "exp": (-10, 10), "exp2": (-10, 10), "expm1": (-3, 3), "log": (0.01, 100), "log2": (0.01, 100),
    "log10": (0.01, 100), "log1p": (-0.5, 100), "sqrt": (0, 100), "rsqrt": (0.01, 100),
    "reciprocal": (0.1, 10), "sigmoid": (-10, 10), "tanh": (-5, 5), "sin": (-10, 10), "cos": (-10, 10),
    "tan": (-1.5, 1.5), "asin": (-0.99, 0.99), "acos": (-0.99, 0.99), "atan": (-10, 10), "sinh": (-5, 5),
    "cosh": (-5, 5), "asinh": (-10, 10), "acosh": (1.01, 10), "atanh": (-0.99, 0.99), "erf": (-3, 3),
    "erfc": (-3, 3), "abs": (-3, 3), "neg": (-3, 3), "floor": (-3, 3), "ceil": (-3, 3), "round": (-3, 3),
    "trunc": (-3, 3), "sign": (-3, 3), "square": (-3, 3),
}
FUNCTIONAL: dict[str, tuple[float, float]] = {
    "relu": (-3, 3), "silu": (-8, 8), "gelu": (-5, 5), "softplus": (-5, 5), "elu": (-5, 5), "mish": (-5, 5),
    "logsigmoid": (-8, 8), "hardswish": (-5, 5), "hardsigmoid": (-5, 5), "leaky_relu": (-3, 3),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64", "bfloat16", "float16"])
    ap.add_argument("--cpu-time", action="store_true", help="time with the process CPU clock")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--only", action="append", default=[],
                    help="run only the rows whose name contains this text (repeatable)")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(args.threads))
    import numpy as np
    import torch

    import typedtensor as tt

    tt.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    dt = args.dtype
    half = dt in ("bfloat16", "float16")
    if args.cpu_time:
        ops.CLOCK = time.process_time
    rows: list[tuple[str, float, float | None, float, str]] = []

    def bench(name: str, ours: Callable[[], Any], ref_np: Callable[[], Any] | None, ref_torch: Callable[[], Any]) -> None:
        if args.only and not any(o in name for o in args.only):
            return
        if half:
            ref_np = None
        fns = [ours] + ([ref_np] if ref_np is not None else []) + [ref_torch]
        medians, ratios = compare(fns, settle=0.1 if args.threads > 1 else 0.0)
        a, c = medians[0], medians[-1]
        b = medians[1] if ref_np is not None else None
        rows.append((name, a, b, c, spread(ratios)))
        if not args.markdown:
            mark = "  MISS" if a > c else ""
            print(f"{name:22s} tt {a * 1e6:9.1f} µs  np {b * 1e6 if b else float('nan'):9.1f} µs  "
                  f"torch {c * 1e6:9.1f} µs  tt/torch {a / c:5.2f} ({spread(ratios)}){mark}", flush=True)

    def data(lo: float, hi: float) -> tuple[Any, Any, Any]:
        if half:
            v = rng.uniform(lo, hi, N).astype(np.float32)
            return tt.from_numpy(v).to(getattr(tt, dt)), v, torch.from_numpy(v).to(getattr(torch, dt))
        v = rng.uniform(lo, hi, N).astype(dt)
        return tt.from_numpy(v), v, torch.from_numpy(v)

    for name, (lo, hi) in UNARY.items():
        X, nX, tX = data(lo, hi)
        np_fn = {"rsqrt": None, "erf": None, "erfc": None, "sigmoid": None, "round": np.rint}.get(name, getattr(np, name, None))
        bench(f"{name}", lambda f=getattr(tt, name): f(X), np_fn and (lambda f=np_fn: f(nX)),
              lambda f=getattr(torch, name): f(tX))
    for name, (lo, hi) in FUNCTIONAL.items():
        X, nX, tX = data(lo, hi)
        bench(f"F.{name}", lambda f=getattr(tt.nn.functional, name): f(X), None,
              lambda f=getattr(torch.nn.functional, name): f(tX))

    A, nA, tA = data(0.1, 3.0)
    B, nB, tB = data(0.1, 3.0)
    binary: list[tuple[str, Callable[[], Any], Callable[[], Any] | None, Callable[[], Any]]] = [
        ("a + b", lambda: A + B, lambda: nA + nB, lambda: tA + tB),
        ("a - b", lambda: A - B, lambda: nA - nB, lambda: tA - tB),
        ("a * b", lambda: A * B, lambda: nA * nB, lambda: tA * tB),
        ("a / b", lambda: A / B, lambda: nA / nB, lambda: tA / tB),
        ("a + 1.5", lambda: A + 1.5, lambda: nA + 1.5, lambda: tA + 1.5),
        ("a ** 2", lambda: A**2, lambda: nA**2, lambda: tA**2),
        ("a ** 3", lambda: A**3, lambda: nA**3, lambda: tA**3),
        ("a ** 0.5", lambda: A**0.5, lambda: nA**0.5, lambda: tA**0.5),
        ("a ** -1", lambda: A**-1, lambda: nA**-1.0, lambda: tA**-1),
        ("a ** 1.7", lambda: A**1.7, lambda: nA**1.7, lambda: tA**1.7),
        ("a ** b", lambda: A**B, lambda: nA**nB, lambda: tA**tB),
        ("maximum", lambda: tt.maximum(A, B), lambda: np.maximum(nA, nB), lambda: torch.maximum(tA, tB)),
        ("atan2", lambda: tt.atan2(A, B), lambda: np.arctan2(nA, nB), lambda: torch.atan2(tA, tB)),
        ("hypot", lambda: tt.hypot(A, B), lambda: np.hypot(nA, nB), lambda: torch.hypot(tA, tB)),
        ("fmod", lambda: tt.fmod(A, B), lambda: np.fmod(nA, nB), lambda: torch.fmod(tA, tB)),
        ("a % b", lambda: A % B, lambda: nA % nB, lambda: tA % tB),
        ("a // b", lambda: A // B, lambda: nA // nB, lambda: tA // tB),
        ("a < b", lambda: A < B, lambda: nA < nB, lambda: tA < tB),
        ("where", lambda: tt.where(A < B, A, B), lambda: np.where(nA < nB, nA, nB), lambda: torch.where(tA < tB, tA, tB)),
        ("clamp", lambda: tt.clamp(A, 0.5, 2.0), lambda: np.clip(nA, 0.5, 2.0), lambda: torch.clamp(tA, 0.5, 2.0)),
        ("lerp", lambda: tt.lerp(A, B, 0.3), None, lambda: torch.lerp(tA, tB, 0.3)),
    ]
    for row in binary:
        bench(*row)

    M, nM, tM = A.reshape(1024, 1024), nA.reshape(1024, 1024), tA.reshape(1024, 1024)
    reductions: list[tuple[str, Callable[[], Any], Callable[[], Any] | None, Callable[[], Any]]] = [
        ("sum", lambda: A.sum(), lambda: nA.sum(), lambda: tA.sum()),
        ("mean", lambda: A.mean(), lambda: nA.mean(), lambda: tA.mean()),
        ("prod", lambda: A.prod(), lambda: nA.prod(), lambda: tA.prod()),
        ("amax", lambda: A.amax(), lambda: nA.max(), lambda: tA.amax()),
        ("argmax", lambda: A.argmax(), lambda: nA.argmax(), lambda: tA.argmax()),
        ("std", lambda: A.std(), lambda: nA.std(ddof=1), lambda: tA.std()),
        ("norm", lambda: A.norm(), lambda: np.linalg.norm(nA), lambda: tA.norm()),
        ("cumsum", lambda: A.cumsum(0), lambda: nA.cumsum(), lambda: tA.cumsum(0)),
        ("sum dim=0", lambda: M.sum(0), lambda: nM.sum(0), lambda: tM.sum(0)),
        ("var dim=1", lambda: M.var(1), lambda: nM.var(1, ddof=1), lambda: tM.var(1)),
        ("softmax", lambda: tt.softmax(M, -1), None, lambda: torch.softmax(tM, -1)),
        ("log_softmax", lambda: tt.log_softmax(M, -1), None, lambda: torch.log_softmax(tM, -1)),
        ("logsumexp", lambda: tt.logsumexp(M, 1), None, lambda: torch.logsumexp(tM, 1)),
        ("layer_norm", lambda: tt.nn.functional.layer_norm(M, (1024,)), None,
         lambda: torch.nn.functional.layer_norm(tM, (1024,))),
        ("transpose copy", lambda: M.t().contiguous(), lambda: np.ascontiguousarray(nM.T), lambda: tM.t().contiguous()),
        ("cast to other float", lambda: A.double() if dt == "float32" else A.float(),
         lambda: nA.astype(np.float64 if dt == "float32" else np.float32),
         lambda: tA.double() if dt == "float32" else tA.float()),
    ]
    for row in reductions:
        bench(*row)

    if args.markdown:
        print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; threads={args.threads}; "
              f"dtype {dt}; 1M elements; {'CPU time' if args.cpu_time else 'wall time'}; "
              f"torch {torch.__version__}, numpy {np.__version__}; "
              f"typedtensor CPU capability {tt.backends.cpu.get_cpu_capability()}\n")
        print("| op | typedtensor | numpy | torch | tt / torch | per-round range |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for name, a, b, c, sp in rows:
            print(f"| {name} | {a * 1e6:.1f} µs | {f'{b * 1e6:.1f} µs' if b else '—'} | {c * 1e6:.1f} µs | {a / c:.2f} | {sp} |")
        worse = [name for name, a, _, c, _ in rows if a > c]
        print(f"\n{len(rows) - len(worse)} of {len(rows)} rows at or under 1.0x torch"
              + (f"; over: {', '.join(worse)}" if worse else "") + ".")


if __name__ == "__main__":
    main()

"""Side-by-side CPU op benchmarks: typedtensor vs numpy vs torch, in one process, same threads.

    python benchmarks/ops.py [--threads 2] [--quick] [--markdown] [--cpu-time] [--dtype bfloat16]

``--dtype bfloat16`` runs only the conv2d rows, forward and forward + backward, in bfloat16: ours on
the BLAS chosen by default (MKL's bfloat16 GEMM on Intel), ours with the BLAS set to OpenBLAS (the
convolution widened to float32), and torch's bfloat16 convolution (oneDNN), timed in turn.
``--cpu-time`` times with the process's CPU clock (meant for one thread on a shared machine).

Each figure is the median per call over 9 rounds in which typedtensor, numpy and torch are timed
in turn. Ratios are typedtensor / torch (lower is better; < 1 means typedtensor is faster); the
per-round range is the spread of that ratio across rounds (its 2nd to 8th value)."""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

from _harness import cpu_name

CLOCK: Callable[[], float] = time.perf_counter


def _calls_per_timing(fn: Callable[[], Any], target: float) -> int:
    fn()
    n = 1
    while True:
        t0 = CLOCK()
        for _ in range(n):
            fn()
        if CLOCK() - t0 > target or n > 1 << 20:
            return n
        n *= 4


def compare(fns: list[Callable[[], Any]], min_time: float = 0.2, rounds: int = 9,
            settle: float = 0.0) -> tuple[list[float], list[float]]:
    """Per-call medians of each function, timed in interleaved rounds (a timing of each per round),
    so a drift in the machine's state (another process, clocks, caches) lands on all of them alike
    instead of on whichever ran during it. Also returns the per-round ratios fns[0] / fns[-1]: their
    spread says whether a ratio near 1.0 is a difference or noise.

    With threads, each library's pool spins for a while after a call (OpenBLAS, OpenMP) and would
    steal the core from the next library timed: `settle` seconds of sleep before each block let
    it park, and an untimed block as long as the timed one then wakes the block's own pool and
    brings the clock back up after the sleep."""
    ns = [_calls_per_timing(fn, min_time / rounds) for fn in fns]
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(rounds):
        for fn, n, out in zip(fns, ns, times, strict=True):
            if settle:
                time.sleep(settle)
                for _ in range(n):
                    fn()
            t0 = CLOCK()
            for _ in range(n):
                fn()
            out.append((CLOCK() - t0) / n)
    ratios = [a / c for a, c in zip(times[0], times[-1], strict=True)]
    return [statistics.median(t) for t in times], ratios


def spread(ratios: list[float]) -> str:
    """The middle of the per-round ratios (2nd to 8th of 9): the range a repeat run falls in."""
    r = sorted(ratios)
    k = len(r) // 8
    return f"{r[k]:.2f}-{r[len(r) - 1 - k]:.2f}"


def fmt(t: float) -> str:
    if t < 1e-3:
        return f"{t * 1e6:.2f} µs"
    return f"{t * 1e3:.3f} ms"


# conv2d rows: batch, channels, height = width, out channels, kernel, padding
CONVS = [(8, 64, 56, 64, 3, 1), (32, 3, 32, 16, 3, 1), (8, 128, 28, 128, 1, 0)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--only", default="", help="run only the rows whose name contains this text")
    ap.add_argument("--cpu-time", action="store_true", help="time with the process's CPU clock")
    ap.add_argument("--dtype", choices=["float32", "bfloat16"], default="float32",
                    help="bfloat16: only the conv2d rows, on both BLAS paths against torch's bfloat16")
    args = ap.parse_args()
    if args.cpu_time:
        global CLOCK
        CLOCK = time.process_time
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(args.threads))
    import numpy as np
    import torch

    import typedtensor._runtime as tt

    tt.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.threads)
    except ImportError:
        pass

    rows: list[tuple[str, float, float | None, float, str]] = []

    def bench(name: str, ours: Callable[[], Any], ref_np: Callable[[], Any] | None, ref_torch: Callable[[], Any]) -> None:
        if args.only not in name:
            return
        fns = [ours] + ([ref_np] if ref_np is not None else []) + [ref_torch]
        medians, ratios = compare(fns, settle=0.1 if args.threads > 1 else 0.0)
        a, c = medians[0], medians[-1]
        b = medians[1] if ref_np is not None else None
        rows.append((name, a, b, c, spread(ratios)))
        if not args.markdown:
            print(f"{name:32s} tt {fmt(a):>12s}  np {fmt(b) if b else '-':>12s}  torch {fmt(c):>12s}  "
                  f"tt/torch {a / c:5.2f} ({spread(ratios)})", flush=True)

    rng = np.random.default_rng(0)
    if args.dtype == "bfloat16":
        return conv_bf16_rows(args, tt, torch, np, rng)
    # tiny-op latency
    x8 = rng.standard_normal((8, 8)).astype(np.float32)
    a8, b8 = tt.tensor(x8), tt.tensor(x8)
    n8a, n8b = x8.copy(), x8.copy()
    t8a, t8b = torch.tensor(x8), torch.tensor(x8)
    bench("add 8x8 (latency)", lambda: a8 + b8, lambda: n8a + n8b, lambda: t8a + t8b)
    # matmul
    for n in ([256, 512] if args.quick else [256, 512, 1024, 2048]):
        m = rng.standard_normal((n, n)).astype(np.float32)
        A, nA, tA = tt.tensor(m), m.copy(), torch.tensor(m)
        bench(f"matmul {n}x{n} f32", lambda: A @ A, lambda: nA @ nA, lambda: tA @ tA)
    # elementwise
    for size in ([1 << 10, 1 << 20] if args.quick else [1 << 10, 1 << 16, 1 << 20, 1 << 24]):
        v = rng.standard_normal(size).astype(np.float32)
        X, Y, nX, nY, tX, tY = tt.tensor(v), tt.tensor(v), v.copy(), v.copy(), torch.tensor(v), torch.tensor(v)
        label = f"{size // 1024}K" if size < 1 << 20 else f"{size >> 20}M"
        bench(f"add {label}", lambda: X + Y, lambda: nX + nY, lambda: tX + tY)
        bench(f"mul {label}", lambda: X * Y, lambda: nX * nY, lambda: tX * tY)
        bench(f"exp {label}", lambda: X.exp(), lambda: np.exp(nX), lambda: tX.exp())
    # transcendental unary ops at 1M (standard normal inputs; log/log1p/sqrt on |x| so all are finite)
    v = rng.standard_normal(1 << 20).astype(np.float32)
    pos = np.abs(v) + np.float32(1e-3)
    X, nX, tX = tt.tensor(v), v.copy(), torch.tensor(v)
    P, nP, tP = tt.tensor(pos), pos.copy(), torch.tensor(pos)
    for name in ("tanh", "sigmoid", "sin", "cos", "expm1", "erf"):
        bench(f"{name} 1M", getattr(X, name), getattr(np, name, None) and (lambda f=getattr(np, name): f(nX)),
              getattr(tX, name))
    for name in ("log", "log1p", "sqrt"):
        bench(f"{name} 1M", getattr(P, name), lambda f=getattr(np, name): f(nP), getattr(tP, name))
    # random fills at 4M (model initialisation draws its weights this way: nn.init.normal_, GPT-style inits)
    gen = np.random.default_rng(1)
    R, nR, tR = tt.empty(1 << 22), np.empty(1 << 22, dtype=np.float32), torch.empty(1 << 22)
    bench("normal_ 4M", lambda: R.normal_(), lambda: nR.__setitem__(slice(None), gen.standard_normal(1 << 22, dtype=np.float32)),
          lambda: tR.normal_())
    bench("uniform_ 4M", lambda: R.uniform_(), lambda: nR.__setitem__(slice(None), gen.random(1 << 22, dtype=np.float32)),
          lambda: tR.uniform_())
    # reductions and softmax
    for shape in ([(1024, 1024)] if args.quick else [(1024, 1024), (4096, 4096)]):
        v = rng.standard_normal(shape).astype(np.float32)
        X, nX, tX = tt.tensor(v), v.copy(), torch.tensor(v)
        label = "x".join(map(str, shape))
        bench(f"sum all {label}", lambda: X.sum(), lambda: nX.sum(), lambda: tX.sum())
        bench(f"sum dim=1 {label}", lambda: X.sum(1), lambda: nX.sum(1), lambda: tX.sum(1))
        bench(f"sum dim=0 {label}", lambda: X.sum(0), lambda: nX.sum(0), lambda: tX.sum(0))
        bench(f"max dim=1 {label}", lambda: X.amax(1), lambda: nX.max(1), lambda: tX.amax(1))
        bench(f"mean dim=1 {label}", lambda: X.mean(1), lambda: nX.mean(1), lambda: tX.mean(1))
        bench(f"softmax dim=-1 {label}", lambda: tt.softmax(X, -1), None, lambda: torch.softmax(tX, -1))
        bench(f"softmax dim=0 {label}", lambda: tt.softmax(X, 0), None, lambda: torch.softmax(tX, 0))
        bench(f"log_softmax dim=-1 {label}", lambda: tt.log_softmax(X, -1), None, lambda: torch.log_softmax(tX, -1))
        bench(f"logsumexp dim=1 {label}", lambda: tt.logsumexp(X, 1), None, lambda: torch.logsumexp(tX, 1))
        bench(f"max dim=0 {label}", lambda: X.amax(0), lambda: nX.max(0), lambda: tX.amax(0))
        bench(f"argmax dim=1 {label}", lambda: X.argmax(1), lambda: nX.argmax(1), lambda: tX.argmax(1))
    # conv2d
    for n, c, hw, o, k, p in CONVS[:1] if args.quick else CONVS:
        xv = rng.standard_normal((n, c, hw, hw)).astype(np.float32)
        wv = rng.standard_normal((o, c, k, k)).astype(np.float32)
        X, W, tX, tW = tt.tensor(xv), tt.tensor(wv), torch.tensor(xv), torch.tensor(wv)
        bench(f"conv2d {n}x{c}x{hw}x{hw} k{k} o{o}", lambda: tt.conv2d(X, W, padding=p), None,
              lambda: torch.nn.functional.conv2d(tX, tW, padding=p))

    if args.markdown:
        print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; threads={args.threads}; "
              f"torch {torch.__version__}, numpy {np.__version__}\n")
        print("| op | typedtensor | numpy | torch | tt / torch | per-round range |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for name, a, b, c, sp in rows:
            print(f"| {name} | {fmt(a)} | {fmt(b) if b else '—'} | {fmt(c)} | {a / c:.2f} | {sp} |")


def conv_bf16_rows(args: argparse.Namespace, tt: Any, torch: Any, np: Any, rng: Any) -> None:
    """The conv2d rows in bfloat16 (NOTE [ bfloat16 convolution ] in backend/src/cpu/conv.cpp): ours
    on the default BLAS, ours under OpenBLAS (widened to float32), torch; interleaved rounds."""
    cpu = tt.backends.cpu
    default = cpu.get_blas()
    if not cpu.blas_has_bf16_gemm():
        print(f"note: the default BLAS ({default}) has no bfloat16 GEMM; both 'ours' columns widen to float32")

    def widened(fn: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            cpu.set_blas("openblas")
            try:
                return fn()
            finally:
                cpu.set_blas(default)
        return run

    rows: list[tuple[str, float, float, float, str, str]] = []
    for n, c, hw, o, k, p in CONVS[:1] if args.quick else CONVS:
        xv = rng.standard_normal((n, c, hw, hw)).astype(np.float32)
        wv = rng.standard_normal((o, c, k, k)).astype(np.float32) / np.float32(np.sqrt(c * k * k))
        gv = rng.standard_normal((n, o, hw, hw)).astype(np.float32)
        X, W, G = (tt.tensor(v).to(tt.bfloat16) for v in (xv, wv, gv))
        tX, tW, tG = (torch.tensor(v).bfloat16() for v in (xv, wv, gv))
        Xg, Wg = X.detach().requires_grad_(), W.detach().requires_grad_()
        tXg, tWg = tX.detach().requires_grad_(), tW.detach().requires_grad_()

        def fwd(p: int = p) -> Any:
            return tt.conv2d(X, W, padding=p)

        def fwd_bwd(p: int = p) -> Any:
            Xg.grad = Wg.grad = None
            tt.conv2d(Xg, Wg, padding=p).backward(G)

        def t_fwd(p: int = p) -> Any:
            return torch.nn.functional.conv2d(tX, tW, padding=p)

        def t_fwd_bwd(p: int = p) -> Any:
            tXg.grad = tWg.grad = None
            torch.nn.functional.conv2d(tXg, tWg, padding=p).backward(tG)

        for label, ours, ref in (("fwd", fwd, t_fwd), ("fwd+bwd", fwd_bwd, t_fwd_bwd)):
            name = f"conv2d bf16 {label} {n}x{c}x{hw}x{hw} k{k} o{o}"
            if args.only not in name:
                continue
            (a, b, r), ratios = compare([ours, widened(ours), ref], settle=0.1 if args.threads > 1 else 0.0)
            rows.append((name, a, b, r, spread(ratios), f"{b / r:.2f}"))
            if not args.markdown:
                print(f"{name:40s} tt[{default}] {fmt(a):>11s}  tt[openblas, widened] {fmt(b):>11s}  "
                      f"torch {fmt(r):>11s}  tt/torch {a / r:5.2f} ({spread(ratios)})  widened/torch {b / r:5.2f}",
                      flush=True)
    if args.markdown:
        print(f"Machine: {cpu_name()}, {os.cpu_count()} CPUs; threads={args.threads}; "
              f"clock: {'process CPU time' if args.cpu_time else 'wall'}; torch {torch.__version__}\n")
        print(f"| op | ours ({default}) | ours (openblas, widened) | torch bf16 | ours / torch | per-round range "
              "| widened / torch |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for name, a, b, r, sp, wr in rows:
            print(f"| {name} | {fmt(a)} | {fmt(b)} | {fmt(r)} | {a / r:.2f} | {sp} | {wr} |")


if __name__ == "__main__":
    main()

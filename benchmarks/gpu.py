"""GPU benchmarks: typedtensor's CUDA backend side by side with torch, in one process.

    python benchmarks/gpu.py [--quick] [--markdown] [--only matmul,elementwise,mlp,transformer]

Targets: matmul f32 and bf16 at 4096 >= 0.9x torch's throughput; elementwise ops and reductions on
>= 64M elements >= 80% of the device-to-device copy bandwidth; softmax / layer_norm rows >= 0.8x torch;
MLP and transformer training steps <= 1.2x torch eager's time; the compiled elementwise chain <= 1.0x
torch.compile's time.
Each figure is the median of repeated timings, bracketed by device synchronisation. TF32 is off
in both libraries unless a row says otherwise. Needs a CUDA device, and torch with CUDA for the
torch columns (without it those columns are empty)."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import typedtensor
import typedtensor._runtime as tt
from typedtensor._runtime import functional as F

try:
    import torch
    import torch.nn.functional as tF

    HAVE_TORCH = torch.cuda.is_available()
except ImportError:  # pragma: no cover - the GPU box has torch
    torch, tF, HAVE_TORCH = None, None, False


EMULATE = "--emulate" in sys.argv


def sync() -> None:
    tt.cuda.synchronize()
    if HAVE_TORCH:
        torch.cuda.synchronize()


def timeit(fn: Callable[[], Any], min_time: float = 0.3, repeats: int = 7) -> float:
    """Median seconds per call (calls batched so each timing lasts >= min_time / repeats)."""
    fn()
    sync()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        t = time.perf_counter() - t0
        if t > min_time / repeats or n >= 1 << 16:
            break
        n *= 2
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        times.append((time.perf_counter() - t0) / n)
    return statistics.median(times)


ROWS: list[tuple[str, str, str, str, str]] = []


def report(name: str, ours: float, ref: float | None, metric: Callable[[float], str]) -> None:
    ratio = f"{ours / ref:.2f}" if ref else "-"
    ROWS.append((name, metric(ours), metric(ref) if ref else "-", ratio, f"{ours * 1e3:.3f} ms"))
    print(f"{name:45s} ours {metric(ours):>14s}  torch {metric(ref) if ref else '-':>14s}  time ratio {ratio}",
          flush=True)


# ---------------- matmul ----------------
def bench_matmul(quick: bool) -> None:
    sizes = [256] if EMULATE else [1024, 2048] if quick else [1024, 4096]
    for tf32 in (False, True):
        tt.backends.cuda.matmul.allow_tf32 = tf32
        if HAVE_TORCH:
            torch.backends.cuda.matmul.allow_tf32 = tf32
        for n in sizes:
            a = tt.randn(n, n, device="cuda")
            b = tt.randn(n, n, device="cuda")
            ours = timeit(lambda a=a, b=b: a @ b)
            ref = None
            if HAVE_TORCH:
                ta, tb = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
                ref = timeit(lambda ta=ta, tb=tb: ta @ tb)
            flops = 2.0 * n**3
            report(f"matmul {n}x{n} fp32{' tf32' if tf32 else ''}", ours, ref, lambda t, f=flops: f"{f / t / 1e12:.1f} TFLOP/s")
        # a batched, broadcast case (attention-like)
        a = tt.randn(32, 8, 128, 64, device="cuda")
        b = tt.randn(32, 8, 64, 128, device="cuda")
        ours = timeit(lambda a=a, b=b: a @ b)
        ref = None
        if HAVE_TORCH:
            ta, tb = torch.randn(32, 8, 128, 64, device="cuda"), torch.randn(32, 8, 64, 128, device="cuda")
            ref = timeit(lambda ta=ta, tb=tb: ta @ tb)
        flops = 2.0 * 32 * 8 * 128 * 64 * 128
        report(f"bmm 256x(128x64 @ 64x128){' tf32' if tf32 else ''}", ours, ref, lambda t, f=flops: f"{f / t / 1e12:.1f} TFLOP/s")
    tt.backends.cuda.matmul.allow_tf32 = False
    if HAVE_TORCH:
        torch.backends.cuda.matmul.allow_tf32 = False
    n = sizes[-1]
    a = tt.randn(n, n, device="cuda").bfloat16()
    b = tt.randn(n, n, device="cuda").bfloat16()
    ours = timeit(lambda: a @ b)
    ref = None
    if HAVE_TORCH:
        ta = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        tb = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        ref = timeit(lambda: ta @ tb)
    report(f"matmul {n}x{n} bf16", ours, ref, lambda t, f=2.0 * n**3: f"{f / t / 1e12:.1f} TFLOP/s")


# ---------------- elementwise vs copy bandwidth ----------------
def bench_elementwise(quick: bool) -> None:
    n = 1 << (20 if EMULATE else 24 if quick else 26)  # float32: 64M elements = 256 MiB per tensor
    nbytes = 4 * n
    x, y, out = tt.randn(n, device="cuda"), tt.randn(n, device="cuda"), tt.empty(n, device="cuda")
    copy = timeit(lambda: out.copy_(x))
    gbs = lambda moved: (lambda t: f"{moved / t / 1e9:.0f} GB/s")
    ref_copy = None
    if HAVE_TORCH:
        tx, ty, tout = torch.randn(n, device="cuda"), torch.randn(n, device="cuda"), torch.empty(n, device="cuda")
        ref_copy = timeit(lambda: tout.copy_(tx))
    report("copy d2d (read + write)", copy, ref_copy, gbs(2 * nbytes))
    copy_bw = 2 * nbytes / copy
    cases: list[tuple[str, Callable[[], Any], Callable[[], Any] | None, int]] = [
        ("x + y", lambda: x + y, (lambda: tx + ty) if HAVE_TORCH else None, 3),
        ("x * 2.0", lambda: x * 2.0, (lambda: tx * 2.0) if HAVE_TORCH else None, 2),
        ("exp(x)", lambda: tt.exp(x), (lambda: torch.exp(tx)) if HAVE_TORCH else None, 2),
        ("gelu(x)", lambda: F.gelu(x), (lambda: tF.gelu(tx)) if HAVE_TORCH else None, 2),
        ("x.add_(y) (in place)", lambda: x.add_(y), (lambda: tx.add_(ty)) if HAVE_TORCH else None, 3),
    ]
    xb, bias = tt.randn(n // 1024, 1024, device="cuda"), tt.randn(1024, device="cuda")
    ref_bias = None
    if HAVE_TORCH:
        txb, tbias = torch.randn(n // 1024, 1024, device="cuda"), torch.randn(1024, device="cuda")
        ref_bias = lambda: txb + tbias
    cases.append(("x + bias [N/1024, 1024] + [1024]", lambda: xb + bias, ref_bias, 2))
    # reductions read their input once (the output is small)
    cases += [
        ("x.sum()", lambda: x.sum(), (lambda: tx.sum()) if HAVE_TORCH else None, 1),
        ("x.amax()", lambda: x.amax(), (lambda: tx.amax()) if HAVE_TORCH else None, 1),
        ("xb.sum(-1) [N/1024, 1024]", lambda: xb.sum(-1), (lambda: txb.sum(-1)) if HAVE_TORCH else None, 1),
        ("xb.mean(0) [N/1024, 1024]", lambda: xb.mean(0), (lambda: txb.mean(0)) if HAVE_TORCH else None, 1),
    ]
    for name, ours_fn, ref_fn, arrays in cases:
        ours = timeit(ours_fn)
        ref = timeit(ref_fn) if ref_fn else None
        moved = arrays * nbytes
        report(f"{name} ({100 * moved / ours / copy_bw:.0f}% of copy bw)", ours, ref, gbs(moved))


# ---------------- row-wise ops ----------------
def bench_rowwise(quick: bool) -> None:
    rows, cols = (256, 1024) if EMULATE else (1 << 14, 4096) if not quick else (1 << 12, 4096)
    x = tt.randn(rows, cols, device="cuda")
    w, b = tt.randn(cols, device="cuda"), tt.randn(cols, device="cuda")
    tx = tw = tb = None
    if HAVE_TORCH:
        tx, tw, tb = torch.randn(rows, cols, device="cuda"), torch.randn(cols, device="cuda"), torch.randn(cols, device="cuda")
    nbytes = 2 * 4 * rows * cols  # read + write
    gbs = lambda t: f"{nbytes / t / 1e9:.0f} GB/s"
    cases: list[tuple[str, Callable[[], Any], Callable[[], Any] | None]] = [
        ("softmax(x, -1)", lambda: F.softmax(x, -1), (lambda: tF.softmax(tx, -1)) if HAVE_TORCH else None),
        ("log_softmax(x, -1)", lambda: F.log_softmax(x, -1), (lambda: tF.log_softmax(tx, -1)) if HAVE_TORCH else None),
        ("layer_norm(x, [cols], w, b)", lambda: F.layer_norm(x, (cols,), w, b),
         (lambda: tF.layer_norm(tx, (cols,), tw, tb)) if HAVE_TORCH else None),
    ]
    for name, ours_fn, ref_fn in cases:
        report(f"{name} [{rows}, {cols}]", timeit(ours_fn), timeit(ref_fn) if ref_fn else None, gbs)


# ---------------- graph mode: the fused elementwise chain ----------------
def _chain(x: Any, w: Any, b: Any) -> Any:
    return ((x * w + b).tanh() * 0.5 + 1.0).relu()


def bench_compiled(quick: bool) -> None:
    n = 1 << (16 if EMULATE else 22 if quick else 26)
    x, w, b = tt.randn(n, device="cuda"), tt.randn(n, device="cuda"), tt.randn(n, device="cuda")
    eager = timeit(lambda: _chain(x, w, b))
    compiled_fn = typedtensor.compile(_chain)
    ours = timeit(lambda: compiled_fn(x, w, b))
    ref_eager = ref = None
    if HAVE_TORCH:
        tx, tw, tb = torch.randn(n, device="cuda"), torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        ref_eager = timeit(lambda: _chain(tx, tw, tb))
        try:
            tcompiled = torch.compile(_chain)
            ref = timeit(lambda: tcompiled(tx, tw, tb))
        except Exception as exc:  # torch.compile needs a working Triton; report rather than fail the run
            print(f"torch.compile unavailable: {exc!r}")
    moved = 4 * 4 * n  # three reads and one write
    gbs = lambda t: f"{moved / t / 1e9:.0f} GB/s"
    report(f"chain relu(tanh(x*w+b)*0.5+1) {n} eager vs torch eager", eager, ref_eager, gbs)
    report("chain compiled vs torch.compile", ours, ref, gbs)


# ---------------- training steps ----------------
def _params(shapes: list[tuple[int, ...]], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(s) / np.sqrt(s[-1])).astype(np.float32) for s in shapes]


def bench_mlp(quick: bool) -> None:
    batch, dims = (256, [784, 1024, 1024, 10]) if quick else (512, [1024, 4096, 4096, 10])
    shapes: list[tuple[int, ...]] = []
    for i in range(len(dims) - 1):
        shapes += [(dims[i + 1], dims[i]), (dims[i + 1],)]
    init = _params(shapes, 0)
    rng = np.random.default_rng(1)
    xs, ys = rng.standard_normal((batch, dims[0])).astype(np.float32), rng.integers(0, dims[-1], batch)

    ps = [tt.tensor(p, device="cuda", requires_grad=True) for p in init]
    X, Y = tt.tensor(xs, device="cuda"), tt.tensor(ys, device="cuda")

    def ours() -> None:
        h = X
        for i in range(0, len(ps) - 2, 2):
            h = F.relu(F.linear(h, ps[i], ps[i + 1]))
        loss = F.cross_entropy(F.linear(h, ps[-2], ps[-1]), Y)
        loss.backward()
        with tt.no_grad():
            for p in ps:
                p -= 0.01 * p.grad
                p.grad = None

    ref = None
    if HAVE_TORCH:
        tps = [torch.tensor(p, device="cuda", requires_grad=True) for p in init]
        TX, TY = torch.tensor(xs, device="cuda"), torch.tensor(ys, device="cuda")

        def theirs() -> None:
            h = TX
            for i in range(0, len(tps) - 2, 2):
                h = tF.relu(tF.linear(h, tps[i], tps[i + 1]))
            loss = tF.cross_entropy(tF.linear(h, tps[-2], tps[-1]), TY)
            loss.backward()
            with torch.no_grad():
                for p in tps:
                    p -= 0.01 * p.grad
                    p.grad = None

        ref = timeit(theirs, repeats=5)
    report(f"MLP step {dims} batch {batch}", timeit(ours, repeats=5), ref, lambda t: f"{t * 1e3:.2f} ms")


def bench_transformer(quick: bool) -> None:
    b, s, d, h = (8, 64, 256, 4) if quick else (32, 128, 512, 8)
    dh = d // h
    shapes = [(3 * d, d), (3 * d,), (d, d), (d,), (4 * d, d), (4 * d,), (d, 4 * d), (d,), (d,), (d,), (d,), (d,)]
    init = _params(shapes, 2)
    init[8:] = [np.ones(d, np.float32), np.zeros(d, np.float32), np.ones(d, np.float32), np.zeros(d, np.float32)]
    xs = np.random.default_rng(3).standard_normal((b, s, d)).astype(np.float32)

    def block(lib: Any, fn: Any, x: Any, p: list[Any]) -> Any:
        y = fn.layer_norm(x, (d,), p[8], p[9])
        qkv = fn.linear(y, p[0], p[1]).reshape(b, s, 3, h, dh).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = lib.softmax((q @ k.transpose(-2, -1)) * (1.0 / dh**0.5), -1)
        o = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = x + fn.linear(o, p[2], p[3])
        y = fn.layer_norm(x, (d,), p[10], p[11])
        return x + fn.linear(fn.gelu(fn.linear(y, p[4], p[5])), p[6], p[7])

    ps = [tt.tensor(p, device="cuda", requires_grad=True) for p in init]
    X = tt.tensor(xs, device="cuda")

    def ours() -> None:
        loss = block(tt, F, X, ps).square().mean()
        loss.backward()
        with tt.no_grad():
            for p in ps:
                p -= 0.01 * p.grad
                p.grad = None

    ref = None
    if HAVE_TORCH:
        tps = [torch.tensor(p, device="cuda", requires_grad=True) for p in init]
        TX = torch.tensor(xs, device="cuda")

        def theirs() -> None:
            loss = block(torch, tF, TX, tps).square().mean()
            loss.backward()
            with torch.no_grad():
                for p in tps:
                    p -= 0.01 * p.grad
                    p.grad = None

        ref = timeit(theirs, repeats=5)
    report(f"transformer block step b{b} s{s} d{d} h{h}", timeit(ours, repeats=5), ref, lambda t: f"{t * 1e3:.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--only", default="matmul,elementwise,rowwise,mlp,transformer,compiled")
    ap.add_argument("--emulate", action="store_true",
                    help="dry-run the script on the host-emulated device (checks the script; figures are meaningless)")
    args = ap.parse_args()
    if args.emulate:
        tt._C._testing_emulate_cuda(True)
    elif not tt.cuda.is_available():
        sys.exit(f"no CUDA device: {tt.cuda.status()}")
    name = torch.cuda.get_device_name(0) if HAVE_TORCH else "CUDA device 0"
    print(f"device: {name}; cuBLAS: {tt.cuda.cublas_status()}; torch {torch.__version__ if torch else '-'}")
    tt.manual_seed(0)
    benches = {"matmul": bench_matmul, "elementwise": bench_elementwise, "rowwise": bench_rowwise, "mlp": bench_mlp,
               "transformer": bench_transformer, "compiled": bench_compiled}
    for key in args.only.split(","):
        benches[key](args.quick)
    if args.markdown:
        print(f"\n### GPU: {name}\n")
        print("| case | typedtensor | torch | time ratio (ours / torch) | our time |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for row in ROWS:
            print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()

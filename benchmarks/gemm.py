"""float32 (or bfloat16) matmul throughput: typedtensor on each BLAS it can run (OpenBLAS, MKL),
torch, numpy, interleaved in one process.

    python benchmarks/gemm.py [--threads 1] [--clock cpu|wall] [--rounds 9] [--dtype float32|bfloat16]
                              [--precision highest|high|medium]

Each round times every implementation once per size (enough calls for ~50 ms each); the table
gives the median GFLOP/s over rounds and typedtensor / torch as a throughput ratio (higher is
better; the target on Intel is >= 0.95 at n >= 512). ``--dtype bfloat16`` times bfloat16 operands
(numpy has no bfloat16: its column times float32): MKL's bfloat16 GEMM for typedtensor on MKL,
float32 widening on OpenBLAS (NOTE [ bfloat16 GEMM ] in backend/src/cpu/gemm.cpp), oneDNN for torch. ``--clock cpu`` (the default) times with the
process's CPU clock: with one thread on a machine shared with other jobs, that measures the work
done rather than the scheduler; use ``--clock wall`` with ``--threads 2`` on a quiet machine.
``--precision medium`` sets both libraries' ``set_float32_matmul_precision``: float32 operands rounded
to bfloat16 on the bfloat16 GEMM (NOTE [ float32 matmul precision ] in backend/src/cpu/gemm.cpp).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from _harness import cpu_name


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--sizes", default="128,256,512,1024,2048")
    ap.add_argument("--dtype", choices=["float32", "bfloat16"], default="float32")
    ap.add_argument("--precision", choices=["highest", "high", "medium"], default="highest")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(args.threads))
    import numpy as np
    import torch

    import typedtensor as tt

    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    tt.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    tt.set_float32_matmul_precision(args.precision)
    torch.set_float32_matmul_precision(args.precision)
    libs = tt.backends.cpu.blas_available()
    start = tt.backends.cpu.get_blas()
    cpu = cpu_name()
    print(f"# {cpu}, {os.cpu_count()} CPUs, {args.threads} threads, {args.clock} clock, torch {torch.__version__}, "
          f"numpy {np.__version__}, {args.dtype}, precision {args.precision}, BLAS chosen by default: {start}, load average {os.getloadavg()[0]:.1f}\n")
    head = " | ".join(f"typedtensor {lib}" for lib in libs)
    print(f"| n | {head} | torch | numpy | " + " | ".join(f"{lib} / torch" for lib in libs) + " |")
    print("| ---: |" + " ---: |" * (2 * len(libs) + 2))
    rng = np.random.default_rng(0)
    for n in (int(s) for s in args.sizes.split(",")):
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        ta, tb, xa, xb = torch.from_numpy(a), torch.from_numpy(b), tt.from_numpy(a), tt.from_numpy(b)
        if args.dtype == "bfloat16":
            ta, tb, xa, xb = ta.bfloat16(), tb.bfloat16(), xa.to(tt.bfloat16), xb.to(tt.bfloat16)
        calls = max(1, int(50e6 * args.threads / (2 * n**3) * 150))  # ~50 ms at 150 GFLOP/s per thread

        def ours(lib: str) -> Callable[[], Any]:
            def run() -> Any:
                tt.backends.cpu.set_blas(lib)
                return xa @ xb
            return run

        fns: dict[str, Callable[[], Any]] = {lib: ours(lib) for lib in libs}
        fns["torch"] = lambda: ta @ tb
        fns["numpy"] = lambda: a @ b
        samples: dict[str, list[float]] = {k: [] for k in fns}
        for fn in fns.values():
            fn()
        for _ in range(args.rounds):
            for k, fn in fns.items():
                fn()  # sets the BLAS (for ours) and warms the caches
                t0 = clock()
                for _ in range(calls):
                    fn()
                samples[k].append((clock() - t0) / calls)
                # numpy's OpenBLAS threads spin for up to ~0.1 s after a call (torch's OpenMP pool
                # briefly too): on 2 cores they would take the next library's cycles
                time.sleep(0.15)
        gf = {k: 2 * n**3 / statistics.median(v) / 1e9 for k, v in samples.items()}
        cols = " | ".join(f"{gf[lib]:.1f}" for lib in libs)
        ratios = " | ".join(f"{gf[lib] / gf['torch']:.2f}" for lib in libs)
        print(f"| {n} | {cols} | {gf['torch']:.1f} | {gf['numpy']:.1f} | {ratios} |", flush=True)
    tt.backends.cpu.set_blas(start)


if __name__ == "__main__":
    main()

"""Where a training step's time goes: GEMM bound, and per-op time in eager vs compiled.

For the training steps of benchmarks/compile.py (same models, same data):

- eager and compiled step time (round-robin median, like compile.py);
- the GEMM bound: the FLOPs of every matmul the step runs (forward and backward, read off the traced
  graph) over the sgemm rate measured here at the same thread count (a 1024^3 matmul), and the
  matmul time measured inside the graph runs;
- a per-op profile (the graph executor's timer) of the step traced with *no* passes (eager's kernels
  without the Python and autograd bookkeeping) and of the optimised graph.

usage: python benchmarks/compile_profile.py [--threads 1] [--repeats 15] [--clock cpu|wall] [--only mlp,attn,cnn]
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
bench: Any = importlib.import_module("compile")  # benchmarks/compile.py: the same models, data and timer


def _gemm_rate(tt: Any, clock: Callable[[], float]) -> float:
    a, b = tt.randn(1024, 1024), tt.randn(1024, 1024)
    for _ in range(2):
        a @ b
    ts = []
    for _ in range(7):
        t0 = clock()
        a @ b
        ts.append(clock() - t0)
    return 2 * 1024**3 / float(np.median(ts))


def _matmul_flops(g: Any) -> float:
    flops = 0.0
    for n in g.nodes():
        nodes = n.body if n.op == "fused" else (n,)
        for m in nodes:
            if m.op != "matmul":
                continue
            a = g.value(m.inputs[0]).shape
            b = g.value(m.inputs[1]).shape
            flops += 2.0 * float(np.prod(a[:-1])) * a[-1] * b[-1]
    return flops


def _gemm_time(prof: dict[str, tuple[int, float]]) -> float:
    """Seconds in matmul nodes and in GEMM epilogues (``fused(matmul ...)``: the GEMM and the
    elementwise loop on its blocks, which the profile cannot tell apart; the loop is the small part)."""
    return sum(t for op, (_, t) in prof.items() if op == "matmul" or op.startswith("fused(matmul"))


def _profile(tt: Any, run: Callable[[], Any], repeats: int) -> dict[str, tuple[int, float]]:
    C = tt._C
    run()
    C._graph_profile_report(True)
    C._graph_profile(True)
    try:
        for _ in range(repeats):
            run()
    finally:
        C._graph_profile(False)
    return {op: (calls // repeats, secs / repeats) for op, calls, secs in C._graph_profile_report(True)}


def _table(prof: dict[str, tuple[int, float]], top: int = 14) -> list[str]:
    total = sum(s for _, s in prof.values())
    rows = sorted(prof.items(), key=lambda kv: -kv[1][1])[:top]
    out = [f"    total in graph ops: {total * 1e3:.2f} ms"]
    for op, (calls, secs) in rows:
        label = op if len(op) <= 60 else op[:57] + "..."
        out.append(f"    {label:<60} {calls:>4} calls {secs * 1e3:8.2f} ms  {100 * secs / total:5.1f}%")
    return out


def step_report(tt: Any, torch: Any, name: str, spec: tuple[Any, ...], repeats: int, rate: float) -> list[str]:
    shapes, xs, ys, kind = spec
    rng = np.random.default_rng(1)
    x = tt.from_numpy(rng.standard_normal(xs, dtype=np.float32))
    y = tt.from_numpy(rng.standard_normal(ys, dtype=np.float32))
    ps = bench._tt_params(tt, shapes, 2, out_first=kind == "cnn")

    def body(a: Any, c: Any) -> Any:
        out = bench.model_loss(kind, tt, ps, a, c)
        out.backward()
        return out.detach()

    compiled = tt.compile(body, params=ps)
    unoptimised = tt.compile(body, params=ps, passes=[])

    def step(fn: Callable[[Any, Any], Any]) -> Callable[[], Any]:
        def run() -> Any:
            for p in ps:
                p.grad = None
            return fn(x, y)
        return run

    t = bench.interleaved({"eager": step(body), "compiled": step(compiled), "unoptimised graph": step(unoptimised)},
                          repeats, clock=bench.CLOCK)
    flops = _matmul_flops(unoptimised.graph_for(x, y))
    bound = flops / rate
    p_eager = _profile(tt, step(unoptimised), repeats)
    p_comp = _profile(tt, step(compiled), repeats)
    mm_eager = _gemm_time(p_eager)
    mm_comp = _gemm_time(p_comp)
    lines = [
        f"## {name}",
        f"  eager {bench.fmt(t['eager'])}, compiled {bench.fmt(t['compiled'])} "
        f"({t['compiled'] / t['eager']:.2f}x eager), unoptimised graph {bench.fmt(t['unoptimised graph'])}",
        f"  GEMM FLOPs {flops / 1e9:.3f} G at {rate / 1e9:.1f} GFLOP/s -> GEMM bound {bench.fmt(bound)} "
        f"({bound / t['eager']:.2f} of eager, {bound / t['compiled']:.2f} of compiled)",
        f"  matmul time measured in the graphs (with the GEMM epilogues): unoptimised {bench.fmt(mm_eager)}, "
        f"compiled {bench.fmt(mm_comp)}",
        f"  non-GEMM time: eager {bench.fmt(t['eager'] - mm_eager)}, compiled {bench.fmt(t['compiled'] - mm_comp)}; "
        f"lowest compiled time reachable with these GEMMs: {bench.fmt(mm_comp)} "
        f"= {mm_comp / t['eager']:.2f}x eager",
        "  per-op, unoptimised graph (eager's kernels):",
        *_table(p_eager),
        "  per-op, compiled graph:",
        *_table(p_comp),
    ]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--clock", choices=["wall", "cpu"], default="cpu")
    ap.add_argument("--only", default="", help="the models to profile (comma-separated: mlp, attn, cnn; default all)")
    args = ap.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    bench.CLOCK = args.clock
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    import torch

    import typedtensor as tt

    tt.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    rate = _gemm_rate(tt, clock)
    print(f"# {args.threads} threads, {args.clock} clock, load average {os.getloadavg()[0]:.1f}; "
          f"sgemm 1024^3: {rate / 1e9:.1f} GFLOP/s")
    specs = {k: v for k, v in bench.SPECS.items() if not args.only or v[3] in args.only.split(",")}
    for name, spec in specs.items():
        print("\n".join(step_report(tt, torch, name, spec, args.repeats, rate)))


if __name__ == "__main__":
    main()

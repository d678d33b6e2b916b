"""The compiled chain ``relu(tanh(x * w + b) * 0.5 + 1)`` (x 4096x1024 float32) in fresh processes:
how much its time varies from one process to the next, beside torch eager in the same processes.

    python benchmarks/compile_spread.py [--processes 10] [--calls 15] [--threads 2] [--no-torch]

Each child process imports typedtensor (and torch, unless ``--no-torch``), compiles the chain,
then times ``--calls`` calls of the compiled chain and of torch eager, interleaved, and reports
its median of each, with what could make a process slow or fast: the minor page faults per
compiled call, whether x and the compiled output lie on transparent huge pages, and the CPU time
that threads outside typedtensor's pool (torch's, numpy's OpenBLAS's) spent while the compiled
kernel ran. The parent prints one row per process and min / median / max over processes, and the
spread max / min (the target is at most 1.3).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from _harness import cpu_name


def _threads() -> list[int]:
    return sorted(int(t) for t in os.listdir("/proc/self/task"))


def _cpu_ns(tids: list[int]) -> int:
    total = 0
    for t in tids:
        try:
            with open(f"/proc/self/task/{t}/schedstat") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def _huge_kb(addr: int, size: int) -> int:
    """AnonHugePages (kB) of the mappings that overlap [addr, addr + size)."""
    total, inside = 0, False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split(None, 1)[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(v, 16) for v in head.split("-"))
                inside = lo < addr + size and hi > addr
            elif inside and head == "AnonHugePages:":
                total += int(line.split()[1])
    return total


def child(calls: int, threads: int, use_torch: bool) -> dict[str, Any]:
    import resource

    import numpy as np

    import typedtensor as tt

    tt.set_num_threads(threads)
    rng = np.random.default_rng(0)
    xn = rng.standard_normal((4096, 1024), dtype=np.float32)
    wn = rng.standard_normal(1024, dtype=np.float32)
    bn = rng.standard_normal(1024, dtype=np.float32)
    x, w, b = tt.from_numpy(xn), tt.from_numpy(wn), tt.from_numpy(bn)
    x * 2.0
    ours = _threads()
    torch_fn = None
    if use_torch:
        import torch

        torch.set_num_threads(threads)
        tx, tw, tb = torch.from_numpy(xn), torch.from_numpy(wn), torch.from_numpy(bn)

        def torch_fn() -> Any:
            return torch.relu(torch.tanh(tx * tw + tb) * 0.5 + 1.0)

        torch_fn()
    cf = tt.compile(lambda x, w, b: (tt.tanh(x * w + b) * 0.5 + 1.0).relu())
    y = cf(x, w, b)
    # The bandwidth control: the same 16 MB read and written by numpy into a buffer it already owns
    # (no allocation, no page faults, one thread). It moves as much memory as the chain moves, so
    # whatever slows the machine's memory path in this process slows both.
    copy_out = np.empty_like(xn)
    np.multiply(xn, 2.0, out=copy_out)
    others = [t for t in _threads() if t not in ours]
    comp, ref, copies, faults, other_cpu = [], [], [], [], []
    out_huge, out_addr = 0, 0
    for _ in range(calls):
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        c0 = _cpu_ns(others)
        t0 = time.perf_counter()
        y = cf(x, w, b)
        comp.append(time.perf_counter() - t0)
        other_cpu.append((_cpu_ns(others) - c0) / 1e6)
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
        out_addr = y.data_ptr()
        out_huge = _huge_kb(out_addr, 16 << 20)
        del y
        t0 = time.perf_counter()
        np.multiply(xn, 2.0, out=copy_out)
        copies.append(time.perf_counter() - t0)
        if torch_fn is not None:
            t0 = time.perf_counter()
            torch_fn()
            ref.append(time.perf_counter() - t0)
    return {
        "compiled_ms": statistics.median(comp) * 1e3,
        "torch_ms": statistics.median(ref) * 1e3 if ref else None,
        "copy_ms": statistics.median(copies) * 1e3,
        "faults_per_call": statistics.median(faults),
        "x_huge_mb": _huge_kb(xn.__array_interface__["data"][0], xn.nbytes) / 1024,
        "out_huge_mb": out_huge / 1024,
        "other_threads_cpu_ms": statistics.median(other_cpu),
        "threads": len(_threads()),
        "x_mod_4k": xn.__array_interface__["data"][0] % 4096,
        "out_minus_x_mod_4k": (out_addr - xn.__array_interface__["data"][0]) % 4096,
        "w_b_mod_4k": (w.data_ptr() % 4096, b.data_ptr() % 4096),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--processes", type=int, default=10)
    ap.add_argument("--calls", type=int, default=15)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    if args.child:
        print(json.dumps(child(args.calls, args.threads, not args.no_torch)))
        return
    cpu = cpu_name()
    print(f"# {cpu}, {os.cpu_count()} CPUs, {args.threads} threads, {args.processes} processes x {args.calls} calls, "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print("| process | compiled (median) | numpy x*2 into a held buffer (median) | torch eager (median) | faults / call | x on huge pages | output on huge pages "
          "| other threads' CPU during the call | (out - x) mod 4096 | (w, b) mod 4096 |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rows = []
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--calls", str(args.calls), "--threads", str(args.threads)]
    if args.no_torch:
        cmd.append("--no-torch")
    for i in range(args.processes):
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(r)
        torch_ms = f"{r['torch_ms']:.2f} ms" if r["torch_ms"] is not None else "—"
        print(f"| {i + 1} | {r['compiled_ms']:.2f} ms | {r['copy_ms']:.2f} ms | {torch_ms} | {r['faults_per_call']:.0f} | {r['x_huge_mb']:.0f} MB "
              f"| {r['out_huge_mb']:.0f} MB | {r['other_threads_cpu_ms']:.2f} ms | {r['out_minus_x_mod_4k']} | {r['w_b_mod_4k']} |", flush=True)
    c = [r["compiled_ms"] for r in rows]
    print(f"\ncompiled over {len(c)} processes: min {min(c):.2f} ms, median {statistics.median(c):.2f} ms, "
          f"max {max(c):.2f} ms; max / min = {max(c) / min(c):.2f} (target <= 1.3)")
    m = [r["copy_ms"] for r in rows]
    print(f"numpy x*2 into a held buffer (the machine's memory path): min {min(m):.2f} ms, median "
          f"{statistics.median(m):.2f} ms, max {max(m):.2f} ms; max / min = {max(m) / min(m):.2f}")
    q = [r["compiled_ms"] / r["copy_ms"] for r in rows]
    print(f"compiled / numpy x*2 within each process: min {min(q):.3f}, max {max(q):.3f}; max / min = "
          f"{max(q) / min(q):.2f}")
    t = [r["torch_ms"] for r in rows if r["torch_ms"] is not None]
    if t:
        print(f"torch eager: min {min(t):.2f} ms, median {statistics.median(t):.2f} ms, max {max(t):.2f} ms; "
              f"max / min = {max(t) / min(t):.2f}")
        q = [r["compiled_ms"] / r["torch_ms"] for r in rows if r["torch_ms"]]
        print(f"compiled / torch eager within each process: {min(q):.3f} to {max(q):.3f}")


if __name__ == "__main__":
    main()

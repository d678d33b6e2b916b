"""Loading a ~500 MB state dict: ``tt.load`` vs ``safetensors.torch.load_file`` (same file, same process,
interleaved), with the memory each load makes resident.

For each load: the wall time of the call, then the process's private (anonymous) and file-backed
resident memory it added (``RssAnon`` / ``RssFile`` from /proc/self/status) with the tensors alive,
and the time to read every element once (a sum) — a memory-mapped load pays its reads there.
The file is in the page cache (it was just written), so these are warm-cache figures.

    python benchmarks/safetensors_load.py [--mb 500] [--reps 3]
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from _harness import cpu_name


def rss() -> dict[str, int]:
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("RssAnon:", "RssFile:", "VmRSS:")):
                key, value = line.split(":")
                out[key] = int(value.split()[0]) * 1024
    return out



def measure(load: Callable[[], dict[str, Any]], total: Callable[[dict[str, Any]], float]) -> dict[str, float]:
    gc.collect()
    before = rss()
    t0 = time.perf_counter()
    sd = load()
    t1 = time.perf_counter()
    after = rss()
    s = total(sd)
    t2 = time.perf_counter()
    touched = rss()
    del sd
    gc.collect()
    return {
        "load_s": t1 - t0, "read_s": t2 - t1, "checksum": s,
        "anon_mb": (after["RssAnon"] - before["RssAnon"]) / 2**20,
        "file_mb": (after["RssFile"] - before["RssFile"]) / 2**20,
        "anon_after_read_mb": (touched["RssAnon"] - before["RssAnon"]) / 2**20,
        "file_after_read_mb": (touched["RssFile"] - before["RssFile"]) / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=500)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()

    import torch
    from safetensors.torch import load_file

    import typedtensor as tt

    torch.set_num_threads(1)
    tt.set_num_threads(1)
    rng = np.random.default_rng(0)
    n_tensors = 40
    per = args.mb * 2**20 // n_tensors // 4
    rows = 1024
    sd = {f"layers.{i}.weight": tt.tensor(rng.standard_normal((rows, per // rows), dtype=np.float32)) for i in range(n_tensors)}
    size = sum(t.numel() * 4 for t in sd.values())
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "big.safetensors")
        tt.save(sd, path)
        del sd
        gc.collect()
        print(f"file: {os.path.getsize(path) / 2**20:.0f} MiB, {n_tensors} float32 tensors ({size / 2**20:.0f} MiB of data)")
        print(f"CPU: {cpu_name()} ({os.cpu_count()} cores visible); other work may be running on this machine")
        total = lambda d: sum(float(t.sum().item()) for t in d.values())
        loads = {"tt.load": lambda: tt.load(path), "safetensors.torch.load_file": lambda: load_file(path),
                 "tt.load(mmap=False)": lambda: tt.load(path, mmap=False)}
        rows_out: dict[str, list[dict[str, float]]] = {k: [] for k in loads}
        for _ in range(args.reps):
            for name, fn in loads.items():
                rows_out[name].append(measure(fn, total))
        print(f"{'':30s} {'load (s)':>9s} {'read (s)':>9s} {'+anon MiB':>10s} {'+file MiB':>10s} "
              f"{'after read: +anon':>18s} {'+file':>7s}")
        for name, runs in rows_out.items():
            best = min(runs, key=lambda r: r["load_s"])
            print(f"{name:30s} {best['load_s']:9.4f} {min(r['read_s'] for r in runs):9.3f} {best['anon_mb']:10.1f} "
                  f"{best['file_mb']:10.1f} {best['anon_after_read_mb']:18.1f} {best['file_after_read_mb']:7.1f}")
        a, b = rows_out["tt.load"], rows_out["safetensors.torch.load_file"]
        assert all(abs(r["checksum"] - b[0]["checksum"]) <= 1e-6 * max(1.0, abs(b[0]["checksum"])) for r in a + b)
        assert abs(a[0]["checksum"] - b[0]["checksum"]) <= 1e-6 * max(1.0, abs(b[0]["checksum"])), "the two loads disagree"
        print(f"load time ratio tt/torch: {min(r['load_s'] for r in a) / min(r['load_s'] for r in b):.3f}")


if __name__ == "__main__":
    main()

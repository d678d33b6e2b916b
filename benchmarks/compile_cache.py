"""Memory of tt.compile's graph cache as a function meets new input shapes.

    python benchmarks/compile_cache.py [--shapes 3000] [--limit 8] [--passes default|nofuse]

Calls one compiled function with --shapes input shapes ([n, 64] for n = 1, 2, ..., or cycling
through n = 1 .. --cycle, every call a new signature for a cache of 8) and
prints the process's resident memory (VmRSS) before and after, with the bounded cache
(``cache_limit=--limit``) and, for comparison, with a limit larger than the number of shapes (the
old, unbounded behaviour). ``--passes nofuse`` leaves out the fusion pass: with it every new shape
also compiles a kernel with the C++ compiler (about a second each here), and those shared libraries
stay loaded for the life of the process (see docs/graph-mode.md, "The cache is bounded")."""

from __future__ import annotations

import argparse
import gc
import time
import warnings


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def loaded_kernels() -> int:
    """Generated kernel libraries mapped into this process now."""
    with open("/proc/self/maps") as f:
        return len({line.split()[-1] for line in f if "/tt_" in line and line.rstrip().endswith(".so")})


def run(shapes: int, limit: int, passes: list[str] | None, cycle: int) -> tuple[float, float, int, float]:
    import typedtensor as tt

    w = tt.randn(64, 64)
    fn = tt.compile(lambda x: ((x @ w) * 2.0 + 1.0).relu().sum(0), passes=passes, cache_limit=limit)
    fn(tt.randn(1, 64))
    gc.collect()
    before = rss_mb()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(shapes):
            fn(tt.randn(1 + i % cycle, 64))
            if (i + 1) % max(shapes // 4, 1) == 0:
                print(f"  {i + 1} shapes: RSS {rss_mb() - before:+.0f} MB, {fn.cache_size()} graphs, "
                      f"{loaded_kernels()} kernel libraries loaded", flush=True)
    seconds = time.perf_counter() - t0
    gc.collect()
    return before, rss_mb(), fn.cache_size(), seconds


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", type=int, default=3000)
    p.add_argument("--limit", type=int, default=8)
    p.add_argument("--passes", choices=["default", "nofuse"], default="nofuse")
    p.add_argument("--unbounded", action="store_true", help="measure only the unbounded cache")
    p.add_argument("--cycle", type=int, default=0, help="shapes [n, 64] for n = 1 .. CYCLE, again and again")
    a = p.parse_args()
    passes = None if a.passes == "default" else ["simplify", "fold", "cse", "dce", "memplan"]
    limits = [a.shapes + 1] if a.unbounded else [a.limit]
    for limit in limits:
        before, after, kept, seconds = run(a.shapes, limit, passes, a.cycle or a.shapes)
        label = "unbounded" if limit > a.shapes else f"cache_limit={limit}"
        print(f"{label:16s} passes={a.passes}: {a.shapes} shapes in {seconds:.1f} s, {kept} graphs kept, "
              f"RSS {before:.0f} MB -> {after:.0f} MB ({after - before:+.0f} MB)")


if __name__ == "__main__":
    main()

"""Two Python threads doing independent tensor work: does the GIL let them overlap?

    python benchmarks/threads.py [--numel 4194304] [--seconds 3] [--lib typedtensor,torch]

Each library runs with one intra-op thread (set_num_threads(1)), so any speed-up comes from the two
Python threads running kernels at once (the kernels release the GIL: NOTE [ The GIL ] in
backend/include/typedtensor/gil.h). A worker repeats ``y = x * 1.5 + 0.5; z = y.exp()`` on its
own 4M-element float32 tensors for a fixed time; throughput is ops per second, one thread alone
then two threads together, interleaved over rounds; the figure is the median ratio. With two
cores, 2.0 is the ceiling (memory bandwidth and other load on the machine pull it down)."""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

from _harness import cpu_name


def worker_fn(lib: Any, numel: int) -> Callable[[], None]:
    x = lib.rand(numel)

    def step() -> None:
        y = x * 1.5 + 0.5
        y.exp()

    return step


def throughput(steps: list[Callable[[], None]], seconds: float) -> float:
    """Steps per second, all threads together."""
    counts = [0] * len(steps)
    stop = time.perf_counter() + seconds

    def run(i: int) -> None:
        while time.perf_counter() < stop:
            steps[i]()
            counts[i] += 1

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(steps))]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / (time.perf_counter() - t0)



def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--numel", type=int, default=4 * 1024 * 1024)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--lib", default="typedtensor,torch")
    a = p.parse_args()
    libs: dict[str, Any] = {}
    for name in a.lib.split(","):
        if name == "typedtensor":
            import typedtensor as tt

            tt.set_num_threads(1)
            libs[name] = tt
        elif name == "torch":
            import torch

            torch.set_num_threads(1)
            libs[name] = torch
    print(f"{cpu_name()}, {os.cpu_count()} CPUs; {a.numel:,} float32 elements per thread, {a.rounds} rounds")
    ratios: dict[str, list[float]] = {n: [] for n in libs}
    for _ in range(a.rounds):
        for name, lib in libs.items():  # interleaved: each round sees the same load on the machine
            one = throughput([worker_fn(lib, a.numel)], a.seconds)
            two = throughput([worker_fn(lib, a.numel), worker_fn(lib, a.numel)], a.seconds)
            ratios[name].append(two / one)
            print(f"  {name:12s} 1 thread {one:7.1f} steps/s   2 threads {two:7.1f} steps/s   x{two / one:.2f}")
    for name, r in ratios.items():
        print(f"{name}: two threads / one thread, median x{statistics.median(r):.2f} (rounds: "
              f"{', '.join(f'{v:.2f}' for v in r)})")


if __name__ == "__main__":
    main()

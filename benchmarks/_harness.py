"""What the side-by-side benchmarks share: the CPU's name and the interleaved timing loop.

Timings on the machines here swing with other load by ±20% between rounds, so every benchmark
times the libraries it compares round-robin in one process (each sample of each library sees the
same load) and reports the median per library; the ratios, not the absolute times, are the result.
``python benchmarks/<name>.py`` puts this directory first on ``sys.path``, so the scripts import
this module by its bare name.
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


def cpu_name() -> str:
    """The CPU's model name (the machines here are AMD or Intel; results are reported with it)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def interleaved(
    fns: dict[str, Callable[[], Any]], repeats: int, warmup: int = 2, clock: str = "wall"
) -> dict[str, float]:
    """Median seconds per function of samples taken round-robin, after ``warmup`` untimed calls each.

    ``clock="cpu"`` reads the process CPU clock: at one thread on a loaded machine it leaves out the
    time the scheduler gives to other processes, which the wall clock counts."""
    now = CLOCKS[clock]
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            t0 = now()
            fn()
            samples[k].append(now() - t0)
    return {k: statistics.median(v) for k, v in samples.items()}

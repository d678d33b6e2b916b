"""Long CPU kernels release the GIL (NOTE [ The GIL ] in backend/include/typedtensor/gil.h): while
one Python thread is inside a kernel, another one keeps running Python code. The measure does not
depend on the machine's load: the longest pause the watching thread sees is compared with the
kernel's own duration (a kernel that held the GIL would pause it for all of it)."""

from __future__ import annotations

import itertools
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor as tt


def _pauses(work: Callable[[], Any], repeats: int = 5) -> tuple[float, float]:
    """(the median over ``work`` calls of the longest gap between the watching thread's ticks during
    that call, the median duration of a call). A kernel that held the GIL would make each call's
    longest gap about as long as the call; the medians shrug off a stray scheduling delay."""
    started, done = threading.Event(), threading.Event()
    spans: list[tuple[float, float]] = []

    def worker() -> None:
        started.set()
        for _ in range(repeats):
            t0 = time.perf_counter()
            work()
            spans.append((t0, time.perf_counter()))
        done.set()

    ticks = [time.perf_counter()]
    t = threading.Thread(target=worker)
    t.start()
    started.wait()
    while not done.is_set():
        time.sleep(0.0005)  # gives the GIL away; taking it back needs the worker to have released it
        ticks.append(time.perf_counter())
    t.join()
    gaps = []
    for t0, t1 in spans:
        inside = [x for x in ticks if t0 <= x <= t1]
        before = [x for x in ticks if x < t0]
        after = [x for x in ticks if x > t1]
        edge = [before[-1]] if before else [t0]
        edge_after = [after[0]] if after else [t1]
        points = [*edge, *inside, *edge_after]
        gaps.append(max(min(b, t1) - max(a, t0) for a, b in itertools.pairwise(points)))
    return statistics.median(gaps), statistics.median(t1 - t0 for t0, t1 in spans)


@pytest.fixture
def one_thread() -> Any:
    n = tt.get_num_threads()
    tt.set_num_threads(1)
    yield
    tt.set_num_threads(n)


@pytest.mark.parametrize("name,make", [
    ("matmul 1536", lambda: (lambda a, b: lambda: a @ b)(tt.randn(1536, 1536), tt.randn(1536, 1536))),
    ("exp 8M", lambda: (lambda x: lambda: x.exp())(tt.randn(8 << 20))),
    ("sum 16M", lambda: (lambda x: lambda: x.sum(0))(tt.randn(4, 4 << 20))),
    ("x * y + 1 16M", lambda: (lambda x, y: lambda: x * y + 1.0)(tt.randn(16 << 20), tt.randn(16 << 20))),
])
def test_a_long_kernel_lets_another_python_thread_run(one_thread: Any, name: str, make: Callable[[], Any]) -> None:
    work = make()
    work()  # warm (allocator, page faults)
    pause, kernel = _pauses(work)
    assert pause < 0.5 * kernel, f"{name}: the watcher paused {pause * 1e3:.1f} ms in a {kernel * 1e3:.1f} ms kernel"


def test_two_threads_compute_the_same_as_one(one_thread: Any) -> None:
    """Independent work in two threads (kernels overlapping) gives the serial results; gradients
    of one shared leaf accumulated from two threads lose no addition."""
    g = np.random.default_rng(0)
    xs = [tt.tensor(g.standard_normal(1 << 20).astype(np.float32)) for _ in range(2)]
    want = [(x * 1.5 + 0.5).exp().sum().item() for x in xs]
    got: list[float] = [0.0, 0.0]

    def run(i: int) -> None:
        for _ in range(5):
            got[i] = (xs[i] * 1.5 + 0.5).exp().sum().item()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == want
    w = tt.zeros(1 << 18, requires_grad=True)

    def backward() -> None:
        for _ in range(10):
            (w * 2.0).sum().backward()

    threads = [threading.Thread(target=backward) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert w.grad is not None and float(w.grad.min().item()) == float(w.grad.max().item()) == 40.0

"""A compiled call's results are freed when the caller drops them, not when Python's cyclic
collector next runs: rebuilding the result structure must not leave a reference cycle behind."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

import typedtensor as tt
from typedtensor.graph._pytree import flatten, unflatten


@pytest.fixture
def no_cyclic_gc() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_unflatten_leaves_no_reference_cycle(no_cyclic_gc: None) -> None:
    leaves: list[object] = []
    structure = flatten({"a": [1, (2, 3)], "b": (4, [5])}, lambda v: isinstance(v, int) and v > 2, leaves)
    rebuilt = unflatten(structure, leaves)
    assert rebuilt == {"a": [1, (2, 3)], "b": (4, [5])}
    del rebuilt
    assert gc.collect() == 0


def test_a_compiled_call_frees_its_result_when_dropped(no_cyclic_gc: None) -> None:
    x, w = tt.randn(256, 256), tt.randn(256)  # 256 KB results: served by the CPU buffer cache
    f = tt.compile(lambda x, w: (x * w).tanh() + 1.0)
    f(x, w)
    held = tt.backends.cpu.cache_info()["held_bytes"]
    ptrs = set()
    for _ in range(6):
        y = f(x, w)
        ptrs.add(y.data_ptr())
        del y  # back to the cache now: the next call reuses it
    assert len(ptrs) == 1
    assert tt.backends.cpu.cache_info()["held_bytes"] == held
    assert gc.collect() == 0

"""The CPU large-buffer cache (typedtensor.backends.cpu): reuse, zero-fill, bounds, emptying."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import typedtensor._runtime as tt

cache = tt.backends.cpu
BIG = (1024, 2048)  # 8 MB of float32: above the 4 MB threshold
MB = 1 << 20


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    limit = cache.cache_info()["limit_bytes"]
    cache.set_cache_limit(256 * MB)
    cache.empty_cache()
    yield
    cache.set_cache_limit(limit)
    cache.empty_cache()


def test_freed_large_buffer_is_reused() -> None:
    a = tt.empty(*BIG)
    del a
    assert cache.cache_info()["buffers"] == 1
    hits = cache.cache_info()["hits"]
    b = tt.empty(*BIG)
    assert cache.cache_info()["hits"] == hits + 1
    assert cache.cache_info()["buffers"] == 0
    del b


def test_reused_buffer_is_zeroed_by_zeros() -> None:
    a = tt.full(BIG, 7.0)
    del a
    z = tt.zeros(*BIG)
    assert cache.cache_info()["hits"] >= 1
    assert not z.numpy().any()
    o = tt.zeros_like(tt.ones(*BIG))
    assert not o.numpy().any()


def test_buffer_held_by_a_view_is_not_reused() -> None:
    a = tt.full(BIG, 3.0)
    v = a[5]
    del a  # the view keeps the storage alive: nothing goes back to the cache
    assert cache.cache_info()["buffers"] == 0
    b = tt.full(BIG, -1.0)
    np.testing.assert_array_equal(v.numpy(), np.full(BIG[1], 3.0, dtype=np.float32))
    del b


def test_small_buffers_bypass_the_cache() -> None:
    a = tt.empty(100, 100)
    del a
    assert cache.cache_info()["buffers"] == 0


def test_limit_bounds_the_held_bytes() -> None:
    cache.set_cache_limit(20 * MB)
    ts = [tt.empty(n, MB // 4) for n in (5, 6, 7, 8, 9)]  # 5..9 MB each, 35 MB in all
    del ts
    info = cache.cache_info()
    assert 0 < info["held_bytes"] <= 20 * MB


def test_empty_cache_and_disable() -> None:
    tt.empty(*BIG)
    assert cache.cache_info()["held_bytes"] > 0
    cache.empty_cache()
    assert cache.cache_info()["held_bytes"] == 0
    cache.set_cache_limit(0)
    tt.empty(*BIG)
    assert cache.cache_info()["buffers"] == 0
    with pytest.raises(ValueError, match="non-negative"):
        cache.set_cache_limit(-1)


def test_miss_releases_cached_buffers_first() -> None:
    """A miss that would take the bytes in use plus those held past twice the most ever in use
    (since empty_cache) releases cached buffers first: the cache at most doubles the peak."""
    tt.empty(1024, 2048)  # 8 MB cached; 8 MB (plus whatever other tests keep alive) the peak
    before = cache.cache_info()
    b = tt.empty(1024, 10240)  # 40 MB: a miss; keeping the 8 MB would exceed twice the old peak
    after = cache.cache_info()
    assert after["misses"] == before["misses"] + 1
    assert after["held_bytes"] == 0
    del b

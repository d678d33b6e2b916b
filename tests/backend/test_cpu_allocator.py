"""The CPU caching allocator (NOTE [ CPU caching allocator ] in backend/src/core/cpu_allocator.cpp):
size classes, reuse, the bound, alignment, many threads, absurd sizes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

import typedtensor._runtime as tt

cache = tt.backends.cpu
KB, MB = 1 << 10, 1 << 20


def size_class(nbytes: int) -> int:
    """The documented rule: 4 classes per power of two from 64 KB, 2 MB multiples from 4 MB."""
    step = (1 << (nbytes.bit_length() - 1)) // 4
    cls = -(-nbytes // step) * step
    return -(-cls // (2 * MB)) * (2 * MB) if cls >= 4 * MB else cls


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    limit = cache.cache_info()["limit_bytes"]
    cache.set_cache_limit(256 * MB)
    cache.empty_cache()
    yield
    cache.set_cache_limit(limit)
    cache.empty_cache()


def test_size_class_rule_examples() -> None:
    assert size_class(64 * KB) == 64 * KB
    assert size_class(100 * KB) == 112 * KB  # [64 KB, 128 KB) in 16 KB steps
    assert size_class(5 * MB + 1) == 6 * MB
    assert size_class(9 * MB) == 10 * MB


@pytest.mark.parametrize("nbytes", [64 * KB, 100 * KB, 300 * KB, 3 * MB + 4, 5 * MB, 9 * MB])
def test_freed_block_is_held_at_its_class_size(nbytes: int) -> None:
    tt.empty(nbytes // 4)
    info = cache.cache_info()
    assert info["buffers"] == 1
    assert info["held_bytes"] == size_class(nbytes)


def test_a_freed_block_serves_a_smaller_request_of_its_class() -> None:
    a = tt.empty(100 * KB // 4)  # class 112 KB
    del a
    hits = cache.cache_info()["hits"]
    b = tt.empty(108 * KB // 4)  # a different size, the same class: reused
    assert cache.cache_info()["hits"] == hits + 1
    assert cache.cache_info()["buffers"] == 0
    del b
    c = tt.empty(120 * KB // 4)  # the next class (128 KB): a miss
    assert cache.cache_info()["hits"] == hits + 1
    del c


def test_blocks_below_64_kb_are_not_cached() -> None:
    tt.empty((64 * KB - 64) // 4)  # 64 KB less one 64-byte line: a malloc block
    assert cache.cache_info()["buffers"] == 0


def test_held_bytes_never_exceed_the_limit() -> None:
    cache.set_cache_limit(1 * MB)
    for n in range(64 * KB, 2 * MB, 96 * KB):
        live = [tt.empty(n // 4) for _ in range(3)]
        del live
        info = cache.cache_info()
        assert info["held_bytes"] <= 1 * MB
        assert info["limit_bytes"] == 1 * MB


def test_lowering_the_limit_releases_down_to_it_and_zero_releases_everything() -> None:
    live = [tt.empty(256 * KB // 4) for _ in range(8)]
    del live
    assert cache.cache_info()["held_bytes"] == 8 * 256 * KB
    cache.set_cache_limit(512 * KB)
    assert cache.cache_info()["held_bytes"] == 512 * KB
    cache.set_cache_limit(0)
    assert cache.cache_info()["held_bytes"] == cache.cache_info()["buffers"] == 0
    tt.empty(256 * KB // 4)
    assert cache.cache_info()["buffers"] == 0


@pytest.mark.parametrize("nbytes", [4, 60 * KB, 64 * KB, 333 * KB, 2 * MB, 4 * MB, 7 * MB + 12])
def test_alignment(nbytes: int) -> None:
    align = 2 * MB if size_class(nbytes) >= 4 * MB else 64
    for _ in range(2):  # a fresh block, then (when cached) a reused one
        t = tt.empty(max(nbytes // 4, 1))
        assert t.data_ptr() % align == 0
        del t


def test_many_threads_allocating_and_freeing() -> None:
    """Matmuls release the GIL, so blocks are allocated and freed while other threads compute."""
    n_threads, rounds = 8, 30
    before = cache.cache_info()
    errors: list[BaseException] = []
    a = tt.ones(256, 256)

    def work(seed: int) -> None:
        try:
            for i in range(rounds):
                rows = 128 + 64 * ((seed + i) % 4)  # 128 KB .. 320 KB results, several classes
                x = tt.full((rows, 256), 1.0)
                y = x @ a
                assert float(y[rows - 1, 255]) == 256.0
                del x, y
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    info = cache.cache_info()
    assert info["hits"] + info["misses"] >= before["hits"] + before["misses"] + 2 * n_threads * rounds
    assert 0 < info["held_bytes"] <= info["limit_bytes"]
    cache.empty_cache()
    assert cache.cache_info()["held_bytes"] == cache.cache_info()["buffers"] == 0


def test_absurd_size_is_a_memory_error() -> None:
    with pytest.raises(MemoryError):
        tt.empty(1 << 62)
    with pytest.raises(MemoryError):
        tt.empty(1 << 40, 1 << 20)


@pytest.mark.parametrize(("env", "limit"), [
    ({"TYPEDTENSOR_CPU_CACHE_MB": "3"}, 3 * MB),
    ({"TYPEDTENSOR_CPU_CACHE_MB": "0"}, 0),
    ({"TYPEDTENSOR_NO_HEAP_TUNING": "1"}, 0),
])
def test_limit_from_environment(env: dict[str, str], limit: int) -> None:
    code = "import typedtensor as t; print(t.backends.cpu.cache_info()['limit_bytes'])"
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("TYPEDTENSOR_")} | env
    out = subprocess.run([sys.executable, "-c", code], env=full_env, capture_output=True, text=True,
                         check=True, cwd=os.path.dirname(os.path.abspath(__file__)))
    assert int(out.stdout.split()[-1]) == limit


def test_demand_shifting_between_classes_settles_to_hits() -> None:
    """A step whose per-class demand changes (three 512 KB blocks live, then four 1 MB ones) must
    stop missing after a few steps: a miss may not evict what the rest of the step needs."""

    def step() -> None:
        small = [tt.empty(512 * KB // 4) for _ in range(3)]
        del small
        large = [tt.empty(1 * MB // 4) for _ in range(4)]
        del large

    for _ in range(3):
        step()
    misses = cache.cache_info()["misses"]
    step()
    assert cache.cache_info()["misses"] == misses

"""DataLoader worker processes: the same batches as in-process loading, delivered through shared
memory, with torch's options (worker_init_fn, persistent_workers, prefetch_factor, timeout), a
worker's exception re-raised with its traceback, and no worker or segment left behind."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from typedtensor.data import DataLoader, Dataset, IterableDataset, TensorDataset, _shm, get_worker_info

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="worker tests use fork and /dev/shm")


class Samples(Dataset[dict[str, Any]]):
    """Nested samples: a tensor, a numpy array, numbers and a string."""

    def __len__(self) -> int:
        return 23

    def __getitem__(self, i: int) -> dict[str, Any]:
        return {
            "x": tt.full((3, 2), float(i)),
            "a": np.arange(4, dtype=np.int64) + i,
            "pair": (i, float(i) / 2),
            "name": f"s{i}",
            "flag": i % 2 == 0,
        }


def _np(t: Any) -> np.ndarray:
    return np.asarray((t.float() if t.dtype == tt.bfloat16 else t).numpy())


def _same(a: Any, b: Any) -> None:
    if isinstance(a, tt.Tensor):
        assert isinstance(b, tt.Tensor) and a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(_np(a), _np(b))
    elif isinstance(a, dict):
        assert sorted(a) == sorted(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    else:
        assert a == b


def _no_segments(prefix: str = "tt_dl_") -> list[str]:
    return [n for n in os.listdir("/dev/shm") if n.startswith(f"{prefix}{os.getpid()}_")]


@pytest.mark.parametrize("num_workers", [1, 2, 3])
def test_workers_give_the_same_batches_in_order(num_workers: int) -> None:
    ref = list(DataLoader(Samples(), batch_size=4))
    got = list(DataLoader(Samples(), batch_size=4, num_workers=num_workers))
    assert len(got) == len(ref) == 6
    for a, b in zip(got, ref, strict=True):
        _same(a, b)
    assert _no_segments() == []


def test_tensor_dataset_and_shuffle_through_workers() -> None:
    ds = TensorDataset(tt.arange(40).float().reshape(20, 2), tt.arange(20))
    a = list(DataLoader(ds, batch_size=3, shuffle=True, generator=np.random.default_rng(7), num_workers=2))
    b = list(DataLoader(ds, batch_size=3, shuffle=True, generator=np.random.default_rng(7)))
    for x, y in zip(a, b, strict=True):
        _same(x, y)
    seen = np.concatenate([_np(batch[1]) for batch in a])
    assert sorted(seen.tolist()) == list(range(20))


def test_batches_travel_through_shared_memory_not_pickles() -> None:
    prefix = _shm.new_prefix()
    pool, receiver = _shm.SegmentPool(prefix), _shm.Receiver()
    try:
        big = {"x": tt.ones(256, 1024), "y": [tt.arange(5), "label"], "z": 3}
        packed = _shm.pack(big, pool, worker=1)
        assert packed.segment is not None and packed.size >= 256 * 1024 * 4 and packed.worker == 1
        assert len(packed.payload) < 1024  # the structure only: no tensor bytes in the pickle
        back = receiver.unpack(packed)
        _same(back, big)
        back["x"].add_(1)  # writable, like torch's batches
        assert float(back["x"].sum()) == 2 * 256 * 1024
        again = _shm.pack(big, pool)
        assert again.segment != packed.segment  # the first segment is still read: not reused
        assert receiver.drain() == []
        del back
        assert receiver.drain() == [(1, packed.segment)]  # its tensors are gone: the worker may reuse it
        pool.release(packed.segment)
        assert _shm.pack(big, pool).segment == packed.segment
        assert _shm.pack({"n": 1}, pool).segment is None  # nothing to share: no segment
    finally:
        pool.close()
    assert not [n for n in os.listdir("/dev/shm") if n.startswith(prefix)]


def test_zero_d_bool_and_half_tensors_keep_shape_and_dtype() -> None:
    pool = _shm.SegmentPool(_shm.new_prefix())
    batch = [tt.tensor(5), tt.tensor([True, False]), tt.ones(2, dtype=tt.float16), tt.ones(2, dtype=tt.bfloat16), tt.zeros(0, 3)]
    back = _shm.Receiver().unpack(_shm.pack(batch, pool))
    pool.close()
    _same(back, batch)


def test_kept_batches_are_never_overwritten() -> None:
    """Segments are reused only once every tensor of their batch is gone."""
    loader = DataLoader(TensorDataset(tt.arange(400).float().reshape(100, 4)), batch_size=5, num_workers=2)
    kept = list(loader)
    np.testing.assert_array_equal(np.concatenate([_np(b[0]) for b in kept]), np.arange(400).reshape(100, 4))
    for _ in range(2):  # batches dropped as they go: segments recycle, values stay right
        for i, (x,) in enumerate(loader):
            assert float(x[0, 0]) == 20 * i
    np.testing.assert_array_equal(np.concatenate([_np(b[0]) for b in kept]), np.arange(400).reshape(100, 4))


class Seeds(Dataset[Any]):
    def __len__(self) -> int:
        return 8

    def __getitem__(self, i: int) -> Any:
        info = get_worker_info()
        assert info is not None and info.dataset is self
        return np.array([info.id, info.num_workers, info.seed % 1000003, float(np.random.random() < 2)])


def test_worker_info_and_worker_init_fn() -> None:
    assert get_worker_info() is None
    started = multiprocessing.get_context("fork").Queue()
    loader = DataLoader(Seeds(), batch_size=2, num_workers=2, worker_init_fn=started.put)
    rows = np.concatenate([_np(b) for b in loader])
    assert sorted({started.get(timeout=10), started.get(timeout=10)}) == [0, 1]
    assert set(rows[:, 0].tolist()) == {0, 1} and set(rows[:, 1].tolist()) == {2}
    seeds = {int(w): int(s) for w, s in rows[:, :3:2]}
    assert (seeds[1] - seeds[0]) % 1000003 == 1  # base_seed + worker_id, as torch


class Stream(IterableDataset[int]):
    def __init__(self, n: int) -> None:
        self.n = n

    def __iter__(self) -> Any:
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self) -> int:
        return self.n


def test_iterable_dataset_split_by_worker_info() -> None:
    single = np.concatenate([_np(b) for b in DataLoader(Stream(17), batch_size=4)])
    assert single.tolist() == list(range(17))
    multi = np.concatenate([_np(b) for b in DataLoader(Stream(17), batch_size=4, num_workers=3)])
    assert sorted(multi.tolist()) == list(range(17))
    dropped = list(DataLoader(Stream(17), batch_size=4, num_workers=2, drop_last=True))
    assert all(int(b.shape[0]) == 4 for b in dropped)
    assert len(DataLoader(Stream(17), batch_size=4)) == 5
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        DataLoader(Stream(3), shuffle=True)


class Pids(Dataset[int]):
    def __len__(self) -> int:
        return 6

    def __getitem__(self, i: int) -> int:
        return os.getpid()


def test_persistent_workers_live_across_epochs() -> None:
    loader = DataLoader(Pids(), batch_size=2, num_workers=2, persistent_workers=True)
    first = {int(p) for b in loader for p in _np(b)}
    second = {int(p) for b in loader for p in _np(b)}
    assert first == second and len(first) == 2 and os.getpid() not in first
    partial = iter(loader)
    next(partial)  # an epoch left half-read: the next one still starts clean
    assert len(list(loader)) == 3
    fresh = DataLoader(Pids(), batch_size=2, num_workers=2)
    assert {int(p) for b in fresh for p in _np(b)}.isdisjoint(first)
    it = loader._iterator
    del loader, partial
    assert it is not None
    it._shutdown_workers()
    assert all(not w.is_alive() for w in it._workers)


def test_prefetch_factor_and_argument_errors() -> None:
    assert len(list(DataLoader(Samples(), batch_size=5, num_workers=2, prefetch_factor=1))) == 5
    with pytest.raises(ValueError, match="prefetch_factor option should be non-negative"):
        DataLoader(Samples(), num_workers=1, prefetch_factor=-1)
    with pytest.raises(ValueError, match="timeout option should be non-negative"):
        DataLoader(Samples(), timeout=-1)
    if not tt.cuda.is_available():
        with pytest.warns(UserWarning, match="pin_memory"):  # torch warns the same on a machine without a device
            DataLoader(Samples(), pin_memory=True)


class Failing(Dataset[Any]):
    def __len__(self) -> int:
        return 10

    def __getitem__(self, i: int) -> Any:
        if i == 5:
            raise ValueError(f"sample {i} is broken")
        return tt.ones(2)


def test_worker_exception_carries_its_traceback_and_stops_the_workers() -> None:
    it = iter(DataLoader(Failing(), batch_size=2, num_workers=2))
    workers = list(it._workers)
    with pytest.raises(ValueError, match="Caught ValueError in DataLoader worker process") as info:
        for _ in it:
            pass
    text = str(info.value)
    assert "sample 5 is broken" in text and "Original Traceback" in text and "__getitem__" in text
    for w in workers:
        assert w.exitcode is not None  # joined: no zombie
    assert _no_segments() == []


class KeyFailing(Dataset[Any]):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> Any:
        return {}["missing"]


def test_key_error_is_readable() -> None:
    with pytest.raises(KeyError) as info:
        list(DataLoader(KeyFailing(), batch_size=2, num_workers=1))
    assert "Caught KeyError" in str(info.value) and "\\n" not in str(info.value)


class Dying(Dataset[Any]):
    def __len__(self) -> int:
        return 6

    def __getitem__(self, i: int) -> Any:
        if i == 3:
            os._exit(7)
        return tt.ones(1)


def test_a_dead_worker_is_reported() -> None:
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        list(DataLoader(Dying(), batch_size=1, num_workers=2))
    assert _no_segments() == []


class Slow(Dataset[Any]):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> Any:
        time.sleep(3)
        return tt.ones(1)


def test_timeout() -> None:
    loader = DataLoader(Slow(), batch_size=1, num_workers=1, timeout=0.3)
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0\.3 seconds"):
        next(iter(loader))
    assert time.monotonic() - t0 < 10


_CTRL_C_SCRIPT = textwrap.dedent(
    """
    import os, sys, time
    import typedtensor as tt
    from typedtensor.data import DataLoader, Dataset

    class Endless(Dataset):
        def __len__(self):
            return 10**6

        def __getitem__(self, i):
            time.sleep(0.005)
            return tt.ones(64)

    it = iter(DataLoader(Endless(), batch_size=4, num_workers=2))
    next(it)
    print(" ".join(str(w.pid) for w in it._workers), flush=True)
    while True:
        next(it)
    """
)


def _gone(pid: int) -> bool:
    return not os.path.exists(f"/proc/{pid}")  # a zombie still has its /proc entry


def test_ctrl_c_leaves_no_worker_and_no_zombie() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", _CTRL_C_SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, cwd=tempfile.gettempdir(),  # not the checkout: `-c` would import its source tree
    )
    try:
        assert proc.stdout is not None
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends: the whole process group
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert "KeyboardInterrupt" in err
    deadline = time.monotonic() + 10
    while not all(_gone(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in pids:
        assert _gone(pid), f"worker {pid} outlived its loader"
    assert not [n for n in os.listdir("/dev/shm") if n.startswith(f"tt_dl_{proc.pid}_")]


def test_leaving_a_loop_early_stops_the_workers() -> None:
    it = iter(DataLoader(Samples(), batch_size=1, num_workers=2))
    next(it)
    workers = list(it._workers)
    del it
    for w in workers:
        w.join(timeout=10)
        assert w.exitcode is not None
    assert _no_segments() == []

"""DataLoader semantics: batching, drop_last, seeded shuffling, collation (torch's rules)."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from typedtensor.data import DataLoader, Dataset, Subset, TensorDataset, default_collate, random_split


def _np(t: Any) -> np.ndarray:
    return np.asarray(t.numpy())


def test_tensor_dataset_batches_in_order() -> None:
    x = tt.arange(10).reshape(10, 1).float()
    y = tt.arange(10)
    ds = TensorDataset(x, y)
    assert len(ds) == 10
    xi, yi = ds[3]
    assert float(xi[0]) == 3.0 and int(yi) == 3
    loader = DataLoader(ds, batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 == len(batches)
    assert [int(b[1].shape[0]) for b in batches] == [4, 4, 2]
    assert _np(batches[2][1]).tolist() == [8, 9]
    assert batches[0][0].dtype == tt.float32 and tuple(batches[0][0].shape) == (4, 1)
    dropped = DataLoader(ds, batch_size=4, drop_last=True)
    assert len(dropped) == 2 and [int(b[1].shape[0]) for b in dropped] == [4, 4]


def test_shuffle_is_a_seeded_permutation_per_epoch() -> None:
    ds = TensorDataset(tt.arange(20))
    a = DataLoader(ds, batch_size=5, shuffle=True, seed=7)
    b = DataLoader(ds, batch_size=5, shuffle=True, seed=7)
    e1 = np.concatenate([_np(t[0]) for t in a])
    e2 = np.concatenate([_np(t[0]) for t in a])
    assert sorted(e1.tolist()) == list(range(20)) and sorted(e2.tolist()) == list(range(20))
    assert e1.tolist() != e2.tolist()  # a new order each epoch
    assert e1.tolist() == np.concatenate([_np(t[0]) for t in b]).tolist()  # same seed, same order
    tt.manual_seed(3)
    c = np.concatenate([_np(t[0]) for t in DataLoader(ds, batch_size=5, shuffle=True)])
    tt.manual_seed(3)
    d = np.concatenate([_np(t[0]) for t in DataLoader(ds, batch_size=5, shuffle=True)])
    assert c.tolist() == d.tolist()  # no seed: follows tt.manual_seed


class Pairs(Dataset[tuple[Any, int]]):
    def __getitem__(self, i: int) -> tuple[Any, int]:
        return tt.full((2,), float(i)), i

    def __len__(self) -> int:
        return 5


def test_generic_dataset_uses_default_collate() -> None:
    batches = list(DataLoader(Pairs(), batch_size=2))
    assert len(batches) == 3
    x, y = batches[0]
    assert tuple(x.shape) == (2, 2) and y.dtype == tt.int64 and _np(y).tolist() == [0, 1]


def test_default_collate_follows_torch() -> None:
    torch = pytest.importorskip("torch")
    from torch.utils.data import default_collate as torch_collate

    Point = namedtuple("Point", ["x", "y"])
    samples: list[Any] = [
        {"a": np.ones(3, dtype=np.float32) * i, "b": float(i), "c": [i, True], "d": "s", "p": Point(i, 2.0 * i)}
        for i in range(4)
    ]
    ours, ref = default_collate(samples), torch_collate(samples)
    assert sorted(ours) == sorted(ref)
    np.testing.assert_array_equal(_np(ours["a"]), ref["a"].numpy())
    assert ours["b"].dtype == tt.float64 and str(ref["b"].dtype) == "torch.float64"
    assert isinstance(ours["c"], list) and ours["c"][1].dtype == tt.bool
    assert ours["d"] == ref["d"] == ["s"] * 4
    assert isinstance(ours["p"], Point) and _np(ours["p"].y).tolist() == ref["p"].y.tolist()
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="found object"):
        default_collate([object()])
    del torch


def test_custom_collate_and_unbatched() -> None:
    loader = DataLoader(list(range(7)), batch_size=3, collate_fn=lambda b: sum(b))
    assert list(loader) == [3, 12, 6]
    assert list(DataLoader([1, 2], batch_size=None)) == [1, 2]


def test_subset_and_random_split() -> None:
    ds = TensorDataset(tt.arange(10))
    sub = Subset(ds, [9, 0])
    assert int(sub[0][0]) == 9 and len(sub) == 2
    parts = random_split(ds, [0.7, 0.3], seed=0)
    idx = sorted(parts[0].indices + parts[1].indices)
    assert [len(p) for p in parts] == [7, 3] and idx == list(range(10))
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(ds, [3, 3])


def test_argument_errors() -> None:
    ds = TensorDataset(tt.zeros(3))
    with pytest.raises(ValueError, match="batch_size"):
        DataLoader(ds, batch_size=0)
    with pytest.raises(ValueError, match="mutually exclusive"):
        DataLoader(ds, batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match="Size mismatch"):
        TensorDataset(tt.zeros(3), tt.zeros(4))
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(ds, num_workers=-1)
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(ds, persistent_workers=True)
    with pytest.raises(ValueError, match="prefetch_factor option could only be specified in multiprocessing"):
        DataLoader(ds, prefetch_factor=2)


def test_utils_data_alias() -> None:
    import typedtensor.utils.data as ud

    assert ud.DataLoader is DataLoader and tt.utils.data.TensorDataset is TensorDataset

"""Samplers, datasets and collation against torch.utils.data: the same indices where the order is
deterministic, the same distribution where it is random, the same lengths and errors."""

from __future__ import annotations

from collections import Counter, namedtuple
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from typedtensor import data as D

torch = pytest.importorskip("torch")
TD = torch.utils.data


def test_sequential_and_batch_samplers_match_torch() -> None:
    for n, bs, drop in ((10, 3, False), (10, 3, True), (9, 3, True), (1, 4, False)):
        ours = D.BatchSampler(D.SequentialSampler(range(n)), bs, drop)
        ref = TD.BatchSampler(TD.SequentialSampler(range(n)), bs, drop)
        assert list(ours) == list(ref) and len(ours) == len(ref)
    with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
        D.BatchSampler(D.SequentialSampler(range(3)), 0, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value"):
        D.BatchSampler(D.SequentialSampler(range(3)), 2, 1)  # type: ignore[arg-type]


def test_random_sampler_is_a_permutation_or_draws_with_replacement() -> None:
    s = D.RandomSampler(range(10), generator=np.random.default_rng(0))
    assert sorted(s) == list(range(10)) and len(s) == 10
    more = D.RandomSampler(range(4), num_samples=10, generator=np.random.default_rng(1))
    drawn = list(more)
    assert len(drawn) == 10 == len(more) and Counter(drawn)[0] in (2, 3)  # two permutations and a part, as torch
    rep = D.RandomSampler(range(3), replacement=True, num_samples=1000, generator=np.random.default_rng(2))
    counts = Counter(rep)
    assert sum(counts.values()) == 1000 and set(counts) == {0, 1, 2} and min(counts.values()) > 250
    tt.manual_seed(5)
    a = list(D.RandomSampler(range(50)))
    tt.manual_seed(5)
    assert list(D.RandomSampler(range(50))) == a  # follows tt.manual_seed without a generator
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        D.RandomSampler(range(3), num_samples=0)
    with pytest.raises(TypeError, match="replacement should be a boolean value"):
        D.RandomSampler(range(3), replacement=1)  # type: ignore[arg-type]


def test_subset_random_and_weighted_samplers() -> None:
    s = D.SubsetRandomSampler([5, 7, 9], generator=np.random.default_rng(0))
    assert sorted(s) == [5, 7, 9] and len(s) == 3
    w = D.WeightedRandomSampler([0.1, 0.0, 0.9], 2000, generator=np.random.default_rng(0))
    counts = Counter(w)
    assert counts[1] == 0 and 1600 < counts[2] < 1990 and len(w) == 2000
    no_rep = list(D.WeightedRandomSampler(tt.tensor([1.0, 1.0, 1.0, 0.0]), 3, replacement=False))
    assert sorted(no_rep) == [0, 1, 2]
    with pytest.raises(RuntimeError, match=r"cannot sample n_sample > prob_dist\.size"):
        D.WeightedRandomSampler([1.0, 0.0], 2, replacement=False)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        D.WeightedRandomSampler([1.0], 0)


def test_loader_with_sampler_and_batch_sampler_like_torch() -> None:
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    ours = D.DataLoader(D.TensorDataset(tt.tensor(x)), sampler=[5, 0, 3], batch_size=2)
    ref = TD.DataLoader(TD.TensorDataset(torch.tensor(x)), sampler=[5, 0, 3], batch_size=2)
    assert [b[0].numpy().tolist() for b in ours] == [b[0].numpy().tolist() for b in ref]
    bsamp = [[0, 1], [4], [2, 3, 5]]
    ours = D.DataLoader(D.TensorDataset(tt.tensor(x)), batch_sampler=bsamp)
    ref = TD.DataLoader(TD.TensorDataset(torch.tensor(x)), batch_sampler=bsamp)
    assert [b[0].numpy().tolist() for b in ours] == [b[0].numpy().tolist() for b in ref]
    assert len(ours) == len(ref) == 3
    for kw in ({"batch_sampler": bsamp, "batch_size": 2}, {"batch_sampler": bsamp, "shuffle": True},
               {"batch_sampler": bsamp, "drop_last": True}):
        with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
            D.DataLoader(list(range(6)), **kw)
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        D.DataLoader(list(range(6)), sampler=[0], shuffle=True)
    for n, bs, drop in ((10, 3, False), (10, 3, True), (10, None, False)):
        assert len(D.DataLoader(list(range(n)), batch_size=bs, drop_last=drop)) == len(
            TD.DataLoader(list(range(n)), batch_size=bs, drop_last=drop)
        )


def test_concat_stack_chain_and_subset_index_like_torch() -> None:
    a, b = list(range(5)), list(range(10, 13))
    ours, ref = D.ConcatDataset([a, b]), TD.ConcatDataset([a, b])
    assert len(ours) == len(ref) == 8 and ours.cumulative_sizes == ref.cumulative_sizes
    assert [ours[i] for i in range(-8, 8)] == [ref[i] for i in range(-8, 8)]
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        ours[-9]
    with pytest.raises(AssertionError, match="empty"):
        D.ConcatDataset([])

    class Ints(D.Dataset[int]):
        def __len__(self) -> int:
            return 3

        def __getitem__(self, i: int) -> int:
            return i

    joined = Ints() + Ints()
    assert isinstance(joined, D.ConcatDataset) and [joined[i] for i in range(6)] == [0, 1, 2, 0, 1, 2]
    stack = D.StackDataset(a, [x * 2 for x in a])
    assert stack[2] == (2, 4) and len(stack) == 5
    named = D.StackDataset(x=a, y=a)
    assert named[1] == {"x": 1, "y": 1}
    with pytest.raises(ValueError, match="Size mismatch"):
        D.StackDataset(a, b)

    class It(D.IterableDataset[int]):
        def __init__(self, n: int) -> None:
            self.n = n

        def __iter__(self) -> Any:
            return iter(range(self.n))

        def __len__(self) -> int:
            return self.n

    chain = It(2) + It(3)
    assert list(chain) == [0, 1, 0, 1, 2] and len(chain) == 5
    assert D.Subset(a, [4, 1])[0] == 4


def test_random_split_lengths_like_torch() -> None:
    for n, lengths in ((10, [0.3, 0.3, 0.4]), (11, [0.5, 0.5]), (7, [0.1, 0.9]), (10, [3, 7])):
        ours = D.random_split(list(range(n)), lengths, generator=np.random.default_rng(0))
        ref = TD.random_split(list(range(n)), lengths, generator=torch.Generator().manual_seed(0))
        assert [len(s) for s in ours] == [len(s) for s in ref]
        assert sorted(i for s in ours for i in s.indices) == list(range(n))
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        D.random_split(list(range(4)), [-0.5, 1.5])
    tt.manual_seed(1)
    x = D.random_split(list(range(20)), [0.5, 0.5])
    tt.manual_seed(1)
    y = D.random_split(list(range(20)), [0.5, 0.5])
    assert x[0].indices == y[0].indices


Point = namedtuple("Point", ["x", "y"])


def test_default_collate_nested_structures_like_torch() -> None:
    samples: list[Any] = [
        {
            "t": tt.full((2,), float(i)),
            "n": np.full((2, 2), i, dtype=np.int32),
            "s0": np.float32(i) / 2,
            "np0": np.array(i, dtype=np.int64),
            "f": i / 3,
            "b": bool(i % 2),
            "tup": (i, [i, "w"]),
            "pt": Point(float(i), np.ones(1) * i),
        }
        for i in range(3)
    ]
    torch_samples = [{**s, "t": torch.full((2,), float(i))} for i, s in enumerate(samples)]
    ours, ref = D.default_collate(samples), TD.default_collate(torch_samples)

    def same(a: Any, b: Any) -> None:
        if isinstance(b, torch.Tensor):
            assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], (a.dtype, b.dtype)
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_array_equal(np.asarray(a.numpy()), b.numpy())
        elif isinstance(b, dict):
            assert sorted(a) == sorted(b)
            for k in b:
                same(a[k], b[k])
        elif isinstance(b, (list, tuple)):
            assert type(a) is type(b) and len(a) == len(b)
            for x, y in zip(a, b, strict=True):
                same(x, y)
        else:
            assert a == b

    same(ours, ref)
    converted = D.default_convert({"a": np.ones(2), "b": (np.zeros(1), "s"), "c": [np.array(3)]})
    assert isinstance(converted["a"], tt.Tensor) and isinstance(converted["b"], list)
    assert tuple(converted["c"][0].shape) == ()



def test_a_seeded_typedtensor_generator_makes_splits_and_orders_repeatable() -> None:
    """torch's data-parallel programs give ``random_split`` and the samplers
    ``torch.Generator().manual_seed(s)`` so that every rank splits alike whatever the global seed."""
    def split(global_seed: int) -> list[int]:
        tt.manual_seed(global_seed)
        return D.random_split(list(range(30)), [0.5, 0.5], generator=tt.Generator().manual_seed(42))[0].indices

    assert split(1) == split(2)
    g1, g2 = tt.Generator().manual_seed(7), tt.Generator().manual_seed(7)
    first = list(D.RandomSampler(range(30), generator=g1))
    assert first == list(D.RandomSampler(range(30), generator=g2))
    assert sorted(first) == list(range(30))
    assert list(D.RandomSampler(range(30), generator=g1)) != first  # the generator advanced, as torch's does
    assert list(D.SubsetRandomSampler([3, 5, 9], generator=tt.Generator().manual_seed(3))) == list(
        D.SubsetRandomSampler([3, 5, 9], generator=tt.Generator().manual_seed(3)))

"""Datasets: the map-style protocol (``__getitem__`` + ``__len__``), the iterable one (``__iter__``),
and torch's stock implementations and combinators."""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from typedtensor._runtime import _C
from typedtensor.data.sampler import _rng

T_co = TypeVar("T_co", covariant=True)
Tensor = Any


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses give ``__getitem__(index)`` and ``__len__``."""

    def __getitem__(self, index: int) -> T_co:
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must implement __len__")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A stream of samples (``__iter__``). With worker processes, each worker iterates its own copy:
    split the stream with ``get_worker_info()`` inside ``__iter__`` or every worker yields all of it."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    def __add__(self, other: Dataset[T_co]) -> ChainDataset[T_co]:  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Sample ``i`` is ``(t[i] for t in tensors)``; all tensors share their first dimension."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        for t in tensors:
            if not isinstance(t, _C.Tensor):
                raise TypeError(f"TensorDataset: expected tensors, got {type(t).__name__}")
            if t.ndim == 0:
                raise ValueError("TensorDataset: tensors need a first (sample) dimension, got a 0-d tensor")
        n = int(tensors[0].shape[0])
        if any(int(t.shape[0]) != n for t in tensors):
            sizes = [int(t.shape[0]) for t in tensors]
            raise ValueError(f"Size mismatch between tensors: first dimensions are {sizes}")
        self.tensors = tuple(tensors)

    def __getitem__(self, index: int) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return int(self.tensors[0].shape[0])


class StackDataset(Dataset[T_co]):
    """Samples of several datasets side by side: a tuple (positional) or a dict (keyword) per index."""

    def __init__(self, *args: Dataset[Any], **kwargs: Dataset[Any]) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like input/output, but both types are given.")
        datasets: Sequence[Dataset[Any]] = args or tuple(kwargs.values())
        if not datasets:
            raise ValueError("At least one dataset should be passed")
        self._length = len(datasets[0])
        if any(len(d) != self._length for d in datasets):
            raise ValueError("Size mismatch between datasets")
        self.datasets: Any = args if args else kwargs

    def __getitem__(self, index: int) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[T_co]):
    """Several map-style datasets one after the other."""

    datasets: list[Dataset[T_co]]
    cumulative_sizes: list[int]

    def __init__(self, datasets: Iterable[Dataset[T_co]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> T_co:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = 0 if which == 0 else self.cumulative_sizes[which - 1]
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset[T_co]):
    """Several iterable datasets one after the other."""

    def __init__(self, datasets: Iterable[Dataset[T_co]]) -> None:
        self.datasets = list(datasets)

    def __iter__(self) -> Iterator[T_co]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = list(indices)

    def __getitem__(self, index: int) -> T_co:
        if isinstance(index, list):
            return [self.dataset[self.indices[i]] for i in index]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def _split_lengths(n: int, lengths: Sequence[int | float]) -> list[int]:
    """torch's rule: fractions summing to 1 become counts (floors, the remainder dealt round-robin)."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(math.floor(n * frac))
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.", stacklevel=3)
        return sizes
    return [int(x) for x in lengths]


def random_split(
    dataset: Dataset[T_co], lengths: Sequence[int | float], generator: Any = None, *, seed: int | None = None,
) -> list[Subset[T_co]]:
    """Split into non-overlapping random subsets of the given lengths (or fractions summing to 1).

    The permutation comes from ``generator`` (a typedtensor ``Generator``, as torch's, or a
    ``numpy.random.Generator``), else from ``seed``, else from typedtensor's global generator (so
    ``tt.manual_seed`` makes the split repeatable)."""
    n = len(dataset)
    sizes = _split_lengths(n, lengths)
    if sum(sizes) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    rng = np.random.default_rng(seed) if seed is not None and generator is None else _rng(generator)
    perm = rng.permutation(n).tolist()
    return [Subset(dataset, perm[end - size : end]) for end, size in zip(itertools.accumulate(sizes), sizes, strict=True)]

"""Datasets: the map-style protocol (``__getitem__`` + ``__len__``) and the stock implementations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from typedtensor._runtime import _C

T_co = TypeVar("T_co", covariant=True)
Tensor = Any


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses give ``__getitem__(index)`` and ``__len__``."""

    def __getitem__(self, index: int) -> T_co:
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must implement __len__")


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


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = list(indices)

    def __getitem__(self, index: int) -> T_co:
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset[T_co], lengths: Sequence[int | float], seed: int | None = None) -> list[Subset[T_co]]:
    """Split into non-overlapping random subsets; fractions summing to 1 are rounded as torch rounds them."""
    n = len(dataset)
    sizes = [int(x) for x in lengths]
    if lengths and all(isinstance(x, float) for x in lengths) and abs(sum(lengths) - 1.0) < 1e-9:
        sizes = [int(np.floor(n * float(f))) for f in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
    if sum(sizes) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = np.random.default_rng(seed).permutation(n).tolist()
    out: list[Subset[T_co]] = []
    start = 0
    for size in sizes:
        out.append(Subset(dataset, perm[start : start + size]))
        start += size
    return out

"""``DataLoader``: batches of a map-style dataset, optionally shuffled by a seeded generator.

Shuffling draws one permutation per epoch from a numpy generator seeded once (from ``seed``, or
from typedtensor's global generator so that ``tt.manual_seed`` makes runs repeatable)."""

from __future__ import annotations

import collections.abc
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from typedtensor._runtime import _C
from typedtensor.data.dataset import Dataset, TensorDataset

T_co = TypeVar("T_co", covariant=True)


def default_collate(batch: Sequence[Any]) -> Any:
    """Stack tensors (and numpy arrays), turn numbers into 1-d tensors, recurse into tuples, lists
    and dicts (torch's rules: a batch of tuples becomes a list of batched fields)."""
    if not batch:
        raise ValueError("default_collate: empty batch")
    elem = batch[0]
    if isinstance(elem, _C.Tensor):
        return _C.stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        return _C.stack([_C.from_numpy(np.ascontiguousarray(a)) for a in batch], 0)
    if isinstance(elem, np.generic):
        return _C.tensor(np.asarray(batch))
    if isinstance(elem, bool):
        return _C.tensor(list(batch), dtype=_C.bool)
    if isinstance(elem, int):
        return _C.tensor(list(batch), dtype=_C.int64)
    if isinstance(elem, float):
        return _C.tensor(list(batch), dtype=_C.float64)
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(list(field)) for field in zip(*batch, strict=True)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(field)) for field in zip(*batch, strict=True)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {type(elem).__name__}")


class DataLoader(Generic[T_co]):
    def __init__(
        self,
        dataset: Dataset[T_co] | Sequence[T_co],
        batch_size: int | None = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        seed: int | None = None,
        *,
        num_workers: int = 0,
        generator: np.random.Generator | None = None,
    ) -> None:
        if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0):
            raise ValueError(f"batch_size should be a positive integer value or None, but got batch_size={batch_size!r}")
        if batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if num_workers != 0:
            raise NotImplementedError("DataLoader: worker processes are not supported; use num_workers=0")
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.collate_fn = collate_fn
        if generator is None:
            if seed is None:
                seed = int(_C.randint(0, 2**62, (1,)).item())
            generator = np.random.default_rng(seed)
        self.generator = generator

    def _indices(self) -> list[int]:
        n = len(self.dataset)
        if self.shuffle:
            return [int(i) for i in self.generator.permutation(n)]
        return list(range(n))

    def _fetch(self, indices: list[int]) -> Any:
        ds = self.dataset
        if self.collate_fn is None and isinstance(ds, TensorDataset):
            # Fast path with the same result as stacking the samples: one gather per tensor.
            idx = _C.tensor(indices, dtype=_C.int64)
            return [t.index_select(0, idx) for t in ds.tensors]
        samples = [ds[i] for i in indices]
        return (self.collate_fn or default_collate)(samples)

    def __iter__(self) -> Iterator[Any]:
        order = self._indices()
        if self.batch_size is None:
            for i in order:
                yield self.dataset[i] if self.collate_fn is None else self.collate_fn(self.dataset[i])  # type: ignore[arg-type]
            return
        bs = self.batch_size
        for start in range(0, len(order), bs):
            chunk = order[start : start + bs]
            if len(chunk) < bs and self.drop_last:
                return
            yield self._fetch(chunk)

    def __len__(self) -> int:
        n = len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)

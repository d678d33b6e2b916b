"""Samplers: which indices a DataLoader fetches, in which order, and how they group into batches.

The random ones draw from a ``numpy.random.Generator``: the one given as ``generator``, or a new one
per pass seeded from typedtensor's global generator, so ``tt.manual_seed`` makes the order repeatable
(the same design as torch's, whose samplers seed a fresh ``torch.Generator`` from the global one).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any, Generic, TypeVar

import numpy as np

from typedtensor._runtime import _C

T_co = TypeVar("T_co", covariant=True)

__all__ = [
    "BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler", "WeightedRandomSampler",
]


def _rng(generator: Any) -> np.random.Generator:
    """The generator to draw from: the caller's numpy one, or a fresh one seeded by one draw from
    the caller's typedtensor ``Generator`` (torch programs pass ``torch.Generator().manual_seed(s)``
    so that every rank of a data-parallel job splits and shuffles alike) or from the global one."""
    if generator is None:
        return np.random.default_rng(int(_C.randint(0, 2**62, (1,)).item()))
    if isinstance(generator, np.random.Generator):
        return generator
    if isinstance(generator, _C.Generator):
        return np.random.default_rng(int(_C.randint(0, 2**62, (1,), generator=generator).item()))
    raise TypeError(
        f"generator must be a typedtensor Generator, a numpy.random.Generator or None, got {type(generator).__name__}"
    )


class Sampler(Generic[T_co]):
    """Base class: ``__iter__`` yields indices (or batches of them, for a batch sampler)."""

    def __init__(self, data_source: Sized | None = None) -> None:
        del data_source  # accepted for torch's signature; unused there too

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A random permutation per pass, or ``num_samples`` draws with ``replacement``."""

    def __init__(
        self, data_source: Sized, replacement: bool = False, num_samples: int | None = None, generator: Any = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        rng = _rng(self.generator)
        if self.replacement:
            for _ in range(self.num_samples // 32):  # in chunks, as torch: num_samples may be huge
                yield from rng.integers(0, n, 32).tolist()
            yield from rng.integers(0, n, self.num_samples % 32).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from rng.permutation(n).tolist()
        yield from rng.permutation(n).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order (no replacement)."""

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in _rng(self.generator).permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights: Sequence[float] | Any, num_samples: int, replacement: bool = True, generator: Any = None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        w = np.asarray(weights.numpy() if isinstance(weights, _C.Tensor) else weights, dtype=np.float64)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise RuntimeError("invalid multinomial distribution (weights must be finite, non-negative, and not all zero)")
        if not replacement and num_samples > int((w > 0).sum()):
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        self.weights = _C.tensor(w)
        self._p = w / w.sum()
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        yield from _rng(self.generator).choice(len(self._p), self.num_samples, replace=self.replacement, p=self._p).tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Groups the indices of ``sampler`` into lists of ``batch_size`` (the last one shorter unless ``drop_last``)."""

    def __init__(self, sampler: Sampler[Any] | Iterable[Any], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        it = iter(self.sampler)
        while True:
            batch = [i for _, i in zip(range(self.batch_size), it, strict=False)]
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size

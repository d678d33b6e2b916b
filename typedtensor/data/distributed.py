"""``DistributedSampler``: each of ``num_replicas`` processes reads its own share of the dataset.

Without ``num_replicas`` and ``rank`` it asks ``typedtensor.distributed`` for the process group's
world size and rank (which raises, as torch's does, before ``init_process_group``). The shuffled
order is seeded by ``seed + epoch`` (``set_epoch``), the same on every replica; it is numpy's
permutation, so the order differs from torch's (which draws from torch's generator) while the
partition rules (padding by repetition, or ``drop_last``; rank r takes every num_replicas-th index
from r) are torch's.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sized

import numpy as np

from typedtensor.data.sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler[int]):
    def __init__(
        self, dataset: Sized, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
        seed: int = 0, drop_last: bool = False,
    ) -> None:
        if num_replicas is None or rank is None:
            from typedtensor import distributed

            num_replicas = distributed.get_world_size() if num_replicas is None else num_replicas
            rank = distributed.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        indices: list[int] = (
            np.random.default_rng(self.seed + self.epoch).permutation(n).tolist() if self.shuffle else list(range(n))
        )
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[: self.total_size]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use before each epoch so that shuffling differs between epochs (and agrees across replicas)."""
        self.epoch = epoch

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_replicas={self.num_replicas}, rank={self.rank})"


from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from typing import Any, Generic, TypeVar

from typing_extensions import Unpack

from typedtensor import Tensor

from . import collate as collate
from . import dataloader as dataloader
from . import dataset as dataset
from . import distributed as distributed
from . import sampler as sampler

_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)
_AnyTensor = Tensor[Unpack[tuple[Any, ...]]]

class Dataset(Generic[_T_co]):
    def __getitem__(self, index: int) -> _T_co: ...
    def __len__(self) -> int: ...
    def __add__(self, other: Dataset[_T_co]) -> ConcatDataset[_T_co]: ...

class IterableDataset(Dataset[_T_co]):
    def __iter__(self) -> Iterator[_T_co]: ...

class TensorDataset(Dataset[tuple[_AnyTensor, ...]]):
    tensors: tuple[_AnyTensor, ...]
    def __init__(self, *tensors: _AnyTensor) -> None: ...

class StackDataset(Dataset[_T_co]):
    def __init__(self, *args: Dataset[Any], **kwargs: Dataset[Any]) -> None: ...

class ConcatDataset(Dataset[_T_co]):
    datasets: list[Dataset[_T_co]]
    cumulative_sizes: list[int]
    def __init__(self, datasets: Iterable[Dataset[_T_co]]) -> None: ...

class ChainDataset(IterableDataset[_T_co]):
    def __init__(self, datasets: Iterable[Dataset[_T_co]]) -> None: ...

class Subset(Dataset[_T_co]):
    dataset: Dataset[_T_co]
    indices: list[int]
    def __init__(self, dataset: Dataset[_T_co], indices: Sequence[int]) -> None: ...

def random_split(
    dataset: Dataset[_T], lengths: Sequence[int | float], generator: Any = None, *, seed: int | None = None
) -> list[Subset[_T]]: ...
def default_collate(batch: Sequence[Any]) -> Any: ...
def default_convert(data: Any) -> Any: ...

class WorkerInfo:
    id: int
    num_workers: int
    seed: int
    dataset: Any

def get_worker_info() -> WorkerInfo | None: ...

class Sampler(Generic[_T_co]):
    def __init__(self, data_source: Sized | None = None) -> None: ...
    def __iter__(self) -> Iterator[_T_co]: ...

class SequentialSampler(Sampler[int]):
    def __init__(self, data_source: Sized) -> None: ...
    def __len__(self) -> int: ...

class RandomSampler(Sampler[int]):
    def __init__(
        self, data_source: Sized, replacement: bool = False, num_samples: int | None = None, generator: Any = None
    ) -> None: ...
    @property
    def num_samples(self) -> int: ...
    def __len__(self) -> int: ...

class SubsetRandomSampler(Sampler[int]):
    def __init__(self, indices: Sequence[int], generator: Any = None) -> None: ...
    def __len__(self) -> int: ...

class WeightedRandomSampler(Sampler[int]):
    def __init__(self, weights: Sequence[float] | Any, num_samples: int, replacement: bool = True, generator: Any = None) -> None: ...
    def __len__(self) -> int: ...

class BatchSampler(Sampler[list[int]]):
    def __init__(self, sampler: Sampler[Any] | Iterable[Any], batch_size: int, drop_last: bool) -> None: ...
    def __len__(self) -> int: ...

class DistributedSampler(Sampler[int]):
    def __init__(
        self, dataset: Sized, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
        seed: int = 0, drop_last: bool = False,
    ) -> None: ...
    def set_epoch(self, epoch: int) -> None: ...
    def __len__(self) -> int: ...

class DataLoader(Generic[_T_co]):
    dataset: Dataset[_T_co] | Sequence[_T_co]
    batch_size: int | None
    drop_last: bool
    num_workers: int
    sampler: Sampler[Any] | Iterable[Any]
    batch_sampler: Sampler[list[Any]] | Iterable[list[Any]] | None
    def __init__(
        self,
        dataset: Dataset[_T_co] | Sequence[_T_co],
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler[Any] | Iterable[Any] | None = None,
        batch_sampler: Sampler[list[Any]] | Iterable[list[Any]] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], Any] | None = None,
        multiprocessing_context: Any = None,
        generator: Any = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
        seed: int | None = None,
    ) -> None: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __len__(self) -> int: ...

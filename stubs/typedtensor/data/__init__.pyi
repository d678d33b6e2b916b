from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from typing_extensions import TypeVarTuple, Unpack

from typedtensor import Tensor

from . import dataloader as dataloader
from . import dataset as dataset

_T_co = TypeVar("_T_co", covariant=True)
Shape = TypeVarTuple("Shape")

class Dataset(Generic[_T_co]):
    def __getitem__(self, index: int) -> _T_co: ...
    def __len__(self) -> int: ...

class TensorDataset(Dataset[tuple[Tensor[Unpack[tuple[Any, ...]]], ...]]):
    tensors: tuple[Tensor[Unpack[tuple[Any, ...]]], ...]
    def __init__(self, *tensors: Tensor[Unpack[tuple[Any, ...]]]) -> None: ...

class Subset(Dataset[_T_co]):
    dataset: Dataset[_T_co]
    indices: list[int]
    def __init__(self, dataset: Dataset[_T_co], indices: Sequence[int]) -> None: ...

def random_split(dataset: Dataset[_T_co], lengths: Sequence[int | float], seed: int | None = None) -> list[Subset[_T_co]]: ...
def default_collate(batch: Sequence[Any]) -> Any: ...

class DataLoader(Generic[_T_co]):
    dataset: Dataset[_T_co] | Sequence[_T_co]
    batch_size: int | None
    shuffle: bool
    drop_last: bool
    def __init__(
        self,
        dataset: Dataset[_T_co] | Sequence[_T_co],
        batch_size: int | None = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        seed: int | None = None,
        *,
        num_workers: int = 0,
        generator: Any = None,
    ) -> None: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __len__(self) -> int: ...

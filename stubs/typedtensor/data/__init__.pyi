from collections.abc import Iterator, Sequence
from typing import Any, Generic, TypeVar

from typing_extensions import TypeVarTuple, Unpack

from typedtensor import Tensor

_T_co = TypeVar("_T_co", covariant=True)
Shape = TypeVarTuple("Shape")

class Dataset(Generic[_T_co]):
    def __getitem__(self, index: int) -> _T_co: ...
    def __len__(self) -> int: ...

class TensorDataset(Dataset[tuple[Tensor[Unpack[tuple[Any, ...]]], ...]]):
    tensors: tuple[Tensor[Unpack[tuple[Any, ...]]], ...]
    def __init__(self, *tensors: Tensor[Unpack[tuple[Any, ...]]]) -> None: ...

class DataLoader(Generic[_T_co]):
    dataset: Dataset[_T_co]
    batch_size: int | None
    def __init__(
        self,
        dataset: Dataset[_T_co] | Sequence[_T_co],
        batch_size: int | None = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        collate_fn: Any = None,
        seed: int | None = None,
    ) -> None: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __len__(self) -> int: ...

# reveal_shape(x) prints the inferred shape as a note.
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim): ...
class In(Dim): ...


def f(x: Tensor[Batch, In], n: int) -> None:
    reveal_shape(x)  # N: Tensor[Batch, In]
    reveal_shape(x.T)  # N: Tensor[In, Batch]
    reveal_shape(x.shape[0])  # N: size Batch
    reveal_shape(x.sum(dim=0, keepdim=True))  # N: Tensor[1, In]
    reveal_shape(tt.zeros(n, 3))  # N: Tensor[?, 3]
    reveal_shape(tt.cat([x, x]))  # N: Tensor[2*Batch, In]
    reveal_shape(nn.Linear(In(3), 5))  # N: Linear(in_features=In, out_features=5)
    reveal_shape(x.max(dim=1))  # N: (Tensor[Batch], Tensor[Batch])
    tt.reveal_shape(x[None])  # N: Tensor[1, Batch, In]


def literal_data(tokens: list[int], rows: list[list[float]]) -> Tensor[Batch, In]:
    reveal_shape(tt.tensor([[1, 2, 3], [4, 5, 6]]))  # N: Tensor[2, 3]
    reveal_shape(tt.tensor([1.0, 2, x := 3]))  # N: Tensor[3]
    reveal_shape(tt.tensor([tokens[-8:]]))  # N: Tensor[?]
    ids: Tensor[Batch, In] = tt.tensor([tokens[-8:]])  # ok: one row of unknown length is no shape to check
    reveal_shape(tt.tensor(rows))  # N: Tensor[?]
    reveal_shape(tt.tensor([[1, 2], [3]]))  # N: Tensor[?]
    return ids

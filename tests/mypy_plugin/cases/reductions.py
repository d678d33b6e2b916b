# Reductions with dim / keepdim / tuples of dims, max(dim=) values and indices, softmax ranges.
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class Seq(Dim): ...
class Model(Dim): ...


def reduce(x: Tensor[Batch, Seq, Model]) -> None:
    reveal_type(x.sum())  # R: Tensor[()]
    reveal_type(x.sum(dim=0))  # R: Tensor[Seq, Model]
    reveal_type(x.sum(-1))  # R: Tensor[Batch, Seq]
    reveal_type(x.mean(dim=(0, 1)))  # R: Tensor[Model]
    reveal_type(x.mean(1, keepdim=True))  # R: Tensor[Batch, Literal[1], Model]
    reveal_type(tt.sum(x, dim=2))  # R: Tensor[Batch, Seq]
    reveal_type(x.var(dim=1))  # R: Tensor[Batch, Model]
    reveal_type(x.std(dim=-1, keepdim=True))  # R: Tensor[Batch, Seq, Literal[1]]
    reveal_type(x.prod(dim=0))  # R: Tensor[Seq, Model]
    reveal_type(tt.logsumexp(x, dim=-1))  # R: Tensor[Batch, Seq]
    reveal_type(x.amax(dim=1))  # R: Tensor[Batch, Model]
    reveal_type(x.norm(dim=-1))  # R: Tensor[Batch, Seq]
    x.sum(dim=3)  # E: shape-axis
    x.mean(dim=-4)  # E: shape-axis
    tt.logsumexp(x, dim=5)  # E: shape-axis


def argmax(x: Tensor[Batch, Seq]) -> None:
    reveal_type(x.argmax(dim=1))  # R: Tensor[Batch]
    reveal_type(x.argmax())  # R: Tensor[()]
    reveal_type(x.max(dim=1).values)  # R: Tensor[Batch]
    reveal_type(x.max(dim=0).indices)  # R: Tensor[Seq]
    reveal_type(tt.min(x, dim=1, keepdim=True).values)  # R: Tensor[Batch, Literal[1]]
    reveal_type(x.max())  # R: Tensor[()]
    values, indices = x.max(dim=-1)
    reveal_type(values)  # R: Tensor[Batch]
    x.argmax(dim=2)  # E: shape-axis
    x.max(dim=2)  # E: shape-axis


def softmax(x: Tensor[Batch, Seq]) -> None:
    reveal_type(tt.softmax(x, dim=-1))  # R: Tensor[Batch, Seq]
    reveal_type(x.log_softmax(dim=0))  # R: Tensor[Batch, Seq]
    reveal_type(x.cumsum(dim=1))  # R: Tensor[Batch, Seq]
    tt.softmax(x, dim=2)  # E: shape-axis
    x.cumsum(dim=-3)  # E: shape-axis


def keep(x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Literal[1], Model]:
    return x.sum(dim=1, keepdim=True)


def wrong_keep(x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Model]:
    return x.sum(dim=1, keepdim=True)  # E: return-value

# Rule family: dim arguments — reductions, softmax, transpose, permute, (un)squeeze (shape-axis).
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class Seq(Dim): ...
class Model(Dim): ...


def reductions(x: Tensor[Batch, Seq, Model]) -> None:
    a: Tensor[Batch, Model] = x.mean(dim=1)  # ok
    b: Tensor[Batch, Seq] = x.sum(-1)  # ok
    c: Tensor[Batch, Literal[1], Model] = x.amax(dim=1, keepdim=True)  # ok
    d: Tensor[Batch, Seq] = x.max(dim=-1).values  # ok
    e: Tensor[Batch, Seq] = x.argmax(dim=2)  # ok
    f: Tensor[()] = x.mean()  # ok
    g: Tensor[Model] = x.sum(dim=(0, 1))  # ok
    v, i = x.min(dim=0)  # ok
    h: Tensor[Seq, Model] = v  # ok
    x.sum(dim=3)  # E: shape-axis
    x.mean(-4)  # E: shape-axis
    x.max(dim=5)  # E: shape-axis
    tt.logsumexp(x, dim=3)  # E: shape-axis
    x.var(dim=7)  # E: shape-axis


def movement(x: Tensor[Batch, Seq, Model]) -> None:
    a: Tensor[Seq, Batch, Model] = x.transpose(0, 1)  # ok
    b: Tensor[Model, Batch, Seq] = x.permute(2, 0, 1)  # ok
    c: Tensor[Batch, Literal[1], Seq, Model] = x.unsqueeze(1)  # ok
    d: Tensor[Batch, Seq, Model, Literal[1]] = x.unsqueeze(-1)  # ok
    e: Tensor[Batch, Model, Seq] = x.mT  # ok
    f: Tensor[Batch, Model, Seq] = x.swapaxes(1, 2)  # ok
    x.transpose(0, 3)  # E: shape-axis
    x.permute(0, 1)  # E: shape-axis
    x.permute(0, 1, 1)  # E: shape-axis
    x.unsqueeze(5)  # E: shape-axis
    x.squeeze(3)  # E: shape-axis
    tt.softmax(x, dim=3)  # E: shape-axis
    x.softmax(dim=-1)  # ok
    x.log_softmax(dim=-4)  # E: shape-axis
    x.flatten(0, 5)  # E: shape-axis


def squeezing(x: Tensor[Batch, Literal[1], Model]) -> Tensor[Batch, Model]:
    return x.squeeze(1)  # ok


def wrong_dim_result(x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Model]:
    return x.sum(dim=2)  # E: shape-return

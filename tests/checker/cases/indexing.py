# Rule family: indexing and slicing (shape-axis, and results checked against annotations).
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class Seq(Dim): ...
class Model(Dim): ...


def basic(x: Tensor[Batch, Seq, Model]) -> None:
    a: Tensor[Seq, Model] = x[0]  # ok
    b: Tensor[Batch, Model] = x[:, 0]  # ok
    c: Tensor[Batch, Seq] = x[..., -1]  # ok
    d: Tensor[Batch, Literal[1], Seq, Model] = x[:, None]  # ok
    e: Tensor[Batch, Literal[3], Model] = x[:, 1:4]  # ok
    f: Tensor[Model] = x[0, 0]  # ok
    g: Tensor[Batch, Seq, Model] = x[:]  # ok
    h: Tensor[Batch, Model] = x[:, -1, :]  # ok
    x[0, 0, 0, 0]  # E: shape-axis
    x[..., 0, ...]  # E: shape-axis
    k: Tensor[Batch, Seq] = x[:, 0]  # E: shape-assign


def literal(x: Tensor[Literal[4], Literal[5]]) -> None:
    a: Tensor[Literal[2], Literal[5]] = x[1:3]  # ok
    b: Tensor[Literal[4], Literal[2]] = x[:, ::3]  # ok
    x[4]  # E: shape-axis
    x[:, 9]  # E: shape-axis
    x[-4]  # ok


def advanced(x: Tensor[Batch, Model], idx: Tensor[Seq]) -> None:
    a: Tensor[Seq, Model] = x[idx]  # ok
    m = x > 0
    b = x[m]  # ok


def setitem(x: Tensor[Batch, Model]) -> None:
    x[0] = 1.0  # ok
    x[:, 0] = 0  # ok


def unknown_int(x: Tensor[Batch, Seq, Model], i: int) -> None:
    reveal_shape(x[i])  # N: Tensor[Seq, Model]
    reveal_shape(x[:, i])  # N: Tensor[Batch, Model]
    for j in range(3):
        reveal_shape(x[j])  # N: Tensor[Seq, Model]
    x[i, i, i, i]  # E: shape-axis

# Elementwise ops: broadcasting (PyTorch rules), scalars, unary math, comparisons.
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class Seq(Dim): ...
class Model(Dim): ...


def binary(x: Tensor[Batch, Seq, Model], m: Tensor[Model], one: Tensor[Batch, Literal[1], Model], s: Tensor[Seq]) -> None:
    reveal_type(x + m)  # R: Tensor[Batch, Seq, Model]
    reveal_type(x - one)  # R: Tensor[Batch, Seq, Model]
    reveal_type(m * x)  # R: Tensor[Batch, Seq, Model]
    reveal_type(x / m)  # R: Tensor[Batch, Seq, Model]
    reveal_type(x // m)  # R: Tensor[Batch, Seq, Model]
    reveal_type(x % m)  # R: Tensor[Batch, Seq, Model]
    reveal_type(x ** m)  # R: Tensor[Batch, Seq, Model]
    x + s  # E: shape-broadcast
    x * s  # E: shape-broadcast  # M: Seq
    m - s  # E: shape-broadcast


def scalars(x: Tensor[Batch, Model], f: float, n: int) -> None:
    reveal_type(x + 1)  # R: Tensor[Batch, Model]
    reveal_type(2 * x)  # R: Tensor[Batch, Model]
    reveal_type(1.5 - x)  # R: Tensor[Batch, Model]
    reveal_type(x / f)  # R: Tensor[Batch, Model]
    reveal_type(n * x)  # R: Tensor[Batch, Model]
    reveal_type(x ** 2)  # R: Tensor[Batch, Model]
    reveal_type(-x)  # R: Tensor[Batch, Model]
    reveal_type(abs(x))  # R: Tensor[Batch, Model]


def unary(x: Tensor[Batch, Seq]) -> None:
    reveal_type(tt.exp(x))  # R: Tensor[Batch, Seq]
    reveal_type(tt.log(x))  # R: Tensor[Batch, Seq]
    reveal_type(tt.sqrt(x))  # R: Tensor[Batch, Seq]
    reveal_type(tt.tanh(x))  # R: Tensor[Batch, Seq]
    reveal_type(tt.sigmoid(x))  # R: Tensor[Batch, Seq]
    reveal_type(tt.relu(x))  # R: Tensor[Batch, Seq]
    reveal_type(x.exp())  # R: Tensor[Batch, Seq]
    reveal_type(x.abs().neg())  # R: Tensor[Batch, Seq]
    reveal_type(x.float())  # R: Tensor[Batch, Seq]
    reveal_type(x.long())  # R: Tensor[Batch, Seq]
    reveal_type(x.to(tt.float64))  # R: Tensor[Batch, Seq]
    reveal_type(x.to(device="cuda"))  # R: Tensor[Batch, Seq]
    reveal_type(x.to("cuda", non_blocking=True))  # R: Tensor[Batch, Seq]
    reveal_type(x.cuda(0))  # R: Tensor[Batch, Seq]
    reveal_type(x.cuda(non_blocking=True).cpu())  # R: Tensor[Batch, Seq]
    reveal_type(x.detach().clone())  # R: Tensor[Batch, Seq]


def compare_ops(x: Tensor[Batch, Seq], y: Tensor[Seq], z: Tensor[Batch]) -> None:
    reveal_type(x > y)  # R: Tensor[Batch, Seq]
    reveal_type(x <= 0.5)  # R: Tensor[Batch, Seq]
    reveal_type(tt.maximum(x, y))  # R: Tensor[Batch, Seq]
    x < z  # E: shape-broadcast
    tt.eq(x, z)  # E: shape-broadcast


def selection(x: Tensor[Batch, Seq], mask: Tensor[Batch, Seq], row: Tensor[Seq], col: Tensor[Batch]) -> None:
    reveal_type(tt.where(mask, x, 0.0))  # R: Tensor[Batch, Seq]
    reveal_type(tt.where(x > 0, x, row))  # R: Tensor[Batch, Seq]
    reveal_type(x.masked_fill(mask, 0.0))  # R: Tensor[Batch, Seq]
    reveal_type(x.clamp(0.0, 1.0))  # R: Tensor[Batch, Seq]
    reveal_type(tt.clamp(x, min=0.0))  # R: Tensor[Batch, Seq]
    tt.where(mask, x, col)  # E: shape-broadcast
    x.masked_fill(col, 0.0)  # E: shape-broadcast


def chain(x: Tensor[Batch, Model], w: Tensor[Model], b: Tensor[Model], s: Tensor[Seq]) -> Tensor[Batch, Model]:
    y = tt.relu(x * w + b) - 1.0
    reveal_type(y)  # R: Tensor[Batch, Model]
    y / s  # E: shape-broadcast
    return y


def literal_sizes(a: Tensor[Literal[2], Literal[3]], b: Tensor[Literal[3]], c: Tensor[Literal[1], Literal[3]], d: Tensor[Literal[4]]) -> None:
    reveal_type(a + b)  # R: Tensor[Literal[2], Literal[3]]
    reveal_type(a * c)  # R: Tensor[Literal[2], Literal[3]]
    a + d  # E: shape-broadcast

# Rule family: elementwise broadcasting, scalars, comparisons, unary ops.
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class Seq(Dim): ...
class Model(Dim): ...


def valid(x: Tensor[Batch, Seq, Model], b: Tensor[Model], s: Tensor[Batch, Literal[1], Literal[1]],
          one: Tensor[Literal[1]], f: float, n: int) -> None:
    y = x + b  # ok
    y = x * s  # ok
    y = x - one  # ok
    y = 1.0 - x  # ok
    y = x / 2  # ok
    y = x ** 2  # ok
    y = x * f + n  # ok
    y = -x  # ok
    y = abs(x)  # ok
    m = x > 0  # ok
    z = tt.where(m, x, 0.0)  # ok
    z = tt.maximum(x, b)  # ok
    z = x.add(b)  # ok
    z = tt.add(x, b, alpha=2)  # ok
    z = x.masked_fill(m, 0.0)  # ok


def invalid(x: Tensor[Batch, Seq, Model], s: Tensor[Seq], bs: Tensor[Batch, Seq]) -> None:
    x + s  # E: shape-broadcast
    s * x  # E: shape-broadcast
    x - bs  # E: shape-broadcast
    x / bs  # E: shape-broadcast
    x == bs  # E: shape-broadcast
    tt.maximum(x, s)  # E: shape-broadcast
    x.mul(s)  # E: shape-broadcast
    x.add_(s)  # E: shape-broadcast
    x < s  # E: shape-broadcast
    tt.where(bs > 0, x, s)  # E: shape-broadcast


def literal_sizes(a: Tensor[Literal[2], Literal[3]], b: Tensor[Literal[3]], c: Tensor[Literal[2]]) -> None:
    a + b  # ok
    a + c  # E: shape-broadcast


def augmented(x: Tensor[Batch, Model], b: Tensor[Model], s: Tensor[Seq]) -> Tensor[Batch, Model]:
    x += b  # ok
    x *= 2  # ok
    x -= s  # E: shape-broadcast
    return x  # ok

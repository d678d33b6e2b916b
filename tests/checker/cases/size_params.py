# A parameter typed by a named dim takes a size: a plain int is an untracked size (compatible, as
# DESIGN §1 says), another named dim or a literal is a shape-arg error, in both tools alike.
from typing import Literal, TypeVar

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim): ...
class In(Dim): ...
class Model(Dim): ...
class Heads(Dim): ...


N = TypeVar("N")


def sized(b: Batch, n: int) -> Tensor[Batch, Literal[3]]:
    return tt.zeros(b, 3)


def half(b: Batch) -> int:
    return b // 2


class Attn(nn.Module):
    def __init__(self, d: Model, h: Heads, p: float = 0.1) -> None:
        super().__init__()
        self.fc = nn.Linear(d, d)

    def widen(self, h: Heads, x: Tensor[Batch, Model]) -> Tensor[Batch, Model]:
        return x


def use(n: int, i: In, b: Batch, x: Tensor[Batch, Model]) -> None:
    sized(n, n)
    sized(b, 3)
    reveal_shape(sized(n, 3))  # N: Tensor[Batch, 3]
    sized(4, 3)  # E: shape-arg
    sized(i, 3)  # E: shape-arg
    half(n)
    half(i)  # E: shape-arg
    half(b)
    a = Attn(n, n)
    Attn(Model(64), Heads(8))
    Attn(Model(64), 8)  # E: shape-arg
    Attn(i, n)  # E: shape-arg
    a.widen(n, x)
    a.widen(i, x)  # E: shape-arg


# a dim variable (an unbounded TypeVar, DESIGN §1) is a size to an op's size parameter
def make(n: N) -> Tensor[N, N]:
    reveal_shape(tt.eye(n))  # N: Tensor[N, ?]
    return tt.eye(n)


def make_wrong(n: N) -> Tensor[N, N]:
    return tt.eye(n, 3)  # E: shape-return


def rows_of(x: Tensor[Batch, Model], n: N) -> Tensor[N, Model]:
    reveal_shape(x.new_zeros(n))  # N: Tensor[N]
    return x.new_zeros(n, x.shape[1])

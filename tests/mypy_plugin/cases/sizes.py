# Creation from sizes, typed sizes (`x.shape`), dim arithmetic on sizes and in annotations.
from typing import Literal, TypeVar

import typedtensor as tt
from typedtensor import Add, Dim, Div, Mul, Sub, Tensor, nn

N = TypeVar("N")


class Batch(Dim): ...
class In(Dim): ...
class Out(Dim): ...
class Heads(Dim): ...
class HeadDim(Dim): ...


def creation(b: Batch, n: int) -> None:
    reveal_type(tt.zeros(b, In(784)))  # R: Tensor[Batch, In]
    reveal_type(tt.ones(2, 3))  # R: Tensor[Literal[2], Literal[3]]
    reveal_type(tt.randn((b, 4)))  # R: Tensor[Batch, Literal[4]]
    reveal_type(tt.rand(n, b))  # R: Tensor[Any, Batch]
    reveal_type(tt.empty(b))  # R: Tensor[Batch]
    reveal_type(tt.full((b, 2), 0.5))  # R: Tensor[Batch, Literal[2]]
    reveal_type(tt.zeros(()))  # R: Tensor[()]
    reveal_type(tt.empty(size=(b, 3)))  # R: Tensor[Batch, Literal[3]]
    reveal_type(tt.randn(size=(2, b), dtype=tt.float64))  # R: Tensor[Literal[2], Batch]
    reveal_type(tt.arange(10))  # R: Tensor[Literal[10]]
    reveal_type(tt.randint(0, 10, (b, 3)))  # R: Tensor[Batch, Literal[3]]


def like(x: Tensor[Batch, In]) -> None:
    reveal_type(tt.zeros_like(x))  # R: Tensor[Batch, In]
    reveal_type(tt.randn_like(x))  # R: Tensor[Batch, In]
    reveal_type(x.new_zeros(3, 2))  # R: Tensor[Literal[3], Literal[2]]


def shapes(x: Tensor[Batch, In]) -> None:
    reveal_type(x.shape)  # R: tuple[Batch, In]
    reveal_type(x.shape[0])  # R: Batch
    reveal_type(tt.randn(x.shape[1], Out(10)))  # R: Tensor[In, Out]
    b, i = x.shape
    reveal_type(tt.zeros(i, b))  # R: Tensor[In, Batch]


def arith(h: Heads, d: HeadDim, b: Batch) -> None:
    reveal_type(h * d)  # R: Mul[HeadDim, Heads]
    reveal_type(d * h)  # R: Mul[HeadDim, Heads]
    reveal_type(h + h)  # R: Mul[Literal[2], Heads]
    reveal_type(2 * h)  # R: Mul[Literal[2], Heads]
    reveal_type(h * 2)  # R: Mul[Literal[2], Heads]
    reveal_type(b + 1)  # R: Add[Batch, Literal[1]]
    reveal_type(b - 1)  # R: Sub[Batch, Literal[1]]
    reveal_type(b - b)  # R: Literal[0]?
    reveal_type(b // 2)  # R: Div[Batch, Literal[2]]
    reveal_type(tt.zeros(h * d))  # R: Tensor[Mul[HeadDim, Heads]]
    reveal_type(3 * 4)  # R: Literal[12]?
    reveal_type(16 * 14 * 14)  # R: Literal[3136]?
    reveal_type(7 // 2 - 5)  # R: Literal[-2]?
    reveal_type(-7 // 2)  # R: Literal[-4]?
    reveal_type(1 // 0)  # R: int
    reveal_type(True * 3)  # R: int
    reveal_type(tt.zeros(3 * 4, 2 + 1))  # R: Tensor[Literal[12], Literal[3]]
    reveal_type(nn.Linear(16 * 14 * 14, 10))  # R: Linear[Literal[3136], Literal[10]]


def annotations(
    a: Tensor[Add[In, Batch]],
    m: Tensor[Mul[Heads, HeadDim]],
    twice: Tensor[Add[Batch, Batch]],
    lit: Tensor[Add[Literal[2], Literal[3]]],
    s: Tensor[Sub[Batch, Literal[1]]],
    q: Tensor[Div[Batch, Literal[2]]],
    v: Tensor[Add[N, Literal[1]]],
) -> None:
    reveal_type(a)  # R: Tensor[Add[Batch, In]]
    reveal_type(m)  # R: Tensor[Mul[HeadDim, Heads]]
    reveal_type(twice)  # R: Tensor[Mul[Literal[2], Batch]]
    reveal_type(lit)  # R: Tensor[Literal[5]]
    reveal_type(s)  # R: Tensor[Sub[Batch, Literal[1]]]
    reveal_type(q)  # R: Tensor[Div[Batch, Literal[2]]]
    reveal_type(v)  # R: Tensor[Add[N, Literal[1]]]


def commutes(x: Tensor[Add[In, Batch]]) -> Tensor[Add[Batch, In]]:
    return x


def folds(x: Tensor[Add[Batch, Batch]]) -> Tensor[Mul[Literal[2], Batch]]:
    return x


def differs(x: Tensor[Add[In, Batch]]) -> Tensor[Add[Batch, Out]]:
    return x  # E: return-value


def make(b: Batch) -> Tensor[Batch, In]:
    return tt.zeros(b, In(784))


def make_wrong(b: Batch) -> Tensor[Batch, Out]:
    return tt.zeros(b, In(784))  # E: return-value


def literal_make() -> Tensor[Literal[2], Literal[3]]:
    return tt.ones(2, 3)


def literal_wrong() -> Tensor[Literal[3], Literal[2]]:
    return tt.ones(2, 3)  # E: return-value


def from_ints(n: int, m: int) -> Tensor[Batch, In]:
    # plain ints are unknown sizes: never an error
    return tt.zeros(n, m)


def halve(x: Tensor[N, Div[N, Literal[2]]]) -> Tensor[Div[N, Literal[2]]]:
    return x[0]


def halve_calls(
    a: Tensor[Literal[8], Literal[4]], b: Tensor[Literal[8], Literal[5]], c: Tensor[Batch, Div[Batch, Literal[2]]]
) -> None:
    reveal_type(halve(a))  # R: Tensor[Literal[4]]
    reveal_type(halve(c))  # R: Tensor[Div[Batch, Literal[2]]]
    halve(b)  # E: shape-arg

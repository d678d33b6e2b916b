# reshape/view with -1, transpose/permute/flatten/unsqueeze/squeeze/expand/repeat, cat/stack,
# split/chunk, indexing and slicing, gather/index_select, tril.
from typing import Literal

import typedtensor as tt
from typedtensor import Add, Dim, Mul, Tensor


class Batch(Dim): ...
class Seq(Dim): ...
class Heads(Dim): ...
class HeadDim(Dim): ...
class A(Dim): ...
class B(Dim): ...


def reshape(x: Tensor[Batch, Seq, Mul[Heads, HeadDim]], h: Heads, d: HeadDim, lit: Tensor[Literal[2], Literal[6]]) -> None:
    b, s, _ = x.shape
    reveal_type(x.reshape(b, s, h, d))  # R: Tensor[Batch, Seq, Heads, HeadDim]
    reveal_type(x.view(b, s, h, -1))  # R: Tensor[Batch, Seq, Heads, HeadDim]
    reveal_type(x.reshape((b, -1)))  # R: Tensor[Batch, Mul[Mul[HeadDim, Heads], Seq]]
    reveal_type(lit.reshape(3, 4))  # R: Tensor[Literal[3], Literal[4]]
    reveal_type(lit.reshape(-1))  # R: Tensor[Literal[12]]
    reveal_type(tt.reshape(lit, (4, 3)))  # R: Tensor[Literal[4], Literal[3]]
    lit.reshape(5, 2)  # E: shape-reshape
    lit.view(-1, 5)  # E: shape-reshape
    x.reshape(b, s, h)  # E: shape-reshape


def axes(x: Tensor[Batch, Seq, Heads]) -> None:
    reveal_type(x.transpose(0, 1))  # R: Tensor[Seq, Batch, Heads]
    reveal_type(tt.transpose(x, -1, -2))  # R: Tensor[Batch, Heads, Seq]
    reveal_type(x.permute(2, 0, 1))  # R: Tensor[Heads, Batch, Seq]
    reveal_type(x.permute((1, 2, 0)))  # R: Tensor[Seq, Heads, Batch]
    reveal_type(x.flatten())  # R: Tensor[Mul[Mul[Batch, Heads], Seq]]
    reveal_type(x.flatten(1))  # R: Tensor[Batch, Mul[Heads, Seq]]
    reveal_type(x.unsqueeze(0))  # R: Tensor[Literal[1], Batch, Seq, Heads]
    reveal_type(x.unsqueeze(-1))  # R: Tensor[Batch, Seq, Heads, Literal[1]]
    reveal_type(x.movedim(0, -1))  # R: Tensor[Seq, Heads, Batch]
    x.transpose(0, 3)  # E: shape-axis
    x.permute(0, 1)  # E: shape-axis
    x.permute(0, 0, 1)  # E: shape-axis
    x.unsqueeze(4)  # E: shape-axis
    x.flatten(2, 1)  # E: shape-axis


def squeeze(x: Tensor[Batch, Literal[1], Seq]) -> None:
    reveal_type(x.squeeze(1))  # R: Tensor[Batch, Seq]
    reveal_type(x.squeeze(0))  # R: Tensor[Batch, Literal[1], Seq]
    reveal_type(x.expand(-1, 4, -1))  # R: Tensor[Batch, Literal[4], Seq]
    reveal_type(x.repeat(1, 3, 1))  # R: Tensor[Batch, Literal[3], Seq]
    x.squeeze(3)  # E: shape-axis


def join(a: Tensor[A, Seq], b: Tensor[B, Seq], c: Tensor[A, Heads]) -> None:
    reveal_type(tt.cat([a, b]))  # R: Tensor[Add[A, B], Seq]
    reveal_type(tt.cat((a, a), dim=0))  # R: Tensor[Mul[Literal[2], A], Seq]
    reveal_type(tt.cat([a, c], dim=1))  # R: Tensor[A, Add[Heads, Seq]]
    reveal_type(tt.stack([a, a]))  # R: Tensor[Literal[2], A, Seq]
    reveal_type(tt.stack([a, a], dim=-1))  # R: Tensor[A, Seq, Literal[2]]
    tt.cat([a, c])  # E: shape-concat
    tt.cat([a, b], dim=1)  # E: shape-concat
    tt.stack([a, b])  # E: shape-concat


def join_result(a: Tensor[A, Seq], b: Tensor[B, Seq]) -> Tensor[Add[B, A], Seq]:
    return tt.cat([b, a])


def pieces(x: Tensor[Literal[6], Seq]) -> None:
    reveal_type(x.chunk(3))  # R: tuple[Tensor[Literal[2], Seq], Tensor[Literal[2], Seq], Tensor[Literal[2], Seq]]
    reveal_type(x.split(4))  # R: tuple[Tensor[Literal[4], Seq], Tensor[Literal[2], Seq]]
    reveal_type(tt.split(x, [1, 5]))  # R: tuple[Tensor[Literal[1], Seq], Tensor[Literal[5], Seq]]
    first, second = x.chunk(2)
    reveal_type(first)  # R: Tensor[Literal[3], Seq]
    tt.split(x, [1, 2])  # E: shape-reshape  # M: sum to 3, not 6


def indexing(x: Tensor[Batch, Seq, Heads], i: int) -> None:
    reveal_type(x[0])  # R: Tensor[Seq, Heads]
    reveal_type(x[:, -1])  # R: Tensor[Batch, Heads]
    # a slice of a symbolic dim clamps: min(Seq, 6) - 2 is not provably 4
    reveal_type(x[:, 2:6])  # R: Tensor[Batch, Any, Heads]
    reveal_type(x[..., 0])  # R: Tensor[Batch, Seq]
    reveal_type(x[:, None])  # R: Tensor[Batch, Literal[1], Seq, Heads]
    reveal_type(x[None, ..., None])  # R: Tensor[Literal[1], Batch, Seq, Heads, Literal[1]]
    reveal_type(x[1:])  # R: Tensor[Sub[Batch, Literal[1]], Seq, Heads]
    reveal_type(x[i])  # R: Tensor[Seq, Heads]
    reveal_type(x[:, i])  # R: Tensor[Batch, Heads]
    reveal_type(x[i, i, i])  # R: Tensor[()]
    x[i, i, i, i]  # E: shape-axis
    x[0, 0, 0, 0]  # E: shape-axis
    x[..., 0, ...]  # E: shape-axis


def gather(x: Tensor[Batch, Seq], idx: Tensor[Batch, Literal[3]], sel: Tensor[Literal[5]]) -> None:
    reveal_type(x.gather(1, idx))  # R: Tensor[Batch, Literal[3]]
    reveal_type(x.index_select(1, sel))  # R: Tensor[Batch, Literal[5]]
    reveal_type(tt.tril(x))  # R: Tensor[Batch, Seq]
    x.index_select(2, sel)  # E: shape-axis


def windows(x: Tensor[Batch, Literal[7], A], y: Tensor[Batch, Seq]) -> None:
    reveal_type(x.unfold(1, 3, 2))  # R: Tensor[Batch, Literal[3], A, Literal[3]]
    reveal_type(x.unfold(-2, 3, 1))  # R: Tensor[Batch, Literal[5], A, Literal[3]]
    reveal_type(y.unfold(1, 2, 1))  # R: Tensor[Batch, Sub[Seq, Literal[1]], Literal[2]]
    reveal_type(tt.nn.functional.unfold(tt.zeros(2, 2, 3, 3), 2))  # R: Tensor[Literal[2], Literal[8], Literal[4]]
    x.unfold(1, 8, 1)  # E: shape-arg
    x.unfold(1, 2, 0)  # E: shape-arg
    x.unfold(3, 2, 1)  # E: shape-axis

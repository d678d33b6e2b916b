# Rule family: movement and linear algebra beyond matmul — expand, repeat, gather, einsum, ...
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Mul, Tensor


class Batch(Dim): ...
class Seq(Dim): ...
class Model(Dim): ...
class Out(Dim): ...


def expand_repeat(x: Tensor[Batch, Literal[1], Model], s: Seq) -> None:
    a: Tensor[Batch, Seq, Model] = x.expand(x.shape[0], s, x.shape[2])  # ok
    b: Tensor[Batch, Seq, Model] = x.expand(-1, s, -1)  # ok
    c: Tensor[Batch, Literal[3], Mul[Literal[2], Model]] = x.repeat(1, 3, 2)  # ok
    x.expand(x.shape[0], s, s)  # E: shape-broadcast
    x.expand(s, s)  # E: shape-rank


def selection(x: Tensor[Batch, Model], idx: Tensor[Seq], m: Tensor[Batch, Model]) -> None:
    a: Tensor[Seq, Model] = x.index_select(0, idx)  # ok
    b: Tensor[Batch, Model] = x.gather(1, tt.zeros(x.shape[0], x.shape[1]).long())  # ok
    c: Tensor[Batch, Model] = x.masked_fill(m > 0, 0.0)  # ok
    d: Tensor[Batch, Model] = tt.where(m > 0, x, m)  # ok
    e: Tensor[Batch, Model] = x.tril()  # ok
    f: Tensor[Batch, Model] = x.flip(0)  # ok
    g: Tensor[Batch, Model] = x.roll(1, dims=1)  # ok
    h: Tensor[Batch, Literal[2]] = x.narrow(1, 0, 2)  # ok
    x.index_select(2, idx)  # E: shape-axis
    x.masked_fill(idx > 0, 0.0)  # E: shape-broadcast


def einsum(a: Tensor[Batch, Model], b: Tensor[Model, Out], c: Tensor[Out, Seq]) -> None:
    x: Tensor[Batch, Out] = tt.einsum("bm,mo->bo", a, b)  # ok
    y: Tensor[Out, Batch] = tt.einsum("bm,mo->ob", a, b)  # ok
    tt.einsum("bm,mo->bo", a, c)  # E: shape-matmul


def products(a: Tensor[Batch, Model], v: Tensor[Model], w: Tensor[Out]) -> None:
    x: Tensor[Model, Out] = tt.outer(v, w)  # ok
    y: Tensor[Batch] = tt.mv(a, v)  # ok
    z: Tensor[()] = a.norm()  # ok
    n: Tensor[Batch] = a.norm(dim=1)  # ok


def unbind_split(x: Tensor[Literal[3], Model]) -> None:
    a, b, c = x.unbind(0)  # ok
    r: Tensor[Model] = a  # ok
    p, q = x.split([1, 2])  # ok
    s: Tensor[Literal[2], Model] = q  # ok


def windows(x: Tensor[Batch, Literal[7], Model], y: Tensor[Batch, Seq]) -> None:
    a: Tensor[Batch, Literal[3], Model, Literal[3]] = x.unfold(1, 3, 2)  # ok
    b: Tensor[Batch, Literal[5], Model, Literal[3]] = x.unfold(-2, 3, 1)  # ok
    c: Tensor[Batch, Seq, Literal[2]] = y.unfold(1, 2, 1)  # E: shape-assign
    x.unfold(1, 8, 1)  # E: shape-arg
    x.unfold(1, 2, 0)  # E: shape-arg
    x.unfold(3, 2, 1)  # E: shape-axis
    p: Tensor[Batch, Literal[2], Literal[2], Literal[2]] = tt.nn.functional.unfold(tt.zeros(2, 2, 3, 3), 2)  # E: shape-assign

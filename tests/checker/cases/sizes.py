# Typed sizes: Dim(...) values, .shape, .size(), unpacking, arithmetic on sizes, len().
from typing import Literal

import typedtensor as tt
from typedtensor import Add, Dim, Mul, Tensor


class Batch(Dim): ...
class Seq(Dim): ...
class In(Dim): ...
class Out(Dim): ...


def make(b: Batch) -> Tensor[Batch, In]:
    return tt.zeros(b, In(784))  # ok


def make_wrong(b: Batch) -> Tensor[Batch, Out]:
    return tt.randn(b, In(784))  # E: shape-return


def from_shape(x: Tensor[Batch, Seq, In]) -> None:
    b, s, i = x.shape
    a: Tensor[Batch, Seq] = tt.zeros(b, s)  # ok
    c: Tensor[Seq, Batch] = tt.zeros(x.shape[1], x.shape[0])  # ok
    d: Tensor[Batch, In] = tt.zeros(x.size(0), x.size(-1))  # ok
    e: Tensor[Batch, Seq, In] = tt.zeros(x.size())  # ok
    f: Tensor[Batch, Seq, In] = tt.zeros(*x.shape)  # ok
    g: Tensor[Mul[Batch, Seq], In] = tt.zeros(b * s, i)  # ok
    h: Tensor[Add[Seq, Literal[1]]] = tt.zeros(s + 1)  # ok
    k: Tensor[Batch] = tt.zeros(len(x))  # ok
    m: Tensor[Seq, Batch] = tt.zeros(b, s)  # E: shape-assign
    n: Tensor[In] = tt.zeros(x.shape[-1])  # ok
    tt.zeros(b, s) @ tt.zeros(b, i)  # E: shape-matmul


def head_tail(x: Tensor[Batch, Seq, In]) -> Tensor[Batch, Seq, Literal[2], In]:
    *lead, last = x.shape
    return x.reshape(*x.shape[:-1], 1, x.shape[-1]).expand(*x.shape[:-1], 2, x.shape[-1])  # ok


def literal_make() -> Tensor[Literal[2], Literal[3]]:
    return tt.ones(2, 3)  # ok


def literal_tuple_make() -> Tensor[Literal[2], Literal[3]]:
    return tt.ones((3, 2))  # E: shape-return


def arange_len(n: Batch) -> Tensor[Batch]:
    return tt.arange(n)  # ok


def full_like(x: Tensor[Batch, In]) -> Tensor[Batch, In]:
    return tt.full_like(x, 3.0)  # ok


def sizes_as_args(x: Tensor[Batch, In]) -> None:
    make(x.shape[0])  # ok
    make(x.shape[1])  # E: shape-arg
    make(Batch(4))  # ok
    make(In(4))  # E: shape-arg

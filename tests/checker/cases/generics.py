# Generic functions and classes: TypeVar, TypeVarTuple, bound consistently per call.
from typing import Generic, Literal, TypeVar, TypeVarTuple

import typedtensor as tt
from typedtensor import Dim, Tensor

N = TypeVar("N")
M = TypeVar("M")
K = TypeVar("K")
Bs = TypeVarTuple("Bs")


class Batch(Dim): ...
class Seq(Dim): ...
class Model(Dim): ...


def swap(x: Tensor[N, M]) -> Tensor[M, N]:
    return x.transpose(0, 1)  # ok


def swap_wrong(x: Tensor[N, M]) -> Tensor[N, M]:
    return x.transpose(0, 1)  # E: shape-return


def same(x: Tensor[N], y: Tensor[N]) -> Tensor[N]:
    return x + y  # ok


def mm(a: Tensor[N, K], b: Tensor[K, M]) -> Tensor[N, M]:
    return a @ b  # ok


def last(x: Tensor[*Bs, Model]) -> Tensor[*Bs]:
    return x.sum(dim=-1)  # ok


def keep_batch(x: Tensor[*Bs, Model], y: Tensor[*Bs, Model]) -> Tensor[*Bs, Model]:
    return x + y  # ok


def make(n: N) -> Tensor[N, N]:
    return tt.eye(n)  # ok


def free_result(x: Tensor[Batch]) -> Tensor[N]: ...


def use(a: Tensor[Batch, Seq], s: Tensor[Seq], b: Tensor[Batch], c: Tensor[Batch, Seq, Model],
        d: Tensor[Seq, Model], m: Tensor[Model, Batch]) -> None:
    x: Tensor[Seq, Batch] = swap(a)  # ok
    y: Tensor[Batch, Seq] = swap(a)  # E: shape-assign
    same(s, s)  # ok
    same(s, b)  # E: shape-arg
    z: Tensor[Batch, Batch] = mm(a, swap(a))  # ok
    mm(a, a)  # E: shape-arg
    w: Tensor[Batch, Seq] = last(c)  # ok
    v: Tensor[Batch] = last(c)  # E: shape-assign
    keep_batch(c, c)  # ok
    keep_batch(c, tt.zeros(Seq(2), Seq(2), Model(3)))  # E: shape-arg
    e: Tensor[Batch, Batch] = make(Batch(3))  # ok
    f: Tensor[Seq, Seq] = make(Batch(3))  # E: shape-assign
    g = free_result(b)
    g @ m  # ok (N unbound: unknown, not a leaked variable)


class Box(Generic[N]):
    def __init__(self, n: N) -> None:
        self.n = n

    def fill(self, x: Tensor[N]) -> Tensor[N, Literal[2]]:
        return tt.stack([x, x], dim=-1)  # ok

    def wrong(self, x: Tensor[N]) -> Tensor[Literal[2], N]:
        return tt.stack([x, x], dim=-1)  # E: shape-return


def boxes(s: Tensor[Seq], b: Tensor[Batch]) -> None:
    box = Box(Seq(4))
    r: Tensor[Seq, Literal[2]] = box.fill(s)  # ok
    box.fill(b)  # E: shape-arg

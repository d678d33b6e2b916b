# Rule family: matmul / @ / mm / bmm / mv / dot.
from typing import Literal, TypeVar, TypeVarTuple

import typedtensor as tt
from typedtensor import Dim, Tensor

Bs = TypeVarTuple("Bs")
N = TypeVar("N")


class Batch(Dim): ...
class Seq(Dim): ...
class In(Dim): ...
class Hidden(Dim): ...
class Out(Dim): ...


def valid(x: Tensor[Batch, In], w: Tensor[In, Hidden], v: Tensor[In], b3: Tensor[Batch, Seq, In],
          w3: Tensor[Batch, In, Out], u: Tensor[Hidden]) -> None:
    a = x @ w  # ok
    c = w.T @ v  # ok
    d = v @ w  # ok
    e = v @ v  # ok
    f = b3 @ w  # ok
    g = tt.bmm(b3, w3)  # ok
    h = tt.mm(x, w)  # ok
    i = tt.matmul(b3, w3)  # ok
    j = x.matmul(w)  # ok
    k = tt.mv(w.T, v)  # ok
    m = tt.dot(u, u)  # ok
    n = (x @ w) @ u  # ok


def invalid(x: Tensor[Batch, In], w: Tensor[Hidden, Out], v: Tensor[Out], b3: Tensor[Batch, Seq, In],
            w3: Tensor[Seq, In, Out], u: Tensor[Hidden]) -> None:
    x @ w  # E: shape-matmul
    x @ v  # E: shape-matmul
    v @ x  # E: shape-matmul
    tt.mm(x, w)  # E: shape-matmul
    x.matmul(x)  # E: shape-matmul
    tt.bmm(b3, w3)  # E: shape-matmul
    tt.dot(u, v)  # E: shape-matmul
    w @ x.T  # E: shape-matmul


def literal(a: Tensor[Literal[2], Literal[3]], b: Tensor[Literal[3], Literal[5]], c: Tensor[Literal[4], Literal[5]]) -> None:
    a @ b  # ok
    a @ c  # E: shape-matmul


def variadic(x: Tensor[*Bs, In], w: Tensor[In, Out], bad: Tensor[Out, In]) -> Tensor[*Bs, Out]:
    x @ bad  # E: shape-matmul
    return x @ w  # ok


def generic(x: Tensor[N, N], y: Tensor[N, In]) -> Tensor[N, In]:
    y @ x  # E: shape-matmul
    return x @ y  # ok


def one_bug_one_report(x: Tensor[Batch, In], w: Tensor[Hidden, Out], w2: Tensor[Out, Out]) -> Tensor[Batch, Out]:
    h = x @ w  # E: shape-matmul
    y = h @ w2  # ok
    return y  # ok

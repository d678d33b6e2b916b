# matmul on 1-d/2-d/n-d with batch broadcasting, mm, bmm, mv, dot, outer, t/T/mT, einsum.
from typing import Literal, TypeVarTuple

import typedtensor as tt
from typedtensor import Dim, Tensor

Bs = TypeVarTuple("Bs")


class Batch(Dim): ...
class Heads(Dim): ...
class Seq(Dim): ...
class In(Dim): ...
class Out(Dim): ...


def matmul_forms(v: Tensor[In], m: Tensor[In, Out], b: Tensor[Batch, Seq, In], w: Tensor[Out, In]) -> None:
    reveal_type(m @ m.T)  # R: Tensor[In, In]
    reveal_type(v @ m)  # R: Tensor[Out]
    reveal_type(w @ v)  # R: Tensor[Out]
    reveal_type(v @ v)  # R: Tensor[()]
    reveal_type(b @ m)  # R: Tensor[Batch, Seq, Out]
    reveal_type(tt.matmul(b, m))  # R: Tensor[Batch, Seq, Out]
    reveal_type(b.matmul(m))  # R: Tensor[Batch, Seq, Out]
    b @ w  # E: shape-matmul
    v @ w  # E: shape-matmul
    tt.matmul(m, m)  # E: shape-matmul


def batched(q: Tensor[Batch, Heads, Seq, In], k: Tensor[Batch, Heads, Seq, In], k1: Tensor[Batch, Literal[1], Seq, In], bad: Tensor[Seq, Heads, Seq, In]) -> None:
    reveal_type(q @ k.transpose(-2, -1))  # R: Tensor[Batch, Heads, Seq, Seq]
    reveal_type(q @ k.mT)  # R: Tensor[Batch, Heads, Seq, Seq]
    reveal_type(q @ k1.mT)  # R: Tensor[Batch, Heads, Seq, Seq]
    q @ bad.mT  # E: shape-matmul


def two_d(a: Tensor[Batch, In], b: Tensor[In, Out], c: Tensor[Batch, In, Out], d: Tensor[Batch, Out, Seq]) -> None:
    reveal_type(tt.mm(a, b))  # R: Tensor[Batch, Out]
    reveal_type(a.mm(b))  # R: Tensor[Batch, Out]
    reveal_type(tt.bmm(c, d))  # R: Tensor[Batch, In, Seq]
    reveal_type(a.t())  # R: Tensor[In, Batch]
    reveal_type(tt.t(b))  # R: Tensor[Out, In]
    tt.mm(b, a)  # E: shape-matmul
    tt.bmm(c, c)  # E: shape-matmul


def vectors(x: Tensor[In], y: Tensor[Out], m: Tensor[Out, In]) -> None:
    reveal_type(tt.outer(x, y))  # R: Tensor[In, Out]
    reveal_type(tt.dot(x, x))  # R: Tensor[()]
    reveal_type(tt.mv(m, x))  # R: Tensor[Out]
    tt.dot(x, y)  # E: shape-matmul
    tt.mv(m, y)  # E: shape-matmul


def einsum(a: Tensor[Batch, In], b: Tensor[In, Out]) -> None:
    reveal_type(tt.einsum("bi,io->bo", a, b))  # R: Tensor[Batch, Out]
    reveal_type(tt.einsum("bi->ib", a))  # R: Tensor[In, Batch]


def generic(x: Tensor[*Bs, In], w: Tensor[In, Out]) -> Tensor[*Bs, Out]:
    reveal_type(x @ w)  # R: Tensor[*Bs, Out]
    return x @ w


def forward_fails_reverse_would_not(a: Tensor[Batch, Seq, In], m: Tensor[Batch, Seq, Seq]) -> None:
    # mypy tries `m.__rmatmul__(a)` after `a.__matmul__(m)` fails: the reverse must see `a`, not `m`.
    a @ m  # E: shape-matmul
    reveal_type(m @ m)  # R: Tensor[Batch, Seq, Seq]

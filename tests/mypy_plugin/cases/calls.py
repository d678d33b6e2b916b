# Calls to the user's own annotated functions and methods: unification of dims, TypeVars and
# TypeVarTuples, with a note saying where each variable was bound.
from typing import Generic, Literal, Optional, TypeVar, TypeVarTuple

import typedtensor as tt
from typedtensor import Dim, Tensor

N = TypeVar("N")
M = TypeVar("M")
K = TypeVar("K")
Bs = TypeVarTuple("Bs")


class Batch(Dim): ...
class Seq(Dim): ...
class In(Dim): ...
class Hidden(Dim): ...


def encode(x: Tensor[Batch, In]) -> Tensor[Batch, Hidden]:
    return x @ tt.randn(x.shape[1], Hidden(8))


def square(x: Tensor[N, N]) -> Tensor[N, N]:
    return x @ x


def swap(x: Tensor[N, M]) -> Tensor[M, N]:
    return x.transpose(0, 1)


def mm(a: Tensor[N, K], b: Tensor[K, M]) -> Tensor[N, M]:
    return a @ b


def last(x: Tensor[*Bs, In]) -> Tensor[*Bs, Hidden]:
    return encode_any(x)


def encode_any(x: Tensor[*Bs, In]) -> Tensor[*Bs, Hidden]:
    return x @ tt.randn(In(4), Hidden(8))


def pair(x: Tensor[*Bs, In], y: Tensor[*Bs, Hidden]) -> Tensor[*Bs]:
    return x.sum(-1) + y.sum(-1)


def sized(x: Tensor[N], n: N) -> Tensor[N, N]:
    return tt.zeros(n, n)


def maybe(x: Optional[Tensor[Batch, In]] = None) -> Tensor[Batch, Hidden]:
    assert x is not None
    return encode(x)


def use(a: Tensor[Batch, In], b: Tensor[Batch, Hidden], sq: Tensor[Seq, Seq], r: Tensor[Batch, Seq], c: Tensor[Seq, Batch, In]) -> None:
    reveal_type(encode(a))  # R: Tensor[Batch, Hidden]
    encode(b)  # E: shape-arg  # M: encode() argument 'x': dim 1 is Hidden, expected In
    encode(x=b)  # E: shape-arg
    reveal_type(square(sq))  # R: Tensor[Seq, Seq]
    square(r)  # E: shape-arg  # N: N was bound to Batch by square() argument 'x', dim 0
    reveal_type(swap(r))  # R: Tensor[Seq, Batch]
    reveal_type(mm(r, sq))  # R: Tensor[Batch, Seq]
    mm(r, r)  # E: shape-arg  # N: K was bound to Seq
    reveal_type(last(c))  # R: Tensor[Seq, Batch, Hidden]
    reveal_type(encode_any(a))  # R: Tensor[Batch, Hidden]
    encode_any(b)  # E: shape-arg
    reveal_type(pair(a, b))  # R: Tensor[Batch]
    pair(a, tt.zeros(Seq(2), Hidden(3)))  # E: shape-arg  # N: *Bs was bound to [Batch]
    reveal_type(sized(tt.zeros(Batch(3)), Batch(3)))  # R: Tensor[Batch, Batch]
    sized(tt.zeros(Batch(3)), Seq(3))  # E: shape-arg
    reveal_type(maybe(a))  # R: Tensor[Batch, Hidden]
    maybe(b)  # E: shape-arg
    maybe()
    encode(a, a)  # E: call-arg


def assign(x: Tensor[Batch, In]) -> None:
    h: Tensor[Batch, Hidden] = encode(x)
    g: Tensor[Batch, In] = encode(x)  # E: assignment


def returned(x: Tensor[Batch, In]) -> Tensor[Batch, In]:
    return encode(x)  # E: return-value


def inside_generic(x: Tensor[N, M], y: Tensor[M, N]) -> Tensor[N, N]:
    reveal_type(mm(x, y))  # R: Tensor[N, N]
    mm(x, x)  # E: shape-arg
    return mm(x, y)


class Encoder(Generic[N]):
    def __init__(self, width: N) -> None:
        self.width = width

    def apply(self, x: Tensor[Batch, N]) -> Tensor[Batch, N]:
        return x * 2

    @staticmethod
    def helper(x: Tensor[Seq, In]) -> Tensor[In]:
        return x.sum(0)


def methods(enc: Encoder[In], a: Tensor[Batch, In], b: Tensor[Batch, Hidden], s: Tensor[Seq, In]) -> None:
    reveal_type(enc.apply(a))  # R: Tensor[Batch, In]
    enc.apply(b)  # E: shape-arg  # M: Encoder.apply() argument 'x'
    reveal_type(Encoder(In(3)).apply(a))  # R: Tensor[Batch, In]
    reveal_type(Encoder.helper(s))  # R: Tensor[In]


@tt.checked
def guarded(x: Tensor[Batch, In]) -> Tensor[Batch]:
    return x.sum(-1)


def decorated(a: Tensor[Batch, In], b: Tensor[Batch, Hidden]) -> None:
    reveal_type(guarded(a))  # R: Tensor[Batch]
    guarded(b)  # E: shape-arg


def literals(x: Tensor[Literal[3], Literal[4]]) -> None:
    reveal_type(swap(x))  # R: Tensor[Literal[4], Literal[3]]
    square(x)  # E: shape-arg  # M: dim 1 is 4, expected 3

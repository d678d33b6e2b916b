# Classes: properties, class-level annotations, methods returning tuples, generic classes,
# instances passed around, Optional results.
from typing import Generic, Optional, TypeVar, TypeVarTuple

import typedtensor as tt
from typedtensor import Dim, Tensor, nn

N = TypeVar("N")
Bs = TypeVarTuple("Bs")


class Batch(Dim): ...
class Seq(Dim): ...
class Model(Dim): ...
class Heads(Dim): ...


class Attention(nn.Module):
    scale: float
    proj: nn.Linear[Model, Model]

    def __init__(self, heads: Heads, d: Model) -> None:
        super().__init__()
        self.heads = heads
        self.proj = nn.Linear(d, d)
        self.cache: Optional[Tensor[Batch, Seq, Model]] = None

    @property
    def width(self) -> Model:
        return self.proj.in_features

    def qk(self, x: Tensor[Batch, Seq, Model]) -> tuple[Tensor[Batch, Seq, Model], Tensor[Batch, Model, Seq]]:
        q = self.proj(x)  # ok
        return q, q.transpose(1, 2)  # ok

    def scores(self, x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Seq, Seq]:
        q, kt = self.qk(x)
        s: Tensor[Batch, Seq, Seq] = q @ kt  # ok
        q @ q  # E: shape-matmul
        return tt.softmax(s, dim=-1)  # ok

    def forward(self, x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Seq, Model]:
        a = self.scores(x)
        self.cache = x  # ok
        self.cache = a  # E: shape-assign
        return a @ x  # ok

    def sized(self, x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Model]:
        return tt.zeros(x.shape[0], self.width)  # ok


class Batched(Generic[*Bs]):
    def __init__(self, x: Tensor[*Bs, Model]) -> None:
        self.x = x

    def head(self, y: Tensor[*Bs, Model]) -> Tensor[*Bs, Model]:
        return self.x + y  # ok


class Pair(Generic[N]):
    def both(self, a: Tensor[N], b: Tensor[N]) -> Tensor[N]:
        return a + b  # ok


def use(x: Tensor[Batch, Seq, Model], m: Tensor[Batch, Model], att: Attention) -> None:
    y: Tensor[Batch, Seq, Model] = att(x)  # ok
    att(m)  # E: shape-arg
    q, kt = att.qk(x)
    r: Tensor[Batch, Model, Seq] = kt  # ok
    z: Tensor[Batch, Seq, Seq] = q  # E: shape-assign
    w: Tensor[Batch, Model] = att.sized(x)  # ok
    b = Batched(x)
    h: Tensor[Batch, Seq, Model] = b.head(x)  # ok
    b.head(m)  # E: shape-arg
    g: Tensor[Batch, Model] = b.head(x)  # E: shape-assign
    p: Pair[Seq] = Pair()
    p.both(tt.zeros(Seq(2)), tt.zeros(Seq(2)))  # ok
    p.both(tt.zeros(Seq(2)), tt.zeros(Batch(2)))  # E: shape-arg

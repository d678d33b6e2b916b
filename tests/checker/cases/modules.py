# Rule family: nn modules — constructor sizes, attributes assigned in __init__, __call__ -> forward,
# generic user modules, inheritance and super().__init__.
from typing import Generic, TypeVar

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F

I = TypeVar("I")
O = TypeVar("O")


class Batch(Dim): ...
class In(Dim): ...
class Hidden(Dim): ...
class Out(Dim): ...
class Classes(Dim): ...


def layers(x: Tensor[Batch, In], h: Tensor[Batch, Hidden]) -> None:
    fc = nn.Linear(In(784), Hidden(256))
    a: Tensor[Batch, Hidden] = fc(x)  # ok
    b: Tensor[Batch, Hidden] = fc.forward(x)  # ok
    fc(h)  # E: shape-arg
    fc.forward(h)  # E: shape-arg
    ln = nn.LayerNorm(Hidden(256))
    c: Tensor[Batch, Hidden] = ln(h)  # ok
    ln(x)  # E: shape-arg
    emb = nn.Embedding(1000, Hidden(256))
    idx = tt.randint(0, 1000, (Batch(32),))
    d: Tensor[Batch, Hidden] = emb(idx)  # ok
    act = nn.ReLU()
    e: Tensor[Batch, In] = act(x)  # ok


def functional(x: Tensor[Batch, In], w: Tensor[Hidden, In], bad: Tensor[In, Hidden], y: Tensor[Batch]) -> None:
    a: Tensor[Batch, Hidden] = F.linear(x, w)  # ok
    F.linear(x, bad)  # E: shape-matmul
    b: Tensor[Batch, In] = F.relu(x)  # ok
    c: Tensor[Batch, In] = F.softmax(x, dim=-1)  # ok
    loss: Tensor[()] = F.cross_entropy(x, y)  # ok
    F.cross_entropy(x, x[:, 0].T)  # ok
    F.mse_loss(x, w)  # E: shape-arg


class MLP(nn.Module, Generic[I, O]):
    def __init__(self, d_in: I, d_out: O, hidden: Hidden) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, d_out)
        self.drop = nn.Dropout(0.1)

    def forward(self, x: Tensor[Batch, I]) -> Tensor[Batch, O]:
        h = self.drop(F.relu(self.fc1(x)))  # ok
        self.fc2(x)  # E: shape-arg
        return self.fc2(h)  # ok


class Wrong(nn.Module, Generic[I, O]):
    def __init__(self, d_in: I, d_out: O) -> None:
        super().__init__()
        self.fc = nn.Linear(d_in, d_out)

    def forward(self, x: Tensor[Batch, I]) -> Tensor[Batch, I]:
        return self.fc(x)  # E: shape-return


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = MLP(In(784), Hidden(128), Hidden(128))
        self.head = nn.Linear(Hidden(128), Classes(10))

    def forward(self, x: Tensor[Batch, In]) -> Tensor[Batch, Classes]:
        return self.head(self.body(x))  # ok

    def logits_wrong(self, h: Tensor[Batch, Hidden]) -> Tensor[Batch, Classes]:
        return self.body(h)  # E: shape-arg


class Base(nn.Module):
    def __init__(self, n_in: In, n_out: Out) -> None:
        super().__init__()
        self.proj = nn.Linear(n_in, n_out)


class Child(Base):
    def __init__(self) -> None:
        super().__init__(In(3), Out(4))

    def forward(self, x: Tensor[Batch, In]) -> Tensor[Batch, Out]:
        return self.proj(x)  # ok

    def bad(self, x: Tensor[Batch, Out]) -> None:
        self.proj(x)  # E: shape-arg


def use(x: Tensor[Batch, In], h: Tensor[Batch, Hidden]) -> None:
    model = MLP(In(784), Classes(10), Hidden(32))
    logits: Tensor[Batch, Classes] = model(x)  # ok
    model(h)  # E: shape-arg
    wrong: Tensor[Batch, In] = model(x)  # E: shape-assign
    clf = Classifier()
    y: Tensor[Batch, Classes] = clf(x)  # ok
    clf(h)  # E: shape-arg
    child = Child()
    z: Tensor[Batch, Out] = child(x)  # ok
    child.to("cpu")(h)  # E: shape-arg


def annotated_param(m: MLP[In, Classes], x: Tensor[Batch, In], h: Tensor[Batch, Hidden]) -> Tensor[Batch, Classes]:
    m(h)  # E: shape-arg
    return m(x)  # ok


def annotated_layer(fc: nn.Linear[In, Hidden], x: Tensor[Batch, In]) -> Tensor[Batch, Hidden]:
    fc(fc(x))  # E: shape-arg
    return fc(x)  # ok


def sequential(x: Tensor[Batch, In], h: Tensor[Batch, Hidden]) -> None:
    seq = nn.Sequential(nn.Linear(In(784), Hidden(64)), nn.ReLU(), nn.Linear(Hidden(64), Classes(10)))
    out: Tensor[Batch, Classes] = seq(x)  # ok
    seq(h)  # E: shape-arg
    first: Tensor[Batch, Hidden] = seq[0](x)  # ok
    broken = nn.Sequential(nn.Linear(In(784), Hidden(64)), nn.Linear(In(784), Classes(10)))
    broken(x)  # E: shape-arg
    mixed = nn.Sequential(MLP(In(784), Hidden(8), Hidden(16)), nn.LayerNorm(Classes(8)))
    mixed(x)  # E: shape-arg


class Stack(nn.Module):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(Hidden(32), Hidden(32)) for _ in range(n)])
        self.out = nn.Linear(Hidden(32), Classes(10))

    def forward(self, x: Tensor[Batch, Hidden]) -> Tensor[Batch, Classes]:
        for layer in self.layers:
            x = layer(x)  # ok
        self.out(self.out(x))  # E: shape-arg
        return self.out(x)  # ok

# nn modules: constructor sizes captured as type arguments, Module.__call__ -> forward through
# the registry (registry modules) or by unification (the user's modules). A conv's or pool's
# kernel, stride, padding and dilation, Flatten's and Softmax's dims are type arguments too
# (cases/conv_pool.py); the others (a loss module's reduction) are not carried.
from typing import Generic, Literal, TypeVar

import typedtensor as tt
from typedtensor import Dim, Tensor, nn

I = TypeVar("I")
H = TypeVar("H")
O = TypeVar("O")


class Batch(Dim): ...
class Seq(Dim): ...
class In(Dim): ...
class Hidden(Dim): ...
class Classes(Dim): ...
class Vocab(Dim): ...
class Model(Dim): ...
class C(Dim): ...


def constructors(n: int) -> None:
    reveal_type(nn.Linear(In(784), Hidden(256)))  # R: Linear[In, Hidden]
    reveal_type(nn.Linear(784, 256))  # R: Linear[Literal[784], Literal[256]]
    reveal_type(nn.Linear(n, Hidden(2)))  # R: Linear[Any, Hidden]
    reveal_type(nn.Embedding(Vocab(1000), Model(64)))  # R: Embedding[Vocab, Model]
    reveal_type(nn.LayerNorm(Model(64)))  # R: LayerNorm[Model]
    reveal_type(nn.Conv2d(3, 16, 3))  # R: Conv2d[Literal[3], Literal[16], Literal[3], Literal[1], Literal[0], Literal[1]]
    reveal_type(nn.BatchNorm2d(C(16)))  # R: BatchNorm2d[C]
    reveal_type(nn.MultiheadAttention(Model(64), 8))  # R: MultiheadAttention[Model, Literal[8], Literal[False]]


def linear(x: Tensor[Batch, In], s: Tensor[Batch, Seq, In], h: Tensor[Batch, Hidden]) -> None:
    fc = nn.Linear(In(784), Hidden(256))
    reveal_type(fc(x))  # R: Tensor[Batch, Hidden]
    reveal_type(fc(s))  # R: Tensor[Batch, Seq, Hidden]
    reveal_type(fc.forward(x))  # R: Tensor[Batch, Hidden]
    fc(h)  # E: shape-arg  # M: dim 1 is Hidden, expected In
    fc.forward(h)  # E: shape-arg
    lit = nn.Linear(3, 4)
    reveal_type(lit(tt.zeros(Batch(2), 3)))  # R: Tensor[Batch, Literal[4]]
    lit(tt.zeros(Batch(2), 5))  # E: shape-arg
    free = nn.Linear(len("abc"), 4)
    reveal_type(free(x))  # R: Tensor[Batch, Literal[4]]


def others(tokens: Tensor[Batch, Seq], e: Tensor[Batch, Seq, Model], img: Tensor[Batch, C, Literal[32], Literal[32]], flat: Tensor[Batch, Model]) -> None:
    emb = nn.Embedding(Vocab(1000), Model(64))
    reveal_type(emb(tokens))  # R: Tensor[Batch, Seq, Model]
    ln = nn.LayerNorm(Model(64))
    reveal_type(ln(e))  # R: Tensor[Batch, Seq, Model]
    ln(tokens)  # E: shape-arg
    bn = nn.BatchNorm2d(C(3))
    reveal_type(bn(img))  # R: Tensor[Batch, C, Literal[32], Literal[32]]
    bn(flat)  # E: shape-rank  # M: expected a 4-d input
    conv = nn.Conv2d(C(3), Hidden(16), 3, padding=1)
    reveal_type(conv(img))  # R: Tensor[Batch, Hidden, Literal[32], Literal[32]]
    conv(flat)  # E: shape-rank
    reveal_type(nn.ReLU()(e))  # R: Tensor[Batch, Seq, Model]
    reveal_type(nn.Dropout(0.1)(e))  # R: Tensor[Batch, Seq, Model]
    reveal_type(nn.Flatten()(img))  # R: Tensor[Batch, Mul[Literal[1024], C]]
    reveal_type(nn.MaxPool2d(2)(img))  # R: Tensor[Batch, C, Literal[16], Literal[16]]
    reveal_type(nn.AdaptiveAvgPool2d(1)(img))  # R: Tensor[Batch, C, Literal[1], Literal[1]]
    reveal_type(nn.CrossEntropyLoss()(flat, tt.zeros(Batch(2))))  # R: Tensor[*tuple[Any, ...]]


def attention(x: Tensor[Batch, Seq, Model], y: Tensor[Batch, Seq, Hidden]) -> None:
    mha = nn.MultiheadAttention(Model(64), 8, batch_first=True)
    out, weights = mha(x, x, x)
    reveal_type(out)  # R: Tensor[Batch, Seq, Model]
    mha(y, y, y)  # E: shape-arg


class MLP(nn.Module, Generic[I, H, O]):
    def __init__(self, d_in: I, d_hidden: H, d_out: O) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x: Tensor[Batch, I]) -> Tensor[Batch, O]:
        reveal_type(self.fc1)  # R: Linear[I, H]
        reveal_type(self.fc1(x))  # R: Tensor[Batch, H]
        self.fc2(x)  # E: shape-arg  # M: dim 1 is I, expected H
        return self.fc2(tt.relu(self.fc1(x)))


class Residual(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(Model(8), Model(8))

    def forward(self, x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Seq, Model]:
        return x + self.proj(x)


def user_modules(x: Tensor[Batch, In], h: Tensor[Batch, Hidden], e: Tensor[Batch, Seq, Model]) -> None:
    model = MLP(In(784), Hidden(256), Classes(10))
    reveal_type(model)  # R: MLP[In, Hidden, Classes]
    reveal_type(model(x))  # R: Tensor[Batch, Classes]
    reveal_type(model.forward(x))  # R: Tensor[Batch, Classes]
    model(h)  # E: shape-arg  # M: MLP.forward() argument 'x'
    reveal_type(Residual()(e))  # R: Tensor[Batch, Seq, Model]
    Residual()(x)  # E: shape-arg
    seq = nn.Sequential(nn.Linear(In(4), Hidden(8)), nn.ReLU())
    reveal_type(seq(x))  # R: Tensor[Batch, Hidden]


def loss_modules(logits: Tensor[Batch, Classes], y: Tensor[Batch], wrong: Tensor[Classes], p: Tensor[Batch, Classes]) -> None:
    # the constructor's reduction is not in the type: the result shape is unknown, the input/target contract is checked
    ce = nn.CrossEntropyLoss()
    reveal_type(ce(logits, y))  # R: Tensor[*tuple[Any, ...]]
    ce(logits, wrong)  # E: shape-arg
    reveal_type(nn.CrossEntropyLoss(reduction="none")(logits, y))  # R: Tensor[*tuple[Any, ...]]
    nn.MSELoss()(logits, y)  # E: shape-arg
    reveal_type(nn.MSELoss()(logits, p))  # R: Tensor[*tuple[Any, ...]]

# Rule family: nn.functional — convolution, pooling, normalisation, embedding, dropout, losses.
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F


class Batch(Dim): ...
class Chan(Dim): ...
class Classes(Dim): ...
class Model(Dim): ...
class Seq(Dim): ...


def convolution(x: Tensor[Batch, Literal[3], Literal[32], Literal[32]], w: Tensor[Literal[8], Literal[3], Literal[3], Literal[3]],
                bad_w: Tensor[Literal[8], Literal[4], Literal[3], Literal[3]]) -> None:
    a: Tensor[Batch, Literal[8], Literal[30], Literal[30]] = F.conv2d(x, w)  # ok
    b: Tensor[Batch, Literal[8], Literal[32], Literal[32]] = F.conv2d(x, w, padding=1)  # ok
    c: Tensor[Batch, Literal[8], Literal[15], Literal[15]] = F.conv2d(x, w, stride=2)  # ok
    F.conv2d(x, bad_w)  # E: shape-arg
    F.conv2d(x[0, 0], w)  # E: shape-rank
    d: Tensor[Batch, Literal[3], Literal[16], Literal[16]] = F.max_pool2d(x, 2)  # ok
    e: Tensor[Batch, Literal[3], Literal[16], Literal[16]] = F.avg_pool2d(x, kernel_size=2, stride=2)  # ok
    f: Tensor[Batch, Literal[3], Literal[1], Literal[1]] = F.adaptive_avg_pool2d(x, 1)  # ok
    F.max_pool2d(x[0, 0, 0], 2)  # E: shape-rank
    g: Tensor[Batch, Literal[3], Literal[32], Literal[32]] = F.dropout2d(x, 0.1)  # ok


def conv_modules(x: Tensor[Batch, Literal[3], Literal[28], Literal[28]]) -> None:
    conv = nn.Conv2d(3, 16, kernel_size=3, padding=1)
    y: Tensor[Batch, Literal[16], Literal[28], Literal[28]] = conv(x)  # ok
    pool = nn.MaxPool2d(2)
    z: Tensor[Batch, Literal[16], Literal[14], Literal[14]] = pool(y)  # ok
    bn = nn.BatchNorm2d(16)
    w: Tensor[Batch, Literal[16], Literal[14], Literal[14]] = bn(z)  # ok
    bn(x)  # E: shape-arg
    gap = nn.AdaptiveAvgPool2d(1)
    v: Tensor[Batch, Literal[16]] = gap(w).flatten(1)  # ok
    conv(y)  # E: shape-arg


def normalisation(x: Tensor[Batch, Seq, Model], g: Tensor[Model], bad: Tensor[Seq]) -> None:
    a: Tensor[Batch, Seq, Model] = F.layer_norm(x, (x.shape[-1],))  # ok
    b: Tensor[Batch, Seq, Model] = F.layer_norm(x, (x.shape[-1],), weight=g)  # ok
    F.layer_norm(x, (x.shape[1],))  # E: shape-arg


def embedding(idx: Tensor[Batch, Seq], table: Tensor[Classes, Model]) -> Tensor[Batch, Seq, Model]:
    emb = nn.Embedding(Classes(100), Model(16))
    a: Tensor[Batch, Seq, Model] = emb(idx)  # ok
    return F.embedding(idx, table)  # ok


def losses(logits: Tensor[Batch, Classes], y: Tensor[Batch], p: Tensor[Batch, Classes], yb: Tensor[Classes]) -> None:
    a: Tensor[()] = F.cross_entropy(logits, y)  # ok
    b: Tensor[Batch] = F.cross_entropy(logits, y, reduction="none")  # ok
    c: Tensor[()] = F.nll_loss(F.log_softmax(logits, dim=-1), y)  # ok
    d: Tensor[()] = F.mse_loss(logits, p)  # ok
    e: Tensor[()] = F.binary_cross_entropy_with_logits(logits, p)  # ok
    F.cross_entropy(logits, yb)  # E: shape-arg
    F.mse_loss(logits, y)  # E: shape-arg
    F.binary_cross_entropy(tt.sigmoid(logits), y)  # E: shape-arg
    loss_fn = nn.CrossEntropyLoss()
    f: Tensor[()] = loss_fn(logits, y)  # ok
    loss_fn(logits, yb)  # E: shape-arg


def activations(x: Tensor[Batch, Model]) -> None:
    a: Tensor[Batch, Model] = F.gelu(x)  # ok
    b: Tensor[Batch, Model] = F.silu(F.leaky_relu(x, 0.1))  # ok
    c: Tensor[Batch, Model] = tt.tanh(tt.sigmoid(x))  # ok
    d: Tensor[Batch, Model] = x.clamp(min=0.0, max=1.0)  # ok
    e: Tensor[Batch, Model] = F.dropout(x, p=0.5, training=True)  # ok
    f: Tensor[Batch, Literal[4]] = F.one_hot(tt.zeros(x.shape[0]).long(), 4)  # ok


def method_forms(x: Tensor[Batch, Chan, Seq], w: Tensor[Chan], v: Tensor[Model], y: Tensor[Seq]) -> None:
    a: Tensor[Batch, Chan, Seq] = x.hardshrink(0.2)  # ok
    b: Tensor[Batch, Chan, Seq] = x.prelu(w)  # ok
    c: Tensor[Batch, Chan, Seq] = x.isclose(y)  # ok
    d: Tensor[Batch, Seq, Chan] = x.hardshrink()  # E: shape-assign
    x.isclose(v)  # E: shape-broadcast


def distances(x: Tensor[Literal[5], Model], z: Tensor[Batch, Chan, Model]) -> None:
    a: Tensor[Literal[10]] = F.pdist(x)  # ok
    b: Tensor[Literal[10]] = tt.pdist(x, 1.0)  # ok
    c: Tensor[Literal[9]] = F.pdist(x)  # E: shape-assign
    F.pdist(z)  # E: shape-rank
    F.pdist(x, -1.0)  # E: shape-arg


def bilinear(x1: Tensor[Batch, Model], x2: Tensor[Batch, Chan], w: Tensor[Classes, Model, Chan], z: Tensor[Seq, Chan]) -> None:
    a: Tensor[Batch, Classes] = F.bilinear(x1, x2, w)  # ok
    m = nn.Bilinear(x1.shape[1], x2.shape[1], 7)
    b: Tensor[Batch, Literal[7]] = m(x1, x2)  # ok
    c: Tensor[Batch, Chan] = F.bilinear(x1, x2, w)  # E: shape-assign
    F.bilinear(x1, z, w)  # E: shape-arg
    F.bilinear(x2, x2, w)  # E: shape-arg


def ctc(lp: Tensor[Seq, Batch, Classes], tg: Tensor[Batch, Chan], il: Tensor[Batch], wrong: Tensor[Seq, Batch, Classes, Chan],
        rows: Tensor[Seq, Chan], x: Tensor[Batch, Model], y: Tensor[Batch]) -> None:
    a: Tensor[Batch] = F.ctc_loss(lp, tg, il, il, reduction="none")  # ok
    b: Tensor[Seq] = F.ctc_loss(lp, tg, il, il, reduction="none")  # E: shape-assign
    F.ctc_loss(wrong, tg, il, il)  # E: shape-rank
    F.ctc_loss(lp, rows, il, il)  # E: shape-arg
    nn.CTCLoss(reduction="sum")(wrong, tg, il, il)  # E: shape-rank

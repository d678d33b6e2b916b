# nn.functional: linear, conv2d and pooling output sizes, normalisation, embedding, dropout, losses.
from typing import Literal

import typedtensor as tt
from typedtensor import Add, Dim, Div, Sub, Tensor
from typedtensor.nn import functional as F


class Batch(Dim): ...
class In(Dim): ...
class Out(Dim): ...
class C(Dim): ...
class K(Dim): ...
class Classes(Dim): ...
class Seq(Dim): ...
class Vocab(Dim): ...
class Model(Dim): ...


def linear(x: Tensor[Batch, In], w: Tensor[Out, In], b: Tensor[Out], bad: Tensor[In, Out]) -> None:
    reveal_type(F.linear(x, w, b))  # R: Tensor[Batch, Out]
    reveal_type(F.linear(x, w))  # R: Tensor[Batch, Out]
    F.linear(x, bad)  # E: shape-matmul


def conv(img: Tensor[Batch, C, Literal[32], Literal[32]], w: Tensor[K, C, Literal[3], Literal[3]], flat: Tensor[Batch, C]) -> None:
    reveal_type(F.conv2d(img, w))  # R: Tensor[Batch, K, Literal[30], Literal[30]]
    reveal_type(F.conv2d(img, w, padding=1))  # R: Tensor[Batch, K, Literal[32], Literal[32]]
    reveal_type(F.conv2d(img, w, stride=2))  # R: Tensor[Batch, K, Literal[15], Literal[15]]
    reveal_type(F.max_pool2d(img, 2))  # R: Tensor[Batch, C, Literal[16], Literal[16]]
    reveal_type(F.avg_pool2d(img, 3, stride=1, padding=1))  # R: Tensor[Batch, C, Literal[32], Literal[32]]
    reveal_type(F.adaptive_avg_pool2d(img, 1))  # R: Tensor[Batch, C, Literal[1], Literal[1]]
    F.conv2d(flat, w)  # E: shape-rank
    F.max_pool2d(flat, 2)  # E: shape-rank
    F.max_pool2d(img, 2, padding=2)  # E: shape-arg


def pool_symbolic(img: Tensor[Batch, C, Seq, Seq]) -> None:
    reveal_type(F.max_pool2d(img, 2))  # R: Tensor[Batch, C, Add[Div[Sub[Seq, Literal[2]], Literal[2]], Literal[1]], Add[Div[Sub[Seq, Literal[2]], Literal[2]], Literal[1]]]
    reveal_type(F.avg_pool2d(img, 3, stride=1, padding=1))  # R: Tensor[Batch, C, Seq, Seq]


def conv_channels(img: Tensor[Batch, K, Literal[8], Literal[8]], w: Tensor[K, C, Literal[3], Literal[3]]) -> None:
    F.conv2d(img, w)  # E: shape-arg


def norm(x: Tensor[Batch, Seq, Model], stats: Tensor[Model], img: Tensor[Batch, C, Literal[4], Literal[4]], cs: Tensor[C]) -> None:
    reveal_type(F.layer_norm(x, (Model(64),)))  # R: Tensor[Batch, Seq, Model]
    reveal_type(F.batch_norm(img, cs, cs))  # R: Tensor[Batch, C, Literal[4], Literal[4]]
    reveal_type(F.softmax(x, dim=-1))  # R: Tensor[Batch, Seq, Model]
    reveal_type(F.gelu(x))  # R: Tensor[Batch, Seq, Model]
    reveal_type(F.dropout(x, 0.1))  # R: Tensor[Batch, Seq, Model]
    reveal_type(F.dropout2d(img))  # R: Tensor[Batch, C, Literal[4], Literal[4]]
    F.batch_norm(img, stats, stats)  # E: shape-arg
    F.dropout2d(stats)  # E: shape-rank
    F.log_softmax(x, dim=3)  # E: shape-axis


def embedding(ids: Tensor[Batch, Seq], table: Tensor[Vocab, Model]) -> None:
    reveal_type(F.embedding(ids, table))  # R: Tensor[Batch, Seq, Model]
    reveal_type(F.one_hot(ids, 10))  # R: Tensor[Batch, Seq, Literal[10]]


def losses(logits: Tensor[Batch, Classes], y: Tensor[Batch], bad: Tensor[Classes], p: Tensor[Batch, Classes], q: Tensor[Batch, Literal[1]], r: Tensor[Batch]) -> None:
    reveal_type(F.cross_entropy(logits, y))  # R: Tensor[()]
    reveal_type(F.cross_entropy(logits, y, reduction="none"))  # R: Tensor[Batch]
    reveal_type(F.cross_entropy(logits, p))  # R: Tensor[()]
    reveal_type(F.nll_loss(F.log_softmax(logits, dim=1), y))  # R: Tensor[()]
    reveal_type(F.mse_loss(p, p))  # R: Tensor[()]
    reveal_type(F.binary_cross_entropy_with_logits(p, p, reduction="none"))  # R: Tensor[Batch, Classes]
    F.cross_entropy(logits, bad)  # E: shape-arg
    F.mse_loss(q, r)  # E: shape-arg
    F.binary_cross_entropy(p, q)  # E: shape-arg


def attention(q: Tensor[Batch, Seq, Model], k: Tensor[Batch, Seq, Model], v: Tensor[Batch, Seq, Model], bad: Tensor[Batch, Seq, In]) -> None:
    reveal_type(F.scaled_dot_product_attention(q, k, v))  # R: Tensor[Batch, Seq, Model]
    F.scaled_dot_product_attention(q, bad, v)  # E: shape-matmul


def method_forms(x: Tensor[Batch, C, Seq], w: Tensor[C], v: Tensor[K], y: Tensor[Seq]) -> None:
    reveal_type(x.hardshrink())  # R: Tensor[Batch, C, Seq]
    reveal_type(x.prelu(w))  # R: Tensor[Batch, C, Seq]
    reveal_type(x.isclose(y))  # R: Tensor[Batch, C, Seq]
    reveal_type(x.allclose(y))  # R: bool
    reveal_type(x.equal(y))  # R: bool
    x.isclose(v)  # E: shape-broadcast


def distances(x: Tensor[Literal[5], K], z: Tensor[Batch, C, K]) -> None:
    reveal_type(F.pdist(x))  # R: Tensor[Literal[10]]
    reveal_type(tt.pdist(x, 1.0))  # R: Tensor[Literal[10]]
    F.pdist(z)  # E: shape-rank


def bilinear(x1: Tensor[Batch, In], x2: Tensor[Batch, K], w: Tensor[Out, In, K], b: Tensor[Out], z: Tensor[Seq, K]) -> None:
    reveal_type(F.bilinear(x1, x2, w, b))  # R: Tensor[Batch, Out]
    reveal_type(tt.nn.Bilinear(In(3), K(4), Out(5))(x1, x2))  # R: Tensor[Batch, Out]
    F.bilinear(x1, z, w)  # E: shape-arg
    F.bilinear(x2, x2, w)  # E: shape-arg


def ctc(lp: Tensor[Seq, Batch, Classes], tg: Tensor[Batch, K], il: Tensor[Batch], tl: Tensor[Batch],
        wrong: Tensor[Seq, Batch, Classes, K], rows: Tensor[Seq, K]) -> None:
    reveal_type(F.ctc_loss(lp, tg, il, tl, reduction="none"))  # R: Tensor[Batch]
    reveal_type(F.ctc_loss(lp, tg, il, tl))  # R: Tensor[()]
    F.ctc_loss(wrong, tg, il, tl)  # E: shape-rank
    F.ctc_loss(lp, rows, il, tl)  # E: shape-arg

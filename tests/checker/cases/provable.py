# Only what can be proved is reported (NOTE [ Provable facts ] in typedtensor/shapes/rules/_provable.py).
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn, reveal_shape
from typedtensor.nn import functional as F


class Batch(Dim): ...
class In(Dim): ...
class Seq(Dim): ...
class Model(Dim): ...
class HeadDim(Dim): ...


def literal_reshape(x: Tensor[Batch, In]) -> None:
    x.reshape(32, 784)  # ok (legal whenever Batch * In == 25088)
    x.view(-1, 784)  # ok
    x.reshape(32, -1)  # ok


def known_sizes() -> None:
    x = tt.zeros(Batch(32), In(784))
    x.reshape(32, 784)  # ok
    x.reshape(25088)  # ok


def head_split_merge(x: Tensor[Batch, Seq, Model], n_head: Literal[4]) -> Tensor[Batch, Seq, Model]:
    B, T, C = x.shape
    q = x.view(B, T, n_head, C // n_head).transpose(1, 2)  # ok
    k = x.view(B, -1, n_head, C // n_head).transpose(1, 2)  # ok (-1 is T)
    y = F.softmax(q @ k.transpose(-2, -1), dim=-1) @ q  # ok
    return y.transpose(1, 2).contiguous().view(B, T, C)  # ok (the element count is unchanged)


def lost_dim(x: Tensor[Batch, Seq, Model, HeadDim]) -> None:
    b, s, m, _ = x.shape
    x.reshape(b, s, m)  # E: shape-reshape
    x.reshape(b, s, m, m)  # E: shape-reshape


def heads_not_dividing(x: Tensor[Batch, Seq, Literal[768]]) -> None:
    b, s, _ = x.shape
    x.reshape(b, s, 3, 3, -1)  # E: shape-reshape
    x.reshape(b, s, 3, 4, -1)  # ok


def slices(x: Tensor[Batch, Seq, Model], pe: Tensor[Literal[1], Literal[512], Model]) -> Tensor[Batch, Seq, Model]:
    reveal_shape(x[:, :64])  # N: Tensor[Batch, ?, Model]
    reveal_shape(x[:, 1:])  # N: Tensor[Batch, Seq - 1, Model]
    reveal_shape(x[:, :-1])  # N: Tensor[Batch, Seq - 1, Model]
    head: Tensor[Batch, Literal[64], Model] = x[:, :64]  # ok (min(Seq, 64): not known, never an error)
    t = x.size(1)
    return x + pe[:, :t]  # ok (min(512, Seq) is not known)


def literal_slice(x: Tensor[Batch, Literal[230], Model], pe: Tensor[Literal[1], Literal[200], Model]) -> None:
    reveal_shape(pe[:, :230])  # N: Tensor[1, 200, Model]
    x + pe[:, :230]  # E: shape-broadcast


def expand_literal(x: Tensor[Batch, Literal[1]], y: Tensor[Seq, Literal[1]]) -> None:
    x.expand(32, 8)  # ok (Batch may be 32)
    y.expand(-1, 8)  # ok


class Attention(nn.Module):
    def __init__(self, embed: Model) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(embed, 4, batch_first=True)

    def forward(self, x: Tensor[Batch, Seq, Model], pad: Tensor[Batch, Seq], causal: Tensor[Seq, Seq]) -> Tensor:
        out, _ = self.attn(x, x, x, key_padding_mask=pad, attn_mask=causal)  # ok
        self.attn(x, x, x, key_padding_mask=pad.transpose(0, 1))  # E: shape-arg
        self.attn(x, x, x, attn_mask=pad)  # E: shape-arg
        return out


def any_layout(attn: nn.MultiheadAttention, x: Tensor[Batch, Seq, Model], pad: Tensor[Batch, Seq]) -> None:
    attn(x, x, x, key_padding_mask=pad)  # ok (batch_first is not known from the annotation)

"""Scaled dot-product attention whose padding mask has no head axis.

The fixed twin of ../bugs/b02_attention_mask_missing_head_dim.py.
Source: https://github.com/hyunwoongko/transformer/issues/32
The scores are ``[batch, head, seq_len, seq_len]`` but the mask passed down is ``[batch, seq_len,
seq_len]``: broadcasting lines the mask's batch axis up with the scores' head axis, which fails as
soon as the batch size differs from the number of heads. The fix gives the mask a head axis of
size 1 (``mask.unsqueeze(1)``), as the annotated-transformer does. The heads are split with
``view(batch, -1, heads, d_k)``: the ``-1`` has to be solved against ``d_model // heads``.
"""

from __future__ import annotations

import math
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F


class Batch(Dim):
    "sentences in one minibatch"


class Seq(Dim):
    "tokens per sentence"


class Model(Dim):
    "model width"


NHead = Literal[8]  # conf.py: n_heads = 8


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: Model, n_head: NHead) -> None:
        super().__init__()
        self.n_head = n_head
        self.d_k = d_model // n_head
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)

    def forward(self, x: Tensor[Batch, Seq, Model], mask: Tensor[Batch, Seq, Seq]) -> Tensor[Batch, Seq, Model]:
        b, t, c = x.shape
        q = self.w_q(x).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
        k = self.w_k(x).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
        v = self.w_v(x).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
        score = q @ k.transpose(2, 3) / math.sqrt(self.d_k)
        score = score.masked_fill(mask.unsqueeze(1) == 0, -10000.0)
        attn = F.softmax(score, dim=-1) @ v
        return self.w_o(attn.transpose(1, 2).reshape(b, t, c))


def main() -> None:
    attn = MultiHeadAttention(Model(64), 8)
    x = tt.randn(Batch(3), Seq(5), Model(64))
    attn(x, tt.ones(Batch(3), Seq(5), Seq(5)))

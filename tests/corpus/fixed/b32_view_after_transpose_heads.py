"""Merging attention heads with ``view`` straight after ``transpose``.

The fixed twin of ../bugs/b32_view_after_transpose_heads.py.
Source: https://github.com/pytorch/pytorch/issues/141107
"Cannot view a tensor with shape torch.Size([2, 1, 8, 32]) and strides (32, 512, 64, 1) as a tensor
with shape (2, 256)": after ``transpose(1, 2)`` the heads' output is no longer contiguous, and
``view`` cannot merge the head and width axes of a non-contiguous tensor. ``.contiguous()`` before
the ``view`` (or ``reshape``) is needed.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F


class Batch(Dim):
    "sequences in one minibatch"


class Seq(Dim):
    "tokens per sequence"


class Model(Dim):
    "model width"


NHead = Literal[4]


class SelfAttention(nn.Module):
    def __init__(self, d_model: Model, n_head: NHead) -> None:
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Seq, Model]:
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.softmax(q @ k.transpose(-2, -1), dim=-1) @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.proj(y)


def main() -> None:
    SelfAttention(Model(16), 4)(tt.randn(Batch(2), Seq(3), Model(16)))

"""A 3-d attention mask with one slice per example instead of one per example and head.

The fixed twin of ../bugs/b21_mha_attn_mask_per_head.py.
Source: https://github.com/pytorch/pytorch/issues/64706 (and #97605)
A 3-d ``attn_mask`` must be ``(batch * num_heads, L, S)``; passing ``(batch, L, S)`` fails ("The
shape of the 3D attn_mask is torch.Size([2, 8, 8]), but should be (8, 8, 8)"). The per-example
mask has to be repeated for every head.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim):
    "sequences in one minibatch"


class Seq(Dim):
    "tokens per sequence"


Embed = Literal[8]
Heads = Literal[4]


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 4, batch_first=True)

    def forward(self, x: Tensor[Batch, Seq, Embed], mask: Tensor[Batch, Seq, Seq]) -> Tensor:
        out, _ = self.attn(x, x, x, attn_mask=mask.repeat_interleave(4, dim=0))
        return out


def main() -> None:
    mask = tt.zeros(Batch(2), Seq(6), Seq(6)) > 0
    Block()(tt.randn(Batch(2), Seq(6), 8), mask)

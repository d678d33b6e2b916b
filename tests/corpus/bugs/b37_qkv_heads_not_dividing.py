"""Splitting a fused qkv projection into a number of heads that does not divide the width.

Source: https://github.com/microsoft/Cream/issues/80
``qkv = self.qkv(x).reshape(B, N, 3, self.sample_num_heads, -1)`` raised "shape '[64, 197, 3, 3,
-1]' is invalid for input of size 9682944": the sampled embedding width (256 here) is not a
multiple of the sampled number of heads (3), so no ``-1`` exists. The head count must divide the
width (here 4 heads).
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn

Embed = Literal[256]
Heads = Literal[3]


class Batch(Dim):
    "images in one minibatch"


class Tokens(Dim):
    "patch tokens plus the class token"


class Attention(nn.Module):
    def __init__(self, dim: Embed, num_heads: Heads) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.qkv = nn.Linear(dim, dim * 3)

    def forward(self, x: Tensor[Batch, Tokens, Embed]) -> Tensor:
        B, N, _ = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)  # E: shape-reshape
        q, k = qkv[0], qkv[1]
        return q @ k.transpose(-2, -1)


def main() -> None:
    Attention(256, 3)(tt.randn(Batch(2), Tokens(5), 256))

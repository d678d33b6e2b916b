"""A transformer block written batch-first, called with a sequence-first tensor.

Planted, in the shape of the ``nn.Transformer`` tutorials: the data pipeline yields
``[seq, batch, dim]`` (the old ``batch_first=False`` layout) while the block and its padding
mask are batch-first; the block's own annotations bind ``batch`` and ``seq`` from ``x`` and the
mask then disagrees with them.

This copy of ../t19_sequence_first_into_batch_first.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x,
                pad):
        y, _ = self.attn(x, x, x, key_padding_mask=pad)
        return self.norm(x + y)


class Encoder(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.block = Block(dim, heads)

    def forward(self, src, pad):
        return self.block(src.transpose(0, 1), pad).transpose(0, 1)


def main() -> None:
    Encoder(16, 4)(torch.randn(7, 3, 16), torch.zeros(3, 7, dtype=torch.bool))

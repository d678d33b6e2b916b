"""A transformer block written batch-first, called with a sequence-first tensor.

Planted, in the shape of the ``nn.Transformer`` tutorials: the data pipeline yields
``[seq, batch, dim]`` (the old ``batch_first=False`` layout) while the block and its padding
mask are batch-first; the block's own annotations bind ``batch`` and ``seq`` from ``x`` and the
mask then disagrees with them.
"""

import torch
from jaxtyping import Bool, Float
from torch import Tensor, nn


class Block(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: Float[Tensor, "batch seq dim"],
                pad: Bool[Tensor, "batch seq"]) -> Float[Tensor, "batch seq dim"]:
        y, _ = self.attn(x, x, x, key_padding_mask=pad)
        return self.norm(x + y)


class Encoder(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.block = Block(dim, heads)

    def forward(self, src: Float[Tensor, "seq batch dim"], pad: Bool[Tensor, "batch seq"]) -> Float[Tensor, "seq batch dim"]:
        return self.block(src, pad)  # E: shape-arg


def main() -> None:
    Encoder(16, 4)(torch.randn(7, 3, 16), torch.zeros(3, 7, dtype=torch.bool))

"""Batch-first tensors given to a MultiheadAttention built without ``batch_first=True``.

The fixed twin of ../bugs/b20_mha_batch_first_missing.py.
Source: https://github.com/pytorch/pytorch/issues/122959 (also #64888)
``MultiheadAttention(embed_dim=1536, num_heads=4)`` with a query of shape ``[1, 1, 1536]`` and
keys of shape ``[1, 23, 1536]`` failed: without ``batch_first`` the module reads ``[seq, batch,
embed]``, so the query's "batch" is 1 and the keys' is 23. "The issue was just that I forgot to
set batch_first=True".
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim):
    "videos in one minibatch"


class Clips(Dim):
    "similar clips retrieved per video"


class Embed(Dim):
    "embedding width"


class Pool(nn.Module):
    def __init__(self, embed: Embed) -> None:
        super().__init__()
        self.attention = nn.MultiheadAttention(embed, 4, batch_first=True)

    def forward(self, query: Tensor[Batch, Literal[1], Embed], clips: Tensor[Batch, Clips, Embed]) -> Tensor:
        out, _ = self.attention(query, clips, clips)
        return out


def main() -> None:
    Pool(Embed(16))(tt.randn(Batch(1), 1, Embed(16)), tt.randn(Batch(1), Clips(23), Embed(16)))

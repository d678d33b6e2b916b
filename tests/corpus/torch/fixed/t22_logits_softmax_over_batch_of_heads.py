"""Attention pooling that normalises its scores over an axis the scores do not have.

Planted, in an attention-pooling head (as in set transformers' PMA or a sentence-embedding
pooler): after the scores lost their trailing singleton axis (``squeeze(-1)``), the softmax still
asks for ``dim=2`` on a 2-d ``[batch, seq]`` tensor ("Dimension out of range"). The fix normalises
over the sequence axis, ``dim=1``.
"""

import torch
from jaxtyping import Bool, Float
from torch import Tensor, nn


class AttentionPool(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, h: Float[Tensor, "batch seq dim"], mask: Bool[Tensor, "batch seq"]) -> Float[Tensor, "batch dim"]:
        scores = self.score(h).squeeze(-1).masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=1)
        return (weights.unsqueeze(-1) * h).sum(dim=1)


def main() -> None:
    AttentionPool(8)(torch.randn(2, 5, 8), torch.ones(2, 5, dtype=torch.bool))

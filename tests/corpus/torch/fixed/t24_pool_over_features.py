"""A sentence classifier that averages over the features instead of the tokens.

Planted, in a mean-pooling classification head (as in sentence-transformers' ``Pooling``): the
encoder output is ``[batch, seq, hidden]``; ``mean(dim=2)`` averages each token's features and
hands the classifier ``[batch, seq]``; the tokens are axis 1.
"""

import torch
from jaxtyping import Float
from torch import Tensor, nn


class MeanPoolClassifier(nn.Module):
    def __init__(self, hidden: int, classes: int) -> None:
        super().__init__()
        self.classifier = nn.Linear(hidden, classes)

    def pool(self, h: Float[Tensor, "batch seq hidden"]) -> Float[Tensor, "batch hidden"]:
        return h.mean(dim=1)

    def forward(self, h: Float[Tensor, "batch seq hidden"]) -> Float[Tensor, "batch classes"]:
        return self.classifier(self.pool(h))


def main() -> None:
    MeanPoolClassifier(16, 3)(torch.randn(2, 7, 16))

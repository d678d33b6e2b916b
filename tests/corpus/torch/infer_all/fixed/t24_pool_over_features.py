"""A sentence classifier that averages over the features instead of the tokens.

Planted, in a mean-pooling classification head (as in sentence-transformers' ``Pooling``): the
encoder output is ``[batch, seq, hidden]``; ``mean(dim=2)`` averages each token's features and
hands the classifier ``[batch, seq]``; the tokens are axis 1.

This copy of ../t24_pool_over_features.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch
from torch import nn


class MeanPoolClassifier(nn.Module):
    def __init__(self, hidden: int, classes: int) -> None:
        super().__init__()
        self.classifier = nn.Linear(hidden, classes)

    def pool(self, h):
        return h.mean(dim=1)

    def forward(self, h):
        return self.classifier(self.pool(h))


def main() -> None:
    MeanPoolClassifier(16, 3)(torch.randn(2, 7, 16))

"""A click-through model that squeezes every size-1 axis of its logits.

Source: https://github.com/shenweichen/DeepCTR-Torch/pull/291
The output layer gives ``[batch, 1]`` and ``logit.squeeze(-1)`` was meant to drop the last axis;
with a final batch of one it also drops the batch axis, and the loss against ``[batch]`` labels
fails ("Using a target size (torch.Size([1])) that is different to the input size
(torch.Size([]))"). The fix squeezes the axis it means: ``squeeze(-1)``.

This copy of ../t16_squeeze_batch_of_one.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch
import torch.nn.functional as F
from torch import nn


class LogisticRegression(nn.Module):
    def __init__(self, features: int) -> None:
        super().__init__()
        self.linear = nn.Linear(features, 1)

    def forward(self, x):
        logit = self.linear(x)
        return torch.sigmoid(logit.squeeze(-1))


def main() -> None:
    model = LogisticRegression(8)
    pred = model(torch.randn(1, 8))
    F.binary_cross_entropy(pred, torch.ones(1))

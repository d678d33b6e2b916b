"""A regression head's ``[batch]`` output against ``[batch, 1]`` labels.

Source: https://github.com/deepset-ai/FARM/issues/229
"UserWarning: Using a target size (torch.Size([32, 1])) that is different to the input size
(torch.Size([32]))": the logits had been squeezed while the labels kept their extra axis, and
``mse_loss`` broadcast ``[32]`` against ``[32, 1]`` into a ``[32, 32]`` loss. torch only warns;
typedtensor requires equal shapes (its one deliberate difference here). The fix (FARM#230) keeps
both ``[batch]``.

This copy of ../t14_mse_target_extra_axis.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch
import torch.nn.functional as F
from torch import nn


class RegressionHead(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.dense = nn.Linear(hidden, 1)

    def forward(self, pooled):
        return self.dense(pooled).squeeze(-1)

    def loss(self, pooled, labels):
        logits = self.forward(pooled)
        return F.mse_loss(logits, labels)


def main() -> None:
    head = RegressionHead(16)
    head.loss(torch.randn(32, 16), torch.randn(32))

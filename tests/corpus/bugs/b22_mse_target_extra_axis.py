"""A regression head's ``[batch, 1]`` output against ``[batch]`` labels.

Source: https://github.com/deepset-ai/FARM/issues/229
"UserWarning: Using a target size (torch.Size([32, 1])) that is different to the input size
(torch.Size([32]))": the logits had been squeezed while the labels kept their extra axis, and
``mse_loss`` broadcast ``[32]`` against ``[32, 1]`` into a ``[32, 32]`` loss. torch only warns;
typedtensor requires equal shapes (DESIGN §3). The fix (FARM#230) keeps both ``[batch]``.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F


class Batch(Dim):
    "documents in one minibatch"


class Hidden(Dim):
    "encoder width"


class RegressionHead(nn.Module):
    def __init__(self, hidden: Hidden) -> None:
        super().__init__()
        self.fc = nn.Linear(hidden, 1)

    def loss(self, pooled: Tensor[Batch, Hidden], labels: Tensor[Batch, Literal[1]]) -> Tensor[()]:
        logits = self.fc(pooled).squeeze(-1)
        return F.mse_loss(logits, labels)  # E: shape-arg


def main() -> None:
    RegressionHead(Hidden(8)).loss(tt.randn(Batch(4), Hidden(8)), tt.randn(Batch(4), 1))

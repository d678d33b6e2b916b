"""Soft targets with more columns than the classifier has classes.

Source: https://github.com/Vidhiwar/multimodule-ecg-classification/issues/4
"0D or 1D target tensor expected, multi-target not supported ... outputs is batch_size * 6 with
targets is batch_size * 10": the preprocessing produced a 10-column target (one per segment) for
a 6-class classifier. A per-example class index (here the argmax over the 6 classes of the
per-class scores) is what ``cross_entropy`` takes.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F

Classes = Literal[6]
Segments = Literal[10]


class Batch(Dim):
    "heartbeats in one minibatch"


class ECGNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(187, 6)

    def forward(self, beats: Tensor[Batch, Literal[187]]) -> Tensor[Batch, Classes]:
        return self.fc(beats)


def train(model: ECGNet, beats: Tensor[Batch, Literal[187]], targets: Tensor[Batch, Segments], scores: Tensor[Batch, Classes]) -> Tensor[()]:
    outputs = model(beats)
    return F.cross_entropy(outputs, targets)  # E: shape-arg


def main() -> None:
    b = Batch(4)
    train(ECGNet(), tt.randn(b, 187), tt.rand(b, 10), tt.rand(b, 6))

"""Class labels kept as a ``[batch, 1]`` column for CrossEntropyLoss.

Source: https://github.com/pytorch/pytorch/issues/3670
``criterion(y_pred, labels)`` with ``nn.CrossEntropyLoss`` raised "multi-target not supported":
the labels came out of the dataset as an ``N x 1`` column, while the class-index target must be
``[N]``. ``labels.squeeze(1)`` (or ``view(-1)``) fixes it.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim):
    "images in one minibatch"


class Classes(Dim):
    "the seven expression classes"


def step(model: nn.Linear[Literal[64], Classes], criterion: nn.CrossEntropyLoss, x: Tensor[Batch, Literal[64]], labels: Tensor[Batch, Literal[1]]) -> Tensor:
    y_pred = model(x)
    return criterion(y_pred, labels)  # E: shape-arg


def main() -> None:
    model = nn.Linear(64, Classes(7))
    step(model, nn.CrossEntropyLoss(), tt.randn(Batch(4), 64), tt.randint(0, 7, (Batch(4), 1)))

"""Class labels kept as a ``[batch, 1]`` column for CrossEntropyLoss.

Source: https://github.com/pytorch/pytorch/issues/3670
``criterion(y_pred, labels)`` with ``nn.CrossEntropyLoss`` raised "multi-target not supported":
the labels came out of the dataset as an ``N x 1`` column, while the class-index target must be
``[N]``. ``labels.squeeze(1)`` (or ``view(-1)``) fixes it.
"""

import torch
from jaxtyping import Float, Int
from torch import Tensor, nn


def loss_fn(y_pred: Float[Tensor, "batch classes"], labels: Int[Tensor, "batch 1"]) -> Float[Tensor, ""]:
    criterion = nn.CrossEntropyLoss()
    return criterion(y_pred, labels)  # E: shape-arg


def main() -> None:
    loss_fn(torch.randn(4, 3), torch.randint(0, 3, (4, 1)))

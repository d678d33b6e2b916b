"""Class labels kept as a ``[batch, 1]`` column for CrossEntropyLoss.

Source: https://github.com/pytorch/pytorch/issues/3670
``criterion(y_pred, labels.squeeze(1))`` with ``nn.CrossEntropyLoss`` raised "multi-target not supported":
the labels came out of the dataset as an ``N x 1`` column, while the class-index target must be
``[N]``. ``labels.squeeze(1)`` (or ``view(-1)``) fixes it.

This copy of ../t13_cross_entropy_column_target.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch
from torch import nn


def loss_fn(y_pred, labels):
    criterion = nn.CrossEntropyLoss()
    return criterion(y_pred, labels.squeeze(1))


def main() -> None:
    loss_fn(torch.randn(4, 3), torch.randint(0, 3, (4, 1)))

"""``nn.CTCLoss``: the connectionist temporal classification loss of ``F.ctc_loss``."""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import functional as F
from typedtensor.nn.loss import _Loss

Tensor = Any


class CTCLoss(_Loss):
    """``log_probs`` ``[T, N, C]`` against targets with one input and one target length per example."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths: Tensor, target_lengths: Tensor) -> Tensor:
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)

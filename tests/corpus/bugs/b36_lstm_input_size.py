"""An LSTM built for 3 input features fed sequences of 5.

Source: https://github.com/pytorch/pytorch/issues/5860
``lstm = nn.LSTM(3, 2)`` applied to ``torch.randn(6, 4, 5)`` (sequence 6, batch 4, 5 features)
fails: the input's last axis must equal ``input_size``. Needs a rule for ``nn.LSTM``.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Seq(Dim):
    "time steps"


class Batch(Dim):
    "sequences in one minibatch"


def run(x: Tensor[Seq, Batch, Literal[5]]) -> Tensor:
    lstm = nn.LSTM(3, 2)
    out, _ = lstm(x)  # E: shape-arg
    return out


def main() -> None:
    run(tt.randn(Seq(6), Batch(4), 5))

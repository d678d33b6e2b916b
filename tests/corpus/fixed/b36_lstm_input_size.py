"""An LSTM built for 3 input features fed sequences of 5.

The fixed twin of ../bugs/b36_lstm_input_size.py.
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
    lstm = nn.LSTM(5, 2)
    out, _ = lstm(x)
    return out


def main() -> None:
    run(tt.randn(Seq(6), Batch(4), 5))

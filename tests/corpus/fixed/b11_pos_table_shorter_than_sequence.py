"""A sinusoidal positional table shorter than the sentences it is added to.

The fixed twin of ../bugs/b11_pos_table_shorter_than_sequence.py.
Source: https://github.com/SamLynnEvans/Transformer/issues/8 (and #14)
``x = x + pe`` raised "The size of tensor a (230) must match the size of tensor b (200) at
non-singleton dimension 1": the loader pads sentences to ``max_strlen`` = 230 tokens while the
positional encoder was built with ``max_seq_len`` = 200, and ``self.pe[:, :seq_len]`` cannot give
more rows than it has. The answer in the thread: build the encoder with ``max_seq_len`` at least
the input length.
"""

from __future__ import annotations

import math
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn

MaxLen = Literal[230]  # rows of the positional table (max_seq_len)
SrcLen = Literal[230]  # the loader pads every sentence to max_strlen tokens
Model = Literal[32]


class Batch(Dim):
    "sentences in one minibatch"


class PositionalEncoder(nn.Module):
    def __init__(self, d_model: Model, max_seq_len: MaxLen) -> None:
        super().__init__()
        self.d_model = d_model
        pe = tt.zeros(max_seq_len, d_model)
        position = tt.arange(0, max_seq_len).float().unsqueeze(1)
        pe[:, 0::2] = tt.sin(position / 10000.0)
        pe[:, 1::2] = tt.cos(position / 10000.0)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x: Tensor[Batch, SrcLen, Model]) -> Tensor[Batch, SrcLen, Model]:
        x = x * math.sqrt(self.d_model)
        seq_len = x.size(1)
        pe = self.pe[:, :seq_len]
        return x + pe


def main() -> None:
    encoder = PositionalEncoder(32, 230)
    encoder(tt.randn(Batch(2), 230, 32))

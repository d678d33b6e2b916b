"""A forecasting decoder whose time-feature marks are shorter than its input.

The fixed twin of ../bugs/b12_temporal_embedding_length.py.
Source: https://github.com/wanghq21/MICN/issues/14
``x = self.value_embedding(x) + self.position_embedding(x) + self.temporal_embedding(x_mark)``
raised "The size of tensor a (120) must match the size of tensor b (72) at non-singleton dimension
1": the decoder input is the last ``label_len`` steps of the history followed by ``pred_len``
placeholders (48 + 72 = 120 steps), but its marks were cut to the ``pred_len`` horizon only. The
marks must cover the same ``label_len + pred_len`` steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn

SeqLen = Literal[96]
Horizon = Literal[168]  # seq_len + pred_len: the marks the loader returns
Channels = Literal[7]
Marks = Literal[4]


class Batch(Dim):
    "windows in one minibatch"


@dataclass
class Config:
    seq_len: int = 96
    label_len: int = 48
    pred_len: int = 72


class DataEmbedding(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.value_embedding = nn.Linear(7, 16)
        self.temporal_embedding = nn.Linear(4, 16)


def embed(cfg: Config, x_enc: Tensor[Batch, SeqLen, Channels], x_mark: Tensor[Batch, Horizon, Marks]) -> Tensor:
    placeholder = tt.zeros(x_enc.shape[0], cfg.pred_len, x_enc.shape[2])
    x_dec = tt.cat([x_enc[:, -cfg.label_len:, :], placeholder], dim=1)
    x_mark_dec = x_mark[:, -(cfg.label_len + cfg.pred_len):, :]
    embedding = DataEmbedding()
    return embedding.value_embedding(x_dec) + embedding.temporal_embedding(x_mark_dec)


def main() -> None:
    cfg = Config()
    embed(cfg, tt.randn(Batch(2), 96, 7), tt.randn(Batch(2), 168, 4))

"""An input LayerNorm sized from one feature set, fed another.

The fixed twin of ../bugs/b14_layernorm_feature_width.py.
Source: https://github.com/HappyColor/SpeechFormer/issues/3
"Given normalized_shape=[96], expected input with shape [*, 96], but got input of size [1, 101,
76]": the model's ``input_norm`` was built for 96-dimensional features while the features
extracted for the test set have 76. The norm (and the first projection) must be sized from the
features actually fed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn

Features = Literal[76]  # what the feature extractor produces


class Batch(Dim):
    "utterances in one minibatch"


class Frames(Dim):
    "frames per utterance"


@dataclass
class Config:
    feature_dim: int = 76
    hidden: int = 32


class SpeechEncoder(nn.Module):
    def __init__(self, cfg: Config) -> None:
        super().__init__()
        self.input_norm = nn.LayerNorm(cfg.feature_dim)
        self.proj = nn.Linear(cfg.feature_dim, cfg.hidden)

    def forward(self, x: Tensor[Batch, Frames, Features]) -> Tensor:
        x = self.input_norm(x)
        return self.proj(x)


def main() -> None:
    SpeechEncoder(Config())(tt.randn(Batch(1), Frames(101), 76))

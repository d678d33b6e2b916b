"""Fusing text tokens with ViT patch tokens along the feature axis when their counts differ.

The fixed twin of ../bugs/b18_fusion_token_count.py.
Source: https://github.com/kyegomez/MultiModalMamba/issues/3
The README demo feeds 224 text tokens and a 224 x 224 image; the ViT encoder turns the image into
(224 // 16) ** 2 = 196 patch tokens, and the fusion concatenates the two sequences feature-wise,
which needs equal lengths: "The error is that 196 is not 224." The reporter's fix is a text input
of 196 tokens.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn

TextLen = Literal[196]


class Batch(Dim):
    "examples in one minibatch"


class Fusion(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(10000, 64)
        self.patches = nn.Conv2d(3, 64, 16, stride=16)
        self.mlp = nn.Linear(128, 64)

    def forward(self, text: Tensor[Batch, TextLen], img: Tensor[Batch, Literal[3], Literal[224], Literal[224]]) -> Tensor:
        t = self.embed(text)
        v = self.patches(img).flatten(2).transpose(1, 2)
        fused = tt.cat([t, v], dim=-1)
        return self.mlp(fused)


def main() -> None:
    text = tt.randint(0, 10000, (Batch(1), 196))
    Fusion()(text, tt.randn(Batch(1), 3, 224, 224))

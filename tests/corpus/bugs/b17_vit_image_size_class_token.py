"""A ViT built for 224-pixel images run on 384-pixel images.

Source: https://github.com/lukemelas/PyTorch-Pretrained-ViT/issues/16
Loading ``B_16`` and feeding 384 x 384 images failed in the positional embedding: the model was
built for ``image_size`` 224, i.e. 14 x 14 patches plus the class token = 197 positions, while a
384 image gives 24 x 24 + 1 = 577 tokens. "First solved with ViT(image_size=image_size)": the
configuration must say the size of the images the model is run on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn

Width = Literal[64]


class Batch(Dim):
    "images in one minibatch"


@dataclass
class PretrainedConfig:
    image_size: int = 224
    patch: int = 16


class ViTEmbed(nn.Module):
    def __init__(self, cfg: PretrainedConfig) -> None:
        super().__init__()
        grid = cfg.image_size // cfg.patch
        self.patch_embedding = nn.Conv2d(3, 64, 16, stride=16)
        self.class_token = nn.Parameter(tt.zeros(1, 1, 64))
        self.positional_embedding = nn.Parameter(tt.zeros(1, grid * grid + 1, 64))

    def forward(self, x: Tensor[Batch, Literal[3], Literal[384], Literal[384]]) -> Tensor:
        b = x.shape[0]
        x = self.patch_embedding(x).flatten(2).transpose(1, 2)
        x = tt.cat((self.class_token.expand(b, -1, -1), x), dim=1)
        return x + self.positional_embedding  # E: shape-broadcast


def main() -> None:
    ViTEmbed(PretrainedConfig())(tt.randn(Batch(2), 3, 384, 384))

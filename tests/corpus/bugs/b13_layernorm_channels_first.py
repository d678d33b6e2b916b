"""A LayerNorm over channels applied to a channels-first feature map.

Source: https://github.com/open-mmlab/mmsegmentation/issues/3809 (also ViTAE-Transformer/ViTDet#25)
"Given normalized_shape=[256], expected input with shape [*, 256], but got input of size [32, 256,
128, 128]": ``nn.LayerNorm(256)`` normalises the *last* axis, and a conv feature map is
``[N, C, H, W]``. Moving the channels last around the norm (or using a BatchNorm2d) fixes it.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim):
    "images in one minibatch"


class Height(Dim):
    "feature map height"


class Width(Dim):
    "feature map width"


class ConvLN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(64, 256, 3, padding=1)
        self.norm = nn.LayerNorm(256)

    def forward(self, x: Tensor[Batch, Literal[64], Height, Width]) -> Tensor[Batch, Literal[256], Height, Width]:
        y = self.conv(x)
        return self.norm(y)  # E: shape-arg


def main() -> None:
    ConvLN()(tt.randn(Batch(2), 64, Height(8), Width(8)))

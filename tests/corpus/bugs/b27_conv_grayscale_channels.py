"""A 3-channel ResNet stem fed single-channel (grayscale) images.

Source: https://github.com/lucidrains/vit-pytorch/issues/54
"Given groups=1, weight of size [64, 3, 7, 7], expected input[64, 1, 224, 224] to have 3
channels, but got 1 channels instead": a distillation teacher pretrained on RGB, a grayscale
dataset. The maintainer's answer: repeat the gray channel, ``img.expand(-1, 3, -1, -1)``.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim):
    "images in one minibatch"


class Stem(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3)
        self.bn1 = nn.BatchNorm2d(64)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)

    def forward(self, x: Tensor[Batch, Literal[3], Literal[224], Literal[224]]) -> Tensor:
        return self.pool(tt.relu(self.bn1(self.conv1(x))))


def teacher_features(stem: Stem, img: Tensor[Batch, Literal[1], Literal[224], Literal[224]]) -> Tensor:
    return stem(img)  # E: shape-arg


def main() -> None:
    teacher_features(Stem(), tt.randn(Batch(2), 1, 224, 224))

"""A crowd-counting net whose density map is 8x smaller than its ground truth.

Source: https://github.com/surajdakua/Crowd-Counting-Using-Pytorch/issues/4
"Using a target size (torch.Size([1, 1, 768, 1024])) that is different to the input size
(torch.Size([1, 1, 96, 128]))" followed by "The size of tensor a (128) must match the size of tensor
b (1024)": the network downsamples by 8 (three 2x2 pools) but the ground-truth density map was
kept at full resolution. The target must be sum-pooled by 8 as well (which keeps the count).
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F


class Batch(Dim):
    "images in one minibatch"


class CountNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.output = nn.Conv2d(32, 1, 1)

    def forward(self, img: Tensor[Batch, Literal[3], Literal[768], Literal[1024]]) -> Tensor[Batch, Literal[1], Literal[96], Literal[128]]:
        return self.output(self.features(img))


def train_step(model: CountNet, img: Tensor[Batch, Literal[3], Literal[768], Literal[1024]], density: Tensor[Batch, Literal[1], Literal[768], Literal[1024]]) -> Tensor[()]:
    output = model(img)
    target = density
    return F.mse_loss(output, target)  # E: shape-arg


def main() -> None:
    train_step(CountNet(), tt.randn(Batch(1), 3, 768, 1024), tt.rand(Batch(1), 1, 768, 1024))

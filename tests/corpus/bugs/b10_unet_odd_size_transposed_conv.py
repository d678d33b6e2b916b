"""A U-Net whose input side is not a multiple of 2**depth.

Source: https://github.com/bigmb/Unet-Segmentation-Pytorch-Nest-of-Unets/issues/55
``d5 = torch.cat((e4, d5), dim=1)`` raised "Sizes of tensors must match except in dimension 1.
Expected size 61 but got size 60": max-pooling 61 gives 30, and the transposed convolution
doubles it back to 60. The maintainer's answer: make the input a multiple of 2^4 (here the image
side 244 -> 256, so every level halves exactly). Needs a rule for ``ConvTranspose2d``.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn

SIDE = 244
Side = Literal[244]


class Batch(Dim):
    "images in one minibatch"


def double_conv(c_in: int, c_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.ReLU(), nn.Conv2d(c_out, c_out, 3, padding=1), nn.ReLU())


class UNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.e1 = double_conv(3, 8)
        self.e2 = double_conv(8, 16)
        self.e3 = double_conv(16, 32)
        self.e4 = double_conv(32, 64)
        self.pool = nn.MaxPool2d(2)
        self.up3 = nn.ConvTranspose2d(64, 32, 2, stride=2)
        self.d3 = double_conv(64, 32)
        self.up2 = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.d2 = double_conv(32, 16)
        self.up1 = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.d1 = double_conv(16, 8)
        self.head = nn.Conv2d(8, 1, 1)

    def forward(self, x: Tensor[Batch, Literal[3], Side, Side]) -> Tensor[Batch, Literal[1], Side, Side]:
        e1 = self.e1(x)
        e2 = self.e2(self.pool(e1))
        e3 = self.e3(self.pool(e2))
        e4 = self.e4(self.pool(e3))
        d3 = self.d3(tt.cat((e3, self.up3(e4)), dim=1))  # E: shape-concat
        d2 = self.d2(tt.cat((e2, self.up2(d3)), dim=1))
        d1 = self.d1(tt.cat((e1, self.up1(d2)), dim=1))
        return self.head(d1)


def main() -> None:
    UNet()(tt.randn(Batch(1), 3, SIDE, SIDE))

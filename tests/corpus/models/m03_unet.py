"""A U-Net for segmentation: double-conv blocks, max-pool downsampling, transposed-conv
upsampling, skip connections padded to the encoder's size before concatenation.

Ported from the structure of https://github.com/milesial/Pytorch-UNet (unet/unet_parts.py).
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F


class Batch(Dim):
    "images in one minibatch"


class DoubleConv(nn.Module):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
        )

    def forward(self, x: Tensor) -> Tensor:
        return self.double_conv(x)


class Down(nn.Module):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.maxpool_conv = nn.Sequential(nn.MaxPool2d(2), DoubleConv(in_channels, out_channels))

    def forward(self, x: Tensor) -> Tensor:
        return self.maxpool_conv(x)


class Up(nn.Module):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.up = nn.ConvTranspose2d(in_channels, in_channels // 2, kernel_size=2, stride=2)
        self.conv = DoubleConv(in_channels, out_channels)

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        x1 = self.up(x1)
        diff_y = x2.size(2) - x1.size(2)
        diff_x = x2.size(3) - x1.size(3)
        x1 = F.pad(x1, [diff_x // 2, diff_x - diff_x // 2, diff_y // 2, diff_y - diff_y // 2])
        x = tt.cat([x2, x1], dim=1)
        return self.conv(x)


class OutConv(nn.Module):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x: Tensor) -> Tensor:
        return self.conv(x)


class UNet(nn.Module):
    def __init__(self, n_channels: int = 3, n_classes: int = 2) -> None:
        super().__init__()
        self.inc = DoubleConv(n_channels, 16)
        self.down1 = Down(16, 32)
        self.down2 = Down(32, 64)
        self.down3 = Down(64, 128)
        self.up1 = Up(128, 64)
        self.up2 = Up(64, 32)
        self.up3 = Up(32, 16)
        self.outc = OutConv(16, n_classes)

    def forward(self, x: Tensor[Batch, Literal[3], Literal[60], Literal[60]]) -> Tensor:
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x4 = self.down3(x3)
        x = self.up1(x4, x3)
        x = self.up2(x, x2)
        x = self.up3(x, x1)
        return self.outc(x)


def dice_loss(logits: Tensor[Batch, Literal[2], Literal[60], Literal[60]], mask: Tensor[Batch, Literal[60], Literal[60]]) -> Tensor[()]:
    probs = F.softmax(logits, dim=1)
    target = F.one_hot(mask, 2).permute(0, 3, 1, 2).float()
    inter = (probs * target).sum(dim=(2, 3))
    union = probs.sum(dim=(2, 3)) + target.sum(dim=(2, 3))
    dice = (2 * inter + 1e-6) / (union + 1e-6)
    return 1 - dice.mean()


def train_step(model: UNet, x: Tensor[Batch, Literal[3], Literal[60], Literal[60]],
               mask: Tensor[Batch, Literal[60], Literal[60]]) -> Tensor[()]:
    logits = model(x)
    return F.cross_entropy(logits, mask) + dice_loss(logits, mask)


def main() -> None:
    model = UNet()
    x = tt.randn(Batch(2), 3, 60, 60)
    mask = tt.randint(0, 2, (Batch(2), 60, 60))
    loss = train_step(model, x, mask)
    loss.backward()

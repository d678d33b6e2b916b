"""A U-Net with jaxtyping annotations: double convolutions, max-pool down steps, bilinear up steps
that pad to the skip connection's size, and a 1x1 output convolution.

Ported from https://github.com/milesial/Pytorch-UNet (unet/unet_parts.py, unet/unet_model.py).
"""

import torch
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor, nn


class DoubleConv(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, mid_channels: int | None = None) -> None:
        super().__init__()
        if not mid_channels:
            mid_channels = out_channels
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, mid_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(mid_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid_channels, out_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
        )

    def forward(self, x: Float[Tensor, "batch c_in h w"]) -> Float[Tensor, "batch c_out h w"]:
        return self.double_conv(x)


class Down(nn.Module):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.maxpool_conv = nn.Sequential(nn.MaxPool2d(2), DoubleConv(in_channels, out_channels))

    def forward(self, x: Float[Tensor, "batch c_in h w"]) -> Float[Tensor, "batch c_out h//2 w//2"]:
        return self.maxpool_conv(x)


class Up(nn.Module):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.conv = DoubleConv(in_channels, out_channels, in_channels // 2)

    def forward(self, x1: Float[Tensor, "batch c_low h_low w_low"],
                x2: Float[Tensor, "batch c_skip h w"]) -> Float[Tensor, "batch c_out h w"]:
        x1 = self.up(x1)
        diff_y = x2.size()[2] - x1.size()[2]
        diff_x = x2.size()[3] - x1.size()[3]
        x1 = F.pad(x1, [diff_x // 2, diff_x - diff_x // 2, diff_y // 2, diff_y - diff_y // 2])
        x = torch.cat([x2, x1], dim=1)
        return self.conv(x)


class OutConv(nn.Module):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x: Float[Tensor, "batch c_in h w"]) -> Float[Tensor, "batch c_out h w"]:
        return self.conv(x)


class UNet(nn.Module):
    def __init__(self, n_channels: int, n_classes: int) -> None:
        super().__init__()
        self.inc = DoubleConv(n_channels, 16)
        self.down1 = Down(16, 32)
        self.down2 = Down(32, 64)
        self.down3 = Down(64, 64)
        self.up1 = Up(128, 32)
        self.up2 = Up(64, 16)
        self.up3 = Up(32, 16)
        self.outc = OutConv(16, n_classes)

    def forward(self, x: Float[Tensor, "batch channels h w"]) -> Float[Tensor, "batch classes h w"]:
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x4 = self.down3(x3)
        x = self.up1(x4, x3)
        x = self.up2(x, x2)
        x = self.up3(x, x1)
        return self.outc(x)


def dice_loss(logits: Float[Tensor, "batch classes h w"], target: Float[Tensor, "batch classes h w"],
              eps: float = 1e-6) -> Float[Tensor, ""]:
    probs = logits.softmax(dim=1)
    inter = (probs * target).sum(dim=(2, 3))
    union = probs.sum(dim=(2, 3)) + target.sum(dim=(2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


def main() -> None:
    model = UNet(n_channels=3, n_classes=2)
    x = torch.randn(2, 3, 36, 36)
    logits = model(x)
    target = F.one_hot(torch.randint(0, 2, (2, 36, 36)), 2).permute(0, 3, 1, 2).float()
    dice_loss(logits, target).backward()

"""A U-Net decoder step that concatenates the skip connection before upsampling.

Planted, in the ``Up`` block of https://github.com/milesial/Pytorch-UNet (unet/unet_parts.py): the
decoder's input is at half the skip connection's resolution, so it must be upsampled before the
two are joined along the channels; concatenating first fails ("Sizes of tensors must match except
in dimension 1").
"""

import torch
from jaxtyping import Float
from torch import Tensor, nn


class DoubleConv(nn.Module):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(out_channels, out_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
        )

    def forward(self, x: Float[Tensor, "batch c_in h w"]) -> Float[Tensor, "batch c_out h w"]:
        return self.double_conv(x)


class Up(nn.Module):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.conv = DoubleConv(in_channels, out_channels)

    def forward(self, x1: Float[Tensor, "batch c_low h w"],
                x2: Float[Tensor, "batch c_skip 2*h 2*w"]) -> Float[Tensor, "batch c_out 2*h 2*w"]:
        x1 = self.up(x1)
        x = torch.cat([x2, x1], dim=1)
        return self.conv(x)


def main() -> None:
    Up(96, 32)(torch.randn(2, 64, 8, 8), torch.randn(2, 32, 16, 16))

"""A U-Net decoder step that concatenates the skip connection before upsampling.

Planted, in the ``Up`` block of https://github.com/milesial/Pytorch-UNet (unet/unet_parts.py): the
decoder's input is at half the skip connection's resolution, so it must be upsampled before the
two are joined along the channels; concatenating first fails ("Sizes of tensors must match except
in dimension 1").

This copy of ../t06_unet_skip_before_upsampling.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch
from torch import nn


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

    def forward(self, x):
        return self.double_conv(x)


class Up(nn.Module):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.conv = DoubleConv(in_channels, out_channels)

    def forward(self, x1,
                x2):
        x = torch.cat([x2, x1], dim=1)  # E: shape-concat
        return self.conv(self.up(x))


def main() -> None:
    Up(96, 32)(torch.randn(2, 64, 8, 8), torch.randn(2, 32, 16, 16))

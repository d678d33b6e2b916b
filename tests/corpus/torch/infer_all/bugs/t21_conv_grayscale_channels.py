"""A three-channel patch embedding fed grayscale images.

Source: https://github.com/lucidrains/vit-pytorch/issues/54
The ViT was built with its default ``channels = 3`` while the dataset's images are single-channel
(MNIST-like ``[batch, 1, h, w]``): the patch convolution fails with "expected input to have 3
channels, but got 1 channels instead". The fix builds the model with ``channels=1``.

This copy of ../t21_conv_grayscale_channels.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch
from torch import nn


class PatchEmbed(nn.Module):
    def __init__(self, patch_size: int = 7, dim: int = 64, channels: int = 3) -> None:
        super().__init__()
        self.proj = nn.Conv2d(3, dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, img):
        return self.proj(img).flatten(2).transpose(1, 2)  # E: shape-arg


def main() -> None:
    PatchEmbed()(torch.randn(2, 1, 28, 28))

"""A two-branch block that concatenates a max-pooled branch with a strided-conv branch.

Source: https://github.com/Res2Net/Res2Net-PretrainedModels/issues/19
``out = torch.cat((out, self.pool(spx[self.nums])), 1)`` raised "Sizes of tensors must match
except in dimension 1. Got 16 and 15 in dimension 2": on an odd-sized map a 3x3 convolution with
stride 2 and padding 1 rounds up (31 -> 16) while a 2x2 max-pool rounds down (31 -> 15). The fix
pools with the same geometry as the convolution (kernel 3, stride 2, padding 1).
"""

import torch
from jaxtyping import Float
from torch import Tensor, nn


class DownBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(16, 16, 3, stride=2, padding=1)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x: Float[Tensor, "batch 16 31 31"]) -> Float[Tensor, "batch 32 16 16"]:
        out = self.conv(x)
        return torch.cat((out, self.pool(x)), 1)  # E: shape-concat


def main() -> None:
    DownBlock()(torch.randn(2, 16, 31, 31))

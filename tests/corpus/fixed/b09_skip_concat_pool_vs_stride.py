"""A two-branch block that concatenates a max-pooled branch with a strided-conv branch.

The fixed twin of ../bugs/b09_skip_concat_pool_vs_stride.py.
Source: https://github.com/Res2Net/Res2Net-PretrainedModels/issues/19
``out = torch.cat((out, self.pool(spx[self.nums])), 1)`` raised "Sizes of tensors must match
except in dimension 1. Got 16 and 15 in dimension 2": on an odd-sized map a 3x3 convolution with
stride 2 and padding 1 rounds up (31 -> 16) while a 2x2 max-pool rounds down (31 -> 15). The fix
pools with the same geometry as the convolution (kernel 3, stride 2, padding 1).
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim):
    "images in one minibatch"


class DownBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(16, 16, 3, stride=2, padding=1)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)

    def forward(self, x: Tensor[Batch, Literal[16], Literal[31], Literal[31]]) -> Tensor[Batch, Literal[32], Literal[16], Literal[16]]:
        out = self.conv(x)
        return tt.cat((out, self.pool(x)), 1)


def main() -> None:
    DownBlock()(tt.randn(Batch(2), 16, 31, 31))

"""A feature-fusion block that joins two maps along the batch axis.

Planted, in the shape of a U-Net++ / FPN fusion step: ``torch.cat([skip, x], dim=1)`` without ``dim=1``
stacks the two maps along dim 0, which needs their channel counts to agree (they do not: 32 and
64) and would double the batch if they did. The fix joins the channels (``dim=1``).

This copy of ../t07_fusion_concat_on_batch_axis.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch
from torch import nn


class Fuse(nn.Module):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(in_channels, out_channels, 3, padding=1), nn.ReLU())

    def forward(self, x,
                skip):
        x = torch.cat([skip, x], dim=1)
        return self.conv(x)


def main() -> None:
    Fuse(96, 32)(torch.randn(2, 64, 16, 16), torch.randn(2, 32, 16, 16))

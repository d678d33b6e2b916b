"""A channel-attention fusion that squeezes a pooled feature with ``squeeze()``.

The fixed twin of ../bugs/b06_einsum_squeeze_batch_one.py.
Source: https://github.com/vvvb-github/AVSegFormer/issues/9
``fusion_map = torch.einsum('bchw,bc->bchw', feature_map, x.squeeze())`` works for a batch of many
clips, but with a batch of one ``x.squeeze()`` also drops the batch axis and einsum fails ("the
number of subscripts in the equation (2) does not match the number of dimensions (1) for operand
1"). Squeezing only the pooled axes (``x.flatten(1)``) keeps the batch.
"""

from __future__ import annotations

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim):
    "clips in one minibatch"


class Channels(Dim):
    "feature channels"


class Height(Dim):
    "feature map height"


class Width(Dim):
    "feature map width"


class FusionBlock(nn.Module):
    def __init__(self, channels: Channels) -> None:
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, feature_map: Tensor[Batch, Channels, Height, Width], audio: Tensor[Batch, Channels, Height, Width]) -> Tensor[Batch, Channels, Height, Width]:
        x = self.pool(audio)
        return tt.einsum("bchw,bc->bchw", feature_map, x.flatten(1))


def main() -> None:
    block = FusionBlock(Channels(4))
    block(tt.randn(Batch(1), Channels(4), Height(3), Width(3)), tt.randn(Batch(1), Channels(4), Height(3), Width(3)))

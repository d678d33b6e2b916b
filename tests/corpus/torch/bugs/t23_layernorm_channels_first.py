"""LayerNorm applied to a channels-first feature map.

Source: https://github.com/open-mmlab/mmsegmentation/issues/3809
``nn.LayerNorm(channels)`` normalises the *last* axis, but the decoder's features are ``[batch,
channels, height, width]``: "Given normalized_shape=[256], expected input with shape [*, 256],
but got input of size[2, 256, 32, 32]". The fix permutes to channels-last around the norm. The
norm's width comes from an ``int`` parameter and the map's sides are axis names that a literal may
equal (NOTE [ Axis names ]): nothing here is provably wrong to the checker, which misses it.
"""

import torch
from jaxtyping import Float
from torch import Tensor, nn


class DecoderHead(nn.Module):
    def __init__(self, channels: int, num_classes: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(channels)
        self.cls = nn.Conv2d(channels, num_classes, 1)

    def forward(self, feats: Float[Tensor, "batch channels height width"]) -> Float[Tensor, "batch classes height width"]:
        return self.cls(self.norm(feats))  # E: shape-arg


def main() -> None:
    DecoderHead(256, 19)(torch.randn(2, 256, 32, 32))

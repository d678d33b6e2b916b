"""A BatchNorm1d over features applied to a ``[batch, regions, features]`` tensor.

The fixed twin of ../bugs/b15_batchnorm1d_on_sequence_layout.py.
Source: https://github.com/ruotianluo/self-critical.pytorch/issues/44
``nn.BatchNorm1d(att_feat_size)`` (2048) on attention features of shape ``(batch, 36, 2048)``
raised "running_mean should contain 36 elements not 2048": a 3-d input to BatchNorm1d is ``(N, C,
L)``, so the channel axis is 1. The features must be flattened to ``(N*36, 2048)`` (the
maintainer's ``pack_wrapper``) or transposed.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn

Regions = Literal[36]
FeatSize = Literal[2048]


class Batch(Dim):
    "images in one minibatch"


class AttEmbed(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bn = nn.BatchNorm1d(2048)
        self.fc = nn.Linear(2048, 512)

    def forward(self, att_feats: Tensor[Batch, Regions, FeatSize]) -> Tensor:
        x = self.bn(att_feats.transpose(1, 2)).transpose(1, 2)
        return self.fc(x)


def main() -> None:
    AttEmbed()(tt.randn(Batch(4), 36, 2048))

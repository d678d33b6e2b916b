"""Stacking patch features taken from two backbone levels of different widths.

The fixed twin of ../bugs/b31_stack_backbone_levels.py.
Source: https://github.com/amazon-science/patchcore-inspection/issues/100
With a ResNet-18 backbone, ``torch.stack(_features, dim=1)`` raised "stack expects each tensor to
be equal size, but got [4608, 128] at entry 0 and [4608, 256] at entry 1": layer2 has 128
channels and layer3 256. Each level has to be projected to one common width before stacking.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Patches(Dim):
    "patches over the minibatch"


class Aggregator(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj2 = nn.Linear(128, 128)
        self.proj3 = nn.Linear(256, 128)

    def forward(self, layer2: Tensor[Patches, Literal[128]], layer3: Tensor[Patches, Literal[256]]) -> Tensor:
        _features = [self.proj2(layer2), self.proj3(layer3)]
        return tt.stack(_features, dim=1)


def main() -> None:
    Aggregator()(tt.randn(Patches(6), 128), tt.randn(Patches(6), 256))

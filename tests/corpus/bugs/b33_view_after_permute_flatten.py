"""Flattening a permuted feature map with ``view``.

Source: https://github.com/sergeywong/cp-vton/issues/30
"RuntimeError: view size is not compatible with input tensor's size and stride (at least one
dimension spans across two contiguous subspaces). Use .reshape(...) instead." The solution in the
thread: ``x.reshape(x.size(0), -1)`` instead of ``x.view(x.size(0), -1)``.
"""

from __future__ import annotations

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim):
    "images in one minibatch"


class Channels(Dim):
    "feature channels"


class Height(Dim):
    "feature map height"


class Width(Dim):
    "feature map width"


def correlation_features(a: Tensor[Batch, Channels, Height, Width]) -> Tensor:
    x = a.permute(0, 2, 3, 1)
    return x.view(x.size(0), -1)  # E: view-noncontiguous


def main() -> None:
    correlation_features(tt.randn(Batch(2), Channels(3), Height(4), Width(5)))

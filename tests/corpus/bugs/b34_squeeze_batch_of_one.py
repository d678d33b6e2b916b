"""A cross network that squeezes with ``torch.squeeze(x_l)`` and loses the batch axis at batch 1.

Source: https://github.com/shenweichen/DeepCTR-Torch/pull/291
"fix `Tensors must have same number of dimensions: got 1 and 2` in CrossNetMix. The function
`torch.squeeze(x_l)` generates a one-dimensional vector": ``x_l`` is ``[batch, features, 1]`` and
``squeeze()`` with no axis also drops the batch axis when the batch has one example. Squeezing
the last axis only (``squeeze(2)``) keeps the batch.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim):
    "examples in one minibatch"


class Features(Dim):
    "input features"


def cross_outputs(x_0: Tensor[Batch, Features, Literal[1]], x_l: Tensor[Batch, Features, Literal[1]], dense: Tensor[Batch, Features]) -> Tensor:
    x_l = x_0 * x_l + x_l
    x_l = tt.squeeze(x_l)  # E: squeeze-no-dim
    return tt.cat([x_l, dense], dim=-1)


def main() -> None:
    b, f = Batch(1), Features(3)
    cross_outputs(tt.randn(b, f, 1), tt.randn(b, f, 1), tt.randn(b, f))

"""A 2-d-convolution weight permutation applied to a 1-d convolution's 3-d weight.

Source: https://github.com/facebookresearch/enorm/issues/1
``param.permute(1, 2, 3, 0).contiguous().view(param.size(1), -1)`` raised "number of dims don't
match in permute" for audio models: a Conv1d weight is ``[out, in, kernel]``, three axes, while
the code assumed Conv2d's four. The permutation has to follow the weight's rank.
"""

from __future__ import annotations

import typedtensor as tt
from typedtensor import Dim, Tensor


class Out(Dim):
    "output channels"


class In(Dim):
    "input channels"


class Kernel(Dim):
    "kernel width"


def right_weight(param: Tensor[Out, In, Kernel]) -> Tensor:
    return param.permute(1, 2, 3, 0).contiguous().view(param.size(1), -1)  # E: shape-axis


def main() -> None:
    right_weight(tt.randn(Out(4), In(3), Kernel(5)))

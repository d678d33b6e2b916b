"""A fully connected layer that multiplies weight by input instead of input by weight.

Source: https://github.com/pkmital/CADL/pull/26
``tf.matmul(W, x)`` (here ``w @ x``) with ``x: [batch, n_input]`` and ``W: [n_input, n_output]``
contracts ``n_output`` with ``batch``; the fix swaps the operands (``x @ w``).
"""

import torch
from jaxtyping import Float
from torch import Tensor


def fully_connected(x: Float[Tensor, "batch n_input"], w: Float[Tensor, "n_input n_output"],
                    b: Float[Tensor, "n_output"]) -> Float[Tensor, "batch n_output"]:
    return torch.relu(x @ w + b)


def main() -> None:
    fully_connected(torch.randn(4, 6), torch.randn(6, 3), torch.zeros(3))

"""A fully connected layer that multiplies weight by input instead of input by weight.

Source: https://github.com/pkmital/CADL/pull/26
``tf.matmul(W, x)`` (here ``w @ x``) with ``x: [batch, n_input]`` and ``W: [n_input, n_output]``
contracts ``n_output`` with ``batch``; the fix swaps the operands (``x @ w``).

This copy of ../t10_matmul_operand_order.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch


def fully_connected(x, w,
                    b):
    return torch.relu(w @ x + b)  # E: shape-matmul


def main() -> None:
    fully_connected(torch.randn(4, 6), torch.randn(6, 3), torch.zeros(3))

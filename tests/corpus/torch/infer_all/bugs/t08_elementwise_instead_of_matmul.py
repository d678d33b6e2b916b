"""A linear layer written with ``*`` where a matrix product was meant.

Source: https://github.com/dynamicslab/databook_python/pull/2
The forward pass multiplied the inputs by the weight matrix elementwise (``x * w``) instead of
``x @ w``; the shapes ``[n, d]`` and ``[d, k]`` only broadcast by accident, when ``n == d`` and
``d == k``.

This copy of ../t08_elementwise_instead_of_matmul.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch


def affine(x, w, b):
    return x * w + b  # E: shape-broadcast


def main() -> None:
    affine(torch.randn(5, 3), torch.randn(3, 2), torch.randn(2))

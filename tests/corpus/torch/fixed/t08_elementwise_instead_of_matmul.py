"""A linear layer written with ``*`` where a matrix product was meant.

Source: https://github.com/dynamicslab/databook_python/pull/2
The forward pass multiplied the inputs by the weight matrix elementwise (``x * w``) instead of
``x @ w``; the shapes ``[n, d]`` and ``[d, k]`` only broadcast by accident, when ``n == d`` and
``d == k``.
"""

import torch
from jaxtyping import Float
from torch import Tensor


def affine(x: Float[Tensor, "n d"], w: Float[Tensor, "d k"], b: Float[Tensor, "k"]) -> Float[Tensor, "n k"]:
    return x @ w + b


def main() -> None:
    affine(torch.randn(5, 3), torch.randn(3, 2), torch.randn(2))

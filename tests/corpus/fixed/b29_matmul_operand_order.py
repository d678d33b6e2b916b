"""A fully connected layer written ``W @ X`` for row-major data.

The fixed twin of ../bugs/b29_matmul_operand_order.py.
Source: https://github.com/pkmital/CADL/pull/26
"X should be on the left side and W should be on the right side to make the matrix
multiplication possible": with ``X`` a ``[batch, n_input]`` minibatch and ``W`` a ``[n_input,
n_output]`` weight, the product is ``X @ W``.
"""

from __future__ import annotations

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim):
    "examples in one minibatch"


class NIn(Dim):
    "input features"


class NOut(Dim):
    "output units"


def linear(x: Tensor[Batch, NIn], w: Tensor[NIn, NOut], b: Tensor[NOut]) -> Tensor[Batch, NOut]:
    return x @ w + b


def main() -> None:
    linear(tt.randn(Batch(8), NIn(3)), tt.randn(NIn(3), NOut(5)), tt.randn(NOut(5)))

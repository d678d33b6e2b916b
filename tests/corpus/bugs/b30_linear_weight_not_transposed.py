"""A hand-written linear layer that stores its weight ``[out, in]`` like nn.Linear and forgets the
transpose.

Source: https://github.com/LazaroHurtado/micrograd-rs/pull/31
"without transposing then you will run into panics caused by invalid matrix multiplication. Since
we are giving the weight tensor a shape of [nout, nin] and the input tensor is of shape [batches,
nin] then the only way to matmul is with weights.t()".
"""

from __future__ import annotations

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim):
    "examples in one minibatch"


class NIn(Dim):
    "input features"


class NOut(Dim):
    "output units"


class MyLinear(nn.Module):
    def __init__(self, nin: NIn, nout: NOut) -> None:
        super().__init__()
        self.weights = nn.Parameter(tt.randn(nout, nin) * 0.1)
        self.biases = nn.Parameter(tt.zeros(nout))

    def forward(self, x: Tensor[Batch, NIn]) -> Tensor[Batch, NOut]:
        return x @ self.weights + self.biases  # E: shape-matmul


def main() -> None:
    MyLinear(NIn(3), NOut(4))(tt.randn(Batch(2), NIn(3)))

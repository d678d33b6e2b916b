"""A linear layer that multiplies by its ``[out, in]`` weight without transposing it.

Source: https://github.com/LazaroHurtado/micrograd-rs/pull/31
The weight is stored as torch stores it, ``[out_features, in_features]``; the forward must compute
``x @ w.T``. ``x @ w`` contracts the input features with the output axis and fails unless the
layer is square.
"""

import torch
from jaxtyping import Float
from torch import Tensor, nn


class Linear(nn.Module):
    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features) / in_features**0.5)
        self.bias = nn.Parameter(torch.zeros(out_features))

    def project(self, x: Float[Tensor, "batch d_in"], w: Float[Tensor, "d_out d_in"],
                b: Float[Tensor, "d_out"]) -> Float[Tensor, "batch d_out"]:
        return x @ w + b  # E: shape-matmul

    def forward(self, x: Float[Tensor, "batch d_in"]) -> Float[Tensor, "batch d_out"]:
        return self.project(x, self.weight, self.bias)


def main() -> None:
    Linear(4, 3)(torch.randn(2, 4))

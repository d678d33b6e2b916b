"""A linear layer that multiplies by its ``[out, in]`` weight without transposing it.

Source: https://github.com/LazaroHurtado/micrograd-rs/pull/31
The weight is stored as torch stores it, ``[out_features, in_features]``; the forward must compute
``x @ w.T``. ``x @ w`` contracts the input features with the output axis and fails unless the
layer is square.

This copy of ../t09_linear_weight_not_transposed.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch
from torch import nn


class Linear(nn.Module):
    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features) / in_features**0.5)
        self.bias = nn.Parameter(torch.zeros(out_features))

    def project(self, x, w,
                b):
        return x @ w.T + b

    def forward(self, x):
        return self.project(x, self.weight, self.bias)


def main() -> None:
    Linear(4, 3)(torch.randn(2, 4))

"""A hand-written layer norm that drops the reduced axis before subtracting the mean.

Planted: ``x.mean(dim=-1)`` without ``keepdim=True`` gives ``[batch, seq]``, which broadcasts
against ``[batch, seq, dim]`` from the right (``seq`` against ``dim``) and fails unless they
happen to be equal. The fix keeps the axis (``keepdim=True``).
"""

import torch
from jaxtyping import Float
from torch import Tensor, nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(dim))
        self.beta = nn.Parameter(torch.zeros(dim))
        self.eps = eps

    def normalize(self, x: Float[Tensor, "batch seq dim"]) -> Float[Tensor, "batch seq dim"]:
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        return (x - mean) / torch.sqrt(var + self.eps)

    def forward(self, x: Float[Tensor, "batch seq dim"]) -> Float[Tensor, "batch seq dim"]:
        return self.normalize(x) * self.gamma + self.beta


def main() -> None:
    LayerNorm(8)(torch.randn(2, 5, 8))

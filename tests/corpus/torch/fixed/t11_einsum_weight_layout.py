"""Multi-head attention written with einsum, reading a ``(d_out, d_in)`` weight as ``(d_in, d_out)``.

Source: https://github.com/rasbt/LLMs-from-scratch/issues/857
The projections are ``nn.Parameter(torch.randn(d_out, d_in))`` but the einsum is ``"bnd,di->bni"``,
which contracts ``d`` with the weight's first axis. It only works while ``d_in == d_out``; with
``d_out = 2 * d_in`` einsum fails. The fix is ``"bnd,od->bno"``.
"""

import torch
from jaxtyping import Float
from torch import Tensor, nn


class EinsumAttention(nn.Module):
    def __init__(self, d_in: int, d_out: int) -> None:
        super().__init__()
        self.W_query = nn.Parameter(torch.randn(d_out, d_in))
        self.W_key = nn.Parameter(torch.randn(d_out, d_in))
        self.W_value = nn.Parameter(torch.randn(d_out, d_in))

    def scores(self, x: Float[Tensor, "b n d_in"], w_q: Float[Tensor, "d_out d_in"],
               w_k: Float[Tensor, "d_out d_in"]) -> Float[Tensor, "b n n"]:
        q = torch.einsum("bnd,od->bno", x, w_q)
        k = torch.einsum("bnd,od->bno", x, w_k)
        return torch.einsum("bqo,bko->bqk", q, k)

    def forward(self, x: Float[Tensor, "b n d_in"]) -> Float[Tensor, "b n n"]:
        return self.scores(x, self.W_query, self.W_key).softmax(dim=-1)


def main() -> None:
    EinsumAttention(4, 8)(torch.randn(2, 5, 4))

"""Multi-head attention written with einsum, reading a ``(d_out, d_in)`` weight as ``(d_in, d_out)``.

Source: https://github.com/rasbt/LLMs-from-scratch/issues/857
The projections are ``nn.Parameter(torch.randn(d_out, d_in))`` but the einsum is ``"bnd,di->bni"``,
which contracts ``d`` with the weight's first axis. It only works while ``d_in == d_out``; with
``d_out = 2 * d_in`` einsum fails. The fix is ``"bnd,od->bno"``.

This copy of ../t11_einsum_weight_layout.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch
from torch import nn


class EinsumAttention(nn.Module):
    def __init__(self, d_in: int, d_out: int) -> None:
        super().__init__()
        self.W_query = nn.Parameter(torch.randn(d_out, d_in))
        self.W_key = nn.Parameter(torch.randn(d_out, d_in))
        self.W_value = nn.Parameter(torch.randn(d_out, d_in))

    def scores(self, x, w_q,
               w_k):
        q = torch.einsum("bnd,di->bni", x, w_q)  # E: shape-matmul
        k = torch.einsum("bnd,od->bno", x, w_k)
        return torch.einsum("bqo,bko->bqk", q, k)

    def forward(self, x):
        return self.scores(x, self.W_query, self.W_key).softmax(dim=-1)


def main() -> None:
    EinsumAttention(4, 8)(torch.randn(2, 5, 4))

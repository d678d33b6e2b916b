"""Multi-head attention written with einsum, reading a ``(d_out, d_in)`` weight as ``(d_in, d_out)``.

Source: https://github.com/rasbt/LLMs-from-scratch/issues/857
The projections are ``nn.Parameter(torch.randn(d_out, d_in))`` but the einsum is ``"bnd,di->bni"``,
which contracts ``d`` with the weight's first axis. It only works while ``d_in == d_out``; with
``d_out = 2 * d_in`` einsum fails. The fix is ``"bnd,od->bno"``.
"""

from __future__ import annotations

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim):
    "sequences in one minibatch"


class Seq(Dim):
    "tokens per sequence"


class DIn(Dim):
    "input width"


class DOut(Dim):
    "projected width"


class MHAEinsum(nn.Module):
    def __init__(self, d_in: DIn, d_out: DOut) -> None:
        super().__init__()
        self.W_query = nn.Parameter(tt.randn(d_out, d_in))
        self.W_key = nn.Parameter(tt.randn(d_out, d_in))

    def forward(self, x: Tensor[Batch, Seq, DIn]) -> Tensor[Batch, Seq, Seq]:
        Q = tt.einsum("bnd,di->bni", x, self.W_query)  # E: shape-matmul
        K = tt.einsum("bnd,di->bni", x, self.W_key)  # E: shape-matmul
        return Q @ K.transpose(1, 2)


def main() -> None:
    mha = MHAEinsum(DIn(8), DOut(16))
    mha(tt.randn(Batch(2), Seq(3), DIn(8)))

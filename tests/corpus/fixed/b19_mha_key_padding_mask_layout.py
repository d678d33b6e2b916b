"""A key padding mask laid out like the sequence-first input instead of batch-first.

The fixed twin of ../bugs/b19_mha_key_padding_mask_layout.py.
Source: https://github.com/pytorch/pytorch/issues/25129 (and #25132)
With ``batch_first=False`` the sequences are ``[seq, batch, embed]`` but ``src_key_padding_mask``
is ``[batch, seq]``. Building the mask in the inputs' layout (``[seq, batch]``) fails ("expecting
key_padding_mask shape of (batch, seq)"); it only went unnoticed where seq == batch. The mask
must be transposed.
"""

from __future__ import annotations

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim):
    "sequences in one minibatch"


class Seq(Dim):
    "tokens per sequence"


class Embed(Dim):
    "model width"


class Encoder(nn.Module):
    def __init__(self, embed: Embed) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(embed, 2)

    def forward(self, src: Tensor[Seq, Batch, Embed], pad: Tensor[Seq, Batch]) -> Tensor[Seq, Batch, Embed]:
        out, _ = self.attn(src, src, src, key_padding_mask=pad.transpose(0, 1))
        return out


def main() -> None:
    pad = tt.zeros(Seq(5), Batch(3)) > 0
    Encoder(Embed(8))(tt.randn(Seq(5), Batch(3), Embed(8)), pad)

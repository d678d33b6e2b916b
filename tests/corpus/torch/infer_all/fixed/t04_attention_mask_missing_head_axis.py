"""Scaled dot-product attention whose padding mask has no head axis.

Source: https://github.com/hyunwoongko/transformer/issues/32
The scores are ``[batch, head, seq_len, seq_len]`` but the mask passed down is ``[batch, seq_len,
seq_len]``: broadcasting lines the mask's batch axis up with the scores' head axis, which fails as
soon as the batch size differs from the number of heads. The fix gives the mask a head axis of
size 1 (``mask.unsqueeze(1)``). Written in the style of jaxtyping code that annotates its
intermediate tensors (TransformerLens): the annotation of ``score`` names the head axis.

This copy of ../t04_attention_mask_missing_head_axis.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, n_head: int) -> None:
        super().__init__()
        self.n_head = n_head
        self.d_k = d_model // n_head
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)

    def forward(self, x,
                mask):
        b, t, c = x.shape
        q = self.w_q(x).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
        k = self.w_k(x).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
        v = self.w_v(x).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
        score = q @ k.transpose(2, 3) / math.sqrt(self.d_k)
        score = score.masked_fill(mask.unsqueeze(1), -10000.0)
        attn = F.softmax(score, dim=-1) @ v
        return self.w_o(attn.transpose(1, 2).reshape(b, t, c))


def main() -> None:
    attn = MultiHeadAttention(64, 8)
    attn(torch.randn(3, 5, 64), torch.zeros(3, 5, 5, dtype=torch.bool))

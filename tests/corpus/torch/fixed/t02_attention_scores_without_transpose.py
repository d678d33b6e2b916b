"""Causal self-attention whose scores multiply the keys without transposing them.

Planted, in minGPT's attention (https://github.com/karpathy/minGPT, mingpt/model.py): ``q @ k``
instead of ``q @ k.transpose(-2, -1)``. With the heads split to ``[B, nh, T, hs]`` the product
contracts the head width with the sequence axis; it runs only when ``T == hs``.
"""

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor, nn


@dataclass
class GPTConfig:
    block_size: int = 16
    n_head: int = 4
    n_embd: int = 48


class CausalSelfAttention(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        size = config.block_size
        self.register_buffer("bias", torch.tril(torch.ones(size, size)).view(1, 1, size, size))
        self.n_head = config.n_head
        self.n_embd = config.n_embd

    def forward(self, x: Float[Tensor, "batch seq embed"]) -> Float[Tensor, "batch seq embed"]:
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


def main() -> None:
    CausalSelfAttention(GPTConfig())(torch.randn(2, 10, 48))

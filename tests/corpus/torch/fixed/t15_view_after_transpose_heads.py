"""Merging attention heads with ``view`` straight after ``transpose``.

Source: https://github.com/pytorch/pytorch/issues/141107
``y.transpose(1, 2).contiguous().view(B, T, C)`` raises "view size is not compatible with input tensor's size
and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...)
instead": after the transpose the head and time axes are no longer laid out contiguously. The fix
calls ``.contiguous()`` first (or ``reshape``).
"""

import math
from dataclasses import dataclass

import torch
from jaxtyping import Float
from torch import Tensor, nn


@dataclass
class Config:
    n_embd: int = 32
    n_head: int = 4


class SelfAttention(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.qkv = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.proj = nn.Linear(config.n_embd, config.n_embd)
        self.n_head = config.n_head

    def forward(self, x: Float[Tensor, "batch seq embed"]) -> Float[Tensor, "batch seq embed"]:
        B, T, C = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        y = att.softmax(dim=-1) @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.proj(y)


def main() -> None:
    SelfAttention(Config())(torch.randn(2, 6, 32))

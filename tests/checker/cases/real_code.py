# Inference that reaches real code: parameters and buffers, ModuleDict, configuration dataclasses,
# lists and comprehensions, -1 against symbolic sizes, type aliases.
from dataclasses import dataclass
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn, reveal_shape
from typedtensor.nn import functional as F

Vocab = Literal[50]
Width = Literal[32]


class Batch(Dim): ...
class Seq(Dim): ...


@dataclass
class Config:
    block_size: int = 16
    n_embd: int = 32
    n_head: int = 4


class Tiny(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.n_head = config.n_head
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(50, config.n_embd),
            h=nn.ModuleList([nn.Linear(config.n_embd, config.n_embd) for _ in range(2)]),
        ))
        self.bias = nn.Parameter(tt.zeros(config.n_embd))
        self.register_buffer("mask", tt.ones(config.block_size, config.block_size).tril())
        setattr(self, "scale", tt.ones(1, 1, config.n_embd))
        self.heads = nn.ModuleDict({"lm": nn.Linear(config.n_embd, 50)})

    def forward(self, idx: Tensor[Batch, Seq]) -> Tensor[Batch, Seq, Vocab]:
        x = self.transformer.wte(idx)  # ok
        reveal_shape(x)  # N: Tensor[Batch, Seq, 32]
        for block in self.transformer.h:
            x = block(x) + self.bias  # ok
        reveal_shape(self.mask)  # N: Tensor[16, 16]
        x = x * self.scale  # ok
        b, t, c = x.shape
        q = x.view(b, -1, self.n_head, c // self.n_head)  # ok
        reveal_shape(q)  # N: Tensor[Batch, Seq, 4, 8]
        x + self.mask  # E: shape-broadcast
        return self.heads["lm"](x)  # ok


def lists(x: Tensor[Batch, Width], y: Tensor[Batch, Literal[16]]) -> None:
    parts = [x, x * 2]
    reveal_shape(tt.stack(parts))  # N: Tensor[2, Batch, 32]
    pieces = [x + i for i in range(3)]
    reveal_shape(tt.cat(pieces, dim=1))  # N: Tensor[Batch, ?]
    reveal_shape(tt.stack(pieces, dim=1))  # N: Tensor[Batch, ?, 32]
    tt.stack([x, y])  # E: shape-concat
    tt.cat([x.unsqueeze(1) for _ in range(2)], dim=0)  # ok
    tt.cat([x + i for i in range(2)], dim=2)  # E: shape-axis
    grown = []
    for i in range(3):
        grown.append(x)
    reveal_shape(tt.cat(grown))  # N: Tensor[?, 32]


def unpacked_heads(x: Tensor[Batch, Seq, Literal[64]]) -> None:
    b, t, c = x.shape
    h = 8
    d_k = c // h
    k = x.view(b, -1, h, d_k).transpose(1, 2)
    reveal_shape(k)  # N: Tensor[Batch, 8, Seq, 8]
    F.softmax(k @ k.transpose(-2, -1), dim=-1)  # ok

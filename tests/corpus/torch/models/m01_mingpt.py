"""A GPT in the shape of minGPT, with jaxtyping annotations: token and position embeddings in a
ModuleDict, causal self-attention with a registered mask buffer, pre-norm blocks, an LM head, a
loss and a sampling loop.

Ported from the structure of https://github.com/karpathy/minGPT (mingpt/model.py).
"""

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor, nn


@dataclass
class GPTConfig:
    block_size: int = 32
    vocab_size: int = 65
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 48
    dropout: float = 0.1


class CausalSelfAttention(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
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
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.act = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x: Float[Tensor, "batch seq embed"]) -> Float[Tensor, "batch seq embed"]:
        return self.dropout(self.c_proj(self.act(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = MLP(config)

    def forward(self, x: Float[Tensor, "batch seq embed"]) -> Float[Tensor, "batch seq embed"]:
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.block_size = config.block_size
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=nn.LayerNorm(config.n_embd),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)

    def forward(self, idx: Int[Tensor, "batch seq"]) -> Float[Tensor, "batch seq vocab"]:
        _, t = idx.size()
        assert t <= self.block_size, f"Cannot forward sequence of length {t}, block size is only {self.block_size}"
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device).unsqueeze(0)
        tok_emb = self.transformer.wte(idx)
        pos_emb = self.transformer.wpe(pos)
        x = self.transformer.drop(tok_emb + pos_emb)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        return self.lm_head(x)

    def loss(self, idx: Int[Tensor, "batch seq"], targets: Int[Tensor, "batch seq"]) -> Float[Tensor, ""]:
        logits = self.forward(idx)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)

    @torch.no_grad()
    def generate(self, idx: Int[Tensor, "batch seq"], max_new_tokens: int,
                 temperature: float = 1.0) -> Int[Tensor, "batch total"]:
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size:]
            logits = self.forward(idx_cond)
            logits = logits[:, -1, :] / temperature
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


def main() -> None:
    config = GPTConfig()
    model = GPT(config)
    idx = torch.randint(0, config.vocab_size, (2, 16))
    loss = model.loss(idx, torch.randint(0, config.vocab_size, (2, 16)))
    loss.backward()
    model.eval()
    out = model.generate(idx[:, :4], max_new_tokens=5)
    assert out.shape == (2, 9)

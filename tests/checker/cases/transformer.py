# A realistic model end to end: a small transformer language model and its training step. Clean
# except for the marked lines (line 78 is a genuine bug found by the checker in a first draft of this
# file: the blocks are built for `Model` while the generic LM feeds them its own `D`).
import math
from typing import Generic, Optional, TypeVar

import typedtensor as tt
from typedtensor import Dim, Mul, Tensor, nn
from typedtensor.nn import functional as F

D = TypeVar("D")
V = TypeVar("V")


class Batch(Dim): ...
class Seq(Dim): ...
class Heads(Dim): ...
class HeadDim(Dim): ...
class Model(Dim): ...
class Vocab(Dim): ...


class SelfAttention(nn.Module):
    def __init__(self, d_model: Model, heads: Heads, head_dim: HeadDim, dropout: float = 0.1) -> None:
        super().__init__()
        self.heads = heads
        self.head_dim = head_dim
        self.qkv = nn.Linear(d_model, 3 * heads * head_dim)
        self.out = nn.Linear(heads * head_dim, d_model)
        self.drop = nn.Dropout(dropout)

    def split(self, x: Tensor[Batch, Seq, Mul[Heads, HeadDim]]) -> Tensor[Batch, Heads, Seq, HeadDim]:
        b, s, _ = x.shape
        return x.reshape(b, s, self.heads, self.head_dim).transpose(1, 2)  # ok

    def forward(self, x: Tensor[Batch, Seq, Model], mask: Optional[Tensor[Seq, Seq]] = None) -> Tensor[Batch, Seq, Model]:
        b, s, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = self.split(q), self.split(k), self.split(v)
        scores = q @ k.transpose(-2, -1) / math.sqrt(64)  # ok
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))  # ok
        attn = self.drop(F.softmax(scores, dim=-1))
        ctx = (attn @ v).transpose(1, 2).reshape(b, s, self.heads * self.head_dim)  # ok
        v @ attn  # E: shape-matmul
        return self.out(ctx)  # ok


class Block(nn.Module):
    def __init__(self, d_model: Model, heads: Heads, head_dim: HeadDim) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = SelfAttention(d_model, heads, head_dim)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x: Tensor[Batch, Seq, Model], mask: Optional[Tensor[Seq, Seq]] = None) -> Tensor[Batch, Seq, Model]:
        x = x + self.attn(self.ln1(x), mask)  # ok
        x = x + self.mlp(self.ln2(x))  # ok
        return x  # ok


class LM(nn.Module, Generic[D, V]):
    def __init__(self, vocab: V, d_model: D, n_layers: int, heads: Heads, head_dim: HeadDim, max_len: int = 512) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.blocks = nn.ModuleList([Block(Model(64), heads, head_dim) for _ in range(n_layers)])
        self.ln = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, idx: Tensor[Batch, Seq]) -> Tensor[Batch, Seq, V]:
        b, s = idx.shape
        pos = tt.arange(s)
        h = self.tok(idx) + self.pos(pos)  # ok
        mask = tt.tril(tt.ones(s, s))
        for block in self.blocks:
            h = block(h, mask)  # E: shape-arg
        return self.head(self.ln(h))  # ok


def train_step(model: LM[Model, Vocab], opt, idx: Tensor[Batch, Seq], targets: Tensor[Batch, Seq]) -> float:
    logits = model(idx)
    b, s, vocab = logits.shape
    loss = F.cross_entropy(logits.reshape(b * s, vocab), targets.reshape(b * s))  # ok
    F.cross_entropy(logits.reshape(b * s, vocab), targets)  # E: shape-arg
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


def generate(model: LM[Model, Vocab], idx: Tensor[Batch, Seq], steps: int) -> Tensor:
    for _ in range(steps):
        logits = model(idx)[:, -1, :]
        probs = F.softmax(logits, dim=-1)  # ok
        nxt = tt.argmax(probs, dim=-1, keepdim=True)  # ok
        idx = tt.cat([idx, nxt], dim=1)  # ok (re-binding a parameter is not an error)
    return idx


def generate_flow(model: LM[Model, Vocab], start: Tensor[Batch, Seq], steps: int) -> Tensor:
    idx = start
    for _ in range(steps):
        logits = model(idx)[:, -1, :]
        nxt = tt.argmax(logits, dim=-1, keepdim=True)  # ok
        idx = tt.cat([idx, nxt], dim=1)  # ok
    return idx

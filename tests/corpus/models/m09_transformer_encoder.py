"""A Transformer text classifier: token embeddings plus a sinusoidal positional table kept as a
buffer and sliced to the sequence length, encoder layers on nn.MultiheadAttention with a causal
attn_mask and a key padding mask, masked mean pooling, and a classifier.

Ported from the structure of the PyTorch tutorial "Language Modeling with nn.Transformer"
(https://pytorch.org/tutorials/beginner/transformer_tutorial.html), with the attention layer
written out.
"""

from __future__ import annotations

import math
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F

Model = Literal[32]
MaxLen = Literal[64]


class Batch(Dim):
    "sentences in one minibatch"


class Seq(Dim):
    "tokens per sentence"


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: Model, max_len: MaxLen, dropout: float = 0.1) -> None:
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        position = tt.arange(max_len).unsqueeze(1)
        div_term = tt.exp(tt.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = tt.zeros(max_len, d_model)
        pe[:, 0::2] = tt.sin(position * div_term)
        pe[:, 1::2] = tt.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Seq, Model]:
        x = x + self.pe[:, : x.size(1)]
        return self.dropout(x)


class EncoderLayer(nn.Module):
    def __init__(self, d_model: Model, nhead: int, d_hid: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=True)
        self.linear1 = nn.Linear(d_model, d_hid)
        self.linear2 = nn.Linear(d_hid, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src: Tensor[Batch, Seq, Model], causal: Tensor[Seq, Seq],
                padding: Tensor[Batch, Seq]) -> Tensor[Batch, Seq, Model]:
        attended, _ = self.self_attn(src, src, src, attn_mask=causal, key_padding_mask=padding, need_weights=False)
        src = self.norm1(src + self.dropout(attended))
        ff = self.linear2(self.dropout(F.relu(self.linear1(src))))
        return self.norm2(src + self.dropout(ff))


class Classifier(nn.Module):
    def __init__(self, ntoken: int, nclass: int, nlayers: int = 2) -> None:
        super().__init__()
        self.embedding = nn.Embedding(ntoken, 32)
        self.pos_encoder = PositionalEncoding(32, 64)
        self.layers = nn.ModuleList([EncoderLayer(32, 4, 64) for _ in range(nlayers)])
        self.classifier = nn.Linear(32, nclass)

    def forward(self, src: Tensor[Batch, Seq], padding: Tensor[Batch, Seq]) -> Tensor:
        t = src.size(1)
        causal = tt.triu(tt.ones(t, t), diagonal=1) > 0
        x = self.embedding(src) * math.sqrt(32)
        x = self.pos_encoder(x)
        for layer in self.layers:
            x = layer(x, causal, padding)
        keep = (~padding).float().unsqueeze(-1)
        pooled = (x * keep).sum(dim=1) / keep.sum(dim=1).clamp(min=1.0)
        return self.classifier(pooled)


def train_step(model: Classifier, opt: tt.optim.Optimizer, src: Tensor[Batch, Seq], padding: Tensor[Batch, Seq],
               labels: Tensor[Batch]) -> float:
    opt.zero_grad()
    loss = F.cross_entropy(model(src, padding), labels)
    loss.backward()
    opt.step()
    return loss.item()


def main() -> None:
    model = Classifier(100, 3)
    opt = tt.optim.Adam(model.parameters(), lr=1e-3)
    b, s = Batch(4), Seq(7)
    src = tt.randint(0, 100, (b, s))
    padding = tt.zeros(b, s) > 0
    padding[:, -2:] = True
    train_step(model, opt, src, padding, tt.randint(0, 3, (b,)))

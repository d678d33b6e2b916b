"""A Vision Transformer: strided-conv patch embedding, a learned class token and positional
embedding (parameters), pre-norm encoder blocks built on nn.MultiheadAttention (batch first), and
a classification head on the class token.

Ported from the structure of https://github.com/lucidrains/vit-pytorch (vit_pytorch/vit.py) and
torchvision's VisionTransformer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F

Image = Literal[32]
Width = Literal[64]
Classes = Literal[10]


class Batch(Dim):
    "images in one minibatch"


@dataclass
class ViTConfig:
    image_size: int = 32
    patch_size: int = 4
    dim: int = 64
    depth: int = 2
    heads: int = 4
    mlp_dim: int = 128
    num_classes: int = 10
    dropout: float = 0.1


class FeedForward(nn.Module):
    def __init__(self, dim: int, hidden: int, dropout: float) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.LayerNorm(dim), nn.Linear(dim, hidden), nn.GELU(), nn.Dropout(dropout), nn.Linear(hidden, dim),
            nn.Dropout(dropout),
        )

    def forward(self, x: Tensor) -> Tensor:
        return self.net(x)


class EncoderBlock(nn.Module):
    def __init__(self, cfg: ViTConfig) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(cfg.dim)
        self.attn = nn.MultiheadAttention(cfg.dim, cfg.heads, dropout=cfg.dropout, batch_first=True)
        self.ff = FeedForward(cfg.dim, cfg.mlp_dim, cfg.dropout)

    def forward(self, x: Tensor[Batch, Literal[65], Width]) -> Tensor[Batch, Literal[65], Width]:
        h = self.norm(x)
        attended, _ = self.attn(h, h, h, need_weights=False)
        x = x + attended
        return x + self.ff(x)


class ViT(nn.Module):
    def __init__(self, cfg: ViTConfig) -> None:
        super().__init__()
        num_patches = (cfg.image_size // cfg.patch_size) ** 2
        self.to_patch_embedding = nn.Conv2d(3, cfg.dim, cfg.patch_size, stride=cfg.patch_size)
        self.cls_token = nn.Parameter(tt.randn(1, 1, cfg.dim))
        self.pos_embedding = nn.Parameter(tt.randn(1, num_patches + 1, cfg.dim))
        self.dropout = nn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList([EncoderBlock(cfg) for _ in range(cfg.depth)])
        self.norm = nn.LayerNorm(cfg.dim)
        self.head = nn.Linear(cfg.dim, cfg.num_classes)

    def forward(self, img: Tensor[Batch, Literal[3], Image, Image]) -> Tensor[Batch, Classes]:
        x = self.to_patch_embedding(img)
        x = x.flatten(2).transpose(1, 2)
        b, n, _ = x.shape
        cls_tokens = self.cls_token.expand(b, -1, -1)
        x = tt.cat((cls_tokens, x), dim=1)
        x = x + self.pos_embedding[:, : n + 1]
        x = self.dropout(x)
        for block in self.blocks:
            x = block(x)
        x = self.norm(x)
        return self.head(x[:, 0])


def train_step(model: ViT, opt: tt.optim.Optimizer, img: Tensor[Batch, Literal[3], Image, Image],
               labels: Tensor[Batch]) -> float:
    opt.zero_grad()
    loss = F.cross_entropy(model(img), labels, label_smoothing=0.1)
    loss.backward()
    opt.step()
    return loss.item()


def patch_count(cfg: ViTConfig) -> int:
    return (cfg.image_size // cfg.patch_size) ** 2


def main() -> None:
    cfg = ViTConfig()
    model = ViT(cfg)
    opt = tt.optim.AdamW(model.parameters(), lr=1e-3)
    img = tt.randn(Batch(3), 3, 32, 32)
    train_step(model, opt, img, tt.randint(0, 10, (Batch(3),)))
    assert patch_count(cfg) == 64

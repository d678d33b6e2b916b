"""A small vision transformer with jaxtyping annotations: a convolutional patch embedding, a class
token, learned positions, pre-norm encoder blocks on ``nn.MultiheadAttention`` (batch first) and an
MLP head; images of a fixed size.

Ported from the structure of https://github.com/lucidrains/vit-pytorch (vit_pytorch/vit.py), with
``nn.MultiheadAttention`` in place of its hand-written attention.
"""

import torch
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor, nn


class PatchEmbedding(nn.Module):
    def __init__(self, image_size: int, patch_size: int, channels: int, dim: int) -> None:
        super().__init__()
        self.proj = nn.Conv2d(channels, dim, kernel_size=patch_size, stride=patch_size)
        self.num_patches = (image_size // patch_size) ** 2

    def forward(self, img: Float[Tensor, "batch channels height width"]) -> Float[Tensor, "batch patches dim"]:
        return self.proj(img).flatten(2).transpose(1, 2)


class FeedForward(nn.Module):
    def __init__(self, dim: int, hidden: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, hidden), nn.GELU(), nn.Dropout(dropout),
                                 nn.Linear(hidden, dim), nn.Dropout(dropout))

    def forward(self, x: Float[Tensor, "batch tokens dim"]) -> Float[Tensor, "batch tokens dim"]:
        return self.net(x)


class EncoderBlock(nn.Module):
    def __init__(self, dim: int, heads: int, mlp_dim: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, dropout=dropout, batch_first=True)
        self.ff = FeedForward(dim, mlp_dim, dropout)

    def forward(self, x: Float[Tensor, "batch tokens dim"]) -> Float[Tensor, "batch tokens dim"]:
        h = self.norm(x)
        attended, _ = self.attn(h, h, h, need_weights=False)
        x = x + attended
        return x + self.ff(x)


class ViT(nn.Module):
    def __init__(self, image_size: int = 32, patch_size: int = 8, channels: int = 3, num_classes: int = 10,
                 dim: int = 64, depth: int = 2, heads: int = 4, mlp_dim: int = 128) -> None:
        super().__init__()
        self.patch = PatchEmbedding(image_size, patch_size, channels, dim)
        num_patches = (image_size // patch_size) ** 2
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
        self.pos_embedding = nn.Parameter(torch.randn(1, num_patches + 1, dim))
        self.blocks = nn.ModuleList([EncoderBlock(dim, heads, mlp_dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def embed(self, img: Float[Tensor, "batch channels height width"]) -> Float[Tensor, "batch tokens dim"]:
        x = self.patch(img)
        cls = self.cls_token.expand(x.size(0), -1, -1)
        x = torch.cat([cls, x], dim=1)
        return x + self.pos_embedding[:, : x.size(1)]

    def forward(self, img: Float[Tensor, "batch channels height width"]) -> Float[Tensor, "batch classes"]:
        x = self.embed(img)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x)[:, 0])


def train_step(model: ViT, img: Float[Tensor, "batch 3 32 32"], labels: Int[Tensor, "batch"]) -> Float[Tensor, ""]:
    logits = model(img)
    loss = F.cross_entropy(logits, labels, label_smoothing=0.1)
    loss.backward()
    return loss.detach()


def main() -> None:
    model = ViT()
    train_step(model, torch.randn(4, 3, 32, 32), torch.randint(0, 10, (4,)))

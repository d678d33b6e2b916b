"""MLP-Mixer: patches by a strided convolution, token-mixing MLPs applied across patches (through
a transpose) and channel-mixing MLPs across features, global average pooling, a classifier.

Ported from the structure of https://github.com/lucidrains/mlp-mixer-pytorch and the paper's
reference implementation.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F

Image = Literal[32]
Patches = Literal[64]
Channels = Literal[48]


class Batch(Dim):
    "images in one minibatch"


class MlpBlock(nn.Module):
    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc2(F.gelu(self.fc1(x)))


class MixerBlock(nn.Module):
    def __init__(self, num_patches: Patches, channels: Channels, tokens_hidden: int, channels_hidden: int) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(channels)
        self.token_mixing = MlpBlock(num_patches, tokens_hidden)
        self.norm2 = nn.LayerNorm(channels)
        self.channel_mixing = MlpBlock(channels, channels_hidden)

    def forward(self, x: Tensor[Batch, Patches, Channels]) -> Tensor[Batch, Patches, Channels]:
        y = self.norm1(x).transpose(1, 2)
        y = self.token_mixing(y).transpose(1, 2)
        x = x + y
        return x + self.channel_mixing(self.norm2(x))


class MlpMixer(nn.Module):
    def __init__(self, num_classes: int, depth: int = 2) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 48, 4, stride=4)
        self.blocks = nn.ModuleList([MixerBlock(64, 48, 32, 96) for _ in range(depth)])
        self.norm = nn.LayerNorm(48)
        self.head = nn.Linear(48, num_classes)

    def forward(self, img: Tensor[Batch, Literal[3], Image, Image]) -> Tensor:
        x = self.stem(img)
        x = x.flatten(2).transpose(1, 2)
        for block in self.blocks:
            x = block(x)
        x = self.norm(x)
        return self.head(x.mean(dim=1))


class LayerScaleMixerBlock(MixerBlock):
    """A mixer block whose residual branches are scaled by learned per-channel factors."""

    def __init__(self, num_patches: Patches, channels: Channels) -> None:
        super().__init__(num_patches, channels, 32, 96)
        self.gamma1 = nn.Parameter(1e-4 * tt.ones(channels))
        self.gamma2 = nn.Parameter(1e-4 * tt.ones(channels))

    def forward(self, x: Tensor[Batch, Patches, Channels]) -> Tensor[Batch, Patches, Channels]:
        y = self.token_mixing(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        x = x + self.gamma1 * y
        return x + self.gamma2 * self.channel_mixing(self.norm2(x))


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def train_step(model: MlpMixer, opt: tt.optim.Optimizer, img: Tensor[Batch, Literal[3], Image, Image],
               labels: Tensor[Batch]) -> float:
    opt.zero_grad()
    loss = F.cross_entropy(model(img), labels)
    loss.backward()
    opt.step()
    return loss.item()


def main() -> None:
    model = MlpMixer(10)
    opt = tt.optim.Adam(model.parameters(), lr=1e-3)
    train_step(model, opt, tt.randn(Batch(2), 3, 32, 32), tt.randint(0, 10, (Batch(2),)))
    block = LayerScaleMixerBlock(64, 48)
    block(tt.randn(Batch(2), 64, 48))
    count_parameters(model)

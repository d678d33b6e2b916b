"""A CIFAR-sized ResNet: basic blocks with a 1x1 strided shortcut when the shape changes,
batch norm, global average pooling and a linear classifier.

Ported from the structure of torchvision's ResNet
(https://github.com/pytorch/vision/blob/main/torchvision/models/resnet.py) at CIFAR scale.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F

Side = Literal[32]
Classes = Literal[10]


class Batch(Dim):
    "images in one minibatch"


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes: int, planes: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, planes, 1, stride=stride, bias=False),
                nn.BatchNorm2d(planes),
            )

    def forward(self, x: Tensor) -> Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out = out + self.shortcut(x)
        return F.relu(out)


class Stem(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(16)

    def forward(self, x: Tensor[Batch, Literal[3], Side, Side]) -> Tensor[Batch, Literal[16], Side, Side]:
        return F.relu(self.bn(self.conv(x)))


class Head(nn.Module):
    def __init__(self, channels: Literal[64]) -> None:
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(channels, 10)

    def forward(self, x: Tensor[Batch, Literal[64], Literal[8], Literal[8]]) -> Tensor[Batch, Classes]:
        x = self.pool(x)
        x = tt.flatten(x, 1)
        return self.fc(x)


class ResNet(nn.Module):
    def __init__(self, blocks: tuple[int, int, int] = (2, 2, 2)) -> None:
        super().__init__()
        self.in_planes = 16
        self.stem = Stem()
        self.layer1 = self._make_layer(16, blocks[0], 1)
        self.layer2 = self._make_layer(32, blocks[1], 2)
        self.layer3 = self._make_layer(64, blocks[2], 2)
        self.head = Head(64)

    def _make_layer(self, planes: int, n: int, stride: int) -> nn.Sequential:
        strides = [stride] + [1] * (n - 1)
        layers = []
        for s in strides:
            layers.append(BasicBlock(self.in_planes, planes, s))
            self.in_planes = planes
        return nn.Sequential(*layers)

    def forward(self, x: Tensor[Batch, Literal[3], Side, Side]) -> Tensor[Batch, Classes]:
        out = self.stem(x)
        out = self.layer1(out)
        out = self.layer2(out)
        out = self.layer3(out)
        return self.head(out)


def train_step(model: ResNet, opt: tt.optim.Optimizer, x: Tensor[Batch, Literal[3], Side, Side],
               y: Tensor[Batch]) -> float:
    opt.zero_grad()
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    return loss.item()


@tt.no_grad()
def accuracy(model: ResNet, x: Tensor[Batch, Literal[3], Side, Side], y: Tensor[Batch]) -> float:
    model.eval()
    predicted = model(x).argmax(1)
    model.train()
    return (predicted == y).float().mean().item()


def direct_block(x: Tensor[Batch, Literal[16], Side, Side]) -> Tensor:
    block = BasicBlock(16, 32, stride=2)
    return block(x)


def main() -> None:
    model = ResNet()
    opt = tt.optim.SGD(model.parameters(), lr=0.1)
    x = tt.randn(Batch(4), 3, 32, 32)
    y = tt.randint(0, 10, (Batch(4),))
    train_step(model, opt, x, y)
    accuracy(model, x, y)
    direct_block(tt.randn(Batch(2), 16, 32, 32))

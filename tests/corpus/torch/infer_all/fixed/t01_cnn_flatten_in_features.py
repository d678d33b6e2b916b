"""A CNN whose classifier is sized for the wrong flattened feature count.

Source: https://androidkt.com/fix-runtimeerror-mat1-and-mat2-shapes-cannot-be-multiplied/
Two conv blocks (padding 2, each followed by a 2x2 max-pool) turn a 1x28x28 digit into 32x7x7 =
1568 features, but the output layer was declared ``nn.Linear(32 * 7 * 7, 10)``: "mat1 and mat2 shapes
cannot be multiplied (2x1568 and 1050x10)". The fix sizes the layer ``32 * 7 * 7``.

This copy of ../t01_cnn_flatten_in_features.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch
from torch import nn


class CNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv2d(1, 16, 5, 1, 2), nn.ReLU(), nn.MaxPool2d(2))
        self.conv2 = nn.Sequential(nn.Conv2d(16, 32, 5, 1, 2), nn.ReLU(), nn.MaxPool2d(2))
        self.out = nn.Linear(32 * 7 * 7, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = self.conv2(x)
        x = x.view(x.size(0), -1)
        return self.out(x)


def main() -> None:
    CNN()(torch.randn(2, 1, 28, 28))

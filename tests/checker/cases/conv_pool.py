# Conv and pool modules carry every constructor argument their output shape depends on (kernel,
# stride, padding, dilation; a pool's ceil_mode) as type arguments: calling one gives exact dims.
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim): ...
class C(Dim): ...
class Hidden(Dim): ...


def constructors(k: int) -> None:
    reveal_shape(nn.Conv2d(3, 16, kernel_size=3, stride=2, padding=1))  # N: Conv2d(in_channels=3, out_channels=16, kernel_size=3, stride=2, padding=1, dilation=1)
    reveal_shape(nn.Conv2d(3, 16, (3, 5), padding="same"))  # N: Conv2d(in_channels=3, out_channels=16, kernel_size=(3, 5), stride=1, padding='same', dilation=1)
    reveal_shape(nn.Conv2d(3, 16, k))  # N: Conv2d(in_channels=3, out_channels=16, kernel_size=?, stride=1, padding=0, dilation=1)
    reveal_shape(nn.Conv2d(3, 16, 3, stride=k))  # N: Conv2d(in_channels=3, out_channels=16, kernel_size=3, stride=?, padding=0, dilation=1)
    reveal_shape(nn.MaxPool2d(2))  # N: MaxPool2d(kernel_size=2, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False)
    reveal_shape(nn.AvgPool2d(3, stride=2, ceil_mode=True))  # N: AvgPool2d(kernel_size=3, stride=2, padding=0, ceil_mode=True)
    reveal_shape(nn.AdaptiveAvgPool2d((7, 7)))  # N: AdaptiveAvgPool2d(output_size=(7, 7))
    reveal_shape(nn.Flatten(0, 1))  # N: Flatten(start_dim=0, end_dim=1)
    reveal_shape(nn.Softmax(dim=-1))  # N: Softmax(dim=-1)


def conv(img: Tensor[Batch, C, Literal[32], Literal[32]], flat: Tensor[Batch, C], k: int) -> None:
    reveal_shape(nn.Conv2d(C(3), Hidden(16), kernel_size=3, stride=2, padding=1)(img))  # N: Tensor[Batch, Hidden, 16, 16]
    reveal_shape(nn.Conv2d(C(3), Hidden(16), 5)(img))  # N: Tensor[Batch, Hidden, 28, 28]
    reveal_shape(nn.Conv2d(C(3), Hidden(16), (3, 5), padding=(1, 2))(img))  # N: Tensor[Batch, Hidden, 32, 32]
    reveal_shape(nn.Conv2d(C(3), Hidden(16), 3, dilation=2)(img))  # N: Tensor[Batch, Hidden, 28, 28]
    reveal_shape(nn.Conv2d(C(3), Hidden(16), 3, padding="same")(img))  # N: Tensor[Batch, Hidden, 32, 32]
    reveal_shape(nn.Conv2d(C(3), Hidden(16), 3, stride=(2, 1))(img))  # N: Tensor[Batch, Hidden, 15, 30]
    reveal_shape(nn.Conv2d(C(3), Hidden(16), 3, padding="valid")(img))  # N: Tensor[Batch, Hidden, 30, 30]
    reveal_shape(nn.Conv2d(C(3), Hidden(16), k)(img))  # N: Tensor[Batch, Hidden, ?, ?]
    reveal_shape(nn.Conv2d(C(3), Hidden(16), 3, stride=k)(img))  # N: Tensor[Batch, Hidden, ?, ?]
    nn.Conv2d(C(3), Hidden(16), 3, stride=2, padding="same")(img)  # E: shape-arg
    nn.Conv2d(C(3), Hidden(16), 33)(img)  # E: shape-arg
    nn.Conv2d(Hidden(3), Hidden(16), 3)(img)  # E: shape-arg
    nn.Conv2d(C(3), Hidden(16), 3)(flat)  # E: shape-rank
    down = nn.Conv2d(C(3), C(3), 3, stride=2, padding=1)
    reveal_shape(down(down(img)))  # N: Tensor[Batch, C, 8, 8]
    small: Tensor[Batch, C, Literal[16], Literal[16]] = down(img)
    wrong: Tensor[Batch, C, Literal[32], Literal[32]] = down(img)  # E: shape-assign


def pools(img: Tensor[Batch, C, Literal[32], Literal[32]], flat: Tensor[Batch, C]) -> None:
    reveal_shape(nn.MaxPool2d(2)(img))  # N: Tensor[Batch, C, 16, 16]
    reveal_shape(nn.MaxPool2d(3, stride=2)(img))  # N: Tensor[Batch, C, 15, 15]
    reveal_shape(nn.MaxPool2d(3, stride=2, ceil_mode=True)(img))  # N: Tensor[Batch, C, 16, 16]
    reveal_shape(nn.MaxPool2d(2, padding=1)(img))  # N: Tensor[Batch, C, 17, 17]
    reveal_shape(nn.MaxPool2d(3, dilation=2)(img))  # N: Tensor[Batch, C, 10, 10]
    reveal_shape(nn.AvgPool2d(4)(img))  # N: Tensor[Batch, C, 8, 8]
    reveal_shape(nn.AvgPool2d((2, 4))(img))  # N: Tensor[Batch, C, 16, 8]
    reveal_shape(nn.AdaptiveAvgPool2d((7, 7))(img))  # N: Tensor[Batch, C, 7, 7]
    reveal_shape(nn.AdaptiveAvgPool2d((None, 4))(img))  # N: Tensor[Batch, C, 32, 4]
    nn.MaxPool2d(2, padding=2)(img)  # E: shape-arg
    nn.MaxPool2d(64)(img)  # E: shape-arg
    nn.AvgPool2d(2)(flat)  # E: shape-rank


def flatten_softmax(img: Tensor[Batch, C, Literal[4], Literal[4]], x: Tensor[Batch, C]) -> None:
    reveal_shape(nn.Flatten()(img))  # N: Tensor[Batch, 16*C]
    reveal_shape(nn.Flatten(0, 1)(img))  # N: Tensor[Batch*C, 4, 4]
    reveal_shape(nn.Flatten(2)(img))  # N: Tensor[Batch, C, 16]
    nn.Flatten(5)(img)  # E: shape-axis
    reveal_shape(nn.Softmax(dim=-1)(x))  # N: Tensor[Batch, C]
    nn.Softmax(dim=2)(x)  # E: shape-axis
    nn.LogSoftmax(dim=-3)(x)  # E: shape-axis


class Annotated(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv: nn.Conv2d[C, Hidden] = nn.Conv2d(C(3), Hidden(8), 3, stride=2)
        self.exact = nn.Conv2d(C(3), Hidden(8), 3, stride=2)
        self.full: nn.Conv2d[C, Hidden, Literal[3], Literal[2], Literal[0], Literal[1]] = nn.Conv2d(C(3), Hidden(8), 3, stride=2)
        self.pool: nn.MaxPool2d = nn.MaxPool2d(2)

    def forward(self, img: Tensor[Batch, C, Literal[32], Literal[32]]) -> None:
        reveal_shape(self.conv(img))  # N: Tensor[Batch, Hidden, 15, 15]
        reveal_shape(self.exact(img))  # N: Tensor[Batch, Hidden, 15, 15]
        reveal_shape(self.full(img))  # N: Tensor[Batch, Hidden, 15, 15]
        reveal_shape(self.pool(img))  # N: Tensor[Batch, C, 16, 16]


def lenet() -> None:
    a = tt.rand(10, 3, 32, 32)
    features = nn.Sequential(
        nn.Conv2d(3, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten()
    )
    reveal_shape(features(a))  # N: Tensor[10, 400]
    head = nn.Linear(16 * 5 * 5, 120)
    reveal_shape(head(features(a)))  # N: Tensor[10, 120]
    nn.Linear(16 * 4 * 4, 120)(features(a))  # E: shape-arg
    net = nn.Sequential(features, nn.Linear(400, 10))
    reveal_shape(net(a))  # N: Tensor[10, 10]
    bad = nn.Sequential(features, nn.Linear(256, 10))
    bad(a)  # E: shape-arg

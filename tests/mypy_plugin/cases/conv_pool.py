# Conv and pool modules carry every constructor argument their output shape depends on (kernel,
# stride, padding, dilation; a pool's ceil_mode) as type arguments: calling one gives exact dims.
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim): ...
class C(Dim): ...
class Hidden(Dim): ...


def constructors(k: int) -> None:
    reveal_type(nn.Conv2d(3, 16, kernel_size=3, stride=2, padding=1))  # R: Conv2d[Literal[3], Literal[16], Literal[3], Literal[2], Literal[1], Literal[1]]
    reveal_type(nn.Conv2d(3, 16, (3, 5), padding="same"))  # R: Conv2d[Literal[3], Literal[16], tuple[Literal[3], Literal[5]], Literal[1], Literal['same'], Literal[1]]
    reveal_type(nn.Conv2d(3, 16, k))  # R: Conv2d[Literal[3], Literal[16], Any, Literal[1], Literal[0], Literal[1]]
    reveal_type(nn.Conv2d(3, 16, 3, stride=k))  # R: Conv2d[Literal[3], Literal[16], Literal[3], Any, Literal[0], Literal[1]]
    reveal_type(nn.MaxPool2d(2))  # R: MaxPool2d[Literal[2], None, Literal[0], Literal[1], Literal[False], Literal[False]]
    reveal_type(nn.AvgPool2d(3, stride=2, ceil_mode=True))  # R: AvgPool2d[Literal[3], Literal[2], Literal[0], Literal[True]]
    reveal_type(nn.AdaptiveAvgPool2d((7, 7)))  # R: AdaptiveAvgPool2d[tuple[Literal[7], Literal[7]]]
    reveal_type(nn.Flatten(0, 1))  # R: Flatten[Literal[0], Literal[1]]
    reveal_type(nn.Softmax(dim=-1))  # R: Softmax[Literal[-1]]


def conv(img: Tensor[Batch, C, Literal[32], Literal[32]], flat: Tensor[Batch, C], k: int) -> None:
    reveal_type(nn.Conv2d(C(3), Hidden(16), kernel_size=3, stride=2, padding=1)(img))  # R: Tensor[Batch, Hidden, Literal[16], Literal[16]]
    reveal_type(nn.Conv2d(C(3), Hidden(16), 5)(img))  # R: Tensor[Batch, Hidden, Literal[28], Literal[28]]
    reveal_type(nn.Conv2d(C(3), Hidden(16), (3, 5), padding=(1, 2))(img))  # R: Tensor[Batch, Hidden, Literal[32], Literal[32]]
    reveal_type(nn.Conv2d(C(3), Hidden(16), 3, dilation=2)(img))  # R: Tensor[Batch, Hidden, Literal[28], Literal[28]]
    reveal_type(nn.Conv2d(C(3), Hidden(16), 3, padding="same")(img))  # R: Tensor[Batch, Hidden, Literal[32], Literal[32]]
    reveal_type(nn.Conv2d(C(3), Hidden(16), 3, stride=(2, 1))(img))  # R: Tensor[Batch, Hidden, Literal[15], Literal[30]]
    reveal_type(nn.Conv2d(C(3), Hidden(16), 3, padding="valid")(img))  # R: Tensor[Batch, Hidden, Literal[30], Literal[30]]
    reveal_type(nn.Conv2d(C(3), Hidden(16), k)(img))  # R: Tensor[Batch, Hidden, Any, Any]
    reveal_type(nn.Conv2d(C(3), Hidden(16), 3, stride=k)(img))  # R: Tensor[Batch, Hidden, Any, Any]
    nn.Conv2d(C(3), Hidden(16), 3, stride=2, padding="same")(img)  # E: shape-arg
    nn.Conv2d(C(3), Hidden(16), 33)(img)  # E: shape-arg
    nn.Conv2d(Hidden(3), Hidden(16), 3)(img)  # E: shape-arg
    nn.Conv2d(C(3), Hidden(16), 3)(flat)  # E: shape-rank
    down = nn.Conv2d(C(3), C(3), 3, stride=2, padding=1)
    reveal_type(down(down(img)))  # R: Tensor[Batch, C, Literal[8], Literal[8]]
    small: Tensor[Batch, C, Literal[16], Literal[16]] = down(img)
    wrong: Tensor[Batch, C, Literal[32], Literal[32]] = down(img)  # E: assignment


def pools(img: Tensor[Batch, C, Literal[32], Literal[32]], flat: Tensor[Batch, C]) -> None:
    reveal_type(nn.MaxPool2d(2)(img))  # R: Tensor[Batch, C, Literal[16], Literal[16]]
    reveal_type(nn.MaxPool2d(3, stride=2)(img))  # R: Tensor[Batch, C, Literal[15], Literal[15]]
    reveal_type(nn.MaxPool2d(3, stride=2, ceil_mode=True)(img))  # R: Tensor[Batch, C, Literal[16], Literal[16]]
    reveal_type(nn.MaxPool2d(2, padding=1)(img))  # R: Tensor[Batch, C, Literal[17], Literal[17]]
    reveal_type(nn.MaxPool2d(3, dilation=2)(img))  # R: Tensor[Batch, C, Literal[10], Literal[10]]
    reveal_type(nn.AvgPool2d(4)(img))  # R: Tensor[Batch, C, Literal[8], Literal[8]]
    reveal_type(nn.AvgPool2d((2, 4))(img))  # R: Tensor[Batch, C, Literal[16], Literal[8]]
    reveal_type(nn.AdaptiveAvgPool2d((7, 7))(img))  # R: Tensor[Batch, C, Literal[7], Literal[7]]
    reveal_type(nn.AdaptiveAvgPool2d((None, 4))(img))  # R: Tensor[Batch, C, Literal[32], Literal[4]]
    nn.MaxPool2d(2, padding=2)(img)  # E: shape-arg
    nn.MaxPool2d(64)(img)  # E: shape-arg
    nn.AvgPool2d(2)(flat)  # E: shape-rank


def flatten_softmax(img: Tensor[Batch, C, Literal[4], Literal[4]], x: Tensor[Batch, C]) -> None:
    reveal_type(nn.Flatten()(img))  # R: Tensor[Batch, Mul[Literal[16], C]]
    reveal_type(nn.Flatten(0, 1)(img))  # R: Tensor[Mul[Batch, C], Literal[4], Literal[4]]
    reveal_type(nn.Flatten(2)(img))  # R: Tensor[Batch, C, Literal[16]]
    nn.Flatten(5)(img)  # E: shape-axis
    reveal_type(nn.Softmax(dim=-1)(x))  # R: Tensor[Batch, C]
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
        reveal_type(self.conv(img))  # R: Tensor[Batch, Hidden, Any, Any]
        reveal_type(self.exact(img))  # R: Tensor[Batch, Hidden, Literal[15], Literal[15]]
        reveal_type(self.full(img))  # R: Tensor[Batch, Hidden, Literal[15], Literal[15]]
        reveal_type(self.pool(img))  # R: Tensor[Batch, C, Any, Any]


def lenet() -> None:
    a = tt.rand(10, 3, 32, 32)
    features = nn.Sequential(
        nn.Conv2d(3, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten()
    )
    reveal_type(features(a))  # R: Tensor[Literal[10], Literal[400]]
    head = nn.Linear(16 * 5 * 5, 120)
    reveal_type(head(features(a)))  # R: Tensor[Literal[10], Literal[120]]
    nn.Linear(16 * 4 * 4, 120)(features(a))  # E: shape-arg
    net = nn.Sequential(features, nn.Linear(400, 10))
    reveal_type(net(a))  # R: Tensor[Literal[10], Literal[10]]
    bad = nn.Sequential(features, nn.Linear(256, 10))
    bad(a)  # E: shape-arg

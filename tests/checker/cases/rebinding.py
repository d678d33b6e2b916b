# Re-binding is not an error (NOTE [ Re-binding ]): a parameter's annotation describes the argument;
# later assignments to the name take their inferred shape, flow-sensitively. Only an annotated
# assignment (`h: Tensor[...] = ...`) declares a name for the rest of its scope.
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F


class Batch(Dim): ...
class Hidden(Dim): ...


class MnistNet(nn.Module):
    """The idiomatic forward: one name, re-bound at every layer."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3)
        self.conv2 = nn.Conv2d(32, 64, 3)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x: Tensor[Batch, Literal[1], Literal[28], Literal[28]]) -> Tensor[Batch, Literal[10]]:
        x = self.conv1(x)  # ok
        x = F.relu(x)  # ok
        x = self.conv2(x)  # ok
        x = F.relu(x)  # ok
        x = F.max_pool2d(x, 2)  # ok
        x = tt.flatten(x, 1)  # ok
        x = self.fc1(x)  # ok
        x = F.relu(x)  # ok
        x = self.fc2(x)  # ok
        return F.log_softmax(x, dim=1)  # ok


class PlantedBug(nn.Module):
    """The same forward with the first linear layer sized for unpooled features: caught on its line."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3)
        self.conv2 = nn.Conv2d(32, 64, 3)
        self.fc1 = nn.Linear(36864, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x: Tensor[Batch, Literal[1], Literal[28], Literal[28]]) -> Tensor[Batch, Literal[10]]:
        x = self.conv1(x)  # ok
        x = F.relu(x)  # ok
        x = self.conv2(x)  # ok
        x = F.relu(x)  # ok
        x = F.max_pool2d(x, 2)  # ok
        x = tt.flatten(x, 1)  # ok
        x = self.fc1(x)  # E: shape-arg
        x = F.relu(x)  # ok (unknown after the reported error: one bug, one report)
        x = self.fc2(x)  # ok
        return F.log_softmax(x, dim=1)  # ok


def wrong_return(x: Tensor[Batch, Hidden], w: Tensor[Hidden, Hidden]) -> Tensor[Batch, Hidden]:
    x = x.sum(1)  # ok
    return x  # E: shape-return


def declared_local(x: Tensor[Batch, Hidden]) -> Tensor[Batch]:
    h: Tensor[Batch, Hidden] = x  # ok
    h = h.sum(1)  # E: shape-assign
    return h.sum(1)  # ok (h keeps its declared shape after the mismatch)


def branches(x: Tensor[Batch, Hidden], flag: bool) -> Tensor[Batch]:
    if flag:
        x = x.mean(1, keepdim=True)  # ok
    else:
        x = x.amax(1, keepdim=True)  # ok
    return x.squeeze(1)  # ok ([Batch, 1] on both paths)


def loop(x: Tensor[Batch, Hidden], layers: list[nn.Linear]) -> Tensor[Batch, Hidden]:
    for layer in layers:
        x = layer(x)  # ok
    return x  # ok (unknown after the loop)

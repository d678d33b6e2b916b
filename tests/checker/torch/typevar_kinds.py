# A TypeVar with constraints or a bound is a generic of another kind, not a dim variable: its
# parameters are numbers or objects, never sizes.
from typing import Generic, TypeVar

import torch
from torch import nn

IntOrFloat = TypeVar("IntOrFloat", int, float)
M = TypeVar("M", bound=nn.Module)
N = TypeVar("N")


class Slider(Generic[IntOrFloat]):
    def __init__(self, default: IntOrFloat, low: IntOrFloat, high: IntOrFloat) -> None:
        self.value = default


def wrap(module: M, width: int) -> M:
    return module


def numbers() -> None:
    Slider(512, 64, 2048)  # ok
    Slider(0.5, 0.0, 1.0)  # ok
    wrap(nn.Linear(3, 4), 3)  # ok
    reveal_shape(torch.zeros(3) + torch.zeros(3))  # N: Tensor[3]


def same(a: N, b: N) -> N:
    return a


same(3, 4)  # E: shape-arg

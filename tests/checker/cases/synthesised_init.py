# Classes whose __init__ is written for them (NOTE [ Synthesised constructors ] in
# checker/infer/calls.py): the arguments, not the class defaults, are the fields; a default that
# __post_init__ replaces is no size.
from dataclasses import dataclass
from typing import NamedTuple

import typedtensor as tt
from typedtensor import reveal_shape


@dataclass
class Config:
    width: int = 16
    depth: int = 2


@dataclass
class Derived:
    d_model: int = 64
    n_heads: int = -1  # "not set": derived in __post_init__

    def __post_init__(self) -> None:
        if self.n_heads == -1:
            self.n_heads = self.d_model // 16


@dataclass
class Child(Derived):
    d_head: int = 8

    def __post_init__(self) -> None:
        super().__post_init__()


class Pair(NamedTuple):
    rows: int
    cols: int = 3


def defaults() -> None:
    reveal_shape(tt.zeros(Config().width))  # N: Tensor[16]
    reveal_shape(tt.zeros(Config(32).width, Config(32).depth))  # N: Tensor[32, 2]
    reveal_shape(tt.zeros(Config(depth=5).width, Config(depth=5).depth))  # N: Tensor[16, 5]
    reveal_shape(tt.zeros(Pair(4).rows, Pair(4).cols))  # N: Tensor[4, 3]


def post_init(cfg: Derived, child: Child) -> None:
    tt.zeros(Derived().n_heads)  # ok: not -1 once built
    tt.zeros(cfg.n_heads)  # ok
    tt.zeros(child.n_heads, child.d_head)  # ok: a base's __post_init__ sets it
    reveal_shape(tt.zeros(child.d_model))  # N: Tensor[64]

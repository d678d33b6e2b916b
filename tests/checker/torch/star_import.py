# ``from torch import *`` brings torch's names that the registry knows (NOTE [ Reading torch
# programs ] in checker/names.py).
from torch import *


def star() -> None:
    x = randn(4, 5)
    reveal_shape(x @ zeros(5, 2))  # N: Tensor[4, 2]
    x @ zeros(4, 2)  # E: shape-matmul
    reveal_shape(cat([x, x], dim=1))  # N: Tensor[4, 10]

# mypy: disable-error-code="view-noncontiguous, squeeze-no-dim"
# Each lint is its own error code: disabled here, nothing is reported (cases/lints.py reports both).
from typing import Literal

from typedtensor import Dim, Tensor


class Batch(Dim): ...
class Model(Dim): ...


def disabled(x: Tensor[Batch, Model], p: Tensor[Batch, Model, Literal[1]]) -> None:
    x.t().view(-1)
    p.squeeze()
    x.t().view(x.shape[0], x.shape[1], 2)  # E: shape-reshape

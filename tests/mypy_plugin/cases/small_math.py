# The small torch functions (rules/small_math.py): transposes, products, norms and pieces.
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class Rows(Dim): ...
class Cols(Dim): ...


def transposes(x: Tensor[Rows, Cols], b: Tensor[Batch, Rows, Cols], v: Tensor[Cols]) -> None:
    reveal_type(x.H)  # R: Tensor[Cols, Rows]
    reveal_type(b.mH)  # R: Tensor[Batch, Cols, Rows]
    reveal_type(tt.adjoint(b))  # R: Tensor[Batch, Cols, Rows]
    reveal_type(tt.fliplr(x))  # R: Tensor[Rows, Cols]
    b.H  # E: shape-rank
    tt.fliplr(v)  # E: shape-rank


def products(x: Tensor[Rows, Cols], r: Tensor[Rows], c: Tensor[Cols], w: Tensor[Batch, Cols]) -> None:
    reveal_type(tt.ger(r, c))  # R: Tensor[Rows, Cols]
    reveal_type(tt.addr(x, r, c, beta=0.5))  # R: Tensor[Rows, Cols]
    reveal_type(tt.ones(2, 3).sum_to_size(2, 1))  # R: Tensor[Literal[2], Literal[1]]
    reveal_type(tt.renorm(x, 2, 0, 1.0))  # R: Tensor[Rows, Cols]
    tt.vdot(r, c)  # E: shape-matmul
    tt.dist(x, w)  # E: shape-broadcast
    tt.renorm(r, 2, 0, 1.0)  # E: shape-rank

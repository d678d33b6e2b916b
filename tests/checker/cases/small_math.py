# Rule family: the small torch functions (rules/small_math.py) — transposes, products, norms, pieces.
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class Rows(Dim): ...
class Cols(Dim): ...


def transposes(x: Tensor[Rows, Cols], b: Tensor[Batch, Rows, Cols], v: Tensor[Cols]) -> None:
    a: Tensor[Cols, Rows] = x.H  # ok
    c: Tensor[Batch, Cols, Rows] = b.mH  # ok
    d: Tensor[Batch, Cols, Rows] = tt.adjoint(b)  # ok
    e: Tensor[Rows, Cols] = tt.fliplr(x)  # ok
    f: Tensor[Rows, Cols] = x.H  # E: shape-assign
    b.H  # E: shape-rank
    v.mH  # E: shape-rank
    tt.fliplr(v)  # E: shape-rank


def products(x: Tensor[Rows, Cols], r: Tensor[Rows], c: Tensor[Cols], w: Tensor[Batch, Cols]) -> None:
    a: Tensor[Rows, Cols] = tt.ger(r, c)  # ok
    b: Tensor[Rows, Cols] = tt.addr(x, r, c, beta=0.5)  # ok
    d: Tensor[Literal[2], Literal[3]] = tt.ones(2, 3).sum_to_size(2, 1)  # E: shape-assign
    tt.vdot(r, c)  # E: shape-matmul
    tt.addr(x, c, r)  # E: shape-broadcast
    tt.dist(x, w)  # E: shape-broadcast
    tt.renorm(r, 2, 0, 1.0)  # E: shape-rank
    e: Tensor[Rows, Cols] = tt.renorm(x, 2, 0, 1.0)  # ok

# Message text: the op first, both shapes, and the dims that differ (text from the registry).
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class In(Dim): ...
class Hidden(Dim): ...
class Out(Dim): ...
class Seq(Dim): ...


def texts(x: Tensor[Batch, In], w: Tensor[Hidden, Out], s: Tensor[Seq], lit: Tensor[Literal[2], Literal[6]]) -> None:
    x @ w  # E: shape-matmul  # M: matmul: inner dimensions differ  # M: In  # M: Hidden  # M: [Batch, In] @ [Hidden, Out]
    x + s  # E: shape-broadcast  # M: add: dimensions do not broadcast  # M: [Batch, In] + [Seq]
    lit.reshape(5, 2)  # E: shape-reshape  # M: reshape  # M: 12  # M: 10
    x.sum(dim=2)  # E: shape-axis  # M: sum  # M: [Batch, In]
    tt.cat([x, w])  # E: shape-concat  # M: cat  # M: [Batch, In]  # M: [Hidden, Out]
    x.permute(1)  # E: shape-axis  # M: permute
    tt.softmax(x, dim=-3)  # E: shape-axis  # M: softmax

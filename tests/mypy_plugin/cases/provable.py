# The registry reports only what it can prove (NOTE [ Provable facts ] in
# typedtensor/shapes/rules/_provable.py): the plugin gives no report for sizes that may agree.
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class Seq(Dim): ...
class In(Dim): ...
class Model(Dim): ...


def reshape_into_literals(x: Tensor[Batch, In]) -> None:
    reveal_type(x.reshape(32, 784))  # R: Tensor[Literal[32], Literal[784]]
    z = tt.zeros(Batch(32), In(784))
    reveal_type(z.reshape(32, 784))  # R: Tensor[Literal[32], Literal[784]]
    x.reshape(x.shape[0], 3, In(784))  # E: shape-reshape


def head_merge(x: Tensor[Batch, Seq, Model], nh: int) -> None:
    B, T, C = x.size()
    for heads in (nh, 8):
        y = x.view(B, T, heads, C // heads).transpose(1, 2)
        reveal_type(y.transpose(1, 2).contiguous().view(B, T, C))  # R: Tensor[Batch, Seq, Model]
    y8 = x.view(B, T, 8, C // 8).transpose(1, 2)
    reveal_type(y8.transpose(1, 2).contiguous().view(B, T, C))  # R: Tensor[Batch, Seq, Model]
    y8.reshape(B, T, C, 2)  # E: shape-reshape


def slices(x: Tensor[Batch, Seq, Model], y: Tensor[Batch, Seq, Model], t: Tensor[Batch, Literal[100], Model]) -> None:
    reveal_type(x[:, :64])  # R: Tensor[Batch, Any, Model]
    x[:, :64] + y
    reveal_type(t[:, :64])  # R: Tensor[Batch, Literal[64], Model]
    reveal_type(x[:, 1:])  # R: Tensor[Batch, Sub[Seq, Literal[1]], Model]
    t[:, :64] + t  # E: shape-broadcast

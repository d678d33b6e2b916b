# Rule family: reshape / view / flatten / unflatten, with literal and typed sizes.
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Mul, Tensor


class Batch(Dim): ...
class Seq(Dim): ...
class Heads(Dim): ...
class HeadDim(Dim): ...


def literal(x: Tensor[Literal[4], Literal[6]]) -> None:
    a: Tensor[Literal[24]] = x.reshape(24)  # ok
    b: Tensor[Literal[2], Literal[12]] = x.reshape(2, -1)  # ok
    c: Tensor[Literal[3], Literal[8]] = x.view(3, 8)  # ok
    d: Tensor[Literal[24]] = x.flatten()  # ok
    x.reshape(5, 5)  # E: shape-reshape
    x.view(7, -1)  # E: shape-reshape
    x.reshape((2, 2, 2, 4))  # E: shape-reshape
    x.reshape((2, 2, 6))  # ok


def typed(x: Tensor[Batch, Seq, Heads, HeadDim]) -> Tensor[Batch, Seq, Mul[Heads, HeadDim]]:
    b, s, h, d = x.shape
    x.reshape(b, s, h * d)  # ok
    x.reshape(b, h * d)  # E: shape-reshape
    x.view(b, s, -1)  # ok
    x.reshape(s, b, h, d)  # ok
    x.reshape(b, s, h, h)  # E: shape-reshape
    return x.reshape(b, s, h * d)  # ok


def from_shape(x: Tensor[Batch, Seq, Heads]) -> Tensor[Batch, Mul[Seq, Heads]]:
    return x.reshape(x.shape[0], x.shape[1] * x.shape[2])  # ok


def flatten_dims(x: Tensor[Batch, Seq, Heads]) -> Tensor[Batch, Mul[Seq, Heads]]:
    return x.flatten(1)  # ok


def reshape_tuple(x: Tensor[Batch, Seq, Heads]) -> Tensor[Batch, Seq, Heads]:
    y = x.reshape(x.shape[0], -1)  # ok
    return y.reshape(x.shape)  # ok

# Rule family: cat / stack / split / chunk (shape-concat).
from typing import Literal

import typedtensor as tt
from typedtensor import Add, Dim, Mul, Tensor


class A(Dim): ...
class B(Dim): ...
class D(Dim): ...


def valid(x: Tensor[A, D], y: Tensor[B, D], z: Tensor[A, D]) -> None:
    a: Tensor[Add[A, B], D] = tt.cat([x, y])  # ok
    b: Tensor[Add[A, B], D] = tt.cat((x, y), dim=0)  # ok
    c: Tensor[A, Mul[Literal[2], D]] = tt.cat([x, z], dim=1)  # ok
    d: Tensor[Literal[2], A, D] = tt.stack([x, z])  # ok
    e: Tensor[A, Literal[2], D] = tt.stack([x, z], dim=1)  # ok
    f: Tensor[A, D, Literal[2]] = tt.stack([x, z], -1)  # ok
    g: Tensor[Add[A, A, B], D] = tt.cat([x, z, y])  # ok
    h: Tensor[Mul[Literal[3], A], D] = tt.concat([x, x, x], dim=0)  # ok


def invalid(x: Tensor[A, D], y: Tensor[B, D], v: Tensor[D]) -> None:
    tt.cat([x, y], dim=1)  # E: shape-concat
    tt.cat([x, v])  # E: shape-concat
    tt.stack([x, y])  # E: shape-concat
    tt.stack([x, v])  # E: shape-concat
    tt.cat([x, x], dim=2)  # E: shape-axis
    tt.cat([x, y.T], dim=0)  # E: shape-concat


def literal(x: Tensor[Literal[2], Literal[3]], y: Tensor[Literal[4], Literal[3]]) -> None:
    a: Tensor[Literal[6], Literal[3]] = tt.cat([x, y])  # ok
    b: Tensor[Literal[5], Literal[3]] = tt.cat([x, y])  # E: shape-assign


def pieces(x: Tensor[A, Literal[6]]) -> None:
    p, q, r = x.chunk(3, dim=1)  # ok
    a: Tensor[A, Literal[2]] = p  # ok
    s, t = x.split(3, dim=-1)  # ok
    b: Tensor[A, Literal[3]] = t  # ok

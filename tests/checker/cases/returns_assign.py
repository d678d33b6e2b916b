# Rule family: shape-return and shape-assign (names, attributes, tuples).
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class In(Dim): ...
class Out(Dim): ...


def ret_ok(x: Tensor[Batch, In]) -> Tensor[Batch, In]:
    return x  # ok


def ret_bad(x: Tensor[Batch, In]) -> Tensor[In, Batch]:
    return x  # E: shape-return


def ret_transposed(x: Tensor[Batch, In]) -> Tensor[In, Batch]:
    return x.T  # ok


def ret_tuple(x: Tensor[Batch, In], y: Tensor[Batch, Out]) -> tuple[Tensor[Batch, In], Tensor[Batch, Out]]:
    return x, y  # ok


def ret_tuple_bad(x: Tensor[Batch, In], y: Tensor[Batch, Out]) -> tuple[Tensor[Batch, In], Tensor[Batch, Out]]:
    return y, x  # E: shape-return


def ret_rank(x: Tensor[Batch, In]) -> Tensor[Batch]:
    return x  # E: shape-return


def ret_scalar(x: Tensor[Batch, In]) -> Tensor[()]:
    return x.sum()  # ok


def ret_scalar_bad(x: Tensor[Batch, In]) -> Tensor[()]:
    return x.sum(dim=0)  # E: shape-return


def ret_in_branches(x: Tensor[Batch, In], flag: bool) -> Tensor[Batch, In]:
    if flag:
        return x  # ok
    return x.T  # E: shape-return


def ret_unknown(x: Tensor) -> Tensor[Batch, In]:
    return x  # ok


def ret_none(x: Tensor[Batch, In]) -> None:
    return None  # ok


def assign(x: Tensor[Batch, In]) -> None:
    a: Tensor[Batch, In] = x  # ok
    b: Tensor[In, Batch] = x  # E: shape-assign
    a = x.T  # E: shape-assign
    a = x * 2  # ok
    c: Tensor[Batch, Literal[3]] = tt.zeros(x.shape[0], 3)  # ok
    d: Tensor[Batch, Literal[3]] = tt.zeros(x.shape[0], 4)  # E: shape-assign


class Holder:
    w: Tensor[In, Out]

    def __init__(self, w: Tensor[In, Out]) -> None:
        self.w = w  # ok
        self.b: Tensor[Out] = tt.zeros(Out(3))  # ok

    def set(self, x: Tensor[Batch, In]) -> None:
        self.w = x  # E: shape-assign
        self.b = tt.zeros(In(2))  # E: shape-assign

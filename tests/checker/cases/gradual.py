# Gradual typing: unknown shapes, Any, plain int sizes, bare Tensor — never reported (a `cast`, at the
# end, is taken at its word).
from typing import Any

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class In(Dim): ...
class Out(Dim): ...


def bare(x: Tensor, w: Tensor[In, Out]) -> Tensor[Batch, Out]:
    return x @ w  # ok


def any_dim(x: Tensor[Any, In], w: Tensor[In, Out]) -> Tensor[Batch, Out]:
    return x @ w  # ok


def ints(n: int, m: int) -> Tensor:
    a = tt.zeros(n, m)  # ok
    b = tt.ones(m, n)  # ok
    return a @ b  # ok


def from_outside(data) -> Tensor[Batch, In]:
    t = tt.tensor(data)  # ok
    return t  # ok


def unknown_calls(x: Tensor[Batch, In], f) -> None:
    y = f(x)  # ok
    y @ x  # ok
    z = x.some_method_we_do_not_know()  # ok
    z @ x  # ok


def star_shape(x: Tensor[*tuple[Any, ...]], w: Tensor[In, Out]) -> None:
    x @ w  # ok
    x + w  # ok


def lists(xs: list, w: Tensor[In, Out]) -> None:
    for x in xs:
        x @ w  # ok
    tt.cat(xs)  # ok
    tt.stack(xs) @ w  # ok


def mutation(x: Tensor[Batch, In], y: Tensor[Batch, Out]) -> None:
    parts = [x]
    parts.append(y)
    tt.cat(parts, dim=1)  # ok


def numpy_interop(a) -> Tensor[Batch, In]:
    return tt.from_numpy(a)  # ok


def casts(x, w: Tensor[In, Out]) -> Tensor[Batch, Out]:
    from typing import cast

    y = cast(Tensor[Batch, In], x)
    y @ y  # E: shape-matmul
    return y @ w  # ok

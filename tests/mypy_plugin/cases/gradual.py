# Gradual typing: unknown shapes are never errors (bare Tensor, Any dims, plain ints, untyped code).
from typing import Any

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class In(Dim): ...
class Out(Dim): ...


def bare(x: Tensor, w: Tensor[In, Out]) -> Tensor[Batch, Out]:
    reveal_type(x @ w)  # R: Tensor[*tuple[Any, ...]]
    reveal_type(x + w)  # R: Tensor[*tuple[Any, ...]]
    reveal_type(x.sum(dim=5))  # R: Tensor[*tuple[Any, ...]]
    reveal_type(x.reshape(3, -1))  # R: Tensor[Literal[3], Any]
    reveal_type(tt.cat([x, w]))  # R: Tensor[*tuple[Any, ...]]
    return x @ w


def any_dims(x: Tensor[Any, In], w: Tensor[In, Out], y: Tensor[Batch, Any]) -> Tensor[Batch, Out]:
    reveal_type(x @ w)  # R: Tensor[Any, Out]
    reveal_type(y @ w)  # R: Tensor[Batch, Out]
    reveal_type(x + y)  # R: Tensor[Batch, In]
    return x @ w


def plain_ints(n: int, m: int) -> Tensor:
    x = tt.zeros(n, m)
    y = tt.ones(m, n)
    reveal_type(x)  # R: Tensor[Any, Any]
    reveal_type(x @ y)  # R: Tensor[Any, Any]
    return x @ y


def to_named(n: int) -> Tensor[Batch, In]:
    return tt.zeros(n, n)


def variadic_unknown(x: Tensor[Batch, *tuple[Any, ...]], w: Tensor[In, Out]) -> None:
    reveal_type(x @ w)  # R: Tensor[*tuple[Any, ...]]
    reveal_type(x.sum(dim=0))  # R: Tensor[*tuple[Any, ...]]


def from_numpy(a: Any) -> Tensor[Batch, In]:
    return tt.from_numpy(a)


def untyped(x, w):  # type: ignore[no-untyped-def]
    return x @ w


def any_value(x: Any, w: Tensor[In, Out]) -> None:
    reveal_type(x @ w)  # R: Any
    reveal_type(w @ x)  # R: Any

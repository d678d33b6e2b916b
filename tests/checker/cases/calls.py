# Rule family: calls to annotated functions (shape-arg), keywords, defaults, methods, varargs.
from typing import Literal, Optional

import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class In(Dim): ...
class Hidden(Dim): ...


def encode(x: Tensor[Batch, In], scale: float = 1.0) -> Tensor[Batch, Hidden]:
    return tt.randn(x.shape[0], Hidden(8))  # ok


def both(x: Tensor[Batch, In], *, h: Tensor[Batch, Hidden]) -> Tensor[Batch, Hidden]:
    return h  # ok


def maybe(x: Optional[Tensor[Batch, In]] = None) -> None: ...


def many(*xs: Tensor[Batch, In]) -> None: ...


def sized(b: Batch, n: int) -> Tensor[Batch, Literal[3]]:
    return tt.zeros(b, 3)  # ok


class Encoder:
    def encode(self, x: Tensor[Batch, In]) -> Tensor[Batch, Hidden]:
        return encode(x)  # ok

    @staticmethod
    def static(x: Tensor[Batch, In]) -> Tensor[Batch, In]:
        return x  # ok

    @classmethod
    def klass(cls, x: Tensor[Batch, In]) -> Tensor[Batch, In]:
        return x  # ok


def use(x: Tensor[Batch, In], h: Tensor[Batch, Hidden], t: Tensor[In, Batch], e: Encoder) -> None:
    encode(x)  # ok
    encode(x, 2.0)  # ok
    encode(x, scale=0.5)  # ok
    encode(h)  # E: shape-arg
    encode(t, 2.0)  # E: shape-arg
    encode(x=t)  # E: shape-arg
    encode(scale=1.0, x=h)  # E: shape-arg
    both(x, h=h)  # ok
    both(x, h=x)  # E: shape-arg
    both(h, h=h)  # E: shape-arg
    maybe()  # ok
    maybe(x)  # ok
    maybe(h)  # E: shape-arg
    many(x, x)  # ok
    e.encode(x)  # ok
    e.encode(h)  # E: shape-arg
    Encoder().encode(t)  # E: shape-arg
    Encoder.static(h)  # E: shape-arg
    Encoder.klass(h)  # E: shape-arg
    e.static(x)  # ok
    y: Tensor[Batch, Hidden] = e.encode(x)  # ok
    z: Tensor[Batch, In] = e.encode(x)  # E: shape-assign


def results_are_declared(x: Tensor[Batch, In]) -> Tensor[Batch, In]:
    return encode(x)  # E: shape-return


def unknown_args_are_fine(x: Tensor, y, n: int) -> None:
    encode(x)  # ok
    encode(y)  # ok
    sized(n, n)  # ok
    sized(Batch(4), 3)  # ok


def star_args(xs: list[Tensor[Batch, Hidden]]) -> None:
    many(*xs)  # ok (not checked: the count is unknown)


async def fetch(x: Tensor[Batch, In]) -> Tensor[Batch, In]:
    return x  # ok


async def use_async(x: Tensor[Batch, In], h: Tensor[Batch, Hidden]) -> None:
    y = await fetch(x)  # ok
    fetch(h)  # E: shape-arg
    z = fetch(x)
    z @ x  # ok (a coroutine, not a tensor)

# Suppression comments: each form silences the codes it names on its own line.
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class In(Dim): ...
class Out(Dim): ...


def f(x: Tensor[Batch, In], w: Tensor[Out, In]) -> None:
    a = x @ w  # type: ignore[shape-matmul]
    b = x @ w  # type: ignore
    c = x @ w  # typedtensor: ignore[shape-matmul]
    d = x @ w  # typedtensor: ignore
    e = x @ w  # type: ignore[shape]
    g = x @ w  # type: ignore[arg-type, shape-matmul]
    h = x @ w  # type: ignore[shape-broadcast]  # E: shape-matmul
    i = x @ w  # typedtensor: ignore[shape-arg]  # E: shape-matmul
    s = "# type: ignore"; j = x @ w  # E: shape-matmul
    k = x @ w  # noqa  # E: shape-matmul

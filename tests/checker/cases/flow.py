# Inference through code: if/else, loops, comprehensions, with, try, while, walrus, match.
import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim): ...
class In(Dim): ...
class Hidden(Dim): ...
class Out(Dim): ...


def branches_agree(x: Tensor[Batch, In], w: Tensor[In, Hidden], flag: bool) -> Tensor[Batch, Hidden]:
    if flag:
        h = x @ w
    else:
        h = tt.relu(x @ w)
    return h  # ok


def branches_disagree(x: Tensor[Batch, In], w: Tensor[In, Hidden], flag: bool) -> Tensor[Batch, Out]:
    if flag:
        h = x @ w
    else:
        h = x
    return h  # ok (unknown after the join: never an error)


def branch_error(x: Tensor[Batch, In], w: Tensor[In, Hidden], flag: bool) -> None:
    if flag:
        x @ x  # E: shape-matmul
    elif x.shape[0] > 3:
        w @ w  # E: shape-matmul
    else:
        h = x @ w  # ok


def early_return(x: Tensor[Batch, In], w: Tensor[In, Hidden], flag: bool) -> Tensor[Batch, Hidden]:
    if flag:
        y = x
        return y @ w  # ok
    y = x @ w
    return y  # ok


def loop_stable(x: Tensor[Batch, Hidden], w: Tensor[Hidden, Hidden]) -> Tensor[Batch, Hidden]:
    for _ in range(3):
        x = tt.relu(x @ w)  # ok
    return x  # ok


def loop_changes(x: Tensor[Batch, Hidden], w: Tensor[Hidden, Hidden]) -> Tensor[Batch, Hidden]:
    h = x
    for _ in range(3):
        h = tt.cat([h, x], dim=1)  # ok
    return h  # ok (widened: the loop changes it)


def loop_error(xs: list[Tensor[Batch, In]], w: Tensor[Hidden, Out]) -> None:
    for x in xs:
        x @ w  # E: shape-matmul


def loop_over_layers(x: Tensor[Batch, Hidden]) -> Tensor[Batch, Hidden]:
    layers = [nn.Linear(Hidden(8), Hidden(8)) for _ in range(4)]
    for layer in layers:
        x = layer(x)  # ok
    return x  # ok


def loop_over_tensor(x: Tensor[Batch, In], w: Tensor[In, Hidden], v: Tensor[Hidden, Out]) -> None:
    for row in x:
        r: Tensor[In] = row  # ok
        row @ w  # ok
        row @ v  # E: shape-matmul


def while_loop(x: Tensor[Batch, Hidden], w: Tensor[Hidden, Hidden], o: Tensor[Out, Out]) -> None:
    i = 0
    while i < 10:
        x = x @ w  # ok
        x @ o  # E: shape-matmul
        i += 1


def comprehensions(xs: list[Tensor[Batch, In]], w: Tensor[In, Hidden], o: Tensor[Out, Out]) -> None:
    hs = [x @ w for x in xs]  # ok
    bad = [x @ o for x in xs]  # E: shape-matmul
    gen = sum(x.sum() for x in xs)  # ok
    total: Tensor[Batch, Hidden] = hs[0]  # ok
    stacked = tt.stack([h for h in hs])  # ok
    pairs = {i: x @ o for i, x in enumerate(xs)}  # E: shape-matmul


def with_block(x: Tensor[Batch, In], w: Tensor[In, Hidden], o: Tensor[Out, Out]) -> Tensor[Batch, Hidden]:
    with tt.no_grad():
        h = x @ w  # ok
        x @ o  # E: shape-matmul
    return h  # ok


def try_block(x: Tensor[Batch, In], w: Tensor[In, Hidden], o: Tensor[Out, Out]) -> Tensor[Batch, Hidden]:
    try:
        h = x @ w  # ok
    except ValueError:
        x @ o  # E: shape-matmul
        raise
    finally:
        pass
    return h  # ok


def walrus(x: Tensor[Batch, In], w: Tensor[In, Hidden], o: Tensor[Out, Out]) -> None:
    if (h := x @ w) is not None:
        h @ o  # E: shape-matmul


def matching(x: Tensor[Batch, In], w: Tensor[In, Hidden], o: Tensor[Out, Out], cmd: str) -> None:
    match cmd:
        case "a":
            x @ w  # ok
        case "b":
            x @ o  # E: shape-matmul
        case other:
            pass


def nested(x: Tensor[Batch, In], o: Tensor[Out, Out]) -> None:
    def inner(y: Tensor[Batch, In]) -> Tensor[Batch, In]:
        x @ o  # E: shape-matmul
        return y  # ok

    inner(x)  # ok
    inner(x.T)  # E: shape-arg
    f = lambda z: z @ o  # ok


def conditional_expr(x: Tensor[Batch, In], flag: bool) -> Tensor[Batch, In]:
    return x if flag else x * 2  # ok


def tuple_unpack(x: Tensor[Batch, In], y: Tensor[Batch, Out]) -> Tensor[Batch, Out]:
    a, b = x, y
    c, *rest = (x, y, y)
    return b  # ok


def swap_unpack(x: Tensor[Batch, In], y: Tensor[Batch, Out]) -> Tensor[Batch, Out]:
    x, y = y, x  # ok (a parameter's annotation describes the argument; NOTE [ Re-binding ])
    return x  # ok (x holds y's [Batch, Out] here)

# Rule family: the collectives of typedtensor.distributed whose shapes relate. World is the number
# of ranks, a dim the program declares: gathering Tensor[Batch, D] gives Tensor[Mul[World, Batch], D].
from typing import Literal

import typedtensor as tt
import typedtensor.distributed as dist
from typedtensor import Dim, Mul, Tensor


class Batch(Dim): ...
class D(Dim): ...
class World(Dim): ...


def gather(x: Tensor[Batch, D], out: Tensor[Mul[World, Batch], D], stacked: Tensor[World, Batch, D],
           forgot_world: Tensor[Batch, D], wrong_rest: Tensor[Mul[World, Batch], Batch],
           flat: Tensor[Mul[World, Batch]]) -> None:
    dist.all_gather_into_tensor(out, x)  # ok
    dist.all_gather_into_tensor(stacked, x)  # ok
    dist.all_gather_into_tensor(output_tensor=out, input_tensor=x, async_op=True)  # ok
    dist.all_gather_into_tensor(forgot_world, x)  # E: shape-arg
    dist.all_gather_into_tensor(wrong_rest, x)  # E: shape-arg
    dist.all_gather_into_tensor(flat, x)  # E: shape-rank


def gather_literal(x: Tensor[Literal[4], D], two: Tensor[Literal[8], D], six: Tensor[Literal[6], D]) -> None:
    dist.all_gather_into_tensor(two, x)  # ok
    dist.all_gather_into_tensor(six, x)  # E: shape-arg


def scatter(whole: Tensor[Mul[World, Batch], D], share: Tensor[Batch, D], wrong: Tensor[Batch, Batch]) -> None:
    dist.reduce_scatter_tensor(share, whole)  # ok
    dist.reduce_scatter_tensor(share, whole, op=dist.ReduceOp.AVG)  # ok
    dist.reduce_scatter_tensor(share, share)  # E: shape-arg
    dist.reduce_scatter_tensor(wrong, whole)  # E: shape-arg


def in_place(x: Tensor[Batch, D]) -> None:
    dist.all_reduce(x)  # ok
    dist.broadcast(x, src=0)  # ok
    y: Tensor[Batch, D] = x * 2  # ok
    work = dist.all_gather_into_tensor(tt.zeros(8, 3), tt.zeros(4, 3), async_op=True)  # ok
    if work is not None:
        work.wait()

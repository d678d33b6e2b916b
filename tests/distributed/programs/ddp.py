"""DistributedDataParallel on this world, checked on every rank; prints one JSON line per rank.

The reference is single-process training on the full batch (computed on every rank, locally): DDP
on W ranks, each with 1/W of the batch, must end with the same parameters."""

from __future__ import annotations

import json
import os
import traceback
from collections.abc import Callable

import numpy as np

import typedtensor as tt
import typedtensor.distributed as dist
from typedtensor import nn
from typedtensor.data import DistributedSampler
from typedtensor.nn.parallel import DistributedDataParallel as DDP


def report(result: dict[str, object]) -> None:
    """This rank's result as JSON: a file in TT_RESULTS_DIR (the tests), else a line on stdout."""
    folder = os.environ.get("TT_RESULTS_DIR")
    if folder:
        with open(os.path.join(folder, f"rank{result['rank']}.json"), "w") as f:
            json.dump(result, f)
    else:
        print(json.dumps(result), flush=True)


dist.init_process_group("mpi")
R, W = dist.get_rank(), dist.get_world_size()
results: dict[str, str] = {}
checks: list[Callable[[], None]] = []


def check(fn: Callable[[], None]) -> Callable[[], None]:
    checks.append(fn)
    return fn


class Net(nn.Module):
    def __init__(self, unused: bool = False) -> None:
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.fc2 = nn.Linear(16, 16)
        self.out = nn.Linear(16, 3)
        self.spare = nn.Linear(16, 3) if unused else None
        self.register_buffer("calls", tt.zeros(1))

    def forward(self, x: tt.Tensor, use_spare: bool = False) -> tt.Tensor:
        h = tt.relu(self.fc2(tt.relu(self.fc1(x))))
        return (self.spare if use_spare and self.spare is not None else self.out)(h)


def data(step: int, batch: int = 8) -> tuple[tt.Tensor, tt.Tensor]:
    rng = np.random.default_rng(100 + step)
    return tt.tensor(rng.standard_normal((batch, 6)).astype(np.float32)), tt.tensor(rng.integers(0, 3, batch))


def shard(t: tt.Tensor) -> tt.Tensor:
    n = t.shape[0] // W
    return t[R * n : (R + 1) * n]


def params(m: nn.Module) -> dict[str, np.ndarray]:
    return {k: v.detach().numpy().copy() for k, v in m.named_parameters()}


def assert_params_close(a: dict[str, np.ndarray], b: dict[str, np.ndarray], rtol: float = 1e-5) -> None:
    assert a.keys() == b.keys()
    for k in a:
        scale = max(float(np.abs(b[k]).max()), 1e-6)
        err = float(np.abs(a[k] - b[k]).max()) / scale
        assert err <= rtol, f"{k}: relative difference {err:.3g}"


def train(model: nn.Module, steps: int, sharded: bool, use_spare_on: set[int] = frozenset()) -> None:
    opt = tt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for step in range(steps):
        x, y = data(step)
        if sharded:
            x, y = shard(x), shard(y)
        opt.zero_grad()
        nn.functional.cross_entropy(model(x, use_spare=step in use_spare_on), y).backward()
        opt.step()


@check
def parameters_broadcast_from_rank0() -> None:
    tt.manual_seed(R)  # different on every rank before DDP
    ddp = DDP(Net())
    tt.manual_seed(0)
    ref = Net()
    assert_params_close(params(ddp.module), params(ref), rtol=0)


@check
def training_equals_single_process_full_batch() -> None:
    tt.manual_seed(0)
    ref = Net()
    train(ref, 6, sharded=False)
    tt.manual_seed(R)
    ddp = DDP(Net(), bucket_cap_mb=0.0002)  # ~200 bytes: three buckets
    assert len(ddp._buckets) > 2
    train(ddp, 6, sharded=True)
    assert_params_close(params(ddp.module), params(ref))


@check
def the_reduction_adds_no_rounding_of_its_own() -> None:
    """DDP (several buckets, AdamW) against one process that sums the W shares' losses / W into
    .grad: the same arithmetic as DDP's (each gradient scaled by 1/W, then summed), so on two ranks
    (where the sum has one order) the parameters are bitwise equal: the bucket flattening, the
    scaling and the reduction add nothing. With more ranks MPI's order of summation may differ."""
    def run(model: nn.Module, shares: bool) -> None:
        opt = tt.optim.AdamW(model.parameters(), lr=1e-2)
        for step in range(4):
            x, y = data(step)
            opt.zero_grad()
            if shares:
                for r in range(W):
                    n = x.shape[0] // W
                    (nn.functional.cross_entropy(model(x[r * n : (r + 1) * n]), y[r * n : (r + 1) * n]) / W).backward()
            else:
                nn.functional.cross_entropy(model(shard(x)), shard(y)).backward()
            opt.step()

    tt.manual_seed(0)
    ref = Net()
    run(ref, shares=True)
    tt.manual_seed(0)
    ddp = DDP(Net(), bucket_cap_mb=0.0002)
    assert len(ddp._buckets) > 2
    run(ddp, shares=False)
    assert_params_close(params(ddp.module), params(ref), rtol=0 if W == 2 else 1e-6)


@check
def buckets_start_while_the_backward_runs() -> None:
    tt.manual_seed(0)
    ddp = DDP(Net(), bucket_cap_mb=0.0002)
    started: list[int] = []
    # fc1.weight gets its gradient last; by then the buckets of the later layers are in flight
    ddp.module.fc1.weight.register_hook(lambda g: started.append(ddp._next_bucket))
    x, y = data(0)
    nn.functional.cross_entropy(ddp(shard(x)), shard(y)).backward()
    assert started and 0 < started[0] < len(ddp._buckets), (started, len(ddp._buckets))
    assert ddp._buckets[0].work is not None and ddp._buckets[0].work.is_completed()


@check
def gradients_are_averaged_when_backward_returns() -> None:
    tt.manual_seed(0)
    ddp = DDP(Net())
    x, y = data(0)
    nn.functional.cross_entropy(ddp(shard(x)), shard(y)).backward()
    tt.manual_seed(0)
    ref = Net()
    nn.functional.cross_entropy(ref(x), y).backward()
    for (n, p), (_, q) in zip(ddp.module.named_parameters(), ref.named_parameters(), strict=True):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-7, err_msg=n)


@check
def no_sync_accumulates_locally_then_reduces() -> None:
    tt.manual_seed(0)
    ddp = DDP(Net())
    x, y = data(1)
    with ddp.no_sync():
        nn.functional.cross_entropy(ddp(shard(x)), shard(y)).backward()
    local = {n: p.grad.numpy().copy() for n, p in ddp.module.named_parameters()}
    tt.manual_seed(0)
    alone = Net()
    nn.functional.cross_entropy(alone(shard(x)), shard(y)).backward()
    for n, p in alone.named_parameters():
        np.testing.assert_allclose(local[n], p.grad.numpy(), rtol=1e-6, err_msg=n)  # not reduced
    nn.functional.cross_entropy(ddp(shard(x)), shard(y)).backward()
    tt.manual_seed(0)
    ref = Net()
    (2 * nn.functional.cross_entropy(ref(x), y)).backward()
    for (n, p), (_, q) in zip(ddp.module.named_parameters(), ref.named_parameters(), strict=True):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-7, err_msg=n)


@check
def find_unused_parameters() -> None:
    tt.manual_seed(0)
    ddp = DDP(Net(unused=True), find_unused_parameters=True)
    x, y = data(2)
    nn.functional.cross_entropy(ddp(shard(x)), shard(y)).backward()
    assert ddp.module.spare.weight.grad is None  # no rank used it
    assert ddp.module.out.weight.grad is not None
    ddp.zero_grad()
    # rank 0 alone uses the spare head: every rank gets its averaged gradient
    nn.functional.cross_entropy(ddp(shard(x), use_spare=R == 0), shard(y)).backward()
    g = ddp.module.spare.weight.grad
    assert g is not None
    tt.manual_seed(0)
    ref = Net(unused=True)
    n = x.shape[0] // W  # rank 0's rows: the only gradient of the spare head, averaged over W ranks
    nn.functional.cross_entropy(ref(x[:n], use_spare=True), y[:n]).backward()
    np.testing.assert_allclose(g.numpy(), ref.spare.weight.grad.numpy() / W, rtol=1e-5, atol=1e-8)
    everyone = [tt.zeros(*g.shape) for _ in range(W)]
    dist.all_gather(everyone, g)
    for other in everyone:
        np.testing.assert_array_equal(other.numpy(), g.numpy())


@check
def an_unused_parameter_without_find_unused_is_torchs_error() -> None:
    tt.manual_seed(0)
    ddp = DDP(Net(unused=True))
    x, y = data(3)
    nn.functional.cross_entropy(ddp(shard(x)), shard(y)).backward()
    try:
        ddp(shard(x))
    except RuntimeError as e:
        assert "Expected to have finished reduction" in str(e) and "spare.weight" in str(e), str(e)
    else:
        raise AssertionError("no error")


@check
def state_dict_has_torchs_module_prefix() -> None:
    ddp = DDP(Net())
    keys = list(ddp.state_dict())
    assert keys == ["module." + k for k in ddp.module.state_dict()], keys
    assert ddp.module.state_dict().keys() == Net().state_dict().keys()


@check
def mismatched_parameter_shapes_name_the_parameter() -> None:
    class Odd(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 5 + (R == W - 1))

    try:
        DDP(Odd())
    except ValueError as e:
        assert "'fc.weight'" in str(e) and "dim 0" in str(e), str(e)
    else:
        raise AssertionError("no error")


@check
def distributed_sampler_splits_the_dataset() -> None:
    s = DistributedSampler(list(range(10)), shuffle=True, seed=3)
    assert s.num_replicas == W and s.rank == R
    s.set_epoch(2)
    mine = list(s)
    everyone: list[object] = [None] * W
    dist.all_gather_object(everyone, mine)
    flat = [i for part in everyone for i in part]  # type: ignore[union-attr]
    assert set(flat) == set(range(10)) and len(flat) == s.total_size


for fn in checks:
    try:
        fn()
        results[fn.__name__] = "ok"
    except Exception:
        results[fn.__name__] = traceback.format_exc()
report({"rank": R, "world": W, "results": results})
dist.destroy_process_group()

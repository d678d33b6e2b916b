"""The nccl backend on CUDA tensors (one GPU per rank), checked against numpy; one JSON line per rank."""

from __future__ import annotations

import json
import os
import traceback

import numpy as np

import typedtensor as tt
import typedtensor.distributed as dist
from typedtensor import nn
from typedtensor.nn.parallel import DistributedDataParallel as DDP


def report(result: dict[str, object]) -> None:
    """This rank's result as JSON: a file in TT_RESULTS_DIR (the tests), else a line on stdout."""
    folder = os.environ.get("TT_RESULTS_DIR")
    if folder:
        with open(os.path.join(folder, f"rank{result['rank']}.json"), "w") as f:
            json.dump(result, f)
    else:
        print(json.dumps(result), flush=True)


dist.init_process_group("nccl")
R, W = dist.get_rank(), dist.get_world_size()
results: dict[str, str] = {}


def value(rank: int) -> np.ndarray:
    return (np.arange(12, dtype=np.float32).reshape(3, 4) + rank) * (rank + 1)


def run() -> None:
    t = tt.tensor(value(R)).cuda()
    dist.all_reduce(t)
    np.testing.assert_allclose(t.cpu().numpy(), sum(value(r) for r in range(W)), rtol=1e-6)
    t = tt.tensor(value(R)).cuda()
    w = dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=True)
    assert w is not None and w.wait()
    np.testing.assert_allclose(t.cpu().numpy(), np.mean([value(r) for r in range(W)], axis=0), rtol=1e-6)
    b = tt.tensor(value(R)).cuda()
    dist.broadcast(b, src=0)
    np.testing.assert_array_equal(b.cpu().numpy(), value(0))
    out = tt.zeros(W * 3, 4).cuda()
    dist.all_gather_into_tensor(out, tt.tensor(value(R)).cuda())
    np.testing.assert_array_equal(out.cpu().numpy(), np.concatenate([value(r) for r in range(W)]))
    share = tt.zeros(3, 4).cuda()
    dist.reduce_scatter_tensor(share, tt.tensor(np.concatenate([value(R)] * W)).cuda())
    np.testing.assert_allclose(share.cpu().numpy(), sum(value(r) for r in range(W)), rtol=1e-6)
    cpu = tt.tensor(value(R))  # CPU tensors on an nccl group still go through MPI
    dist.all_reduce(cpu)
    np.testing.assert_allclose(cpu.numpy(), sum(value(r) for r in range(W)), rtol=1e-6)
    tt.manual_seed(0)
    model = nn.Linear(4, 2).cuda()
    ddp = DDP(model)
    x = tt.tensor(value(R)).cuda()
    ddp(x).sum().backward()
    assert model.weight.grad is not None and model.weight.grad.is_cuda


try:
    run()
    results["nccl"] = "ok"
except Exception:
    results["nccl"] = traceback.format_exc()
report({"rank": R, "world": W, "results": results})
dist.destroy_process_group()

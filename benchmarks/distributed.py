"""Distributed data-parallel training: equality with one process, all_reduce bandwidth, DDP step time.

Run on 2 processes with MPI's launcher (1 thread per process):

    mpiexec -n 2 python benchmarks/distributed.py equivalence --model mlp --steps 20
    mpiexec -n 2 python benchmarks/distributed.py equivalence --model char --steps 20
    mpiexec -n 2 python benchmarks/distributed.py bandwidth
    mpiexec -n 2 python benchmarks/distributed.py step

- equivalence: the model of examples/mlp_digits.py (dropout off, so both runs see the same
  function) or examples/char_transformer.py trained with DDP, each rank on half of every batch,
  against the same model trained in one process on the full batch (computed on rank 0 alongside);
  prints the largest relative difference of any parameter after the last step.
- bandwidth: ``typedtensor.distributed.all_reduce`` (SUM, float32) against mpi4py's own
  ``Allreduce`` on numpy buffers, 1 MB to 256 MB, interleaved; the medians' ratio.
- step: one DDP training step of the digits MLP (batch 64, 32 per rank) against torch's DDP over
  gloo in the same processes, interleaved; the medians' ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import typedtensor as tt
import typedtensor.distributed as dist
from typedtensor import nn
from typedtensor.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))


def _relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / max(float(np.abs(b).max()), 1e-12))


def _mlp() -> tuple[Any, Any, Any]:
    import mlp_digits as ex

    model = ex.MLP(ex.Pixels(64), ex.Hidden(256), ex.Classes(10), dropout=0.0)
    x, y, _, _ = ex.load(0)
    order = np.random.default_rng(0).permutation(x.shape[0])

    def batch(step: int) -> tuple[Any, Any]:
        idx = tt.tensor(order[(step * 64) % (len(order) - 64) :][:64])
        return x[idx], y[idx]

    def loss(m: Any, xb: Any, yb: Any) -> Any:
        return nn.functional.cross_entropy(m(xb), yb, label_smoothing=0.05)

    return model, (lambda m: tt.optim.AdamW(m.parameters(), lr=3e-3, weight_decay=1e-4)), (batch, loss)


def _char() -> tuple[Any, Any, Any]:
    import char_transformer as ex

    text = ex.corpus()
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    data = np.array([index[c] for c in text], dtype=np.int64)
    model = ex.CharLM(ex.Vocab(len(chars)), ex.Model(64), ex.Hidden(256), ex.Seq(64), layers=2, heads=4)

    def batch(step: int) -> tuple[Any, Any]:
        return ex.batch(data, 32, 64, np.random.default_rng(1000 + step))

    def loss(m: Any, xb: Any, yb: Any) -> Any:
        return nn.functional.cross_entropy(m(xb).flatten(0, 1), yb.flatten())

    return model, (lambda m: tt.optim.AdamW(m.parameters(), lr=2e-3, weight_decay=0.01)), (batch, loss)


def equivalence(model_name: str, steps: int) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    make = _mlp if model_name == "mlp" else _char
    tt.manual_seed(0)
    model, make_opt, (batch, loss) = make()
    ref_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    ddp = DDP(model)
    opt = make_opt(ddp)
    for step in range(steps):
        xb, yb = batch(step)
        n = xb.shape[0] // world
        opt.zero_grad()
        loss(ddp, xb[rank * n : (rank + 1) * n], yb[rank * n : (rank + 1) * n]).backward()
        opt.step()
    if rank != 0:
        return
    tt.manual_seed(0)
    ref, _, _ = make()
    ref.load_state_dict(ref_state)
    ropt = make_opt(ref)
    for step in range(steps):
        xb, yb = batch(step)
        ropt.zero_grad()
        loss(ref, xb, yb).backward()
        ropt.step()
    worst = max(
        (_relative(p.detach().numpy(), q.detach().numpy()), name)
        for (name, p), (_, q) in zip(model.named_parameters(), ref.named_parameters(), strict=True)
    )
    count = sum(p.numel() for p in model.parameters())
    print(f"equivalence {model_name}: {count} parameters, {steps} steps, {world} ranks x batch/{world} vs 1 process: "
          f"largest relative parameter difference {worst[0]:.3g} ({worst[1]})")


def _median_time(fn: Any, reps: int) -> float:
    times = []
    for _ in range(reps):
        dist.barrier()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bandwidth(reps: int) -> None:
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank = dist.get_rank()
    if rank == 0:
        print(f"{'MB':>5} {'typedtensor ms':>15} {'mpi4py ms':>10} {'ratio (mpi4py/ours)':>20}")
    for mb in (1, 4, 16, 64, 256):
        n = mb * 1024 * 1024 // 4
        ours = tt.ones(n)
        theirs = np.ones(n, dtype=np.float32)
        t_ours: list[float] = []
        t_theirs: list[float] = []
        for _ in range(reps):  # interleaved
            t_ours.append(_median_time(lambda: dist.all_reduce(ours), 1))
            t_theirs.append(_median_time(lambda: comm.Allreduce(MPI.IN_PLACE, theirs, MPI.SUM), 1))
        a, b = statistics.median(t_ours), statistics.median(t_theirs)
        if rank == 0:
            print(f"{mb:>5} {a * 1e3:>15.2f} {b * 1e3:>10.2f} {b / a:>20.3f}")


def step_time(reps: int) -> None:
    import mlp_digits as ex
    import torch
    import torch.distributed as tdist

    rank, world = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(1)
    tt.set_num_threads(1)
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29731")
    tdist.init_process_group("gloo", rank=rank, world_size=world)
    tt.manual_seed(0)
    ours = DDP(ex.MLP(ex.Pixels(64), ex.Hidden(256), ex.Classes(10), dropout=0.0))
    opt = tt.optim.AdamW(ours.parameters(), lr=3e-3)
    torch.manual_seed(0)
    tmodel = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                 torch.nn.Linear(256, 10))
    theirs = torch.nn.parallel.DistributedDataParallel(tmodel)
    topt = torch.optim.AdamW(theirs.parameters(), lr=3e-3)
    rng = np.random.default_rng(rank)
    xn = rng.random((32, 64), dtype=np.float32)
    yn = rng.integers(0, 10, 32)
    x, y = tt.tensor(xn), tt.tensor(yn)
    tx, ty = torch.tensor(xn), torch.tensor(yn)

    def ours_step() -> None:
        opt.zero_grad()
        nn.functional.cross_entropy(ours(x), y).backward()
        opt.step()

    def torch_step() -> None:
        topt.zero_grad()
        torch.nn.functional.cross_entropy(theirs(tx), ty).backward()
        topt.step()

    for _ in range(5):
        ours_step()
        torch_step()
    a: list[float] = []
    b: list[float] = []
    for _ in range(reps):
        a.append(_median_time(ours_step, 10))
        b.append(_median_time(torch_step, 10))
    if rank == 0:
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"DDP step, digits MLP, {world} ranks x 32 rows, 1 thread each: typedtensor {ma * 1e3:.3f} ms, "
              f"torch (gloo) {mb * 1e3:.3f} ms, ratio torch/ours {mb / ma:.3f}")
    tdist.destroy_process_group()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["equivalence", "bandwidth", "step"])
    p.add_argument("--model", choices=["mlp", "char"], default="mlp")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--reps", type=int, default=9)
    args = p.parse_args()
    tt.set_num_threads(1)
    dist.init_process_group("mpi")
    if args.what == "equivalence":
        equivalence(args.model, args.steps)
    elif args.what == "bandwidth":
        bandwidth(args.reps)
    else:
        step_time(args.reps)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

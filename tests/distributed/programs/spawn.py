"""torch's single-machine recipe: ``mp.spawn`` starts the ranks, each joins the group with an explicit
``rank``/``world_size`` and a ``tcp://`` init_method, trains a step under DDP, and rank 0 saves the
plain module's state for the others to load after a barrier.

    python spawn.py WORLD [ok | ok-join-later | raise-after-init | raise-before-init | exit-after-init | queue-arg]
"""

import json
import os
import sys
import tempfile

import typedtensor as tt
import typedtensor.distributed as dist
import typedtensor.multiprocessing as mp
from typedtensor import nn
from typedtensor.nn.parallel import DistributedDataParallel as DDP


def train(rank: int, world: int, mode: str, folder: str, queue: object = None) -> None:
    if mode == "raise-before-init" and rank == 1:
        raise ValueError("rank 1 failed before joining")
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:29733", rank=rank, world_size=world)
    if mode == "raise-after-init" and rank == 1:
        raise ValueError("rank 1 failed after joining")
    if mode == "exit-after-init" and rank == 1:
        sys.exit(3)
    tt.manual_seed(rank)  # different initial weights: DDP must broadcast rank 0's
    model = nn.Linear(4, 2)
    ddp = DDP(model, device_ids=None)
    opt = tt.optim.SGD(ddp.parameters(), lr=0.1)
    x = tt.arange(8.0).reshape(2, 4) + rank
    ddp(x).sum().backward()
    opt.step()
    path = os.path.join(folder, "checkpoint.pt")
    if rank == 0:
        tt.save(ddp.module.state_dict(), path)
    dist.barrier()
    loaded = tt.load(path)
    result = {"rank": dist.get_rank(), "world": dist.get_world_size(), "weight": model.weight.tolist(),
              "loaded": loaded["weight"].tolist(), "keys": sorted(ddp.state_dict())}
    with open(os.path.join(os.environ["TT_RESULTS_DIR"], f"rank{rank}.json"), "w") as f:
        json.dump(result, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    world, mode = int(sys.argv[1]), sys.argv[2]
    with tempfile.TemporaryDirectory() as folder:
        if mode == "ok-join-later":
            context = mp.spawn(train, args=(world, mode, folder), nprocs=world, join=False)
            assert context is not None
            while not context.join(timeout=0.5):
                pass
        elif mode == "queue-arg":  # a Queue passes only down a spawn pipe: not through MPI's launcher
            mp.spawn(train, args=(world, mode, folder, mp.get_context("spawn").SimpleQueue()), nprocs=world)
        else:
            mp.spawn(train, args=(world, mode, folder), nprocs=world, join=True)
    print("spawn returned", flush=True)

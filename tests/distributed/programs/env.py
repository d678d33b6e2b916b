"""Reports what a rank sees of torchrun's environment and of the process group, as JSON."""

import json
import os
import sys

import typedtensor.distributed as dist


def report(result: dict[str, object]) -> None:
    """This rank's result as JSON: a file in TT_RESULTS_DIR (the tests), else a line on stdout."""
    folder = os.environ.get("TT_RESULTS_DIR")
    if folder:
        with open(os.path.join(folder, f"rank{result['rank']}.json"), "w") as f:
            json.dump(result, f)
    else:
        print(json.dumps(result), flush=True)


names = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID")
before = {k: os.environ.get(k) for k in names}  # what a torch program reads before init_process_group
dist.init_process_group(os.environ.get("TT_TEST_BACKEND", "mpi"))
report({"rank": dist.get_rank(), "world": dist.get_world_size(), "argv": sys.argv[1:], "before": before,
        "env": {k: os.environ.get(k) for k in names}, "elastic": dist.is_torchelastic_launched(),
        "backend": dist.get_backend()})
dist.destroy_process_group()

"""Prints what a rank sees of torchrun's environment and of the process group, as JSON."""

import json
import os
import sys

import typedtensor.distributed as dist

dist.init_process_group(os.environ.get("TT_TEST_BACKEND", "mpi"))
names = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID")
print(json.dumps({"rank": dist.get_rank(), "world": dist.get_world_size(), "argv": sys.argv[1:],
                  "env": {k: os.environ.get(k) for k in names}, "elastic": dist.is_torchelastic_launched()}), flush=True)
dist.destroy_process_group()

"""Rank 1 calls sys.exit(2) while the other ranks wait in a collective: under the launcher the job
ends at once (without it, the group's timeout ends it)."""

import sys

import typedtensor as tt
import typedtensor.distributed as dist

dist.init_process_group("mpi")
if dist.get_rank() == 1:
    sys.exit(2)
dist.all_reduce(tt.ones(4))
print("unreachable: the all_reduce completed", flush=True)

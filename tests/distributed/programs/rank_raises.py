"""Rank 1 raises while the other ranks wait in a collective: the job must end, not hang."""

import typedtensor as tt
import typedtensor.distributed as dist

dist.init_process_group("mpi")
if dist.get_rank() == 1:
    raise ValueError("rank 1 failed on purpose")
dist.all_reduce(tt.ones(4))
print("unreachable: the all_reduce completed", flush=True)

"""Rank 1 raises while the other ranks wait in a collective: the job must end, not hang.
TT_TEST_LINES makes the error's message that many lines longer (what a rank wrote just before the
abort must still reach the launcher's output)."""

import os

import typedtensor as tt
import typedtensor.distributed as dist

dist.init_process_group("mpi")
if dist.get_rank() == 1:
    lines = int(os.environ.get("TT_TEST_LINES", "0"))
    detail = "".join(f"\n  detail line {i} of the failure" for i in range(lines))
    raise ValueError(f"rank 1 failed on purpose{detail}\nthe end of the message")
dist.all_reduce(tt.ones(4))
print("unreachable: the all_reduce completed", flush=True)
